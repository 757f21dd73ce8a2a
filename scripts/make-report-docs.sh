#!/usr/bin/env bash
# Makes docs/report-example.png and the sample night's numbers in docs/report.md from the sample
# night itself, so that neither can drift from it: builds offerlab (release), runs
# jobs/sample.yaml into a temporary folder, takes the first screen of its report.html (1280 × 800
# CSS px, headless Chromium) as docs/report-example.png, and rewrites docs/report.md's blocks
# between `<!-- sample:NAME:begin -->` and `<!-- sample:NAME:end -->` from the night's CSV files and
# report.html (scripts/make-report-docs.py). Works on whatever sample-data/ and jobs/sample.yaml
# hold; run it again after changing either, and commit what it changes.
#
# SWIFT_SCRATCH_PATH=DIR builds in DIR instead of .build. Needs chromium (scripts/check-report.sh
# installs it).
set -euo pipefail
cd "$(dirname "$0")/.."

fail() { echo "make-report-docs: FAIL: $*" >&2; exit 1; }

command -v chromium >/dev/null || fail "chromium is missing: scripts/check-report.sh installs it"
scripts/install-deps.sh

build=(-c release --product offerlab)
[ -n "${SWIFT_SCRATCH_PATH:-}" ] && build+=(--scratch-path "$SWIFT_SCRATCH_PATH")
swift build "${build[@]}" >&2 || fail "swift build failed"
binary="$(swift build "${build[@]}" --show-bin-path 2>/dev/null)/offerlab"

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
"$binary" run jobs/sample.yaml --quiet --output "$work/out" --database "$work/results.sqlite" >/dev/null \
  || fail "offerlab run jobs/sample.yaml failed"
# The night's folder is named by its as_of date, whatever the sample's dates are.
nights=("$work"/out/????-??-??)
[ "${#nights[@]}" -eq 1 ] && [ -s "${nights[0]}/report.html" ] || fail "the sample run wrote no single night with a report.html"
night="${nights[0]}"

timeout 120 chromium --headless --no-sandbox --disable-gpu --hide-scrollbars --no-first-run --window-size=1280,800 \
  --screenshot="$work/first-screen.png" "file://$night/report.html" 2>"$work/chromium.log" \
  || fail "chromium could not take the screenshot: $(tail -n 3 "$work/chromium.log")"
[ -s "$work/first-screen.png" ] || fail "chromium wrote no screenshot"
cp "$work/first-screen.png" docs/report-example.png

python3 scripts/make-report-docs.py "$night" "$work/results.sqlite" docs/report.md || fail "cannot rewrite docs/report.md"
echo "make-report-docs: docs/report-example.png and docs/report.md from the sample night $(basename "$night")"
