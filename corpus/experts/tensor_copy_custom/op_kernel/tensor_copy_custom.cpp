#include "kernel_operator.h"

using namespace AscendC;

constexpr int32_t QUEUE_DEPTH = 2;
constexpr uint32_t ALIGN_NUM = 16;  // halves per 32-byte block

// GM -> UB -> GM copy. A TQueBind from VECIN to VECOUT lets the store read the very buffer the
// load filled: no vector copy, half the UB per tile, hence tiles twice as large.
class KernelTensorCopy {
public:
    __aicore__ inline KernelTensorCopy() {}
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, uint32_t totalLength, uint32_t formerNum, uint32_t formerLength,
                                uint32_t tailLength, uint32_t tileLength, uint32_t bufferNum)
    {
        uint32_t blockIdx = GetBlockIdx();
        uint32_t offset = 0;
        if (blockIdx < formerNum) {
            offset = blockIdx * formerLength;
            length = formerLength;
        } else {
            offset = formerNum * formerLength + (blockIdx - formerNum) * tailLength;
            length = tailLength;
        }
        if (blockIdx + 1 == GetBlockNum()) {
            length = totalLength - offset;
        }
        this->tileLength = tileLength;
        xGm.SetGlobalBuffer((__gm__ half*)x + offset, length);
        yGm.SetGlobalBuffer((__gm__ half*)y + offset, length);
        pipe.InitBuffer(queBind, bufferNum, tileLength * sizeof(half));
    }

    __aicore__ inline void Process()
    {
        uint32_t tileNum = (length + tileLength - 1) / tileLength;
        for (uint32_t i = 0; i < tileNum; i++) {
            uint32_t count = (i + 1 == tileNum) ? length - i * tileLength : tileLength;
            LocalTensor<half> local = queBind.AllocTensor<half>();
            if (count % ALIGN_NUM == 0) {
                DataCopy(local, xGm[i * tileLength], count);
            } else {
                DataCopyExtParams copyParams{1, static_cast<uint32_t>(count * sizeof(half)), 0, 0, 0};
                DataCopyPadExtParams<half> padParams{false, 0, 0, 0};
                DataCopyPad(local, xGm[i * tileLength], copyParams, padParams);
            }
            queBind.EnQue(local);
            local = queBind.DeQue<half>();
            if (count % ALIGN_NUM == 0) {
                DataCopy(yGm[i * tileLength], local, count);
            } else {
                DataCopyExtParams copyParams{1, static_cast<uint32_t>(count * sizeof(half)), 0, 0, 0};
                DataCopyPad(yGm[i * tileLength], local, copyParams);
            }
            queBind.FreeTensor(local);
        }
    }

private:
    TPipe pipe;
    TQueBind<QuePosition::VECIN, QuePosition::VECOUT, QUEUE_DEPTH> queBind;
    GlobalTensor<half> xGm;
    GlobalTensor<half> yGm;
    uint32_t length = 0;
    uint32_t tileLength = 0;
};

extern "C" __global__ __aicore__ void tensor_copy_custom(GM_ADDR x, GM_ADDR y, GM_ADDR workspace, GM_ADDR tiling)
{
    GET_TILING_DATA(tilingData, tiling);
    KernelTensorCopy op;
    op.Init(x, y, tilingData.totalLength, tilingData.formerNum, tilingData.formerLength, tilingData.tailLength,
            tilingData.tileLength, tilingData.bufferNum);
    op.Process();
}
