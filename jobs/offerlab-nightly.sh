#!/usr/bin/env bash
# Cron wrapper for a nightly OfferLab job.
#
#   offerlab-nightly.sh JOB.yaml [LOG_FILE]
#
# Runs `offerlab run JOB.yaml` with as_of = today 00:00 UTC (the job file's default), appends
# everything it prints to LOG_FILE with a time stamp, and exits with offerlab's exit code, so
# cron's mail or a monitor sees failures: 0 success, 65 bad data, 73 outputs not writable,
# 75 another run holds the lock, 78 bad job. LOG_FILE defaults to offerlab-nightly.log in the
# job's output folder (its `output:` key), next to the nights it writes, never in the folder of
# the job file (which may be a repository).
# A clean success prints nothing; a success with warnings (money without a rate, corrupt files
# skipped, …) prints offerlab's `warning:` lines on stderr; a night with alerts (what changed
# since the previous night: a test to ship or roll back, a broken split) prints offerlab's
# `alert:` lines on stdout, and exits with the job's `alert_exit_code` when it sets one; a
# failure prints one line on stderr with the exit code, offerlab's own error text and the log.
set -uo pipefail

if [ $# -lt 1 ] || [ -z "$1" ]; then
  # A crontab line without its job: one line for cron's mail, and EX_USAGE like offerlab's own.
  echo "usage: offerlab-nightly.sh JOB.yaml [LOG_FILE] (no job file given)" >&2
  exit 64
fi
job=$1
offerlab=${OFFERLAB:-$(command -v offerlab || echo "$(dirname "$0")/../.build/release/offerlab")}
if [ $# -ge 2 ]; then
  log=$2
else
  # The job's `output:` value (a comment, quotes and spaces around it removed), relative to the
  # job file's folder unless absolute; the job's folder when the key cannot be read.
  output=$(sed -n 's/^output:[[:space:]]*//p' "$job" 2>/dev/null | head -n 1 | sed 's/[[:space:]]#.*$//; s/[[:space:]]*$//; s/^["'\'']//; s/["'\'']$//')
  case $output in
    '') output=$(dirname "$job") ;;
    /*) ;;
    *) output=$(dirname "$job")/$output ;;
  esac
  mkdir -p "$output" 2>/dev/null
  log=${output%/}/offerlab-nightly.log
fi

errors=$(mktemp) || { echo "offerlab nightly job $job: cannot create a temporary file" >&2; exit 73; }
printed=$(mktemp) || { rm -f "$errors"; echo "offerlab nightly job $job: cannot create a temporary file" >&2; exit 73; }
trap 'rm -f "$errors" "$printed"' EXIT
# The block's status is offerlab's: an `exit` inside it would end the script with its output
# still going to the log, and the line for cron would never be printed.
{
  echo "=== $(date -u +%Y-%m-%dT%H:%M:%SZ) offerlab run $job"
  "$offerlab" run --quiet "$job" >"$printed" 2>"$errors"
  status=$?
  cat "$printed" "$errors"
  echo "=== exit $status"
  (exit $status)
} >>"$log" 2>&1
status=$?
# A successful night exits 0, or the job's alert_exit_code when it has alerts: no error line then.
if [ $status -ne 0 ] && ! { grep -q '^alert: ' "$printed" && ! grep -q '^offerlab: error: ' "$errors"; }; then
  # One line on stderr for cron's mail: offerlab's own error line (the last, if several), else
  # whatever it printed last (a crash), and where the rest is.
  reason=$(grep '^offerlab: error: ' "$errors" | tail -n 1 | sed 's/^offerlab: error: //')
  [ -n "$reason" ] || reason=$(grep -v '^[[:space:]]*$' "$errors" | tail -n 1)
  [ -n "$reason" ] || reason="it printed no error"
  echo "offerlab nightly job $job failed with exit code $status: $reason (log: $log)" >&2
else
  grep '^warning: ' "$errors" >&2
  grep '^alert: ' "$printed"
fi
exit $status
