#include "kernel_operator.h"

using namespace AscendC;

constexpr int32_t QUEUE_DEPTH = 2;
constexpr uint32_t ALIGN_NUM = 8;  // elements per 32-byte block

class KernelReciprocal {
public:
    __aicore__ inline KernelReciprocal() {}
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, uint32_t totalLength, uint32_t blockLength,
                                uint32_t tileLength, uint32_t bufferNum)
    {
        uint32_t offset = GetBlockIdx() * blockLength;
        this->length = offset < totalLength ? totalLength - offset : 0;
        if (this->length > blockLength) {
            this->length = blockLength;
        }
        this->tileLength = tileLength;
        xGm.SetGlobalBuffer((__gm__ float*)x + offset, length);
        yGm.SetGlobalBuffer((__gm__ float*)y + offset, length);
        pipe.InitBuffer(inQueueX, bufferNum, tileLength * sizeof(float));
        pipe.InitBuffer(outQueueY, bufferNum, tileLength * sizeof(float));
    }

    __aicore__ inline void Process()
    {
        uint32_t tileNum = (length + tileLength - 1) / tileLength;
        for (uint32_t i = 0; i < tileNum; i++) {
            uint32_t count = (i + 1 == tileNum) ? length - i * tileLength : tileLength;
            CopyIn(i, count);
            Compute(count);
            CopyOut(i, count);
        }
    }

private:
    __aicore__ inline void CopyIn(uint32_t progress, uint32_t count)
    {
        LocalTensor<float> xLocal = inQueueX.AllocTensor<float>();
        uint32_t offset = progress * tileLength;
        if (count % ALIGN_NUM == 0) {
            DataCopy(xLocal, xGm[offset], count);
        } else {
            DataCopyExtParams copyParams{1, static_cast<uint32_t>(count * sizeof(float)), 0, 0, 0};
            DataCopyPadExtParams<float> padParams{false, 0, 0, 0};
            DataCopyPad(xLocal, xGm[offset], copyParams, padParams);
        }
        inQueueX.EnQue(xLocal);
    }

    __aicore__ inline void Compute(uint32_t count)
    {
        LocalTensor<float> xLocal = inQueueX.DeQue<float>();
        LocalTensor<float> yLocal = outQueueY.AllocTensor<float>();
        Reciprocal(yLocal, xLocal, count);
        outQueueY.EnQue(yLocal);
        inQueueX.FreeTensor(xLocal);
    }

    __aicore__ inline void CopyOut(uint32_t progress, uint32_t count)
    {
        LocalTensor<float> yLocal = outQueueY.DeQue<float>();
        uint32_t offset = progress * tileLength;
        if (count % ALIGN_NUM == 0) {
            DataCopy(yGm[offset], yLocal, count);
        } else {
            DataCopyExtParams copyParams{1, static_cast<uint32_t>(count * sizeof(float)), 0, 0, 0};
            DataCopyPad(yGm[offset], yLocal, copyParams);
        }
        outQueueY.FreeTensor(yLocal);
    }

private:
    TPipe pipe;
    TQue<QuePosition::VECIN, QUEUE_DEPTH> inQueueX;
    TQue<QuePosition::VECOUT, QUEUE_DEPTH> outQueueY;
    GlobalTensor<float> xGm;
    GlobalTensor<float> yGm;
    uint32_t length = 0;
    uint32_t tileLength = 0;
};

extern "C" __global__ __aicore__ void reciprocal_custom(GM_ADDR x, GM_ADDR y, GM_ADDR workspace, GM_ADDR tiling)
{
    GET_TILING_DATA(tilingData, tiling);
    KernelReciprocal op;
    op.Init(x, y, tilingData.totalLength, tilingData.blockLength, tilingData.tileLength,
            tilingData.bufferNum);
    op.Process();
}
