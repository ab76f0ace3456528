#!/usr/bin/env bash
# Sets up, builds and runs the main job: a campaign over the bundled corpus on the AscendC
# simulator with the offline (heuristic) policies. Extra arguments go to `aopt run`.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/build.sh
# Stage II retrieves from the experience bank in the campaign's database (an --db given to
# `aopt run` applies here too). The build is resumable and skips experts already rewound, so
# after the first run it costs a few seconds. A failed expert leaves the bank with the others'
# tuples, which Stage II can still use: the campaign runs anyway.
bank_db=()
for ((i = 1; i <= $#; i++)); do
  case "${!i}" in
    --db) j=$((i + 1)) && bank_db=(--db "${!j}") ;;
    --db=*) bank_db=("${!i}") ;;
  esac
done
./build/aopt bank build corpus/experts "${bank_db[@]}" ||
  echo "campaign.sh: aopt bank build failed; Stage II uses the bank as it is" >&2
# The defaults go in as --set keys, which `aopt run`'s own flags override: extra arguments such as
# --budget 5 or --report DIR then work here exactly as they do on `aopt run` (a flag given twice is
# refused).
exec ./build/aopt run corpus --set campaign.budget=40 --set report.dir=aopt-reports "$@"
