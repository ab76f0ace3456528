#include "kernel_operator.h"

using namespace AscendC;

constexpr int32_t QUEUE_DEPTH = 2;
constexpr uint32_t ALIGN_NUM = 8;  // elements per 32-byte block
constexpr uint32_t TENSOR_NUM = 3;

// y_i = base ^ x_i for every tensor x_i of a list of float tensors (base > 0), as exp(x_i * ln(base)); ln(base) comes from the tiling.
// Each tensor of the list is split over the cores; a core walks its part of every tensor.
class KernelForeachPowScalarAndTensor {
public:
    __aicore__ inline KernelForeachPowScalarAndTensor() {}
    __aicore__ inline void Init(GM_ADDR* xs, GM_ADDR* ys, const uint32_t* totalLength, const uint32_t* blockLength,
                                uint32_t tileLength, uint32_t bufferNum, float logBase)
    {
        for (uint32_t t = 0; t < TENSOR_NUM; t++) {
            x[t] = xs[t];
            y[t] = ys[t];
            this->totalLength[t] = totalLength[t];
            this->blockLength[t] = blockLength[t];
        }
        this->tileLength = tileLength;
        this->logBase = logBase;
        pipe.InitBuffer(inQueueX, bufferNum, tileLength * sizeof(float));
        pipe.InitBuffer(outQueueY, bufferNum, tileLength * sizeof(float));
    }

    __aicore__ inline void Process()
    {
        for (uint32_t t = 0; t < TENSOR_NUM; t++) {
            uint32_t offset = GetBlockIdx() * blockLength[t];
            if (offset >= totalLength[t]) {
                continue;
            }
            uint32_t length = totalLength[t] - offset < blockLength[t] ? totalLength[t] - offset : blockLength[t];
            xGm.SetGlobalBuffer((__gm__ float*)x[t] + offset, length);
            yGm.SetGlobalBuffer((__gm__ float*)y[t] + offset, length);
            uint32_t tileNum = (length + tileLength - 1) / tileLength;
            for (uint32_t i = 0; i < tileNum; i++) {
                uint32_t count = (i + 1 == tileNum) ? length - i * tileLength : tileLength;
                CopyIn(i, count);
                Compute(count);
                CopyOut(i, count);
            }
        }
    }

private:
    __aicore__ inline void CopyIn(uint32_t progress, uint32_t count)
    {
        LocalTensor<float> xLocal = inQueueX.AllocTensor<float>();
        if (count % ALIGN_NUM == 0) {
            DataCopy(xLocal, xGm[progress * tileLength], count);
        } else {
            DataCopyExtParams copyParams{1, static_cast<uint32_t>(count * sizeof(float)), 0, 0, 0};
            DataCopyPadExtParams<float> padParams{false, 0, 0, 0};
            DataCopyPad(xLocal, xGm[progress * tileLength], copyParams, padParams);
        }
        inQueueX.EnQue(xLocal);
    }

    __aicore__ inline void Compute(uint32_t count)
    {
        LocalTensor<float> xLocal = inQueueX.DeQue<float>();
        LocalTensor<float> yLocal = outQueueY.AllocTensor<float>();
        Muls(yLocal, xLocal, logBase, count);
        PipeBarrier<PIPE_V>();
        Exp(yLocal, yLocal, count);
        outQueueY.EnQue(yLocal);
        inQueueX.FreeTensor(xLocal);
    }

    __aicore__ inline void CopyOut(uint32_t progress, uint32_t count)
    {
        LocalTensor<float> yLocal = outQueueY.DeQue<float>();
        if (count % ALIGN_NUM == 0) {
            DataCopy(yGm[progress * tileLength], yLocal, count);
        } else {
            DataCopyExtParams copyParams{1, static_cast<uint32_t>(count * sizeof(float)), 0, 0, 0};
            DataCopyPad(yGm[progress * tileLength], yLocal, copyParams);
        }
        outQueueY.FreeTensor(yLocal);
    }

private:
    TPipe pipe;
    TQue<QuePosition::VECIN, QUEUE_DEPTH> inQueueX;
    TQue<QuePosition::VECOUT, QUEUE_DEPTH> outQueueY;
    GlobalTensor<float> xGm;
    GlobalTensor<float> yGm;
    GM_ADDR x[TENSOR_NUM];
    GM_ADDR y[TENSOR_NUM];
    uint32_t totalLength[TENSOR_NUM];
    uint32_t blockLength[TENSOR_NUM];
    uint32_t tileLength = 0;
    float logBase = 0;
};

extern "C" __global__ __aicore__ void foreach_pow_scalar_and_tensor_custom(GM_ADDR x0, GM_ADDR x1, GM_ADDR x2, GM_ADDR y0, GM_ADDR y1, GM_ADDR y2, GM_ADDR workspace,
                                                                            GM_ADDR tiling)
{
    GET_TILING_DATA(tilingData, tiling);
    GM_ADDR xs[TENSOR_NUM] = {x0, x1, x2};
    GM_ADDR ys[TENSOR_NUM] = {y0, y1, y2};
    KernelForeachPowScalarAndTensor op;
    op.Init(xs, ys, tilingData.totalLength, tilingData.blockLength, tilingData.tileLength, tilingData.bufferNum,
            tilingData.logBase);
    op.Process();
}
