#include "kernel_operator.h"

using namespace AscendC;

constexpr int32_t QUEUE_DEPTH = 2;
constexpr uint32_t ALIGN_NUM = 32;  // elements per 32-byte block

class KernelScaledMaskedFill {
public:
    __aicore__ inline KernelScaledMaskedFill() {}
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR mask, GM_ADDR y, uint32_t totalLength, uint32_t blockLength,
                                uint32_t tileLength, uint32_t bufferNum, float scale, float fill_value)
    {
        uint32_t offset = GetBlockIdx() * blockLength;
        this->length = offset < totalLength ? totalLength - offset : 0;
        if (this->length > blockLength) {
            this->length = blockLength;
        }
        this->tileLength = tileLength;
        this->scale = scale;
        this->fill_value = fill_value;
        xGm.SetGlobalBuffer((__gm__ half*)x + offset, length);
        maskGm.SetGlobalBuffer((__gm__ uint8_t*)mask + offset, length);
        yGm.SetGlobalBuffer((__gm__ half*)y + offset, length);
        pipe.InitBuffer(inQueueX, bufferNum, tileLength * sizeof(half));
        pipe.InitBuffer(inQueueMask, bufferNum, tileLength * sizeof(uint8_t));
        pipe.InitBuffer(outQueueY, bufferNum, tileLength * sizeof(half));
        pipe.InitBuffer(maskHalfBuf, tileLength * sizeof(half));
        pipe.InitBuffer(cmpBuf, tileLength * sizeof(uint8_t));
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
        // y = mask ? value : x * scale. Compare needs whole 256-byte repeats: round the count up
        // (the tile is a multiple of 128, the extra lanes are never stored).
        uint32_t cmpCount = (count + 127) / 128 * 128;
        LocalTensor<half> maskHalf = maskHalfBuf.Get<half>();
        LocalTensor<uint8_t> keep = cmpBuf.Get<uint8_t>();
        Cast(maskHalf, maskLocal, RoundMode::CAST_NONE, cmpCount);
        PipeBarrier<PIPE_V>();
        Compares(keep, maskHalf, static_cast<half>(0.5f), CMPMODE::LT, cmpCount);
        Muls(yLocal, xLocal, static_cast<half>(scale), count);
        PipeBarrier<PIPE_V>();
        Select(yLocal, keep, yLocal, static_cast<half>(fill_value), SELMODE::VSEL_TENSOR_SCALAR_MODE, count);
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
    TBuf<QuePosition::VECCALC> maskHalfBuf;
    TBuf<QuePosition::VECCALC> cmpBuf;
    GlobalTensor<half> xGm;
    GlobalTensor<uint8_t> maskGm;
    GlobalTensor<half> yGm;
    uint32_t length = 0;
    uint32_t tileLength = 0;
    float scale = 0;
    float fill_value = 0;
};

extern "C" __global__ __aicore__ void scaled_masked_fill_custom(GM_ADDR x, GM_ADDR mask, GM_ADDR y, GM_ADDR workspace, GM_ADDR tiling)
{
    GET_TILING_DATA(tilingData, tiling);
    KernelScaledMaskedFill op;
    op.Init(x, mask, y, tilingData.totalLength, tilingData.blockLength, tilingData.tileLength,
            tilingData.bufferNum, tilingData.scale, tilingData.fill_value);
    op.Process();
}
