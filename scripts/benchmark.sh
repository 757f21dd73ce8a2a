#!/usr/bin/env bash
# Throughput of `offerlab run` on generated data sets, against two baselines measured in the
# same session on the same files: decompression alone (`offerlab decompress`: same inflater,
# same number of files at a time) and DuckDB running Benchmarks/DuckDB/baseline.sql. Then checks
# that the run's outputs are byte-identical to a run with the zlib inflater.
#
#   scripts/benchmark.sh [--repeat R] [--pause S] [--no-single] [--no-cache] [USERS...]
#   (default: 1000000)
#   scripts/benchmark.sh --shapes [--quick] [--data DIR] [--repeat R] [USERS...]
#   scripts/benchmark.sh --stores [--data DIR] [--repeat R] [USERS]
#   scripts/benchmark.sh --past [--data DIR] [--repeat R] [USERS]
#   scripts/benchmark.sh --vs COMMIT [--repeat R] [--shapes] [--quick] [--data DIR] [USERS...]
#   scripts/benchmark.sh --vs COMMIT --past [--repeat R] [--data DIR] [USERS]
#
# --shapes measures the matrix of data shapes instead (docs/generator.md, "Shapes"): the default
# shape, each other event-id shape, user-id shape and file layout alone, and the three together
# the way the speed issue found them (32-hex ids, long text user ids, 300 small files), at
# USERS (default 1M; --quick: 100k users and two repeats, a few minutes). Per shape one row:
# offerlab's wall and CPU time, peak RSS, GB/s, `gzip -dc` of the same files (one core), DuckDB
# on them (wall and CPU time, and their ratios to offerlab's); then whether its outputs equal the default shape's
# (scripts/compare-outputs.py). With several sizes (`--shapes 1000000 4000000`), one table per
# size, then each shape's growth in wall time, CPU time and peak RSS from one size to the next
# (target: at most 4.4 times for 4 times the users). Those data sets are kept in DIR (default
# ${XDG_CACHE_HOME:-~/.cache}/offerlab-benchmark), outside the repository, in a folder named
# after the generator's sources, so a changed generator makes them anew.
#
# --stores measures the store sources (docs/input-formats.md#store-sources-in-a-job, docs/generator.md, "Store forms") at USERS
# (default 1M), a 30-day month (`--days 30 --seed 1`): `offerlab run` on the RevenueCat export,
# on the RevenueCat webhooks and on App Store Server Notifications (`--user-ids uuid`, every
# signature verified), each against `offerlab run` on the same events in the purchase-log form,
# alternated, R runs each (default 3): medians of wall and CPU time, and the median of the
# pairs' ratios. Then the App Store month night after night with the cache (the night before
# parses every file, the night reads them back and reads the last day's files), against the
# purchase-log form's same night. Then Google Play's two feeds (`--format google_play`): the
# first night against the purchase-log form and against the App Store's first night on the same
# users (pairs alternated), and a later night with the cache (the night before filled it with the
# feeds' last day set aside, so the night reads that day's files as new and the rest back) against
# the purchase-log form's later night, and against the later night of the Play form's own events
# written as log files (`offerlab events`: the same outputs, only read otherwise); its outputs are
# checked against the same night without the cache. Last, the same against its own events on a
# set whose every user pays through Google Play (`--play-users all`: Play's heaviest shape). Google Play's set has the App Store set's user ids (`--user-ids uuid`): the same users, and
# its purchase-log form is the App Store's. Data sets in DIR as for --shapes.
#
# --past measures the app's past (`history_logs`, docs/statistics.md#the-apps-past) at USERS
# (default 1M): the generated job against the same job with `history_logs` naming a year of past
# (the data set's history/YYYY/MM/buyers.jsonl.gz: 0.3 earlier buyers per user), alternated, R runs
# each (default 5), both with a parsed-log cache: the first night (an empty cache: every file parsed
# and kept) and a later night (the cache holds the logs up to the night before and the past: the
# night reads them back and parses the last day's log files); medians of wall and CPU time and peak
# RSS, and the median of the pairs' ratios (with / without; the goal of issue 58 for the later night:
# at most 1.10). Three pasts: the generated one without its lines after as_of (a past that ends
# before the night, as a real one does: the cache keeps it); the generated one as it is (its files
# run on to as_of + 12 h, so the cache cannot keep them and every night parses them); and one four
# times as large (the past of a data set of 4 x USERS users, without its lines after as_of). Then
# checks that the later night with the past writes the bytes of its first night. `gzip -dc` of the
# logs and of each past: one core's baseline. Data sets in DIR as for --shapes.
#
# --vs COMMIT measures the current tree's `offerlab run` against COMMIT's (any name git knows:
# a5a4182, HEAD~3, a tag), built in release mode once into .build-vs/<commit>/ (git-ignored), on
# the same data sets, alternated, R times each (default 5): the medians of wall and CPU time and of
# peak RSS, the median of the pairs' wall and CPU ratios (current / COMMIT), and whether the two
# wrote the same bytes (a feature added since COMMIT may change them: the files that differ are
# named, not failed on). With --shapes, on each data shape of the matrix below (--quick: 100k
# users); otherwise on the default data set of each size (Benchmarks/data/users-N). With --past,
# on --past's data set at USERS (default 1M): its job with a year of past (ending before the night)
# and the same job without it, no cache (every file parsed, as a first night).
#
# Data sets go to Benchmarks/data/users-N/ (git-ignored; made once with
# `offerlab generate --users N --seed 1` and reused). For 1M users (or the first size when 1M is
# not asked for), the JSON logs are also concatenated into one multi-member file
# (Benchmarks/data/users-N/single/) to measure a single large file. Each measurement is repeated
# R times (default 3), interleaved with its baselines; the best wall time counts (the machine may
# be shared). `--pause S` waits S seconds before each timed command: a nightly job starts on
# memory that the VM has handed back to its host meanwhile, and fresh memory costs more then
# (docs/performance.md, "What bounds a run"); without it the runs follow each other and find their
# memory warm. For the same size, the job is also run night after night with a parsed-log cache
# (`cache:` in the job file; `--no-cache` leaves this out). Figures: docs/performance.md.
# Environment: SCRATCH_PATH (SwiftPM build folder, default .build), OFFERLAB_INFLATER.
set -euo pipefail
cd "$(dirname "$0")/.."

repeat=3
pause=0
single=1
cache=1
shapes=0
stores=0
past=0
vs=""
quick=0
data="${XDG_CACHE_HOME:-$HOME/.cache}/offerlab-benchmark"
sizes=()
while [ $# -gt 0 ]; do
  case "$1" in
    --shapes) shapes=1; shift ;;
    --stores) stores=1; shift ;;
    --past) past=1; shift ;;
    --vs) vs="$2"; shift 2 ;;
    --quick) quick=1; repeat=2; shift ;;
    --data) data="$2"; shift 2 ;;
    --repeat) repeat="$2"; repeat_given=1; shift 2 ;;
    --pause) pause="$2"; shift 2 ;;
    --no-single) single=0; shift ;;
    --no-cache) cache=0; shift ;;
    -h|--help) awk 'NR > 1 && !/^#/ { exit } NR > 1' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) sizes+=("$1"); shift ;;
  esac
done
[ $past -eq 1 ] && [ "${repeat_given:-0}" -eq 0 ] && repeat=5
if [ -n "$vs" ]; then
  vs_commit=$(git rev-parse --verify --quiet "$vs^{commit}") || { echo "--vs $vs: not a commit git knows" >&2; exit 64; }
  [ "${repeat_given:-0}" -eq 1 ] || repeat=5
fi
if [ ${#sizes[@]} -eq 0 ]; then
  sizes=(1000000)
  [ $shapes -eq 1 ] && [ $quick -eq 1 ] && sizes=(100000)
fi

scripts/install-deps.sh
if [ ! -x /usr/bin/time ]; then
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  echo "installing GNU time" >&2
  $sudo apt-get update -qq && DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq time >/dev/null
fi
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
scratch="${SCRATCH_PATH:-.build}"
swift build -c release --product offerlab --scratch-path "$scratch" >"$work/build" 2>&1 || { cat "$work/build" >&2; exit 1; }
case "$scratch" in /*) bin="$scratch/release/offerlab" ;; *) bin="$(pwd)/$scratch/release/offerlab" ;; esac
have_duckdb=1
python3 -c 'import duckdb' 2>/dev/null || have_duckdb=0
echo "machine: $(nproc) cores, $(uname -m), $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "offerlab inflater: ${OFFERLAB_INFLATER:-the fastest available}; repeats: $repeat (best wall counts); pause before each command: ${pause} s"
[ $have_duckdb -eq 1 ] && echo "duckdb $(python3 -c 'import duckdb; print(duckdb.__version__)')" \
  || echo "DuckDB baseline: skipped (the duckdb Python module is not installed: pip install duckdb)"
echo

# timed NAME CMD...: runs CMD under GNU time; appends "wall user sys maxrss_kb" to $work/NAME.
timed() {
  local name="$1"; shift
  sleep "$pause"
  /usr/bin/time -f '%e %U %S %M' -o "$work/time" "$@" >"$work/out" 2>"$work/err" || {
    echo "failed: $*" >&2; cat "$work/err" >&2; exit 1; }
  cat "$work/time" >>"$work/$name"
}

# calc EXPRESSION: floating-point arithmetic.
calc() { awk "BEGIN { printf \"%.6f\", $* }"; }

# best NAME: the line of $work/NAME with the smallest wall time.
best() { sort -n -k1,1 "$work/$1" | head -1; }

# differing_outputs A B [NAME]: the CSV files of folder A whose copy in folder B differs (or is
# missing), one name a line; NAME is left out of the comparison.
differing_outputs() {
  local file
  for file in "$1"/*.csv; do
    [ "$(basename "$file")" = "${3:-}" ] && continue
    cmp -s "$file" "$2/$(basename "$file")" || basename "$file"
  done
}

# duckdb_run NAME DIR JOB: the query's own wall and CPU time (the interpreter's start is left out).
duckdb_run() {
  sleep "$pause"
  python3 Benchmarks/DuckDB/baseline.py "$2" "$3" >"$work/out"
  awk '{print $2, $3, 0, 0}' "$work/out" >>"$work/$1"
}

declare -A seconds cpus rss
report_header_printed=0

# measure LABEL DIR JOB: one row of the table, and the zlib comparison.
measure() {
  local label="$1" dir="$2" job="$3"
  rm -f "$work"/run "$work"/decompress "$work"/duckdb
  local out="$work/out-$label"
  for ((i = 0; i < repeat; i++)); do
    rm -rf "$out"
    timed run "$bin" run "$dir/$job" --output "$out" --database "$out/results.sqlite" --quiet
    timed decompress "$bin" decompress "$dir/$job"
    if [ $have_duckdb -eq 1 ]; then duckdb_run duckdb "$dir" "$job"; fi
  done
  local decompressed_line
  decompressed_line=$("$bin" decompress "$dir/$job")
  local compressed uncompressed
  compressed=$(echo "$decompressed_line" | sed -E 's/.*: ([0-9]+) compressed.*/\1/')
  uncompressed=$(echo "$decompressed_line" | sed -E 's/.* ([0-9]+) uncompressed.*/\1/')
  local night
  night=$(ls "$out" | grep -E '^[0-9]{4}-' | head -1)
  local lines
  lines=$(tr -d '\r' <"$out/$night/quality.csv" | awk -F, '$2 == "lines_read" && $1 == "" {print $3}')
  read -r wall user sys kb < <(best run)
  read -r dwall duser dsys _ < <(best decompress)
  local cpu dcpu
  cpu=$(calc "$user + $sys")
  dcpu=$(calc "$duser + $dsys")
  local maxkb
  maxkb=$(awk '{print $4}' "$work/run" | sort -n | tail -1)
  local duck="-" duck_cpu="-" duck_ratio="skipped" duck_cpu_ratio="-"
  if [ -s "$work/duckdb" ]; then
    read -r duck duck_cpu _ _ < <(best duckdb)
    duck_ratio=$(printf '%.2f' "$(calc "$duck / $wall")")
    duck_cpu_ratio=$(printf '%.2f' "$(calc "$duck_cpu / $cpu")")
  fi
  if [ $report_header_printed -eq 0 ]; then
    printf '%-22s %7s %8s %9s | %6s %6s %5s %7s %5s | %6s %6s %5s | %6s %6s %5s %5s\n' \
      "data set" "gz MB" "JSON MB" "lines" "wall s" "cpu s" "c/w" "RSS MiB" "GB/s" \
      "infl s" "i cpu" "r/i" "duck s" "d cpu" "d/r" "dc/rc"
    report_header_printed=1
  fi
  printf '%-22s %7.1f %8.1f %9d | %6.2f %6.2f %5.2f %7.0f %5.2f | %6.2f %6.2f %5.2f | %6s %6s %5s %5s\n' \
    "$label" "$(calc "$compressed / 1000000")" "$(calc "$uncompressed / 1000000")" "$lines" \
    "$wall" "$cpu" "$(calc "$cpu / $wall")" "$(calc "$maxkb / 1024")" "$(calc "$uncompressed / $wall / 1000000000")" \
    "$dwall" "$dcpu" "$(calc "$wall / $dwall")" "$duck" "$duck_cpu" "$duck_ratio" "$duck_cpu_ratio"
  seconds[$label]=$wall
  cpus[$label]=$cpu
  rss[$label]=$maxkb

  # The same run with zlib: every output byte-identical.
  local zout="$work/zlib-$label"
  rm -f "$work/zlib"
  timed zlib "$bin" run "$dir/$job" --output "$zout" --database "$zout/results.sqlite" --quiet --inflater zlib
  local differing
  mapfile -t differing < <(differing_outputs "$out/$night" "$zout/$night")
  read -r zwall _ _ _ < <(best zlib)
  if [ ${#differing[@]} -eq 0 ]; then
    checks+=("$label: outputs identical to the zlib run ($(ls "$out/$night" | wc -l) files; zlib run ${zwall} s)")
  else
    checks+=("$label: OUTPUTS DIFFER from the zlib run: ${differing[*]}")
    failed=1
  fi
}

# nightly LABEL DIR: the job run on consecutive nights with a parsed-log cache (`cache:`): the
# night before (`as_of` a day earlier: parses every file, keeps those with no later event), the
# night (reads those back, parses the last day's files), the night again (every file it can
# read back). Outputs compared with the run without the cache (`measure`, before).
nightly() {
  local label="$1" dir="$2"
  local as_of before out cached="$work/cached"
  as_of=$(sed -nE 's/^as_of: *([^ #]+).*/\1/p' "$dir/job.yaml")
  before=$(date -u -d "${as_of%T*} - 1 day" +%Y-%m-%d)
  out="$work/out-$label"
  sed "s#^output: .*#cache: $work/cache\n&#" "$dir/job.yaml" >"$dir/job-cache.yaml"
  rm -f "$work"/before "$work"/night "$work"/again
  for ((i = 0; i < repeat; i++)); do
    rm -rf "$work/cache" "$cached"
    timed before "$bin" run "$dir/job-cache.yaml" --as-of "$before" --output "$cached" --database "$cached/results.sqlite" --quiet
    local kept_before
    kept_before=$(sed -nE 's/.*: 0 log file\(s\) reused, ([0-9]+) parsed and kept$/\1/p' "$work/out")
    timed night "$bin" run "$dir/job-cache.yaml" --output "$cached" --database "$cached/results.sqlite" --quiet
    local night_line
    night_line=$(grep '^cache ' "$work/out" | sed 's/^cache [^:]*: //')
    timed again "$bin" run "$dir/job-cache.yaml" --output "$cached" --database "$cached/results.sqlite" --quiet
    local again_line
    again_line=$(grep '^cache ' "$work/out" | sed 's/^cache [^:]*: //')
  done
  read -r bwall buser bsys _ < <(best before)
  read -r nwall nuser nsys nkb < <(best night)
  read -r awall auser asys _ < <(best again)
  echo
  printf '%s, nightly with the parsed-log cache (offerlab run without it: %.2f s wall, %.2f s cpu):\n' "$label" "${seconds[$label]}" "${cpus[$label]}"
  printf '  the night before (as_of %s): %6.2f s wall, %6.2f s cpu; %s files parsed and kept\n' "$before" "$bwall" "$(calc "$buser + $bsys")" "$kept_before"
  printf '  the night (as_of %s):        %6.2f s wall, %6.2f s cpu, peak RSS %.0f MiB; %s; %.2fx faster than without the cache\n' \
    "${as_of%T*}" "$nwall" "$(calc "$nuser + $nsys")" "$(calc "$nkb / 1024")" "$night_line" "$(calc "${seconds[$label]} / $nwall")"
  printf '  the same night again:                %6.2f s wall, %6.2f s cpu; %s\n' "$awall" "$(calc "$auser + $asys")" "$again_line"
  printf '  cache folder: %s MB\n' "$(du -sm "$work/cache" | cut -f1)"
  local night differing
  night=$(ls "$out" | grep -E '^[0-9]{4}-' | head -1)
  # Alerts are changes since the database's previous night (docs/reliability.md, "Alerts"): the
  # cached nights follow the night before in their database, the run without the cache has none.
  mapfile -t differing < <(differing_outputs "$out/$night" "$cached/$night" alerts.csv)
  if [ ${#differing[@]} -eq 0 ]; then
    checks+=("$label: outputs with the cache identical to the run without it ($(($(ls "$out/$night"/*.csv | wc -l) - 1)) CSV files; alerts.csv follows the database's history)")
  else
    checks+=("$label: OUTPUTS WITH THE CACHE DIFFER: ${differing[*]}")
    failed=1
  fi
  rm -f "$dir/job-cache.yaml"
}

# shape_matrix USERS: one row per data shape, each against DuckDB and `gzip -dc` on its files,
# and its outputs against the default shape's.
# shape_data USERS: the data set of each shape at USERS users (made once), as "label|dir" in
# shape_dirs, in the matrix's order.
shape_data() {
  local users="$1"
  local matrix=(
    "default|"
    "event ids hex32|--event-ids hex32"
    "event ids ulid|--event-ids ulid"
    "event ids integer|--event-ids integer"
    "event ids prefixed|--event-ids prefixed"
    "event ids none|--event-ids none"
    "user ids short-text|--user-ids short-text"
    "user ids long-text|--user-ids long-text"
    "layout small-files|--layout small-files"
    "layout one-file|--layout one-file"
    "hex32+long-text+small|--event-ids hex32 --user-ids long-text --layout small-files"
  )
  local generator
  generator=$(cat Sources/OfferLabGenerate/*.swift | sha1sum | cut -c1-10)
  local base="$data/generator-$generator/users-$users"
  mkdir -p "$base"
  echo "data sets: $base"
  local entry options dir
  shape_dirs=()
  for entry in "${matrix[@]}"; do
    options="${entry#*|}"
    dir="$base/$(echo "${options:-default}" | sed -e 's/--//g' -e 's/ /-/g')"
    if [ ! -f "$dir/job.yaml" ]; then
      # shellcheck disable=SC2086 # the options are words
      "$bin" generate --out "$dir" --users "$users" --seed 1 --force $options >"$work/generate" 2>&1 || {
        cat "$work/generate" >&2; exit 1; }
    fi
    shape_dirs+=("${entry%%|*}|$dir")
  done
}

shape_matrix() {
  local users="$1"
  shape_data "$users"
  printf '%-22s %6s %7s | %6s %6s %5s %7s %5s | %6s | %6s %5s %6s %5s | %s\n' "shape" "gz MB" "text MB" \
    "wall s" "cpu s" "c/w" "RSS MiB" "GB/s" "gzip s" "duck s" "d/r" "d cpu" "dc/rc" "outputs"
  local entry label dir out reference=""
  shape_labels=()
  for entry in "${shape_dirs[@]}"; do
    label="${entry%%|*}"
    shape_labels+=("$label")
    dir="${entry#*|}"
    out="$work/shape-$(basename "$dir")"
    rm -f "$work"/run "$work"/duckdb "$work"/gzip
    for ((i = 0; i < repeat; i++)); do
      rm -rf "$out"
      timed run "$bin" run "$dir/job.yaml" --output "$out" --database "$out/results.sqlite" --quiet
      if [ $have_duckdb -eq 1 ]; then duckdb_run duckdb "$dir" job.yaml; fi
    done
    # `gzip -dc` once: a single core's baseline, far slower than the run's own inflating.
    local logs
    logs=$(find "$dir/logs" -name '*.gz' | sort)
    # shellcheck disable=SC2086 # one word per file
    timed gzip sh -c 'gzip -dc "$@" >/dev/null' gzip $logs
    local decompressed_line compressed uncompressed
    decompressed_line=$("$bin" decompress "$dir/job.yaml")
    compressed=$(echo "$decompressed_line" | sed -E 's/.*: ([0-9]+) compressed.*/\1/')
    uncompressed=$(echo "$decompressed_line" | sed -E 's/.* ([0-9]+) uncompressed.*/\1/')
    local wall user sys kb gwall duck="-" duck_ratio="-" duck_cpu="-" duck_cpu_ratio="-"
    read -r wall user sys kb < <(best run)
    read -r gwall _ _ _ < <(best gzip)
    if [ -s "$work/duckdb" ]; then
      read -r duck duck_cpu _ _ < <(best duckdb)
      duck_ratio=$(printf '%.2f' "$(calc "$duck / $wall")")
      duck_cpu_ratio=$(printf '%.2f' "$(calc "$duck_cpu / ($user + $sys)")")
    fi
    local night verdict
    night=$(ls "$out" | grep -E '^[0-9]{4}-' | head -1)
    if [ -z "$reference" ]; then
      reference="$work/shape-reference"
      rm -rf "$reference"
      cp -r "$out/$night" "$reference"
      verdict="reference"
    else
      local compare=()
      [ "$label" = "event ids none" ] && compare=(--assignments-only)
      [ "$label" = "layout one-file" ] && compare=(--except-counter attribution_mismatches)
      if python3 scripts/compare-outputs.py "$reference" "$out/$night" "${compare[@]}" >"$work/compare"; then
        verdict="equal"
        [ "${compare[0]:-}" = --assignments-only ] && verdict="users and SRM equal (no ids: duplicates differ)"
        [ "${compare[0]:-}" = --except-counter ] && verdict="equal but attribution_mismatches (ties in file order)"
      else
        verdict="DIFFER: $(tr '\n' ' ' <"$work/compare")"
        failed=1
      fi
    fi
    shape_runs["$users|$label"]="$wall $(calc "$user + $sys") $kb"
    printf '%-22s %6.1f %7.1f | %6.2f %6.2f %5.2f %7.0f %5.2f | %6.2f | %6s %5s %6s %5s | %s\n' "$label" \
      "$(calc "$compressed / 1000000")" "$(calc "$uncompressed / 1000000")" "$wall" "$(calc "$user + $sys")" \
      "$(calc "($user + $sys) / $wall")" "$(calc "$kb / 1024")" "$(calc "$uncompressed / $wall / 1000000000")" \
      "$gwall" "$duck" "$duck_ratio" "$duck_cpu" "$duck_cpu_ratio" "$verdict"
  done
  echo
  echo "wall s, cpu s, c/w, RSS: offerlab run (best of $repeat); GB/s: uncompressed log bytes / wall;"
  echo "gzip s: gzip -dc of the same files on one core; duck s: Benchmarks/DuckDB/baseline.sql (best of $repeat);"
  echo "d/r: DuckDB's wall / offerlab's (target: at least 3); d cpu, dc/rc: DuckDB's CPU seconds and their ratio to"
  echo "offerlab's (steadier than wall time on a busy machine). outputs: against the default shape's (only"
  echo "rejects' files, lines and texts, and files_read, may differ). Load average at the end: $(cut -d" " -f1-3 /proc/loadavg)"
}

# shape_scaling: per shape, how wall time, CPU time and peak RSS grew from each size to the next.
shape_scaling() {
  echo
  printf '%-22s %-18s | %6s %6s %6s\n' "shape" "users" "wall" "cpu" "RSS"
  local index label from to
  for ((index = 1; index < ${#sizes[@]}; index++)); do
    from="${sizes[index - 1]}"
    to="${sizes[index]}"
    for label in "${shape_labels[@]}"; do
      read -r fwall fcpu fkb <<<"${shape_runs["$from|$label"]}"
      read -r twall tcpu tkb <<<"${shape_runs["$to|$label"]}"
      printf '%-22s %-18s | %5.2fx %5.2fx %5.2fx\n' "$label" "$from -> $to" "$(calc "$twall / $fwall")" \
        "$(calc "$tcpu / $fcpu")" "$(calc "$tkb / $fkb")"
    done
  done
  echo "growth of offerlab's best wall time, its CPU time and peak RSS (target for 4x the users: at most 4.4x)"
}

# median NAME FIELD: the median of column FIELD of $work/NAME (1 wall, 2 user, 3 system; 5 cpu).
median() {
  awk -v f="$2" '{ print (f == 5 ? $2 + $3 : $f) }' "$work/$1" | sort -g |
    awk '{ v[NR] = $1 } END { printf "%.2f", NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

# pair_ratios A B: the median over the runs of A's wall / B's wall, and of A's cpu / B's cpu.
pair_ratios() {
  paste -d' ' "$work/$1" "$work/$2" | awk '{ print $1 / $5, ($2 + $3) / ($6 + $7) }' >"$work/ratios"
  printf '%s %s\n' "$(awk '{ print $1 }' "$work/ratios" | sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }')" \
    "$(awk '{ print $2 }' "$work/ratios" | sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }')"
}

# alternate A BIN_A JOB_A B BIN_B JOB_B: `BIN run JOB` of A and of B in turn, $repeat times each,
# timed into $work/A and $work/B, their outputs in $work/out-A and $work/out-B.
alternate() {
  rm -f "$work/$1" "$work/$4"
  for ((i = 0; i < repeat; i++)); do
    rm -rf "$work/out-$1" "$work/out-$4"
    timed "$1" "$2" run "$3" --output "$work/out-$1" --database "$work/out-$1/results.sqlite" --quiet
    timed "$4" "$5" run "$6" --output "$work/out-$4" --database "$work/out-$4/results.sqlite" --quiet
  done
}

# store_pair LABEL STORE_DIR LOGS_DIR: `offerlab run` on each, alternated, $repeat times.
store_pair() {
  local label="$1" store="$2" logs="$3"
  alternate store "$bin" "$store/job.yaml" logs "$bin" "$logs/job.yaml"
  read -r wall_ratio cpu_ratio < <(pair_ratios store logs)
  printf '%-34s | %6s %6s | %6s %6s | %5.2f %5.2f\n' "$label" "$(median store 1)" "$(median store 5)" \
    "$(median logs 1)" "$(median logs 5)" "$wall_ratio" "$cpu_ratio"
}

# cache_job KEY JOB: writes DIR/job-cache-KEY.yaml beside JOB (its paths are relative to it): JOB
# with a parsed-log cache of its own, $work/cache-KEY.
cache_job() {
  sed "s#^output: .*#cache: $work/cache-$1\n&#" "$2" >"$(dirname "$2")/job-cache-$1.yaml"
}

# fill_cache KEY JOB: the night before of cache_job's job (as_of a day earlier: parses every file,
# keeps those with no later event), run once on an empty cache; the entries it kept are listed,
# so that `cached_night` can remove the night's own before each repeat.
fill_cache() {
  local key="$1" job="$2" as_of before
  as_of=$(sed -nE 's/^as_of: *([^ #]+).*/\1/p' "$job")
  before=$(date -u -d "${as_of%T*} - 1 day" +%Y-%m-%d)
  rm -rf "$work/cache-$key" "$work/nights"
  "$bin" run "$(dirname "$job")/job-cache-$key.yaml" --as-of "$before" --output "$work/nights" \
    --database "$work/nights/results.sqlite" --quiet >"$work/out" 2>"$work/err" || { cat "$work/err" >&2; exit 1; }
  ls "$work/cache-$key" >"$work/before-$key"
}

# cached_night NAME KEY JOB [first]: the night of cache_job's job, timed into $work/NAME, its
# outputs in $work/nights. On the cache fill_cache filled (reads it back, parses the last day's
# files), the night's own entries removed first, so that every repeat is the same night; with
# `first`, on an empty cache (every file parsed and kept).
cached_night() {
  local name="$1" key="$2" job="$3" cache="$work/cache-$2"
  if [ "${4:-}" = first ]; then
    rm -rf "$cache"
  else
    (cd "$cache" && ls | { grep -vxFf "$work/before-$key" || true; } | xargs -r rm -f)
  fi
  rm -rf "$work/nights"
  timed "$name" "$bin" run "$(dirname "$job")/job-cache-$key.yaml" --output "$work/nights" --database "$work/nights/results.sqlite" \
    --quiet
}

# later_night_row LABEL KEY JOB [LOGS_KEY LOGS_JOB]: `repeat` later nights of a store form (its
# cache filled) alternated with the same night of a purchase-log form (cache filled; by default
# `$base/logs-uuid`, key `logs`), and their table row.
later_night_row() {
  local label="$1" key="$2" job="$3" logs_key="${4:-logs}" logs_job="${5:-$base/logs-uuid/job.yaml}" wall_ratio cpu_ratio
  rm -f "$work"/store "$work"/logs
  for ((i = 0; i < repeat; i++)); do
    cached_night store "$key" "$job"
    cached_night logs "$logs_key" "$logs_job"
  done
  read -r wall_ratio cpu_ratio < <(pair_ratios store logs)
  printf '%-34s | %6s %6s | %6s %6s | %5.2f %5.2f\n' "$label" "$(median store 1)" "$(median store 5)" \
    "$(median logs 1)" "$(median logs 5)" "$wall_ratio" "$cpu_ratio"
}

stores_benchmark() {
  local users="$1" generator base
  generator=$(cat Sources/OfferLabGenerate/*.swift | sha1sum | cut -c1-10)
  base="$data/generator-$generator/stores-$users"
  mkdir -p "$base"
  echo "data sets: $base ($users users, 30 days, seed 1)"
  local entry name options
  for entry in "logs|" "revenuecat_export|--format revenuecat_export" "revenuecat_webhooks|--format revenuecat_webhooks" \
    "logs-uuid|--user-ids uuid" "app_store_notifications|--user-ids uuid --format app_store_notifications" \
    "google_play|--user-ids uuid --format google_play" \
    "google_play_android|--user-ids uuid --play-users all --format google_play"; do
    name="${entry%%|*}"
    options="${entry#*|}"
    if [ ! -f "$base/$name/job.yaml" ]; then
      # shellcheck disable=SC2086 # the options are words
      "$bin" generate --out "$base/$name" --users "$users" --seed 1 --days 30 --force $options >"$work/generate" 2>&1 || {
        cat "$work/generate" >&2; exit 1; }
    fi
  done
  local notifications
  notifications=$(find "$base/app_store_notifications/appstore" -name '*.gz' -exec gzip -dc {} + | wc -l)
  printf '%-34s | %13s | %13s | %11s\n' "" "store form" "log form" "store/log"
  printf '%-34s | %6s %6s | %6s %6s | %5s %5s\n' "offerlab run (medians of $repeat)" "wall s" "cpu s" "wall s" "cpu s" "wall" "cpu"
  store_pair "RevenueCat export" "$base/revenuecat_export" "$base/logs"
  store_pair "RevenueCat webhooks" "$base/revenuecat_webhooks" "$base/logs"
  store_pair "App Store, first night (no cache)" "$base/app_store_notifications" "$base/logs-uuid"
  printf '%-34s   %s notifications: %.0f per CPU second\n' "" "$notifications" \
    "$(calc "$notifications / ($(median store 5) - $(median logs 5))")"
  cache_job app_store "$base/app_store_notifications/job.yaml"
  cache_job logs "$base/logs-uuid/job.yaml"
  fill_cache app_store "$base/app_store_notifications/job.yaml"
  fill_cache logs "$base/logs-uuid/job.yaml"
  later_night_row "App Store, a later night (cache)" app_store "$base/app_store_notifications/job.yaml"
  printf '%-34s   %s\n' "" "$(grep '^cache ' "$work/out" | sed 's/^cache [^:]*: /the log form: /')"
  play_benchmark "$base"
  put_back_play_day "$base/google_play_android"
  play_events_row "Google Play, every user on Play" "$base/google_play_android" play_android
  printf '%-34s   %s lines of notifications and Orders\n' "" \
    "$(find "$base/google_play_android/googleplay" -name '*.gz' -exec gzip -dc {} + | wc -l)"
  echo "goals (issues 37, 38): the export within 1.5x; the first night within 120 s wall; a later night within 1.10x."
  echo "goals (issue 60): Google Play's first night within the App Store's (ratio <= 1); a later night within 1.10x."
  echo "notifications per CPU second: the notifications over the CPU the App Store form adds to the log form's."
  echo "Load average at the end: $(cut -d" " -f1-3 /proc/loadavg)"
}

# put_back_play_day PLAY: the feeds' last day (and its events as log files) set aside by
# play_benchmark, back in its place.
put_back_play_day() {
  local aside="$1/last-day-set-aside" feed
  for feed in notifications orders events-notifications events-orders; do
    if [ -f "$aside/$feed.path" ]; then
      mv "$aside/$feed" "$(cat "$aside/$feed.path")"
      rm "$aside/$feed.path"
    fi
  done
}

# play_benchmark BASE: Google Play's month (BASE/google_play) against the purchase-log form
# (BASE/logs-uuid) and the App Store form (BASE/app_store_notifications), first night, then a later
# night.
play_benchmark() {
  local base="$1" play="$1/google_play" lines last feed
  put_back_play_day "$play"
  lines=$(find "$play/googleplay" -name '*.gz' -exec gzip -dc {} + | wc -l)
  store_pair "Google Play, first night" "$play" "$base/logs-uuid"
  printf '%-34s   %s lines of notifications and Orders\n' "" "$lines"
  alternate store "$bin" "$play/job.yaml" apple "$bin" "$base/app_store_notifications/job.yaml"
  read -r wall_ratio cpu_ratio < <(pair_ratios store apple)
  printf '%-34s | %6s %6s | %6s %6s | %5.2f %5.2f\n' "Play / App Store, first night" "$(median store 1)" \
    "$(median store 5)" "$(median apple 1)" "$(median apple 5)" "$wall_ratio" "$cpu_ratio"
  cache_job play "$play/job.yaml"
  cache_job logs "$base/logs-uuid/job.yaml"
  # A store file's reading does not depend on as_of: the night before would keep the last day's
  # files too. Set them aside while it runs, so that the night reads them as new.
  # Set aside inside the data set (outside the job's globs), so that a run stopped meanwhile
  # leaves them for the next run to put back.
  local aside="$play/last-day-set-aside"
  mkdir -p "$aside"
  for feed in notifications orders; do
    last=$(find "$play/googleplay/$feed" -mindepth 3 -maxdepth 3 -type d | sort | tail -1)
    mv "$last" "$aside/$feed"
    echo "$last" >"$aside/$feed.path"
  done
  fill_cache play "$play/job.yaml"
  put_back_play_day "$play"
  fill_cache logs "$base/logs-uuid/job.yaml"
  later_night_row "Google Play, a later night (cache)" play "$play/job.yaml"
  printf '%-34s   peak RSS MiB: %s (Play) / %s (logs)\n' "" "$(($(median store 4 | cut -d. -f1) / 1024))" \
    "$(($(median logs 4 | cut -d. -f1) / 1024))"
  cached_night store play "$play/job.yaml"
  grep '^cache ' "$work/out" | sed 's/^cache [^:]*: /  the Play form: /'
  "$bin" run "$play/job.yaml" --no-cache --output "$work/play-fresh" --database "$work/play-fresh/results.sqlite" --quiet \
    >/dev/null 2>"$work/err" || { cat "$work/err" >&2; exit 1; }
  local differing
  differing=$(differing_outputs "$work/nights"/*/ "$work/play-fresh"/*/)
  [ -z "$differing" ] || { echo "the Play later night with the cache differs from it without: $differing" >&2; exit 1; }
  echo "  the Play later night's outputs equal the same night's without the cache"
  play_events_row "Google Play, against its own events" "$play" play
}

# play_events_row LABEL PLAY KEY: the later night of the Play set PLAY (cache KEY) against the same
# night of its own events written as log files (`offerlab events`, in PLAY_events): the same
# night, its `exact_proceeds_share` too (the purchase-log form states no exact proceeds), so the
# reading alone differs. Each cache filled by the night before with the feeds' last day set aside
# (a store file's reading does not depend on as_of); the outputs checked equal but the reading's
# counters.
play_events_row() {
  local label="$1" play="$2" key="$3" events="$2_events" aside="$2/last-day-set-aside" feed format last differing
  if [ ! -f "$events/job.yaml" ]; then
    rm -rf "$events"
    mkdir -p "$events"
    for dir in logs showcase tables; do ln -s "../$(basename "$play")/$dir" "$events/$dir"; done
    "$bin" events "$play/job.yaml" --out "$events/events" --no-cache >/dev/null 2>"$work/err" || { cat "$work/err" >&2; exit 1; }
    sed -e '/googleplay\//d' -e '/^google_play:/d' -e '/package_name:/d' -e 's#^logs:$#logs:\n  - "events/**/*.jsonl.gz"#' \
      "$play/job.yaml" >"$events/job.yaml"
  fi
  cache_job "$key" "$play/job.yaml"
  cache_job "${key}_events" "$events/job.yaml"
  # Set aside inside the data set (outside the job's globs), so that a run stopped meanwhile
  # leaves them for the next run to put back; the events of that day too (`offerlab events`
  # writes an input file's events to DIR/<format>/<its path>.jsonl.gz).
  mkdir -p "$aside"
  for feed in notifications orders; do
    format=google_play
    [ $feed = orders ] && format=google_play_orders
    last=$(find "$play/googleplay/$feed" -mindepth 3 -maxdepth 3 -type d | sort | tail -1)
    mv "$last" "$aside/$feed"
    echo "$last" >"$aside/$feed.path"
    last="$events/events/$format/${last#"$play/"}"
    if [ -d "$last" ]; then
      mv "$last" "$aside/events-$feed"
      echo "$last" >"$aside/events-$feed.path"
    fi
  done
  fill_cache "$key" "$play/job.yaml"
  fill_cache "${key}_events" "$events/job.yaml"
  put_back_play_day "$play"
  later_night_row "$label" "$key" "$play/job.yaml" "${key}_events" "$events/job.yaml"
  rm -rf "$work/play-fresh"
  "$bin" run "$play/job.yaml" --no-cache --output "$work/play-fresh" --database "$work/play-fresh/results.sqlite" --quiet \
    >/dev/null 2>"$work/err" || { cat "$work/err" >&2; exit 1; }
  differing=$(differing_outputs "$work/nights"/*/ "$work/play-fresh"/*/ | grep -vxE 'sources.csv|quality.csv|rejects.csv' || true)
  [ -z "$differing" ] || { echo "the Play night and its events as logs differ: $differing" >&2; exit 1; }
  echo "  its events as log files (offerlab events) give the same outputs but sources, quality and rejects"
}

# past_pair LABEL WITH WITHOUT: the job WITH (`history_logs`) against WITHOUT, alternated,
# $repeat times each: the first night (an empty cache), then a later night; medians, and the
# median of the pairs' ratios (with / without). The later night's outputs with the past are
# checked against its first night's.
past_pair() {
  local label="$1" with="$2" without="$3" when first_outputs="$work/first-night-with-past"
  cache_job past "$with"
  cache_job none "$without"
  for when in first later; do
    if [ $when = later ]; then
      fill_cache none "$without"
      fill_cache past "$with"
      # The night before could not keep the past's files (they hold its last day's renewals):
      # the night, run once, keeps those it can, as a nightly job's cache holds a past that ended
      # before its nights. Each repeat then parses the day's log files alone, on both sides.
      cached_night warm none "$without"
      ls "$work/cache-none" | { grep -vxFf "$work/before-none" || true; } >"$work/day-entries"
      cached_night warm past "$with"
      ls "$work/cache-past" | { grep -vxFf "$work/day-entries" || true; } >"$work/before-past"
    fi
    rm -f "$work"/past "$work"/none
    for ((i = 0; i < repeat; i++)); do
      cached_night past past "$with" "$when"
      if [ $when = first ]; then rm -rf "$first_outputs" && cp -r "$work/nights" "$first_outputs"; fi
      cached_night none none "$without" "$when"
    done
    read -r wall_ratio cpu_ratio < <(pair_ratios past none)
    printf '%-36s | %6s %6s %7.0f | %6s %6s %7.0f | %5.2f %5.2f\n' "$label, $when night" \
      "$(median past 1)" "$(median past 5)" "$(calc "$(median past 4) / 1024")" \
      "$(median none 1)" "$(median none 5)" "$(calc "$(median none 4) / 1024")" "$wall_ratio" "$cpu_ratio"
  done
  # The later night with the past, once more, its outputs kept.
  cached_night past past "$with"
  printf '%-36s   %s\n' "" "$(grep '^cache ' "$work/out" | sed 's/^cache [^:]*: /later night with the past: /')"
  local night differing
  night=$(ls "$first_outputs" | grep -E '^[0-9]{4}-' | head -1)
  mapfile -t differing < <(differing_outputs "$first_outputs/$night" "$work/nights/$night")
  if [ ${#differing[@]} -eq 0 ]; then
    checks+=("$label: the later night's outputs with the past identical to its first night's ($(ls "$first_outputs/$night"/*.csv | wc -l) CSV files)")
  else
    checks+=("$label: THE LATER NIGHT WITH THE PAST DIFFERS from its first night: ${differing[*]}")
    failed=1
  fi
}

# past_until_as_of DIR DAY: DIR/history's files without their lines of DAY (the generator's
# past runs on to as_of + 12 h, which the night leaves out), in DIR/history-until-as-of: a past
# that ends before the night, as a real one does, so that the cache can keep its files.
past_until_as_of() {
  local dir="$1" day="$2" file kept
  [ -d "$dir/history-until-as-of" ] && return
  for file in "$dir"/history/*/*/*.jsonl.gz; do
    kept="$dir/history-until-as-of/${file#"$dir"/history/}"
    mkdir -p "$(dirname "$kept")"
    gzip -dc "$file" | { grep -vF "\"ts\":\"${day}T" || true; } | gzip >"$kept"
  done
}

# past_data USERS NAMES...: in $base (set here), the generated data sets NAMES (`logs`: USERS
# users; `past4`: 4 x USERS, for its past) and the jobs of `logs` with a past: as generated
# (job-past-generated.yaml), ending before the night (job-past.yaml), four times as large
# (job-past4.yaml, when past4 is made).
past_data() {
  local users="$1" generator name count day
  shift
  generator=$(cat Sources/OfferLabGenerate/*.swift | sha1sum | cut -c1-10)
  base="$data/generator-$generator/past-$users"
  mkdir -p "$base"
  for name in "$@"; do
    count=$users
    [ $name = past4 ] && count=$((4 * users))
    if [ ! -f "$base/$name/job.yaml" ]; then
      "$bin" generate --out "$base/$name" --users "$count" --seed 1 --force >"$work/generate" 2>&1 || {
        cat "$work/generate" >&2; exit 1; }
    fi
    day=$(sed -nE 's/^as_of: *([0-9-]+)T.*/\1/p' "$base/$name/job.yaml")
    past_until_as_of "$base/$name" "$day"
  done
  # The generated job names no past (docs/generator.md): the same job with one.
  sed '/^as_of:/i history_logs: ["history/*/*/*.jsonl.gz"]' "$base/logs/job.yaml" >"$base/logs/job-past-generated.yaml"
  sed '/^as_of:/i history_logs: ["history-until-as-of/*/*/*.jsonl.gz"]' "$base/logs/job.yaml" >"$base/logs/job-past.yaml"
  sed '/^as_of:/i history_logs: ["../past4/history-until-as-of/*/*/*.jsonl.gz"]' "$base/logs/job.yaml" >"$base/logs/job-past4.yaml"
}

# past_benchmark USERS: the generated job with and without `history_logs` naming a year of past:
# as generated, ending before the night, and four times as large; `gzip -dc` of the logs and of
# each past.
past_benchmark() {
  local users="$1"
  past_data "$users" logs past4
  echo "data sets: $base ($users users, and the past of $((4 * users)) users; seed 1)"
  local logs history history4
  logs=$(find "$base/logs/logs" -name '*.gz' | sort)
  history=$(find "$base/logs/history" -name '*.gz' | sort)
  history4=$(find "$base/past4/history" -name '*.gz' | sort)
  rm -f "$work"/gzip-logs "$work"/gzip-past "$work"/gzip-past4
  # shellcheck disable=SC2086 # one word per file
  {
    for ((i = 0; i < repeat; i++)); do
      timed gzip-logs sh -c 'gzip -dc "$@" >/dev/null' gzip $logs
      timed gzip-past sh -c 'gzip -dc "$@" >/dev/null' gzip $history
      timed gzip-past4 sh -c 'gzip -dc "$@" >/dev/null' gzip $history4
    done
    printf '%-12s %9s lines, %4s MB gzipped; gzip -dc (one core, median of %s): %6s s\n' "logs:" "$(gzip -dc $logs | wc -l)" \
      "$(du -cm $logs | tail -1 | cut -f1)" "$repeat" "$(median gzip-logs 1)"
    printf '%-12s %9s lines, %4s MB gzipped; gzip -dc (one core, median of %s): %6s s\n' "the past:" "$(gzip -dc $history | wc -l)" \
      "$(du -cm $history | tail -1 | cut -f1)" "$repeat" "$(median gzip-past 1)"
    printf '%-12s %9s lines, %4s MB gzipped; gzip -dc (one core, median of %s): %6s s\n' "the past x4:" "$(gzip -dc $history4 | wc -l)" \
      "$(du -cm $history4 | tail -1 | cut -f1)" "$repeat" "$(median gzip-past4 1)"
  }
  echo
  printf '%-36s | %22s | %22s | %11s\n' "" "with history_logs" "without" "with/without"
  printf '%-36s | %6s %6s %7s | %6s %6s %7s | %5s %5s\n' "offerlab run (medians of $repeat)" "wall s" "cpu s" "RSS MiB" \
    "wall s" "cpu s" "RSS MiB" "wall" "cpu"
  past_pair "a year of past" "$base/logs/job-past.yaml" "$base/logs/job.yaml"
  past_pair "the past as generated" "$base/logs/job-past-generated.yaml" "$base/logs/job.yaml"
  past_pair "the past x4" "$base/logs/job-past4.yaml" "$base/logs/job.yaml"
  echo "a year of past: the generated past without its lines of the night's day (after as_of), so that the cache"
  echo "keeps it; as generated, its files hold events after as_of and every night parses them again."
  echo "goal (issue 58): a later night with a year of past at most 1.10x the same night without it."
  echo "Load average at the end: $(cut -d" " -f1-3 /proc/loadavg)"
}

checks=()
failed=0
# vs_binary: COMMIT's release binary, built once (a worktree of COMMIT, removed after the build).
vs_binary() {
  local root
  root="$(pwd)/.build-vs/$vs_commit"
  if [ ! -x "$root/offerlab" ]; then
    echo "building offerlab at $vs (${vs_commit:0:10}) into $root" >&2
    rm -rf "$root/src"
    git worktree add --detach --force "$root/src" "$vs_commit" >/dev/null 2>&1
    swift build -c release --product offerlab --package-path "$root/src" --scratch-path "$root/build" >"$work/build-vs" 2>&1 || {
      cat "$work/build-vs" >&2; git worktree remove --force "$root/src"; exit 1; }
    cp "$root/build/release/offerlab" "$root/offerlab"
    git worktree remove --force "$root/src"
  fi
  echo "$root/offerlab"
}

# vs_pair LABEL DIR [JOB]: the current build and COMMIT's on DIR/JOB (default job.yaml),
# alternated, $repeat times.
vs_pair() {
  local label="$1" dir="$2" job="${3:-job.yaml}"
  alternate current "$bin" "$dir/$job" earlier "$old_bin" "$dir/$job"
  read -r wall_ratio cpu_ratio < <(pair_ratios current earlier)
  local night differing
  night=$(ls "$work/out-current" | grep -E '^[0-9]{4}-' | head -1)
  mapfile -t differing < <(differing_outputs "$work/out-earlier/$night" "$work/out-current/$night")
  printf '%-22s | %6s %6s %7.0f | %6s %6s %7.0f | %5.3f %5.3f | %s\n' "$label" \
    "$(median current 1)" "$(median current 5)" "$(calc "$(sort -n -k4 "$work/current" | awk '{ v[NR] = $4 } END { print v[int((NR + 1) / 2)] }') / 1024")" \
    "$(median earlier 1)" "$(median earlier 5)" "$(calc "$(sort -n -k4 "$work/earlier" | awk '{ v[NR] = $4 } END { print v[int((NR + 1) / 2)] }') / 1024")" \
    "$wall_ratio" "$cpu_ratio" "$([ ${#differing[@]} -eq 0 ] && echo "same bytes" || echo "differ: ${differing[*]}")"
}

# vs_benchmark: every size (or every shape with --shapes) against COMMIT's build.
vs_benchmark() {
  old_bin=$(vs_binary)
  # A build made before libisal-dev was installed keeps zlib until CIsal is compiled again, and
  # then loses to a baseline with ISA-L by its inflater alone (this happened: 2.26x became 1.93x).
  local current_gzip earlier_gzip
  current_gzip=$("$bin" --version | grep '^gzip:')
  earlier_gzip=$("$old_bin" --version | grep '^gzip:')
  if [ "$current_gzip" != "$earlier_gzip" ]; then
    echo "benchmark: the two builds inflate differently (current: $current_gzip; $vs: $earlier_gzip)." >&2
    echo "benchmark: rebuild both against the same libraries (touch Sources/CIsal/offerlab_isal.c; rm -rf .build-vs/$vs_commit)" >&2
    exit 1
  fi
  echo "current tree against $vs (${vs_commit:0:10}), alternated, $repeat runs each; medians, ratios current / $vs"
  printf '%-22s | %6s %6s %7s | %6s %6s %7s | %5s %5s | %s\n' "data set" "wall s" "cpu s" "RSS MiB" \
    "wall s" "cpu s" "RSS MiB" "wall" "cpu" "outputs"
  local users dir
  if [ $past -eq 1 ]; then
    past_data "${sizes[0]}" logs
    vs_pair "${sizes[0]} users, a year of past" "$base/logs" job-past.yaml
    vs_pair "${sizes[0]} users, no past" "$base/logs"
    return
  fi
  for users in "${sizes[@]}"; do
    if [ $shapes -eq 1 ]; then
      shape_data "$users"
      for entry in "${shape_dirs[@]}"; do vs_pair "${entry%%|*}" "${entry#*|}"; done
    else
      dir="Benchmarks/data/users-$users"
      if [ ! -f "$dir/job.yaml" ]; then "$bin" generate --out "$dir" --users "$users" --seed 1 --force >&2; fi
      vs_pair "$users users" "$dir"
    fi
  done
}

declare -A shape_runs
shape_labels=()
if [ -n "$vs" ]; then
  vs_benchmark
  exit 0
fi
if [ $stores -eq 1 ]; then
  stores_benchmark "${sizes[0]}"
  exit 0
fi
if [ $past -eq 1 ]; then
  past_benchmark "${sizes[0]}"
  for line in "${checks[@]}"; do echo "$line"; done
  exit $failed
fi
if [ $shapes -eq 1 ]; then
  for users in "${sizes[@]}"; do shape_matrix "$users"; done
  [ ${#sizes[@]} -gt 1 ] && shape_scaling
  exit $failed
fi
single_size="${sizes[0]}"
for users in "${sizes[@]}"; do
  if [ "$users" = 1000000 ]; then single_size=1000000; fi
done
for users in "${sizes[@]}"; do
  dir="Benchmarks/data/users-$users"
  if [ ! -f "$dir/job.yaml" ]; then
    echo "generating $dir" >&2
    "$bin" generate --out "$dir" --users "$users" --seed 1 --force >&2
  fi
  measure "$users users" "$dir" job.yaml
  if [ "$users" = "$single_size" ] && [ $single -eq 1 ]; then
    # One file: every JSON log concatenated (gzip members back to back are one stream).
    if [ ! -f "$dir/single/all.jsonl.gz" ]; then
      mkdir -p "$dir/single"
      cat "$dir"/logs/*/*/*/*.jsonl.gz >"$dir/single/all.jsonl.gz"
    fi
    sed -e 's#^  - "logs/\*/\*/\*/\*\.jsonl\.gz"#  - "single/all.jsonl.gz"#' -e '/\.csv\.gz"$/d' "$dir/job.yaml" >"$dir/job-single.yaml"
    measure "$users users, 1 file" "$dir" job-single.yaml
  fi
  if [ "$users" = "$single_size" ] && [ $cache -eq 1 ]; then nightly "$users users" "$dir"; fi
done

echo
echo "offerlab run: wall s, cpu s (user + system), c/w = cpu/wall, peak RSS, GB/s = uncompressed log bytes / wall."
echo "decompression alone (offerlab decompress, same inflater and width): infl s, i cpu; r/i = run wall / its wall."
echo "DuckDB (Benchmarks/DuckDB/baseline.sql on the same JSON and CSV logs): duck s, d cpu; d/r = its wall / run wall,"
echo "dc/rc = its cpu / run cpu."
previous=""
for users in "${sizes[@]}"; do
  if [ -n "$previous" ]; then
    printf 'scaling %s -> %s users: users x%.2f, wall x%.2f, cpu x%.2f, peak RSS x%.2f\n' "$previous" "$users" \
      "$(calc "$users / $previous")" "$(calc "${seconds[$users users]} / ${seconds[$previous users]}")" \
      "$(calc "${cpus[$users users]} / ${cpus[$previous users]}")" "$(calc "${rss[$users users]} / ${rss[$previous users]}")"
  fi
  previous="$users"
done
for line in "${checks[@]}"; do echo "$line"; done
exit $failed
