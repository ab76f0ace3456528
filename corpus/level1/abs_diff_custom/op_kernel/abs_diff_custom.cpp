#include "kernel_operator.h"

using namespace AscendC;

constexpr int32_t BUFFER_NUM = 1;
constexpr uint32_t COPY_CHUNK = 64;  // elements per DataCopy

class KernelAbsDiff {
public:
    __aicore__ inline KernelAbsDiff() {}
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, GM_ADDR z, uint32_t totalLength, uint32_t blockLength,
                                uint32_t tileLength)
    {
        uint32_t offset = GetBlockIdx() * blockLength;
        this->blockLength = totalLength - offset < blockLength ? totalLength - offset : blockLength;
        this->tileLength = tileLength;
        xGm.SetGlobalBuffer((__gm__ float*)x + offset, this->blockLength);
        yGm.SetGlobalBuffer((__gm__ float*)y + offset, this->blockLength);
        zGm.SetGlobalBuffer((__gm__ float*)z + offset, this->blockLength);
        pipe.InitBuffer(inQueueX, BUFFER_NUM, tileLength * sizeof(float));
        pipe.InitBuffer(inQueueY, BUFFER_NUM, tileLength * sizeof(float));
        pipe.InitBuffer(outQueueZ, BUFFER_NUM, tileLength * sizeof(float));
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
        LocalTensor<float> yLocal = inQueueY.AllocTensor<float>();
        for (uint32_t off = 0; off < count; off += COPY_CHUNK) {
            DataCopy(xLocal[off], xGm[progress * tileLength + off], COPY_CHUNK);
        }
        for (uint32_t off = 0; off < count; off += COPY_CHUNK) {
            DataCopy(yLocal[off], yGm[progress * tileLength + off], COPY_CHUNK);
        }
        inQueueX.EnQue(xLocal);
        inQueueY.EnQue(yLocal);
    }

    __aicore__ inline void Compute(uint32_t count)
    {
        LocalTensor<float> xLocal = inQueueX.DeQue<float>();
        LocalTensor<float> yLocal = inQueueY.DeQue<float>();
        LocalTensor<float> zLocal = outQueueZ.AllocTensor<float>();
        Sub(zLocal, xLocal, yLocal, count);
        PipeBarrier<PIPE_V>();
        Abs(zLocal, zLocal, count);
        outQueueZ.EnQue<float>(zLocal);
        inQueueX.FreeTensor(xLocal);
        inQueueY.FreeTensor(yLocal);
    }

    __aicore__ inline void CopyOut(uint32_t progress, uint32_t count)
    {
        LocalTensor<float> zLocal = outQueueZ.DeQue<float>();
        for (uint32_t off = 0; off < count; off += COPY_CHUNK) {
            DataCopy(zGm[progress * tileLength + off], zLocal[off], COPY_CHUNK);
        }
        outQueueZ.FreeTensor(zLocal);
    }

private:
    TPipe pipe;
    TQue<QuePosition::VECIN, BUFFER_NUM> inQueueX;
    TQue<QuePosition::VECIN, BUFFER_NUM> inQueueY;
    TQue<QuePosition::VECOUT, BUFFER_NUM> outQueueZ;
    GlobalTensor<float> xGm;
    GlobalTensor<float> yGm;
    GlobalTensor<float> zGm;
    uint32_t blockLength = 0;
    uint32_t tileLength = 0;
};

extern "C" __global__ __aicore__ void abs_diff_custom(GM_ADDR x, GM_ADDR y, GM_ADDR z, GM_ADDR workspace, GM_ADDR tiling)
{
    GET_TILING_DATA(tilingData, tiling);
    KernelAbsDiff op;
    op.Init(x, y, z, tilingData.totalLength, tilingData.blockLength, tilingData.tileLength);
    op.Process();
}
