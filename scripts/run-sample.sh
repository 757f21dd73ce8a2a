#!/usr/bin/env bash
# Builds offerlab (release) and runs the sample nightly job on sample-data/.
# Outputs go to out/sample/<date>/ and out/sample/results.sqlite.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
swift build -c release --product offerlab
.build/release/offerlab run jobs/sample.yaml "$@"
