#!/usr/bin/env bash
# Runs every test: installs what the build needs, builds, runs the Swift Testing suites.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
swift build --build-tests
swift test --skip-build "$@"
