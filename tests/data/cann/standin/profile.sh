#!/bin/sh
# profile.sh OP_DIR WORK_DIR KERNEL DEVICE_ID FORMAT SEED: writes what msprof would for one
# launch, FORMAT "old" (OPPROF_*, Block Dim), "new" (OPPROF_*, Block Num) or "summary"
# (op_summary_*.csv). Task Duration = STANDIN_LATENCY (default 20 us) x (1 + N(0, 0.02)), the
# noise seeded by SEED and the sample's number in this work dir, times the factor in the file
# `slowdown` next to the work dirs when there is one (a device that got slower). A file `noise`
# there replaces the 0.02 (a test that must not depend on the draw writes 0).
OP_DIR=$1; WORK_DIR=$2; KERNEL=$3; DEVICE=$4; FORMAT=$5; SEED=$6
. "$(dirname "$0")/common.sh"
has_marker STANDIN_NO_CSV && exit 0
has_marker STANDIN_PROFILE_HANG && sleep 30
BASE=$(grep -o 'STANDIN_LATENCY=[0-9.]*' "$OP_DIR"/op_kernel/*.cpp | head -n1 | cut -d= -f2)
[ -n "$BASE" ] || BASE=20
[ -f "$WORK_DIR/../slowdown" ] && BASE=$(awk -v b="$BASE" -v f="$(cat "$WORK_DIR/../slowdown")" 'BEGIN { print b * f }')
NOISE=0.02
[ -f "$WORK_DIR/../noise" ] && NOISE=$(cat "$WORK_DIR/../noise")
COUNT_FILE="$WORK_DIR/standin_samples"
N=$(cat "$COUNT_FILE" 2>/dev/null || echo 0); N=$((N + 1)); echo $N > "$COUNT_FILE"
DURATION=$(awk -v b="$BASE" -v s="$SEED" -v sigma="$NOISE" -v n="$N" -v w="$WORK_DIR" 'BEGIN {
  h = 0; for (i = 1; i <= length(w); i++) h = (h * 31 + index("abcdefghijklmnopqrstuvwxyz0123456789-_/", substr(w, i, 1))) % 1000003;
  srand(s * 7919 + n * 104729 + h); u1 = rand(); u2 = rand(); if (u1 < 1e-12) u1 = 1e-12;
  z = sqrt(-2 * log(u1)) * cos(6.283185307 * u2); printf "%.3f", b * (1 + sigma * z) }')
OUT="$WORK_DIR/prof"
STAMP=$(printf '20260101%06d' "$N")
if [ "$FORMAT" = summary ]; then
  DIR="$OUT/PROF_000001_$STAMP/device_$DEVICE/summary"; mkdir -p "$DIR"
  printf 'Op Name,OP Type,Task Type,Task Duration(us),Block Dim,Input Shapes,aiv_time(us),aiv_vec_ratio,aiv_mte2_ratio\r\n' > "$DIR/op_summary_0_1_1.csv"
  printf '%s,CopyCustom,AI_VECTOR_CORE,%s,1,"4,512",%s,0.0,0.8\r\n' "$KERNEL" "$DURATION" "$DURATION" >> "$DIR/op_summary_0_1_1.csv"
  exit 0
fi
BLOCK="Block Dim"; [ "$FORMAT" = new ] && BLOCK="Block Num"
DIR="$OUT/OPPROF_${STAMP}_X"; mkdir -p "$DIR"
printf 'Op Name,Op Type,Task Duration(us),%s,Mix Block Dim,Device ID,PID,Current Freq,Rated Freq\n' "$BLOCK" > "$DIR/OpBasicInfo.csv"
printf '%s,CopyCustom,%s,1,0,%s,%s,1500,1500\n' "$KERNEL" "$DURATION" "$DEVICE" "$$" >> "$DIR/OpBasicInfo.csv"
printf 'block_id,aiv_time(us),aiv_total_cycles,aiv_vec_time(us),aiv_vec_ratio,aiv_scalar_time(us),aiv_scalar_ratio,aiv_mte2_time(us),aiv_mte2_ratio,aiv_mte3_time(us),aiv_mte3_ratio,aiv_icache_miss_rate\n0,%s,0,0,0,0.5,0.05,8,0.6,4,0.3,0\n' "$DURATION" > "$DIR/PipeUtilization.csv"
printf 'block_id,GM_to_UB_datas(KB),UB_to_GM_datas(KB),aiv_gm_to_ub_bw(GB/s)\n0,4,4,10\n' > "$DIR/Memory.csv"
