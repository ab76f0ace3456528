#!/bin/sh
# run.sh OP_DIR WORK_DIR DEVICE_ID: "runs" the copy operator: output/y.bin = input/x.bin.
OP_DIR=$1; WORK_DIR=$2; DEVICE=$3
. "$(dirname "$0")/common.sh"
[ "$(cat "$OP_DIR/build_out/work_dir.txt")" = "$WORK_DIR" ] || { echo "run.sh: foreign build" >&2; exit 4; }
if has_marker STANDIN_CRASH; then
  echo "[ERROR] aclrtSynchronizeStream failed, error code 507011 (device $DEVICE)" >&2
  exit 1
fi
if has_marker STANDIN_HANG; then
  sleep 30
fi
has_marker STANDIN_NO_OUTPUT && exit 0
if has_marker STANDIN_WRONG; then
  head -c "$(wc -c < "$WORK_DIR/input/x.bin")" /dev/zero > "$WORK_DIR/output/y.bin"
else
  cp "$WORK_DIR/input/x.bin" "$WORK_DIR/output/y.bin"
fi
