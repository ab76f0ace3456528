#include "kernel_operator.h"

using namespace AscendC;

constexpr int32_t BUFFER_NUM = 2;
constexpr uint32_t COPY_CHUNK = 64;  // elements per DataCopy

class KernelScaleShift {
public:
    __aicore__ inline KernelScaleShift() {}
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, uint32_t totalLength, uint32_t blockLength,
                                uint32_t tileLength, float scale, float shift)
    {
        uint32_t offset = GetBlockIdx() * blockLength;
        this->blockLength = totalLength - offset < blockLength ? totalLength - offset : blockLength;
        this->tileLength = tileLength;
        this->scale = scale;
        this->shift = shift;
        xGm.SetGlobalBuffer((__gm__ float*)x + offset, this->blockLength);
        yGm.SetGlobalBuffer((__gm__ float*)y + offset, this->blockLength);
        pipe.InitBuffer(inQueueX, BUFFER_NUM, tileLength * sizeof(float));
        pipe.InitBuffer(outQueueY, BUFFER_NUM, tileLength * sizeof(float));
    }

    __aicore__ inline void Process()
    {
        uint32_t loopCount = (blockLength + tileLength - 1) / tileLength;
        for (uint32_t i = 0; i < loopCount; i++) {
            uint32_t count = i + 1 == loopCount ? blockLength - i * tileLength : tileLength;
            CopyIn(i, count);
            Compute(count);
            CopyOut(i, count);
        }
    }

private:
    __aicore__ inline void CopyIn(uint32_t progress, uint32_t count)
    {
        LocalTensor<float> xLocal = inQueueX.AllocTensor<float>();
        for (uint32_t off = 0; off < count; off += COPY_CHUNK) {
            DataCopy(xLocal[off], xGm[progress * tileLength + off], COPY_CHUNK);
        }
        inQueueX.EnQue(xLocal);
    }

    __aicore__ inline void Compute(uint32_t count)
    {
        LocalTensor<float> xLocal = inQueueX.DeQue<float>();
        LocalTensor<float> yLocal = outQueueY.AllocTensor<float>();
        PipeBarrier<PIPE_ALL>();
        for (uint32_t i = 0; i < count; i++) {
            yLocal.SetValue(i, xLocal.GetValue(i) * scale);
        }
        for (uint32_t i = 0; i < count; i++) {
            yLocal.SetValue(i, yLocal.GetValue(i) + shift);
        }
        PipeBarrier<PIPE_ALL>();
        outQueueY.EnQue<float>(yLocal);
        inQueueX.FreeTensor(xLocal);
    }

    __aicore__ inline void CopyOut(uint32_t progress, uint32_t count)
    {
        LocalTensor<float> yLocal = outQueueY.DeQue<float>();
        for (uint32_t off = 0; off < count; off += COPY_CHUNK) {
            DataCopy(yGm[progress * tileLength + off], yLocal[off], COPY_CHUNK);
        }
        outQueueY.FreeTensor(yLocal);
    }

private:
    TPipe pipe;
    TQue<QuePosition::VECIN, BUFFER_NUM> inQueueX;
    TQue<QuePosition::VECOUT, BUFFER_NUM> outQueueY;
    GlobalTensor<float> xGm;
    GlobalTensor<float> yGm;
    uint32_t blockLength = 0;
    uint32_t tileLength = 0;
    float scale = 0;
    float shift = 0;
};

extern "C" __global__ __aicore__ void scale_shift_custom(GM_ADDR x, GM_ADDR y, GM_ADDR workspace, GM_ADDR tiling)
{
    GET_TILING_DATA(tilingData, tiling);
    KernelScaleShift op;
    op.Init(x, y, tilingData.totalLength, tilingData.blockLength, tilingData.tileLength, tilingData.scale, tilingData.shift);
    op.Process();
}
