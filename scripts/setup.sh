#!/usr/bin/env bash
# Installs every Debian package aopt needs to build, test and run. Idempotent.
set -euo pipefail
packages=(
  g++ cmake ninja-build ccache pkg-config git
  mold  # the candidates' linker (npu/sim/CMakeLists.txt falls back to lld, then gold)
  libcaf-dev libboost-dev libboost-system-dev librocksdb-dev nlohmann-json3-dev
  doctest-dev libssl-dev libcli11-dev libspdlog-dev libfmt-dev libtomlplusplus-dev
  libhnswlib-dev libxxhash-dev libseccomp-dev libdtl-dev
  libclang-dev  # libclang's C API: the data flow of tiling programs (template synthesis)
  chromium  # headless, for the dashboard's browser test (tests/server/dashboard_browser_test.cpp)
)
missing=()
for p in "${packages[@]}"; do
  dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
if ((${#missing[@]})); then
  sudo_cmd=()
  [[ $(id -u) -ne 0 ]] && sudo_cmd=(sudo)
  "${sudo_cmd[@]}" apt-get update -qq
  DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
