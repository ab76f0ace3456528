// Test operator: a kernel that writes through a null pointer (SIGSEGV in the candidate process).
#include "kernel_operator.h"

extern "C" __global__ __aicore__ void add_null_crash(GM_ADDR x, GM_ADDR y, GM_ADDR z,
                                                     GM_ADDR workspace, GM_ADDR tiling) {
  GET_TILING_DATA(tilingData, tiling);
  volatile uint32_t* perCoreCounters = nullptr;  // meant to point into the workspace
  perCoreCounters[AscendC::GetBlockIdx()] = tilingData.totalLength;
}
