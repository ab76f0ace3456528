// Test operator: a kernel that uses a name it never declared (a compile error on line 10).
#include "kernel_operator.h"

extern "C" __global__ __aicore__ void add_compile_error(GM_ADDR x, GM_ADDR y, GM_ADDR z,
                                                        GM_ADDR workspace, GM_ADDR tiling) {
  GET_TILING_DATA(tilingData, tiling);
  AscendC::GlobalTensor<DTYPE_X> lhs;
  lhs.SetGlobalBuffer(reinterpret_cast<__gm__ DTYPE_X*>(x), tilingData.totalLength);
  uint32_t blockLength = tilingData.totalLength / AscendC::GetBlockNum();
  uint32_t tileElems = blockLength / tileLength;
}
