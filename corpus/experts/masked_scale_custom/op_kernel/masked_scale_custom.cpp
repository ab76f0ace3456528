#include "kernel_operator.h"

using namespace AscendC;

constexpr int32_t QUEUE_DEPTH = 2;
constexpr uint32_t ALIGN_NUM = 32;  // elements per 32-byte block

class KernelMaskedScale {
public:
    __aicore__ inline KernelMaskedScale() {}
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR mask, GM_ADDR y, uint32_t totalLength, uint32_t formerNum,
                                uint32_t formerLength, uint32_t tailLength, uint32_t tileLength,
                                uint32_t bufferNum, float scale)
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
        this->scale = scale;
        xGm.SetGlobalBuffer((__gm__ half*)x + offset, length);
        maskGm.SetGlobalBuffer((__gm__ uint8_t*)mask + offset, length);
        yGm.SetGlobalBuffer((__gm__ half*)y + offset, length);
        pipe.InitBuffer(inQueueX, bufferNum, tileLength * sizeof(half));
        pipe.InitBuffer(inQueueMask, bufferNum, tileLength * sizeof(uint8_t));
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
        LocalTensor<uint8_t> maskLocal = inQueueMask.AllocTensor<uint8_t>();
        uint32_t offset = progress * tileLength;
        if (count % ALIGN_NUM == 0) {
            DataCopy(xLocal, xGm[offset], count);
            DataCopy(maskLocal, maskGm[offset], count);
        } else {
            DataCopyExtParams copyParamsFloat16{1, static_cast<uint32_t>(count * sizeof(half)), 0, 0, 0};
            DataCopyPadExtParams<half> padParamsFloat16{false, 0, 0, 0};
            DataCopyPad(xLocal, xGm[offset], copyParamsFloat16, padParamsFloat16);
            DataCopyExtParams copyParamsUint8{1, static_cast<uint32_t>(count * sizeof(uint8_t)), 0, 0, 0};
            DataCopyPadExtParams<uint8_t> padParamsUint8{false, 0, 0, 0};
            DataCopyPad(maskLocal, maskGm[offset], copyParamsUint8, padParamsUint8);
        }
        inQueueX.EnQue(xLocal);
        inQueueMask.EnQue(maskLocal);
    }

    __aicore__ inline void Compute(uint32_t count)
    {
        LocalTensor<half> xLocal = inQueueX.DeQue<half>();
        LocalTensor<uint8_t> maskLocal = inQueueMask.DeQue<uint8_t>();
        LocalTensor<half> yLocal = outQueueY.AllocTensor<half>();
        // Dropout apply: y = x * mask * scale, the 0/1 mask widened to half in place of y.
        Cast(yLocal, maskLocal, RoundMode::CAST_NONE, count);
        PipeBarrier<PIPE_V>();
        Mul(yLocal, yLocal, xLocal, count);
        PipeBarrier<PIPE_V>();
        Muls(yLocal, yLocal, static_cast<half>(scale), count);
        outQueueY.EnQue(yLocal);
        inQueueX.FreeTensor(xLocal);
        inQueueMask.FreeTensor(maskLocal);
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
    TQue<QuePosition::VECIN, QUEUE_DEPTH> inQueueMask;
    TQue<QuePosition::VECOUT, QUEUE_DEPTH> outQueueY;
    GlobalTensor<half> xGm;
    GlobalTensor<uint8_t> maskGm;
    GlobalTensor<half> yGm;
    uint32_t length = 0;
    uint32_t tileLength = 0;
    float scale = 0;
};

extern "C" __global__ __aicore__ void masked_scale_custom(GM_ADDR x, GM_ADDR mask, GM_ADDR y, GM_ADDR workspace, GM_ADDR tiling)
{
    GET_TILING_DATA(tilingData, tiling);
    KernelMaskedScale op;
    op.Init(x, mask, y, tilingData.totalLength, tilingData.formerNum, tilingData.formerLength,
            tilingData.tailLength, tilingData.tileLength, tilingData.bufferNum, tilingData.scale);
    op.Process();
}
