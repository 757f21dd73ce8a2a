#!/usr/bin/env bash
# Runs every test: installs what the build needs, checks the code's format (.swift-format),
# builds, runs the Swift Testing suites.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
# `swift format -i -r Sources Tests Benchmarks Fuzz Package.swift` fixes what this reports.
swift format lint --strict -r Sources Tests Benchmarks Fuzz Package.swift
swift build --build-tests
# The run's output is kept, so that a failure's own lines come again at the end: a log cut to
# its tail (CI's) would otherwise lose them among hundreds of passing tests printed after them.
log=$(mktemp)
trap 'rm -f "$log"' EXIT
status=0
swift test --skip-build "$@" 2>&1 | tee "$log" || status=$?
if [ "$status" -ne 0 ]; then
  echo "--- the failing tests' issues, again ---"
  grep -A8 -E "recorded an issue|error:|Fatal error" "$log" | grep -v -E "^(✔|◇) " | head -300 || true
  exit "$status"
fi
