#!/usr/bin/env bash
# Installs the Debian packages aopt needs, then configures and builds into ./build.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
# Paths below the checkout hash as relative ones, so another clone of the same tree (CI's) reuses
# the compiler cache.
export CCACHE_BASEDIR="$PWD"
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build -j"$(nproc)"
