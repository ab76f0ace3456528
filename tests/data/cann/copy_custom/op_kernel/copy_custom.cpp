#include "kernel_operator.h"

// The stand-in toolchain (tests/data/cann/standin) never compiles this; tests prepend marker
// comments that its scripts react to (standin/common.sh lists them).
extern "C" __global__ __aicore__ void copy_custom(GM_ADDR x, GM_ADDR y, GM_ADDR workspace,
                                                  GM_ADDR tiling) {
  GET_TILING_DATA(t, tiling);
  AscendC::GlobalTensor<half> in, out;
  in.SetGlobalBuffer((__gm__ half*)x, t.totalLength);
  out.SetGlobalBuffer((__gm__ half*)y, t.totalLength);
  AscendC::TPipe pipe;
  AscendC::TQueBind<AscendC::TPosition::VECIN, AscendC::TPosition::VECOUT, 1> queue;
  pipe.InitBuffer(queue, 1, t.totalLength * sizeof(half));
  auto local = queue.AllocTensor<half>();
  AscendC::DataCopy(local, in, t.totalLength);
  queue.EnQue(local);
  local = queue.DeQue<half>();
  AscendC::DataCopy(out, local, t.totalLength);
  queue.FreeTensor(local);
}
