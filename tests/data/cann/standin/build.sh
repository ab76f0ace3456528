#!/bin/sh
# build.sh OP_DIR WORK_DIR KERNEL [RENDEZVOUS_DIR]: "builds" the package. With RENDEZVOUS_DIR,
# waits (up to 20 s) until two builds have started there: proves two evaluations overlap.
OP_DIR=$1; WORK_DIR=$2; KERNEL=$3; RENDEZVOUS=$4
. "$(dirname "$0")/common.sh"
[ -f "$OP_DIR/op.json" ] || { echo "build.sh: no op.json in $OP_DIR" >&2; exit 2; }
has_marker STANDIN_BUILD_HANG && sleep 30
if has_marker STANDIN_BUILD_ERROR; then
  echo "op_kernel/$KERNEL.cpp:12:3: error: 'Undeclared' was not declared in this scope" >&2
  exit 1
fi
mkdir -p "$OP_DIR/build_out" && echo "$WORK_DIR" > "$OP_DIR/build_out/work_dir.txt"
if [ -n "$RENDEZVOUS" ]; then
  echo "$WORK_DIR" > "$RENDEZVOUS/started.$$"
  i=0
  while [ "$(ls "$RENDEZVOUS" | grep -c '^started\.')" -lt 2 ]; do
    i=$((i + 1)); [ $i -gt 400 ] && { echo "build.sh: no concurrent build" >&2; exit 3; }
    sleep 0.05
  done
fi
exit 0
