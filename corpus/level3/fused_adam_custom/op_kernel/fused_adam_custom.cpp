#include "kernel_operator.h"

using namespace AscendC;

constexpr uint32_t ALIGN_NUM = 8;  // floats per 32-byte block
constexpr uint32_t GROUP_NUM = 2;

// One Adam step over two parameter tensors (float):
//   m = b1 * m + (1 - b1) * g
//   v = b2 * v + (1 - b2) * g^2
//   p = p - stepSize * m / (sqrt(v) * invBiasCorrection2 + eps)
// with the bias corrections folded into stepSize and invBiasCorrection2 by the tiling.
class KernelFusedAdam {
public:
    __aicore__ inline KernelFusedAdam() {}
    __aicore__ inline void Init(uint32_t tileLength, float beta1, float beta2, float epsilon, float stepSize,
                                float invBiasCorrection2)
    {
        this->tileLength = tileLength;
        this->beta1 = beta1;
        this->beta2 = beta2;
        this->epsilon = epsilon;
        this->stepSize = stepSize;
        this->invBiasCorrection2 = invBiasCorrection2;
        pipe.InitBuffer(inQueue, 1, 4 * tileLength * sizeof(float));
        pipe.InitBuffer(outQueue, 1, 3 * tileLength * sizeof(float));
        pipe.InitBuffer(tmpBuf, tileLength * sizeof(float));
    }

    // `in` holds param, grad, exp_avg, exp_avg_sq; `out` the new param, exp_avg, exp_avg_sq.
    __aicore__ inline void ProcessGroup(GM_ADDR* in, GM_ADDR* out, uint32_t totalLength, uint32_t blockLength)
    {
        uint32_t offset = GetBlockIdx() * blockLength;
        if (offset >= totalLength) {
            return;
        }
        uint32_t length = totalLength - offset < blockLength ? totalLength - offset : blockLength;
        for (uint32_t k = 0; k < 4; k++) {
            inGm[k].SetGlobalBuffer((__gm__ float*)in[k] + offset, length);
        }
        for (uint32_t k = 0; k < 3; k++) {
            outGm[k].SetGlobalBuffer((__gm__ float*)out[k] + offset, length);
        }
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
        LocalTensor<float> inLocal = inQueue.AllocTensor<float>();
        DataCopyExtParams copyParams{1, static_cast<uint32_t>(count * sizeof(float)), 0, 0, 0};
        DataCopyPadExtParams<float> padParams{false, 0, 0, 0};
        for (uint32_t k = 0; k < 4; k++) {
            DataCopyPad(inLocal[k * tileLength], inGm[k][progress * tileLength], copyParams, padParams);
        }
        inQueue.EnQue(inLocal);
    }

    __aicore__ inline void Compute(uint32_t count)
    {
        LocalTensor<float> inLocal = inQueue.DeQue<float>();
        LocalTensor<float> outLocal = outQueue.AllocTensor<float>();
        LocalTensor<float> param = inLocal;
        LocalTensor<float> grad = inLocal[tileLength];
        LocalTensor<float> expAvg = inLocal[2 * tileLength];
        LocalTensor<float> expAvgSq = inLocal[3 * tileLength];
        LocalTensor<float> paramOut = outLocal;
        LocalTensor<float> expAvgOut = outLocal[tileLength];
        LocalTensor<float> expAvgSqOut = outLocal[2 * tileLength];
        LocalTensor<float> tmp = tmpBuf.Get<float>();

        Muls(expAvgOut, expAvg, beta1, count);
        Muls(tmp, grad, 1.0f - beta1, count);
        PipeBarrier<PIPE_V>();
        Add(expAvgOut, expAvgOut, tmp, count);
        PipeBarrier<PIPE_V>();
        Mul(tmp, grad, grad, count);
        PipeBarrier<PIPE_V>();
        Muls(tmp, tmp, 1.0f - beta2, count);
        Muls(expAvgSqOut, expAvgSq, beta2, count);
        PipeBarrier<PIPE_V>();
        Add(expAvgSqOut, expAvgSqOut, tmp, count);
        PipeBarrier<PIPE_V>();
        Sqrt(tmp, expAvgSqOut, count);
        PipeBarrier<PIPE_V>();
        Muls(tmp, tmp, invBiasCorrection2, count);
        PipeBarrier<PIPE_V>();
        Adds(tmp, tmp, epsilon, count);
        PipeBarrier<PIPE_V>();
        Div(tmp, expAvgOut, tmp, count);
        PipeBarrier<PIPE_V>();
        Muls(tmp, tmp, -stepSize, count);
        PipeBarrier<PIPE_V>();
        Add(paramOut, param, tmp, count);
        outQueue.EnQue(outLocal);
        inQueue.FreeTensor(inLocal);
    }

    __aicore__ inline void CopyOut(uint32_t progress, uint32_t count)
    {
        LocalTensor<float> outLocal = outQueue.DeQue<float>();
        DataCopyExtParams copyParams{1, static_cast<uint32_t>(count * sizeof(float)), 0, 0, 0};
        for (uint32_t k = 0; k < 3; k++) {
            DataCopyPad(outGm[k][progress * tileLength], outLocal[k * tileLength], copyParams);
        }
        outQueue.FreeTensor(outLocal);
    }

private:
    TPipe pipe;
    TQue<QuePosition::VECIN, 1> inQueue;
    TQue<QuePosition::VECOUT, 1> outQueue;
    TBuf<QuePosition::VECCALC> tmpBuf;
    GlobalTensor<float> inGm[4];
    GlobalTensor<float> outGm[3];
    uint32_t tileLength = 0;
    float beta1 = 0;
    float beta2 = 0;
    float epsilon = 0;
    float stepSize = 0;
    float invBiasCorrection2 = 0;
};

extern "C" __global__ __aicore__ void fused_adam_custom(GM_ADDR param0, GM_ADDR grad0, GM_ADDR expAvg0,
                                                        GM_ADDR expAvgSq0, GM_ADDR param1, GM_ADDR grad1,
                                                        GM_ADDR expAvg1, GM_ADDR expAvgSq1, GM_ADDR param0Out,
                                                        GM_ADDR expAvg0Out, GM_ADDR expAvgSq0Out, GM_ADDR param1Out,
                                                        GM_ADDR expAvg1Out, GM_ADDR expAvgSq1Out, GM_ADDR workspace,
                                                        GM_ADDR tiling)
{
    GET_TILING_DATA(tilingData, tiling);
    GM_ADDR in[GROUP_NUM][4] = {{param0, grad0, expAvg0, expAvgSq0}, {param1, grad1, expAvg1, expAvgSq1}};
    GM_ADDR out[GROUP_NUM][3] = {{param0Out, expAvg0Out, expAvgSq0Out}, {param1Out, expAvg1Out, expAvgSq1Out}};
    KernelFusedAdam op;
    op.Init(tilingData.tileLength, tilingData.beta1, tilingData.beta2, tilingData.epsilon, tilingData.stepSize,
            tilingData.invBiasCorrection2);
    for (uint32_t g = 0; g < GROUP_NUM; g++) {
        op.ProcessGroup(in[g], out[g], tilingData.totalLength[g], tilingData.blockLength[g]);
    }
}
