// Test operator: z = x + y. Each core takes a contiguous slice and streams it through UB in
// tiles, two buffers per queue so that loading tile i+1 overlaps adding tile i.
#include "kernel_operator.h"

namespace {

constexpr int32_t kBuffers = 2;

struct AddSlice {
  AscendC::TPipe pipe;
  AscendC::TQue<AscendC::QuePosition::VECIN, kBuffers> lhsQueue;
  AscendC::TQue<AscendC::QuePosition::VECIN, kBuffers> rhsQueue;
  AscendC::TQue<AscendC::QuePosition::VECOUT, kBuffers> sumQueue;
  AscendC::GlobalTensor<DTYPE_X> lhs;
  AscendC::GlobalTensor<DTYPE_Y> rhs;
  AscendC::GlobalTensor<DTYPE_Z> sum;
  uint32_t tiles = 0;
  uint32_t tileElems = 0;

  __aicore__ inline void Setup(GM_ADDR x, GM_ADDR y, GM_ADDR z, uint32_t total, uint32_t tileNum) {
    const uint32_t perCore = total / AscendC::GetBlockNum();
    const uint32_t first = perCore * AscendC::GetBlockIdx();
    tiles = tileNum * kBuffers;
    tileElems = perCore / tiles;
    lhs.SetGlobalBuffer(reinterpret_cast<__gm__ DTYPE_X*>(x) + first, perCore);
    rhs.SetGlobalBuffer(reinterpret_cast<__gm__ DTYPE_Y*>(y) + first, perCore);
    sum.SetGlobalBuffer(reinterpret_cast<__gm__ DTYPE_Z*>(z) + first, perCore);
    pipe.InitBuffer(lhsQueue, kBuffers, tileElems * sizeof(DTYPE_X));
    pipe.InitBuffer(rhsQueue, kBuffers, tileElems * sizeof(DTYPE_Y));
    pipe.InitBuffer(sumQueue, kBuffers, tileElems * sizeof(DTYPE_Z));
  }

  __aicore__ inline void Load(uint32_t t) {
    auto a = lhsQueue.AllocTensor<DTYPE_X>();
    auto b = rhsQueue.AllocTensor<DTYPE_Y>();
    AscendC::DataCopy(a, lhs[t * tileElems], tileElems);
    AscendC::DataCopy(b, rhs[t * tileElems], tileElems);
    lhsQueue.EnQue(a);
    rhsQueue.EnQue(b);
  }

  __aicore__ inline void Add() {
    auto a = lhsQueue.DeQue<DTYPE_X>();
    auto b = rhsQueue.DeQue<DTYPE_Y>();
    auto c = sumQueue.AllocTensor<DTYPE_Z>();
    AscendC::Add(c, a, b, tileElems);
    sumQueue.EnQue(c);
    lhsQueue.FreeTensor(a);
    rhsQueue.FreeTensor(b);
  }

  __aicore__ inline void Store(uint32_t t) {
    auto c = sumQueue.DeQue<DTYPE_Z>();
    AscendC::DataCopy(sum[t * tileElems], c, tileElems);
    sumQueue.FreeTensor(c);
  }

  __aicore__ inline void Run() {
    for (uint32_t t = 0; t < tiles; ++t) {
      Load(t);
      Add();
      Store(t);
    }
  }
};

}  // namespace

extern "C" __global__ __aicore__ void add_tiled(GM_ADDR x, GM_ADDR y, GM_ADDR z,
                                                GM_ADDR workspace, GM_ADDR tiling) {
  GET_TILING_DATA(tilingData, tiling);
  AddSlice op;
  op.Setup(x, y, z, tilingData.totalLength, tilingData.tileNum);
  op.Run();
}
