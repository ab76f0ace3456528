// Test operator: a kernel that prints bytes that are not UTF-8 (0xFF 0xFE) with AscendC's printf
// (which the simulator sends to stderr), then crashes, so its output becomes the diagnostics of a
// failed evaluation.
#include "kernel_operator.h"

extern "C" __global__ __aicore__ void add_bad_bytes(GM_ADDR x, GM_ADDR y, GM_ADDR z,
                                                    GM_ADDR workspace, GM_ADDR tiling) {
  GET_TILING_DATA(tilingData, tiling);
  AscendC::printf("bad bytes: \xff\xfe end\n");
  volatile uint32_t* perCoreCounters = nullptr;
  perCoreCounters[AscendC::GetBlockIdx()] = tilingData.totalLength;
}
