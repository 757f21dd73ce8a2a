#!/usr/bin/env bash
# Installs the Debian packages OfferLab builds against, when they are missing.
# libisal-dev (ISA-L) is optional for the build: without it OfferLab inflates gzip with zlib,
# about four times slower; with it both inflaters are built and tested.
set -euo pipefail

needed=(zlib1g-dev libsqlite3-dev libisal-dev)
missing=()
for package in "${needed[@]}"; do
  dpkg -s "$package" >/dev/null 2>&1 || missing+=("$package")
done
[ ${#missing[@]} -eq 0 ] && exit 0

sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
echo "installing ${missing[*]}" >&2
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}" >/dev/null
