// Test operator: var += delta (+ bias), in place. The kernel has no output argument: it writes
// var itself, and leaves the sum in the caller's staging buffer too. bias is null when the
// call leaves it out.
#include "kernel_operator.h"

extern "C" __global__ __aicore__ void inplace_update(GM_ADDR var, GM_ADDR delta, GM_ADDR bias,
                                                     GM_ADDR stage, GM_ADDR workspace,
                                                     GM_ADDR tiling) {
  GET_TILING_DATA(tilingData, tiling);
  const uint32_t n = tilingData.rowLength;
  const uint32_t first = n * AscendC::GetBlockIdx();
  const bool hasBias = tilingData.hasBias != 0 && bias != nullptr;
  AscendC::GlobalTensor<float> varGm, deltaGm, biasGm, stageGm;
  varGm.SetGlobalBuffer(reinterpret_cast<__gm__ float*>(var) + first, n);
  deltaGm.SetGlobalBuffer(reinterpret_cast<__gm__ float*>(delta) + first, n);
  stageGm.SetGlobalBuffer(reinterpret_cast<__gm__ float*>(stage) + first, n);
  AscendC::TPipe pipe;
  AscendC::TQue<AscendC::QuePosition::VECIN, 1> accQueue, deltaQueue, biasQueue;
  AscendC::TQue<AscendC::QuePosition::VECOUT, 1> sumQueue;
  pipe.InitBuffer(accQueue, 1, n * sizeof(float));
  pipe.InitBuffer(deltaQueue, 1, n * sizeof(float));
  pipe.InitBuffer(sumQueue, 1, n * sizeof(float));

  auto acc = accQueue.AllocTensor<float>();
  auto d = deltaQueue.AllocTensor<float>();
  AscendC::DataCopy(acc, varGm, n);
  AscendC::DataCopy(d, deltaGm, n);
  accQueue.EnQue(acc);
  deltaQueue.EnQue(d);
  acc = accQueue.DeQue<float>();
  d = deltaQueue.DeQue<float>();
  auto sum = sumQueue.AllocTensor<float>();
  AscendC::Add(sum, acc, d, n);
  if (hasBias) {
    biasGm.SetGlobalBuffer(reinterpret_cast<__gm__ float*>(bias) + first, n);
    pipe.InitBuffer(biasQueue, 1, n * sizeof(float));
    auto b = biasQueue.AllocTensor<float>();
    AscendC::DataCopy(b, biasGm, n);
    biasQueue.EnQue(b);
    b = biasQueue.DeQue<float>();
    AscendC::Add(sum, sum, b, n);
    biasQueue.FreeTensor(b);
  }
  sumQueue.EnQue(sum);
  accQueue.FreeTensor(acc);
  deltaQueue.FreeTensor(d);
  sum = sumQueue.DeQue<float>();
  AscendC::DataCopy(varGm, sum, n);
  AscendC::DataCopy(stageGm, sum, n);
  sumQueue.FreeTensor(sum);
}
