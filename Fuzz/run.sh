#!/usr/bin/env bash
# Builds a libFuzzer target against the OfferLabIngest sources and fuzzes it.
#
#   Fuzz/run.sh TARGET SECONDS [libFuzzer options…]   fuzz for SECONDS
#   Fuzz/run.sh TARGET 0                               build, then run the committed inputs once
#   Fuzz/run.sh all SECONDS                            every target, one after the other
#
# TARGET is one of: json-line log-file table timestamp number gzip (see docs/reliability.md).
# The committed seeds (Fuzz/corpus/TARGET) are read; inputs the fuzzer finds go to
# Fuzz/.build/corpus/TARGET, crashes to Fuzz/.build/artifacts/TARGET/, the log to
# Fuzz/.build/logs/. Reproduce a crash with `Fuzz/.build/TARGET CRASH-FILE`.
# Needs the Swift toolchain's libFuzzer (Linux), zlib1g-dev.
set -euo pipefail
cd "$(dirname "$0")/.."

targets=(json-line log-file table timestamp number gzip)
target=${1:?usage: Fuzz/run.sh TARGET|all SECONDS [libFuzzer options…]}
seconds=${2:?usage: Fuzz/run.sh TARGET|all SECONDS [libFuzzer options…]}
shift 2

if [ "$target" = all ]; then
  for name in "${targets[@]}"; do "$0" "$name" "$seconds" "$@"; done
  exit 0
fi

case "$target" in
  json-line) folder=JSONLine ;;
  log-file) folder=LogFile ;;
  table) folder=Table ;;
  timestamp) folder=Timestamp ;;
  number) folder=Number ;;
  gzip) folder=Gzip ;;
  *) echo "unknown target '$target' (one of: ${targets[*]})" >&2; exit 64 ;;
esac

build=Fuzz/.build
# libFuzzer and AddressSanitizer print the stack of a crash; Swift's own backtracer only slows it.
export SWIFT_BACKTRACE=enable=no
mkdir -p "$build/corpus/$target" "$build/artifacts/$target" "$build/logs"
# One module: the targets reach the parsers' internal machinery (DelimitedParser, JSONScanner).
# The C targets it imports, compiled here: CIsal (ISA-L, loaded at run time when installed) and
# COfferLabSIMD (inline functions, and the AVX2 ones); an object per target, so that two targets
# can be built at once.
clang -c -O2 -g -I Sources/CIsal/include Sources/CIsal/offerlab_isal.c -o "$build/offerlab_isal-$target.o"
clang -c -O2 -g -I Sources/COfferLabSIMD/include Sources/COfferLabSIMD/offerlab_simd.c -o "$build/offerlab_simd-$target.o"
# The vocabulary the parsers import (OfferLabVocabulary: `Microseconds`), a module of its own.
vocabulary="$build/vocabulary-$target"
mkdir -p "$vocabulary"
swiftc -sanitize=fuzzer,address -parse-as-library -O -g -wmo -module-name OfferLabVocabulary -package-name OfferLab \
  -emit-module -emit-module-path "$vocabulary/OfferLabVocabulary.swiftmodule" -c Sources/OfferLabVocabulary/*.swift \
  -o "$vocabulary/OfferLabVocabulary.o"
swiftc -sanitize=fuzzer,address -parse-as-library -O -g -use-ld=lld -module-name OfferLabIngest -package-name OfferLab \
  -Xcc -fmodule-map-file=Sources/CZlib/module.modulemap -lz -I "$vocabulary" "$vocabulary/OfferLabVocabulary.o" \
  -I Sources/CIsal/include -I Sources/COfferLabSIMD/include "$build/offerlab_isal-$target.o" "$build/offerlab_simd-$target.o" \
  Sources/OfferLabIngest/*.swift Sources/OfferLabIngest/Blocking/*.swift Fuzz/Support/*.swift "Fuzz/$folder"/*.swift -o "$build/$target"
if [ "$seconds" -eq 0 ]; then
  # The seeds and the regression inputs of past findings, each run once (CI).
  "$build/$target" -runs=0 "Fuzz/corpus/$target" >"$build/logs/$target-replay.log" 2>&1 || {
    cat "$build/logs/$target-replay.log" >&2
    exit 1
  }
  echo "$target: $(ls "Fuzz/corpus/$target" | wc -l) committed inputs, no crash"
  exit 0
fi

dictionary=()
[ -f "Fuzz/$folder/dictionary.txt" ] && dictionary=(-dict="Fuzz/$folder/dictionary.txt")
log="$build/logs/$target-$(date -u +%Y%m%dT%H%M%SZ).log"
status=0
"$build/$target" -max_total_time="$seconds" -max_len=4096 -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
  -artifact_prefix="$build/artifacts/$target/" "${dictionary[@]}" "$@" \
  "$build/corpus/$target" "Fuzz/corpus/$target" >"$log" 2>&1 || status=$?
runs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' || echo "?")
result=$([ "$status" -eq 0 ] && echo "no crash" || echo "FAILED (exit $status), see $log")
echo "$(date -u +%Y-%m-%d) $target: ${seconds}s, $runs executions, $result"
exit "$status"
