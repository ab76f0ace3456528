// Test operator: x = sqrt(x * x + y * y). The kernel gets x twice, as CANN passes a ref output:
// the input and, as x_ref, the output at the same memory; it reads one and writes the other.
#include "kernel_operator.h"

using namespace AscendC;

class KernelHypot {
 public:
  __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, GM_ADDR xRef, uint32_t perCore,
                              uint32_t tileLength) {
    const uint32_t first = perCore * GetBlockIdx();
    xGm_.SetGlobalBuffer(reinterpret_cast<__gm__ float*>(x) + first, perCore);
    yGm_.SetGlobalBuffer(reinterpret_cast<__gm__ float*>(y) + first, perCore);
    outGm_.SetGlobalBuffer(reinterpret_cast<__gm__ float*>(xRef) + first, perCore);
    tiles_ = perCore / tileLength;
    tileLength_ = tileLength;
    pipe_.InitBuffer(inX_, 2, tileLength * sizeof(float));
    pipe_.InitBuffer(inY_, 2, tileLength * sizeof(float));
    pipe_.InitBuffer(out_, 2, tileLength * sizeof(float));
  }
  __aicore__ inline void Process() {
    for (uint32_t t = 0; t < tiles_; ++t) {
      LocalTensor<float> a = inX_.AllocTensor<float>();
      LocalTensor<float> b = inY_.AllocTensor<float>();
      DataCopy(a, xGm_[t * tileLength_], tileLength_);
      DataCopy(b, yGm_[t * tileLength_], tileLength_);
      inX_.EnQue(a);
      inY_.EnQue(b);
      a = inX_.DeQue<float>();
      b = inY_.DeQue<float>();
      LocalTensor<float> c = out_.AllocTensor<float>();
      Mul(a, a, a, tileLength_);
      Mul(b, b, b, tileLength_);
      Add(c, a, b, tileLength_);
      Sqrt(c, c, tileLength_);
      out_.EnQue(c);
      inX_.FreeTensor(a);
      inY_.FreeTensor(b);
      c = out_.DeQue<float>();
      DataCopy(outGm_[t * tileLength_], c, tileLength_);
      out_.FreeTensor(c);
    }
  }

 private:
  TPipe pipe_;
  TQue<QuePosition::VECIN, 2> inX_, inY_;
  TQue<QuePosition::VECOUT, 2> out_;
  GlobalTensor<float> xGm_, yGm_, outGm_;
  uint32_t tiles_ = 0;
  uint32_t tileLength_ = 0;
};

extern "C" __global__ __aicore__ void hypot(GM_ADDR x, GM_ADDR y, GM_ADDR x_ref, GM_ADDR workspace,
                                            GM_ADDR tiling) {
  GET_TILING_DATA(tilingData, tiling);
  KernelHypot op;
  op.Init(x, y, x_ref, tilingData.perCore, tilingData.tileLength);
  op.Process();
}
