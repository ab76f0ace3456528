#!/usr/bin/env bash
# Sets up, builds and runs the main job: a campaign over the bundled corpus on the AscendC
# simulator with the offline (heuristic) policies. Extra arguments go to `aopt run`.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/build.sh
exec ./build/aopt run corpus --budget 40 --report aopt-reports "$@"
