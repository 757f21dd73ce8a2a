#!/usr/bin/env bash
# The browser check of report.html: runs the sample job, renders its report in headless
# Chromium (screenshot, DOM, PDF through the print stylesheet) and fails, with one line saying
# why, when the page does not render, when the numbers of the run's summary.csv and
# comparisons.csv are not in the DOM as the report formats them, or when the screenshot is
# missing or blank. It renders the page again as a phone shows it, 390 CSS pixels wide
# (screenshot report-390.png), and at 768, 1024, 1280, 1366, 1440 and 1920 px, and fails when
# the page or anything in it scrolls sideways or anything is cut at an edge at any of them, when
# chart text is drawn under 9 px on the phone, when the phone page is more than half as high as it
# was before issue 41, or when the first 1280 × 800 px do not hold every treatment's status, lift (a period test's far ends too),
# worth and decision date, or an offering's box there is green while a treatment is undecided
# (check-report.py). Installs chromium (Debian package) when it is missing.
#
# SWIFT_SCRATCH_PATH=DIR builds in DIR instead of .build. Outputs: out/report-check/.
set -euo pipefail
cd "$(dirname "$0")/.."

fail() { echo "check-report: FAIL: $*" >&2; exit 1; }

sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
install() {
  echo "check-report: installing $*" >&2
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "$@" >/dev/null || fail "cannot install $* with apt-get"
}
command -v chromium >/dev/null || install chromium
command -v python3 >/dev/null || install python3
scripts/install-deps.sh

night=2026-03-15
folder=out/sample/$night
checks=out/report-check
rm -rf "$checks"
mkdir -p "$checks"

build=(--product offerlab)
[ -n "${SWIFT_SCRATCH_PATH:-}" ] && build+=(--scratch-path "$SWIFT_SCRATCH_PATH")
swift build "${build[@]}" >"$checks/build.log" 2>&1 || { tail -n 30 "$checks/build.log" >&2; fail "swift build failed"; }
binary="$(swift build "${build[@]}" --show-bin-path 2>/dev/null)/offerlab"

"$binary" run jobs/sample.yaml --quiet >/dev/null || fail "offerlab run jobs/sample.yaml failed"
[ -s "$folder/report.html" ] || fail "$folder/report.html was not written"

url="file://$PWD/$folder/report.html"
chrome=(timeout 120 chromium --headless --no-sandbox --disable-gpu --hide-scrollbars --no-first-run --window-size=1280,2400)
"${chrome[@]}" --screenshot="$checks/report.png" "$url" 2>"$checks/chromium.log" \
  || fail "chromium could not take a screenshot (see $checks/chromium.log)"
"${chrome[@]}" --dump-dom "$url" >"$checks/dom.html" 2>>"$checks/chromium.log" \
  || fail "chromium could not load the page (see $checks/chromium.log)"
"${chrome[@]}" --no-pdf-header-footer --print-to-pdf="$checks/report.pdf" "$url" 2>>"$checks/chromium.log" \
  || fail "chromium could not print the page (see $checks/chromium.log)"

# Headless Chromium's window is at least 500 px wide: the phone page shows the report in a
# frame 390 px wide, grown to the report's height once laid out (hence the time budget).
python3 scripts/check-report.py --phone-page "$folder/report.html" >"$checks/phone.html" || fail "cannot make the phone page"
phone=(timeout 120 chromium --headless --no-sandbox --disable-gpu --hide-scrollbars --no-first-run --window-size=500,20000 --virtual-time-budget=5000)
"${phone[@]}" --screenshot="$checks/report-390.png" "file://$PWD/$checks/phone.html" 2>>"$checks/chromium.log" \
  || fail "chromium could not take the phone screenshot (see $checks/chromium.log)"
"${phone[@]}" --dump-dom "file://$PWD/$checks/phone.html" >"$checks/phone-dom.html" 2>>"$checks/chromium.log" \
  || fail "chromium could not load the phone page (see $checks/chromium.log)"

# Every width a reader may have, one frame each, measured in one page (no screenshot).
python3 scripts/check-report.py --phone-page "$folder/report.html" 390,768,1024,1280,1366,1440,1920 >"$checks/widths.html" || fail "cannot make the widths page"
"${phone[@]}" --dump-dom "file://$PWD/$checks/widths.html" >"$checks/widths-dom.html" 2>>"$checks/chromium.log" \
  || fail "chromium could not load the widths page (see $checks/chromium.log)"

python3 scripts/check-report.py --folder "$folder" --database out/sample/results.sqlite --dom "$checks/dom.html" --screenshot "$checks/report.png" --pdf "$checks/report.pdf" \
  --phone-dom "$checks/phone-dom.html" --phone-screenshot "$checks/report-390.png" --widths-dom "$checks/widths-dom.html" \
  || fail "see the lines above"
echo "check-report: ok ($folder/report.html; screenshots $checks/report.png and, at 390 px, $checks/report-390.png)"
