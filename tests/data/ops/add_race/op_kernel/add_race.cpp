// Test operator: z = x + y staged through one TBuf with no SetFlag/WaitFlag between the copy
// in (MTE2), the add (V) and the copy out (MTE3). Sequential CPU execution gets the right
// numbers; on hardware the pipes run concurrently, so the simulator must report a data race.
#include "kernel_operator.h"

extern "C" __global__ __aicore__ void add_race(GM_ADDR x, GM_ADDR y, GM_ADDR z,
                                               GM_ADDR workspace, GM_ADDR tiling) {
  GET_TILING_DATA(tilingData, tiling);
  const uint32_t perCore = tilingData.totalLength / AscendC::GetBlockNum();
  const uint32_t first = perCore * AscendC::GetBlockIdx();
  const uint32_t tiles = tilingData.tileNum;
  const uint32_t tileElems = perCore / tiles;

  AscendC::GlobalTensor<DTYPE_X> lhs;
  AscendC::GlobalTensor<DTYPE_Y> rhs;
  AscendC::GlobalTensor<DTYPE_Z> sum;
  lhs.SetGlobalBuffer(reinterpret_cast<__gm__ DTYPE_X*>(x) + first, perCore);
  rhs.SetGlobalBuffer(reinterpret_cast<__gm__ DTYPE_Y*>(y) + first, perCore);
  sum.SetGlobalBuffer(reinterpret_cast<__gm__ DTYPE_Z*>(z) + first, perCore);

  AscendC::TPipe pipe;
  AscendC::TBuf<AscendC::TPosition::VECCALC> stage;
  pipe.InitBuffer(stage, 3 * tileElems * sizeof(DTYPE_X));
  AscendC::LocalTensor<DTYPE_X> a = stage.Get<DTYPE_X>();
  AscendC::LocalTensor<DTYPE_X> b = a[tileElems];
  AscendC::LocalTensor<DTYPE_X> c = a[2 * tileElems];
  for (uint32_t t = 0; t < tiles; ++t) {
    AscendC::DataCopy(a, lhs[t * tileElems], tileElems);
    AscendC::DataCopy(b, rhs[t * tileElems], tileElems);
    AscendC::Add(c, a, b, tileElems);  // missing SetFlag/WaitFlag<MTE2_V>
    AscendC::DataCopy(sum[t * tileElems], c, tileElems);  // missing SetFlag/WaitFlag<V_MTE3>
  }
}
