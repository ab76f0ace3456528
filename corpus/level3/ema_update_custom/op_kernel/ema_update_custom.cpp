#include "kernel_operator.h"

using namespace AscendC;

constexpr int32_t BUFFER_NUM = 1;
constexpr uint32_t COPY_CHUNK = 64;  // elements per DataCopy

class KernelEmaUpdate {
public:
    __aicore__ inline KernelEmaUpdate() {}
    __aicore__ inline void Init(GM_ADDR avg, GM_ADDR x, GM_ADDR out, uint32_t totalLength, uint32_t blockLength,
                                uint32_t tileLength, float decay)
    {
        uint32_t offset = GetBlockIdx() * blockLength;
        this->blockLength = totalLength - offset < blockLength ? totalLength - offset : blockLength;
        this->tileLength = tileLength;
        this->decay = decay;
        avgGm.SetGlobalBuffer((__gm__ float*)avg + offset, this->blockLength);
        xGm.SetGlobalBuffer((__gm__ float*)x + offset, this->blockLength);
        outGm.SetGlobalBuffer((__gm__ float*)out + offset, this->blockLength);
        pipe.InitBuffer(inQueueAVG, BUFFER_NUM, tileLength * sizeof(float));
        pipe.InitBuffer(inQueueX, BUFFER_NUM, tileLength * sizeof(float));
        pipe.InitBuffer(outQueueOUT, BUFFER_NUM, tileLength * sizeof(float));
        pipe.InitBuffer(tBuf, tileLength * sizeof(float));
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
        LocalTensor<float> avgLocal = inQueueAVG.AllocTensor<float>();
        LocalTensor<float> xLocal = inQueueX.AllocTensor<float>();
        for (uint32_t off = 0; off < count; off += COPY_CHUNK) {
            DataCopy(avgLocal[off], avgGm[progress * tileLength + off], COPY_CHUNK);
        }
        for (uint32_t off = 0; off < count; off += COPY_CHUNK) {
            DataCopy(xLocal[off], xGm[progress * tileLength + off], COPY_CHUNK);
        }
        inQueueAVG.EnQue(avgLocal);
        inQueueX.EnQue(xLocal);
    }

    __aicore__ inline void Compute(uint32_t count)
    {
        LocalTensor<float> avgLocal = inQueueAVG.DeQue<float>();
        LocalTensor<float> xLocal = inQueueX.DeQue<float>();
        LocalTensor<float> outLocal = outQueueOUT.AllocTensor<float>();
        LocalTensor<float> tLocal = tBuf.Get<float>();
        PipeBarrier<PIPE_ALL>();
        for (uint32_t i = 0; i < count; i++) {
            outLocal.SetValue(i, avgLocal.GetValue(i) * decay);
        }
        PipeBarrier<PIPE_ALL>();
        Muls(tLocal, xLocal, 1.0f - decay, count);
        PipeBarrier<PIPE_V>();
        Add(outLocal, outLocal, tLocal, count);
        outQueueOUT.EnQue<float>(outLocal);
        inQueueAVG.FreeTensor(avgLocal);
        inQueueX.FreeTensor(xLocal);
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
    TQue<QuePosition::VECIN, BUFFER_NUM> inQueueAVG;
    TQue<QuePosition::VECIN, BUFFER_NUM> inQueueX;
    TQue<QuePosition::VECOUT, BUFFER_NUM> outQueueOUT;
    TBuf<TPosition::VECCALC> tBuf;
    GlobalTensor<float> avgGm;
    GlobalTensor<float> xGm;
    GlobalTensor<float> outGm;
    uint32_t blockLength = 0;
    uint32_t tileLength = 0;
    float decay = 0;
};

extern "C" __global__ __aicore__ void ema_update_custom(GM_ADDR avg, GM_ADDR x, GM_ADDR out, GM_ADDR workspace, GM_ADDR tiling)
{
    GET_TILING_DATA(tilingData, tiling);
    KernelEmaUpdate op;
    op.Init(avg, x, out, tilingData.totalLength, tilingData.blockLength, tilingData.tileLength, tilingData.decay);
    op.Process();
}
