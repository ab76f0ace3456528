#include "kernel_operator.h"

using namespace AscendC;

constexpr int32_t BUFFER_NUM = 1;
constexpr uint32_t COPY_CHUNK = 64;  // elements per DataCopy

class KernelSubMul {
public:
    __aicore__ inline KernelSubMul() {}
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, GM_ADDR z, GM_ADDR out, uint32_t totalLength, uint32_t blockLength,
                                uint32_t tileLength)
    {
        uint32_t offset = GetBlockIdx() * blockLength;
        this->blockLength = totalLength - offset < blockLength ? totalLength - offset : blockLength;
        this->tileLength = tileLength;
        xGm.SetGlobalBuffer((__gm__ float*)x + offset, this->blockLength);
        yGm.SetGlobalBuffer((__gm__ float*)y + offset, this->blockLength);
        zGm.SetGlobalBuffer((__gm__ float*)z + offset, this->blockLength);
        outGm.SetGlobalBuffer((__gm__ float*)out + offset, this->blockLength);
        pipe.InitBuffer(inQueueX, BUFFER_NUM, tileLength * sizeof(float));
        pipe.InitBuffer(inQueueY, BUFFER_NUM, tileLength * sizeof(float));
        pipe.InitBuffer(inQueueZ, BUFFER_NUM, tileLength * sizeof(float));
        pipe.InitBuffer(outQueueOUT, BUFFER_NUM, tileLength * sizeof(float));
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
        LocalTensor<float> zLocal = inQueueZ.AllocTensor<float>();
        for (uint32_t off = 0; off < count; off += COPY_CHUNK) {
            DataCopy(xLocal[off], xGm[progress * tileLength + off], COPY_CHUNK);
        }
        for (uint32_t off = 0; off < count; off += COPY_CHUNK) {
            DataCopy(yLocal[off], yGm[progress * tileLength + off], COPY_CHUNK);
        }
        for (uint32_t off = 0; off < count; off += COPY_CHUNK) {
            DataCopy(zLocal[off], zGm[progress * tileLength + off], COPY_CHUNK);
        }
        inQueueX.EnQue(xLocal);
        inQueueY.EnQue(yLocal);
        inQueueZ.EnQue(zLocal);
    }

    __aicore__ inline void Compute(uint32_t count)
    {
        LocalTensor<float> xLocal = inQueueX.DeQue<float>();
        LocalTensor<float> yLocal = inQueueY.DeQue<float>();
        LocalTensor<float> zLocal = inQueueZ.DeQue<float>();
        LocalTensor<float> outLocal = outQueueOUT.AllocTensor<float>();
        Sub(outLocal, xLocal, yLocal, count);
        PipeBarrier<PIPE_V>();
        Mul(outLocal, outLocal, zLocal, count);
        outQueueOUT.EnQue<float>(outLocal);
        inQueueX.FreeTensor(xLocal);
        inQueueY.FreeTensor(yLocal);
        inQueueZ.FreeTensor(zLocal);
    }

    __aicore__ inline void CopyOut(uint32_t progress, uint32_t count)
    {
        LocalTensor<float> outLocal = outQueueOUT.DeQue<float>();
        for (uint32_t off = 0; off < count; off += COPY_CHUNK) {
            DataCopy(outGm[progress * tileLength + off], outLocal[off], COPY_CHUNK);
        }
        outQueueOUT.FreeTensor(outLocal);
    }

private:
    TPipe pipe;
    TQue<QuePosition::VECIN, BUFFER_NUM> inQueueX;
    TQue<QuePosition::VECIN, BUFFER_NUM> inQueueY;
    TQue<QuePosition::VECIN, BUFFER_NUM> inQueueZ;
    TQue<QuePosition::VECOUT, BUFFER_NUM> outQueueOUT;
    GlobalTensor<float> xGm;
    GlobalTensor<float> yGm;
    GlobalTensor<float> zGm;
    GlobalTensor<float> outGm;
    uint32_t blockLength = 0;
    uint32_t tileLength = 0;
};

extern "C" __global__ __aicore__ void sub_mul_custom(GM_ADDR x, GM_ADDR y, GM_ADDR z, GM_ADDR out, GM_ADDR workspace, GM_ADDR tiling)
{
    GET_TILING_DATA(tilingData, tiling);
    KernelSubMul op;
    op.Init(x, y, z, out, tilingData.totalLength, tilingData.blockLength, tilingData.tileLength);
    op.Process();
}
