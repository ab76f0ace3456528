#include "kernel_operator.h"

using namespace AscendC;

constexpr int32_t QUEUE_DEPTH = 2;
constexpr uint32_t ALIGN_NUM = 16;  // elements per 32-byte block

class KernelMul {
public:
    __aicore__ inline KernelMul() {}
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, GM_ADDR z, uint32_t totalLength, uint32_t blockLength,
                                uint32_t tileLength, uint32_t bufferNum)
    {
        uint32_t offset = GetBlockIdx() * blockLength;
        this->length = offset < totalLength ? totalLength - offset : 0;
        if (this->length > blockLength) {
            this->length = blockLength;
        }
        this->tileLength = tileLength;
        xGm.SetGlobalBuffer((__gm__ bfloat16_t*)x + offset, length);
        yGm.SetGlobalBuffer((__gm__ bfloat16_t*)y + offset, length);
        zGm.SetGlobalBuffer((__gm__ bfloat16_t*)z + offset, length);
        pipe.InitBuffer(inQueueX, bufferNum, tileLength * sizeof(bfloat16_t));
        pipe.InitBuffer(inQueueY, bufferNum, tileLength * sizeof(bfloat16_t));
        pipe.InitBuffer(outQueueZ, bufferNum, tileLength * sizeof(bfloat16_t));
        pipe.InitBuffer(xCastBuf, tileLength * sizeof(float));
        pipe.InitBuffer(yCastBuf, tileLength * sizeof(float));
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
        LocalTensor<bfloat16_t> xLocal = inQueueX.AllocTensor<bfloat16_t>();
        LocalTensor<bfloat16_t> yLocal = inQueueY.AllocTensor<bfloat16_t>();
        uint32_t offset = progress * tileLength;
        if (count % ALIGN_NUM == 0) {
            DataCopy(xLocal, xGm[offset], count);
            DataCopy(yLocal, yGm[offset], count);
        } else {
            DataCopyExtParams copyParams{1, static_cast<uint32_t>(count * sizeof(bfloat16_t)), 0, 0, 0};
            DataCopyPadExtParams<bfloat16_t> padParams{false, 0, 0, 0};
            DataCopyPad(xLocal, xGm[offset], copyParams, padParams);
            DataCopyPad(yLocal, yGm[offset], copyParams, padParams);
        }
        inQueueX.EnQue(xLocal);
        inQueueY.EnQue(yLocal);
    }

    __aicore__ inline void Compute(uint32_t count)
    {
        LocalTensor<bfloat16_t> xLocal = inQueueX.DeQue<bfloat16_t>();
        LocalTensor<bfloat16_t> yLocal = inQueueY.DeQue<bfloat16_t>();
        LocalTensor<bfloat16_t> zLocal = outQueueZ.AllocTensor<bfloat16_t>();
        // bfloat16 has no vector multiply: widen to float, multiply, round back.
        LocalTensor<float> xFloat = xCastBuf.Get<float>();
        LocalTensor<float> yFloat = yCastBuf.Get<float>();
        Cast(xFloat, xLocal, RoundMode::CAST_NONE, count);
        Cast(yFloat, yLocal, RoundMode::CAST_NONE, count);
        PipeBarrier<PIPE_V>();
        Mul(xFloat, xFloat, yFloat, count);
        PipeBarrier<PIPE_V>();
        Cast(zLocal, xFloat, RoundMode::CAST_RINT, count);
        outQueueZ.EnQue(zLocal);
        inQueueX.FreeTensor(xLocal);
        inQueueY.FreeTensor(yLocal);
    }

    __aicore__ inline void CopyOut(uint32_t progress, uint32_t count)
    {
        LocalTensor<bfloat16_t> zLocal = outQueueZ.DeQue<bfloat16_t>();
        uint32_t offset = progress * tileLength;
        if (count % ALIGN_NUM == 0) {
            DataCopy(zGm[offset], zLocal, count);
        } else {
            DataCopyExtParams copyParams{1, static_cast<uint32_t>(count * sizeof(bfloat16_t)), 0, 0, 0};
            DataCopyPad(zGm[offset], zLocal, copyParams);
        }
        outQueueZ.FreeTensor(zLocal);
    }

private:
    TPipe pipe;
    TQue<QuePosition::VECIN, QUEUE_DEPTH> inQueueX;
    TQue<QuePosition::VECIN, QUEUE_DEPTH> inQueueY;
    TQue<QuePosition::VECOUT, QUEUE_DEPTH> outQueueZ;
    TBuf<QuePosition::VECCALC> xCastBuf;
    TBuf<QuePosition::VECCALC> yCastBuf;
    GlobalTensor<bfloat16_t> xGm;
    GlobalTensor<bfloat16_t> yGm;
    GlobalTensor<bfloat16_t> zGm;
    uint32_t length = 0;
    uint32_t tileLength = 0;
};

extern "C" __global__ __aicore__ void mul_custom(GM_ADDR x, GM_ADDR y, GM_ADDR z, GM_ADDR workspace, GM_ADDR tiling)
{
    GET_TILING_DATA(tilingData, tiling);
    KernelMul op;
    op.Init(x, y, z, tilingData.totalLength, tilingData.blockLength, tilingData.tileLength,
            tilingData.bufferNum);
    op.Process();
}
