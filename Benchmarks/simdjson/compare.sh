#!/bin/sh
# simdjson On-Demand (simdjson_lines.cpp) against the hand-written scanner
# (`ingest-benchmark --parser`) on the same lines, interleaved: ROUNDS rounds of each variant.
# Usage: Benchmarks/simdjson/compare.sh LOG.jsonl.gz [PASSES] [ROUNDS]
# Needs libsimdjson-dev (Debian; 3.0.1 on bookworm) and the ingest benchmark built in release:
#   (cd Benchmarks/IngestBenchmark && swift build -c release --scratch-path /tmp/.build-ib)
set -eu
LOG=$1
PASSES=${2:-20}
ROUNDS=${3:-5}
HERE=$(cd "$(dirname "$0")" && pwd)
OUT=${OUT:-/tmp/simdjson-lines}
B=${B:-/tmp/.build-ib/release/ingest-benchmark}
mkdir -p "$OUT"
# -O2 and the default x86-64 target for both compilers. simdjson's stage 1 and string
# unescaping are in libsimdjson, which picks the CPU's best kernel at run time (`icelake` on an
# AVX-512 machine); only the inline On-Demand walker is compiled for the target (`fallback`).
# clang++ is the Swift toolchain's (the same LLVM as swiftc).
clang++ -std=c++17 -O2 -o "$OUT/simdjson_lines_clang" "$HERE/simdjson_lines.cpp" -lsimdjson
g++ -std=c++17 -O2 -o "$OUT/simdjson_lines_gcc" "$HERE/simdjson_lines.cpp" -lsimdjson
gzip -dc "$LOG" > "$OUT/lines.jsonl"
for round in $(seq "$ROUNDS"); do
    echo "round $round"
    "$B" --parser "$LOG" "$PASSES"
    for variant in "" "--raw" "--skip --raw" "--floor"; do
        # shellcheck disable=SC2086
        echo "clang++ $variant: $("$OUT/simdjson_lines_clang" $variant "$PASSES" < "$OUT/lines.jsonl" | head -1)"
    done
    echo "g++: $("$OUT/simdjson_lines_gcc" "$PASSES" < "$OUT/lines.jsonl" | head -1)"
done
