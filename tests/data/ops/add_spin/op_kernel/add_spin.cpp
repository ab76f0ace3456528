// Test operator: a kernel stuck in a loop that never ends (the parent must kill it on time).
#include "kernel_operator.h"

extern "C" __global__ __aicore__ void add_spin(GM_ADDR x, GM_ADDR y, GM_ADDR z, GM_ADDR workspace,
                                               GM_ADDR tiling) {
  GET_TILING_DATA(tilingData, tiling);
  volatile uint32_t remaining = tilingData.totalLength;
  while (remaining != 0) {
    remaining = remaining + 0;  // waits for a count that nothing decrements
  }
}
