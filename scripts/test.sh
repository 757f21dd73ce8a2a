#!/usr/bin/env bash
# Runs every test: installs what the build needs, checks the code's format (.swift-format),
# builds, runs the Swift Testing suites.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
# `swift format -i -r Sources Tests Benchmarks Fuzz Package.swift` fixes what this reports.
swift format lint --strict -r Sources Tests Benchmarks Fuzz Package.swift
swift build --build-tests
swift test --skip-build "$@"
