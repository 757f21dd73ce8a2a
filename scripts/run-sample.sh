#!/usr/bin/env bash
# Builds offerlab (release) and runs the sample nightly job on sample-data/ (or another job).
# Outputs go to out/sample/<date>/ and out/sample/results.sqlite.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
swift build -c release --product offerlab
# A first argument ending in .yaml names the job (jobs/sample-with-warnings.yaml); the rest go to
# `offerlab run`.
job=jobs/sample.yaml
if [ $# -gt 0 ] && [[ $1 == *.yaml ]]; then
  job=$1
  shift
fi
.build/release/offerlab run "$job" "$@"
