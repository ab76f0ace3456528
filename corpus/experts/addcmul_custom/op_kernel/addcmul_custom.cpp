#include "kernel_operator.h"

using namespace AscendC;

constexpr int32_t QUEUE_DEPTH = 2;
constexpr uint32_t ALIGN_NUM = 16;  // elements per 32-byte block

class KernelAddcmul {
public:
    __aicore__ inline KernelAddcmul() {}
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR t1, GM_ADDR t2, GM_ADDR y, uint32_t totalLength, uint32_t formerNum,
                                uint32_t formerLength, uint32_t tailLength, uint32_t tileLength,
                                uint32_t bufferNum, float value)
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
        this->value = value;
        xGm.SetGlobalBuffer((__gm__ half*)x + offset, length);
        t1Gm.SetGlobalBuffer((__gm__ half*)t1 + offset, length);
        t2Gm.SetGlobalBuffer((__gm__ half*)t2 + offset, length);
        yGm.SetGlobalBuffer((__gm__ half*)y + offset, length);
        pipe.InitBuffer(inQueueX, bufferNum, tileLength * sizeof(half));
        pipe.InitBuffer(inQueueT1, bufferNum, tileLength * sizeof(half));
        pipe.InitBuffer(inQueueT2, bufferNum, tileLength * sizeof(half));
        pipe.InitBuffer(outQueueY, bufferNum, tileLength * sizeof(half));
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
        LocalTensor<half> xLocal = inQueueX.AllocTensor<half>();
        LocalTensor<half> t1Local = inQueueT1.AllocTensor<half>();
        LocalTensor<half> t2Local = inQueueT2.AllocTensor<half>();
        uint32_t offset = progress * tileLength;
        if (count % ALIGN_NUM == 0) {
            DataCopy(xLocal, xGm[offset], count);
            DataCopy(t1Local, t1Gm[offset], count);
            DataCopy(t2Local, t2Gm[offset], count);
        } else {
            DataCopyExtParams copyParams{1, static_cast<uint32_t>(count * sizeof(half)), 0, 0, 0};
            DataCopyPadExtParams<half> padParams{false, 0, 0, 0};
            DataCopyPad(xLocal, xGm[offset], copyParams, padParams);
            DataCopyPad(t1Local, t1Gm[offset], copyParams, padParams);
            DataCopyPad(t2Local, t2Gm[offset], copyParams, padParams);
        }
        inQueueX.EnQue(xLocal);
        inQueueT1.EnQue(t1Local);
        inQueueT2.EnQue(t2Local);
    }

    __aicore__ inline void Compute(uint32_t count)
    {
        LocalTensor<half> xLocal = inQueueX.DeQue<half>();
        LocalTensor<half> t1Local = inQueueT1.DeQue<half>();
        LocalTensor<half> t2Local = inQueueT2.DeQue<half>();
        LocalTensor<half> yLocal = outQueueY.AllocTensor<half>();
        Mul(yLocal, t1Local, t2Local, count);
        PipeBarrier<PIPE_V>();
        Muls(yLocal, yLocal, static_cast<half>(value), count);
        PipeBarrier<PIPE_V>();
        Add(yLocal, yLocal, xLocal, count);
        outQueueY.EnQue(yLocal);
        inQueueX.FreeTensor(xLocal);
        inQueueT1.FreeTensor(t1Local);
        inQueueT2.FreeTensor(t2Local);
    }

    __aicore__ inline void CopyOut(uint32_t progress, uint32_t count)
    {
        LocalTensor<half> yLocal = outQueueY.DeQue<half>();
        uint32_t offset = progress * tileLength;
        if (count % ALIGN_NUM == 0) {
            DataCopy(yGm[offset], yLocal, count);
        } else {
            DataCopyExtParams copyParams{1, static_cast<uint32_t>(count * sizeof(half)), 0, 0, 0};
            DataCopyPad(yGm[offset], yLocal, copyParams);
        }
        outQueueY.FreeTensor(yLocal);
    }

private:
    TPipe pipe;
    TQue<QuePosition::VECIN, QUEUE_DEPTH> inQueueX;
    TQue<QuePosition::VECIN, QUEUE_DEPTH> inQueueT1;
    TQue<QuePosition::VECIN, QUEUE_DEPTH> inQueueT2;
    TQue<QuePosition::VECOUT, QUEUE_DEPTH> outQueueY;
    GlobalTensor<half> xGm;
    GlobalTensor<half> t1Gm;
    GlobalTensor<half> t2Gm;
    GlobalTensor<half> yGm;
    uint32_t length = 0;
    uint32_t tileLength = 0;
    float value = 0;
};

extern "C" __global__ __aicore__ void addcmul_custom(GM_ADDR x, GM_ADDR t1, GM_ADDR t2, GM_ADDR y, GM_ADDR workspace, GM_ADDR tiling)
{
    GET_TILING_DATA(tilingData, tiling);
    KernelAddcmul op;
    op.Init(x, t1, t2, y, tilingData.totalLength, tilingData.formerNum, tilingData.formerLength,
            tilingData.tailLength, tilingData.tileLength, tilingData.bufferNum, tilingData.scalarValue);
    op.Process();
}
