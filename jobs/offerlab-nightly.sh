#!/usr/bin/env bash
# Cron wrapper for a nightly OfferLab job.
#
#   offerlab-nightly.sh JOB.yaml [LOG_FILE]
#
# Runs `offerlab run JOB.yaml` with as_of = today 00:00 UTC (the job file's default), appends
# everything it prints to LOG_FILE (default: <job folder>/offerlab-nightly.log) with a time
# stamp, and exits with offerlab's exit code, so cron's mail or a monitor sees failures:
# 0 success, 65 bad data, 73 outputs not writable, 75 another run holds the lock, 78 bad job.
# A clean success prints nothing; a success with warnings (money without a rate, corrupt files
# skipped, …) prints offerlab's `warning:` lines on stderr; a failure prints one line on stderr
# naming the exit code and the log. Cron mails whatever is printed.
set -uo pipefail

job=${1:?usage: offerlab-nightly.sh JOB.yaml [LOG_FILE]}
log=${2:-$(dirname "$job")/offerlab-nightly.log}
offerlab=${OFFERLAB:-$(command -v offerlab || echo "$(dirname "$0")/../.build/release/offerlab")}

errors=$(mktemp) || { echo "offerlab nightly job $job: cannot create a temporary file" >&2; exit 73; }
trap 'rm -f "$errors"' EXIT
# The block's status is offerlab's: an `exit` inside it would end the script with its output
# still going to the log, and the line for cron would never be printed.
{
  echo "=== $(date -u +%Y-%m-%dT%H:%M:%SZ) offerlab run $job"
  "$offerlab" run --quiet "$job" 2>"$errors"
  status=$?
  cat "$errors"
  echo "=== exit $status"
  (exit $status)
} >>"$log" 2>&1
status=$?
if [ $status -ne 0 ]; then
  # One line on stderr for cron's mail; the details are in the log.
  echo "offerlab nightly job $job failed with exit code $status; see $log" >&2
else
  grep '^warning: ' "$errors" >&2
fi
exit $status
