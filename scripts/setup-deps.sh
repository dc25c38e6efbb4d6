#!/usr/bin/env bash
# Installs wtsim's build dependencies from Debian's packages, only those missing.
# Idempotent and quiet when everything is present. Needs root (or sudo) for apt-get.
set -euo pipefail

packages=(
  build-essential cmake pkg-config
  libwiredtiger-dev
  libboost-fiber-dev libboost-context-dev
  librapidcheck-dev
  nlohmann-json3-dev
  libgtest-dev libgmock-dev
  libbenchmark-dev
  libcli11-dev
  libjemalloc2         # the tool runs on jemalloc when present (sim/allocator_tuning.h)
  python3-jsonschema   # tests: traces.schema validates real traces
  libxml2-utils        # tests: runs.shard_merge validates JUnit XML (xmllint)
  chromium             # tests: traces.report_chromium loads the HTML report headless
  clang libclang-rt-14-dev  # tests: fuzz.readers (libFuzzer and the sanitizer runtimes)
)

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done
[ ${#missing[@]} -eq 0 ] && exit 0

echo "setup-deps: installing ${missing[*]}" >&2
sudo_cmd=()
[ "$(id -u)" -ne 0 ] && sudo_cmd=(sudo)
export DEBIAN_FRONTEND=noninteractive
"${sudo_cmd[@]}" apt-get update -qq
"${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
