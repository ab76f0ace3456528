// Test operator kernel, in the style of the public AscendC SyncAll sample: every block scales
// its row into the workspace, all blocks synchronise, then each adds its neighbour's row.
#include "kernel_operator.h"
using namespace AscendC;

class KernelSyncAll {
 public:
  __aicore__ inline KernelSyncAll() {}
  __aicore__ inline void Init(GM_ADDR x, GM_ADDR z, GM_ADDR workspace, uint32_t rowLength) {
    this->rowLength = rowLength;
    const uint32_t next = (GetBlockIdx() + 1) % GetBlockNum();
    xGm.SetGlobalBuffer((__gm__ float*)x + rowLength * GetBlockIdx(), rowLength);
    zGm.SetGlobalBuffer((__gm__ float*)z + rowLength * GetBlockIdx(), rowLength);
    workGm.SetGlobalBuffer((__gm__ float*)workspace + rowLength * GetBlockIdx(), rowLength);
    nextGm.SetGlobalBuffer((__gm__ float*)workspace + rowLength * next, rowLength);
    pipe.InitBuffer(inQueueX, 1, rowLength * sizeof(float));
    pipe.InitBuffer(inQueueNext, 1, rowLength * sizeof(float));
    pipe.InitBuffer(outQueue, 1, rowLength * sizeof(float));
  }
  __aicore__ inline void Process() {
    LocalTensor<float> xLocal = inQueueX.AllocTensor<float>();
    DataCopy(xLocal, xGm, rowLength);
    inQueueX.EnQue(xLocal);
    xLocal = inQueueX.DeQue<float>();
    LocalTensor<float> workLocal = outQueue.AllocTensor<float>();
    Muls(workLocal, xLocal, 2.0f, rowLength);
    outQueue.EnQue(workLocal);
    workLocal = outQueue.DeQue<float>();
    DataCopy(workGm, workLocal, rowLength);
    outQueue.FreeTensor(workLocal);

    SyncAll();

    LocalTensor<float> nextLocal = inQueueNext.AllocTensor<float>();
    DataCopy(nextLocal, nextGm, rowLength);
    inQueueNext.EnQue(nextLocal);
    nextLocal = inQueueNext.DeQue<float>();
    LocalTensor<float> zLocal = outQueue.AllocTensor<float>();
    Muls(xLocal, xLocal, 2.0f, rowLength);
    Add(zLocal, xLocal, nextLocal, rowLength);
    outQueue.EnQue(zLocal);
    inQueueX.FreeTensor(xLocal);
    inQueueNext.FreeTensor(nextLocal);
    zLocal = outQueue.DeQue<float>();
    DataCopy(zGm, zLocal, rowLength);
    outQueue.FreeTensor(zLocal);
  }

 private:
  TPipe pipe;
  TQue<QuePosition::VECIN, 1> inQueueX, inQueueNext;
  TQue<QuePosition::VECOUT, 1> outQueue;
  GlobalTensor<float> xGm, zGm, workGm, nextGm;
  uint32_t rowLength;
};

extern "C" __global__ __aicore__ void sync_all_custom(GM_ADDR x, GM_ADDR z, GM_ADDR workspace,
                                                      GM_ADDR tiling) {
  GET_TILING_DATA(tiling_data, tiling);
  KernelSyncAll op;
  op.Init(x, z, GetUserWorkspace(workspace), tiling_data.rowLength);
  op.Process();
}
