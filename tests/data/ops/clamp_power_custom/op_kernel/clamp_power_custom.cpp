// Test operator kernel, in the style of the public AscendC samples: z = min(x^2, 3) with the
// math library's Power and ClampMax, a kernel ASSERT, and a vector result read back by the
// scalar unit without flags (ordered by the compiler's auto-sync).
#include "kernel_operator.h"
using namespace AscendC;

constexpr int32_t BUFFER_NUM = 2;

class KernelClampPower {
 public:
  __aicore__ inline KernelClampPower() {}
  __aicore__ inline void Init(GM_ADDR x, GM_ADDR z, uint32_t blockLength, uint32_t tileLength) {
    ASSERT(GetBlockNum() != 0 && "block dim can not be zero!");
    this->blockLength = blockLength;
    this->tileLength = tileLength;
    this->tileNum = blockLength / tileLength;
    xGm.SetGlobalBuffer((__gm__ float*)x + this->blockLength * GetBlockIdx(), this->blockLength);
    zGm.SetGlobalBuffer((__gm__ float*)z + this->blockLength * GetBlockIdx(), this->blockLength);
    pipe.InitBuffer(inQueueX, BUFFER_NUM, this->tileLength * sizeof(float));
    pipe.InitBuffer(outQueueZ, BUFFER_NUM, this->tileLength * sizeof(float));
  }
  __aicore__ inline void Process() {
    for (int32_t i = 0; i < static_cast<int32_t>(this->tileNum); i++) {
      CopyIn(i);
      Compute(i);
      CopyOut(i);
    }
  }

 private:
  __aicore__ inline void CopyIn(int32_t progress) {
    LocalTensor<float> xLocal = inQueueX.AllocTensor<float>();
    DataCopy(xLocal, xGm[progress * this->tileLength], this->tileLength);
    inQueueX.EnQue(xLocal);
  }
  __aicore__ inline void Compute(int32_t progress) {
    LocalTensor<float> xLocal = inQueueX.DeQue<float>();
    LocalTensor<float> zLocal = outQueueZ.AllocTensor<float>();
    Power(zLocal, xLocal, 2.0f, this->tileLength);
    ClampMax(zLocal, zLocal, 3.0f, this->tileLength);
    float first = zLocal.GetValue(0);
    ASSERT(first >= 0.0f && first <= 3.0f);
    outQueueZ.EnQue<float>(zLocal);
    inQueueX.FreeTensor(xLocal);
  }
  __aicore__ inline void CopyOut(int32_t progress) {
    LocalTensor<float> zLocal = outQueueZ.DeQue<float>();
    DataCopy(zGm[progress * this->tileLength], zLocal, this->tileLength);
    outQueueZ.FreeTensor(zLocal);
  }

  TPipe pipe;
  TQue<QuePosition::VECIN, BUFFER_NUM> inQueueX;
  TQue<QuePosition::VECOUT, BUFFER_NUM> outQueueZ;
  GlobalTensor<float> xGm;
  GlobalTensor<float> zGm;
  uint32_t blockLength;
  uint32_t tileLength;
  uint32_t tileNum;
};

extern "C" __global__ __aicore__ void clamp_power_custom(GM_ADDR x, GM_ADDR z, GM_ADDR workspace,
                                                         GM_ADDR tiling) {
  GET_TILING_DATA(tiling_data, tiling);
  KernelClampPower op;
  op.Init(x, z, tiling_data.blockLength, tiling_data.tileLength);
  op.Process();
}
