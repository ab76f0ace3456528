#include "kernel_operator.h"

using namespace AscendC;

constexpr int32_t QUEUE_DEPTH = 2;
constexpr uint32_t ALIGN_NUM = 8;  // elements per 32-byte block

class KernelElu {
public:
    __aicore__ inline KernelElu() {}
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, uint32_t totalLength, uint32_t formerNum,
                                uint32_t formerLength, uint32_t tailLength, uint32_t tileLength,
                                uint32_t bufferNum, float alpha)
    {
        uint32_t blockIdx = GetBlockIdx();
        uint32_t offset = 0;
        if (blockIdx < formerNum) {
            offset = blockIdx * formerLength;
            this->length = formerLength;
        } else {
            offset = formerNum * formerLength + (blockIdx - formerNum) * tailLength;
            this->length = tailLength;
        }
        if (blockIdx + 1 == GetBlockNum()) {
            this->length = totalLength - offset;
        }
        this->tileLength = tileLength;
        this->alpha = alpha;
        xGm.SetGlobalBuffer((__gm__ float*)x + offset, length);
        yGm.SetGlobalBuffer((__gm__ float*)y + offset, length);
        pipe.InitBuffer(inQueueX, bufferNum, tileLength * sizeof(float));
        pipe.InitBuffer(outQueueY, bufferNum, tileLength * sizeof(float));
        pipe.InitBuffer(negBuf, tileLength * sizeof(float));
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
        // elu(x) = max(x, 0) + alpha * (exp(min(x, 0)) - 1): no compare or select needed.
        LocalTensor<float> neg = negBuf.Get<float>();
        Mins(neg, xLocal, 0.0f, count);
        Maxs(yLocal, xLocal, 0.0f, count);
        PipeBarrier<PIPE_V>();
        Exp(neg, neg, count);
        PipeBarrier<PIPE_V>();
        Adds(neg, neg, -1.0f, count);
        PipeBarrier<PIPE_V>();
        Muls(neg, neg, alpha, count);
        PipeBarrier<PIPE_V>();
        Add(yLocal, yLocal, neg, count);
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
    TBuf<QuePosition::VECCALC> negBuf;
    GlobalTensor<float> xGm;
    GlobalTensor<float> yGm;
    uint32_t length = 0;
    uint32_t tileLength = 0;
    float alpha = 0;
};

extern "C" __global__ __aicore__ void elu_custom(GM_ADDR x, GM_ADDR y, GM_ADDR workspace, GM_ADDR tiling)
{
    GET_TILING_DATA(tilingData, tiling);
    KernelElu op;
    op.Init(x, y, tilingData.totalLength, tilingData.formerNum, tilingData.formerLength,
            tilingData.tailLength, tilingData.tileLength, tilingData.bufferNum, tilingData.alpha);
    op.Process();
}
