// Test operator: z = x + y, written as some public kernels are: no `using namespace AscendC`,
// and the vector and copy APIs called unqualified with explicit template arguments
// (`DataCopy<T>(...)`, `Add<T>(...)`). Argument-dependent lookup finds them through the
// AscendC tensor arguments; for a name followed by `<` that is a C++20 rule (P0846), which
// CANN's compiler also accepts in C++17 code.
#include "kernel_operator.h"

namespace {

template <typename T>
class KernelExplicitArgsAdd {
 public:
  __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, GM_ADDR z, uint32_t total, uint32_t tile) {
    const uint32_t perCore = total / AscendC::GetBlockNum();
    const uint32_t first = perCore * AscendC::GetBlockIdx();
    tileLength_ = tile;
    tiles_ = perCore / tile;
    xGm_.SetGlobalBuffer(reinterpret_cast<__gm__ T*>(x) + first, perCore);
    yGm_.SetGlobalBuffer(reinterpret_cast<__gm__ T*>(y) + first, perCore);
    zGm_.SetGlobalBuffer(reinterpret_cast<__gm__ T*>(z) + first, perCore);
    pipe_.InitBuffer(inX_, 2, tile * sizeof(T));
    pipe_.InitBuffer(inY_, 2, tile * sizeof(T));
    pipe_.InitBuffer(outZ_, 2, tile * sizeof(T));
  }

  __aicore__ inline void Process() {
    for (uint32_t t = 0; t < tiles_; ++t) {
      AscendC::LocalTensor<T> xLocal = inX_.template AllocTensor<T>();
      AscendC::LocalTensor<T> yLocal = inY_.template AllocTensor<T>();
      DataCopy<T>(xLocal, xGm_[t * tileLength_], tileLength_);
      DataCopy<T>(yLocal, yGm_[t * tileLength_], tileLength_);
      inX_.EnQue(xLocal);
      inY_.EnQue(yLocal);
      xLocal = inX_.template DeQue<T>();
      yLocal = inY_.template DeQue<T>();
      AscendC::LocalTensor<T> zLocal = outZ_.template AllocTensor<T>();
      Add<T>(zLocal, xLocal, yLocal, tileLength_);
      outZ_.EnQue(zLocal);
      inX_.FreeTensor(xLocal);
      inY_.FreeTensor(yLocal);
      zLocal = outZ_.template DeQue<T>();
      DataCopy<T>(zGm_[t * tileLength_], zLocal, tileLength_);
      outZ_.FreeTensor(zLocal);
    }
  }

 private:
  AscendC::TPipe pipe_;
  AscendC::TQue<AscendC::QuePosition::VECIN, 2> inX_;
  AscendC::TQue<AscendC::QuePosition::VECIN, 2> inY_;
  AscendC::TQue<AscendC::QuePosition::VECOUT, 2> outZ_;
  AscendC::GlobalTensor<T> xGm_;
  AscendC::GlobalTensor<T> yGm_;
  AscendC::GlobalTensor<T> zGm_;
  uint32_t tileLength_ = 0;
  uint32_t tiles_ = 0;
};

}  // namespace

extern "C" __global__ __aicore__ void explicit_args_add(GM_ADDR x, GM_ADDR y, GM_ADDR z,
                                                        GM_ADDR workspace, GM_ADDR tiling) {
  GET_TILING_DATA(tilingData, tiling);
  KernelExplicitArgsAdd<DTYPE_X> op;
  op.Init(x, y, z, tilingData.totalLength, tilingData.tileLength);
  op.Process();
}
