#!/usr/bin/env bash
# The projection's calibration study (docs/projection-calibration.md): simulate every setting with
# simulate.py, run `offerlab run` on it as of day 30 and day 60, and print the table (analyse.py).
#   tools/projection-calibration/run-study.sh [--tests N] [--users-per-day U] [--past-per-day P]
#       [--data DIR] [--past | --no-past] [SETTING...]
# --users-per-day and --past-per-day go to simulate.py (its defaults, 30 and 3, give 1,800 users a
# group by day 60; issue 77's sizes are 50 for 3,000 and 167 for 10,000).
# Settings: those named, else the settings with an app's past (--past), those
# without (--no-past), or all. OFFERLAB names the binary (default: a release build of this
# checkout). Two settings run side by side. Fixed seeds: the same binary gives the same table.
# Time on two free cores with 200 tests: about 20 minutes for the eight settings without a past
# (measured), 25–30 more for the seven with one (estimated from the simulator's time on 20 tests;
# docs/projection-calibration.md, "Runtime").
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
tests=200
sizes=()
data="${TMPDIR:-/tmp}/offerlab-projection-calibration"
which=all
while [ $# -gt 0 ]; do
  case "$1" in
    --tests) tests="$2"; shift 2 ;;
    --users-per-day | --past-per-day) sizes+=("$1" "$2"); shift 2 ;;
    --data) data="$2"; shift 2 ;;
    --past) which=past; shift ;;
    --no-past) which=no-past; shift ;;
    *) break ;;
  esac
done
if [ -z "${OFFERLAB:-}" ]; then
  (cd "$root" && swift build -c release --product offerlab >/dev/null)
  OFFERLAB="$root/.build/release/offerlab"
fi
settings=("$@")
if [ ${#settings[@]} -eq 0 ]; then
  # One line per setting: its name, then "past" when a product of it has an app's past.
  mapfile -t settings < <(python3 -c "import sys; sys.path.insert(0, '$root/tools/projection-calibration'); import simulate
for name in sorted(simulate.SETTINGS):
    print(name, 'past' if any(p['past'] is not None for g in simulate.SETTINGS[name] for p in g['products']) else '-')" |
    case "$which" in past) awk '$2 == "past" {print $1}' ;; no-past) awk '$2 != "past" {print $1}' ;; *) awk '{print $1}' ;; esac)
fi
mkdir -p "$data"
one() {
  local setting="$1" dir="$data/$1"
  rm -rf "$dir"
  python3 "$root/tools/projection-calibration/simulate.py" --setting "$setting" --tests "$tests" $size_options --out "$dir" 2>/dev/null
  for day in 30 60; do
    (cd "$dir" && "$OFFERLAB" run "job-day$day.yaml" --quiet >/dev/null)
  done
  echo "$setting done" >&2
}
export -f one
# An array does not cross into the xargs shells: the options go as one word list.
size_options="${sizes[*]:-}"
export root data tests size_options OFFERLAB
printf '%s\n' "${settings[@]}" | xargs -P 2 -I{} bash -c 'one {}'
python3 "$root/tools/projection-calibration/analyse.py" --data "$data" --csv "$data/calibration.csv"
