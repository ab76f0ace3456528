#!/usr/bin/env bash
# Sets up, builds and runs every test (ctest drives the doctest executables).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/build.sh
ctest --test-dir build --output-on-failure -j"$(nproc)" "$@"
