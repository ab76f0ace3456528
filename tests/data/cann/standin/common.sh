# Shared by the stand-in CANN toolchain scripts: they build and run nothing; they react to marker
# comments in the candidate's kernel ($OP_DIR/op_kernel/*.cpp) and write files in the documented
# formats (docs/ascendc-reference.md §1, §5). Test-only: never hardware measurements.
# Markers: STANDIN_BUILD_ERROR (build fails), STANDIN_BUILD_HANG (build sleeps), STANDIN_CRASH
# (run fails), STANDIN_WRONG (zero outputs), STANDIN_NO_OUTPUT, STANDIN_HANG (run sleeps),
# STANDIN_NO_CSV (profile writes nothing), STANDIN_PROFILE_HANG (profile sleeps),
# STANDIN_LATENCY=<us> (the profiled Task Duration; default 20).
has_marker() {
  grep -q "$1" "$OP_DIR"/op_kernel/*.cpp
}
