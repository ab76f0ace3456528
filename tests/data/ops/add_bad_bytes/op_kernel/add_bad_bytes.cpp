// Test operator: a kernel that writes bytes that are not UTF-8 (0xFF 0xFE) to stderr, then
// crashes, so its output becomes the diagnostics of a failed evaluation.
#include <cstdio>

#include "kernel_operator.h"

extern "C" __global__ __aicore__ void add_bad_bytes(GM_ADDR x, GM_ADDR y, GM_ADDR z,
                                                    GM_ADDR workspace, GM_ADDR tiling) {
  GET_TILING_DATA(tilingData, tiling);
  std::fputs("bad bytes: \xff\xfe end\n", stderr);
  std::fflush(stderr);
  volatile uint32_t* perCoreCounters = nullptr;
  perCoreCounters[AscendC::GetBlockIdx()] = tilingData.totalLength;
}
