#include "kernel_operator.h"

using namespace AscendC;

constexpr int32_t QUEUE_DEPTH = 2;

// y = gelu(x + bias) for a [rows, cols] half tensor and a [cols] bias (tanh approximation,
// in float): gelu(v) = v / (1 + exp(-2 * sqrt(2 / pi) * (v + 0.044715 * v^3))).
class KernelBiasGelu {
public:
    __aicore__ inline KernelBiasGelu() {}
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR bias, GM_ADDR y, uint32_t rows, uint32_t cols,
                                uint32_t rowsPerCore, uint32_t rowsPerTile, uint32_t bufferNum)
    {
        uint32_t rowStart = GetBlockIdx() * rowsPerCore;
        rowCount = rowStart < rows ? rows - rowStart : 0;
        if (rowCount > rowsPerCore) {
            rowCount = rowsPerCore;
        }
        this->cols = cols;
        this->rowsPerTile = rowsPerTile;
        xGm.SetGlobalBuffer((__gm__ half*)x + rowStart * cols, rowCount * cols);
        biasGm.SetGlobalBuffer((__gm__ half*)bias, cols);
        yGm.SetGlobalBuffer((__gm__ half*)y + rowStart * cols, rowCount * cols);
        pipe.InitBuffer(inQueueX, bufferNum, rowsPerTile * cols * sizeof(half));
        pipe.InitBuffer(outQueueY, bufferNum, rowsPerTile * cols * sizeof(half));
        pipe.InitBuffer(biasQueue, 1, cols * sizeof(half));
        pipe.InitBuffer(biasBuf, cols * sizeof(float));
        pipe.InitBuffer(valueBuf, rowsPerTile * cols * sizeof(float));
        pipe.InitBuffer(tmpBuf, rowsPerTile * cols * sizeof(float));
    }

    __aicore__ inline void Process()
    {
        LocalTensor<half> biasLocal = biasQueue.AllocTensor<half>();
        DataCopy(biasLocal, biasGm, cols);
        biasQueue.EnQue(biasLocal);
        biasLocal = biasQueue.DeQue<half>();
        LocalTensor<float> biasFloat = biasBuf.Get<float>();
        Cast(biasFloat, biasLocal, RoundMode::CAST_NONE, cols);
        PipeBarrier<PIPE_V>();
        biasQueue.FreeTensor(biasLocal);

        uint32_t tileNum = (rowCount + rowsPerTile - 1) / rowsPerTile;
        for (uint32_t i = 0; i < tileNum; i++) {
            uint32_t tileRows = (i + 1 == tileNum) ? rowCount - i * rowsPerTile : rowsPerTile;
            CopyIn(i, tileRows);
            Compute(tileRows, biasFloat);
            CopyOut(i, tileRows);
        }
    }

private:
    __aicore__ inline void CopyIn(uint32_t progress, uint32_t tileRows)
    {
        LocalTensor<half> xLocal = inQueueX.AllocTensor<half>();
        DataCopy(xLocal, xGm[progress * rowsPerTile * cols], tileRows * cols);
        inQueueX.EnQue(xLocal);
    }

    __aicore__ inline void Compute(uint32_t tileRows, LocalTensor<float>& biasFloat)
    {
        LocalTensor<half> xLocal = inQueueX.DeQue<half>();
        LocalTensor<half> yLocal = outQueueY.AllocTensor<half>();
        LocalTensor<float> value = valueBuf.Get<float>();
        LocalTensor<float> tmp = tmpBuf.Get<float>();
        uint32_t count = tileRows * cols;

        Cast(value, xLocal, RoundMode::CAST_NONE, count);
        PipeBarrier<PIPE_V>();
        for (uint32_t r = 0; r < tileRows; r++) {
            Add(value[r * cols], value[r * cols], biasFloat, cols);
        }
        PipeBarrier<PIPE_V>();
        Mul(tmp, value, value, count);
        PipeBarrier<PIPE_V>();
        Muls(tmp, tmp, 0.044715f, count);
        PipeBarrier<PIPE_V>();
        Adds(tmp, tmp, 1.0f, count);
        PipeBarrier<PIPE_V>();
        Mul(tmp, tmp, value, count);
        PipeBarrier<PIPE_V>();
        Muls(tmp, tmp, -1.5957691216f, count);
        PipeBarrier<PIPE_V>();
        Exp(tmp, tmp, count);
        PipeBarrier<PIPE_V>();
        Adds(tmp, tmp, 1.0f, count);
        PipeBarrier<PIPE_V>();
        Div(tmp, value, tmp, count);
        PipeBarrier<PIPE_V>();
        Cast(yLocal, tmp, RoundMode::CAST_RINT, count);
        outQueueY.EnQue(yLocal);
        inQueueX.FreeTensor(xLocal);
    }

    __aicore__ inline void CopyOut(uint32_t progress, uint32_t tileRows)
    {
        LocalTensor<half> yLocal = outQueueY.DeQue<half>();
        DataCopy(yGm[progress * rowsPerTile * cols], yLocal, tileRows * cols);
        outQueueY.FreeTensor(yLocal);
    }

private:
    TPipe pipe;
    TQue<QuePosition::VECIN, QUEUE_DEPTH> inQueueX;
    TQue<QuePosition::VECOUT, QUEUE_DEPTH> outQueueY;
    TQue<QuePosition::VECIN, 1> biasQueue;
    TBuf<QuePosition::VECCALC> biasBuf;
    TBuf<QuePosition::VECCALC> valueBuf;
    TBuf<QuePosition::VECCALC> tmpBuf;
    GlobalTensor<half> xGm;
    GlobalTensor<half> biasGm;
    GlobalTensor<half> yGm;
    uint32_t rowCount = 0;
    uint32_t cols = 0;
    uint32_t rowsPerTile = 0;
};

extern "C" __global__ __aicore__ void bias_gelu_custom(GM_ADDR x, GM_ADDR bias, GM_ADDR y, GM_ADDR workspace,
                                                       GM_ADDR tiling)
{
    GET_TILING_DATA(tilingData, tiling);
    KernelBiasGelu op;
    op.Init(x, bias, y, tilingData.rows, tilingData.cols, tilingData.rowsPerCore, tilingData.rowsPerTile,
            tilingData.bufferNum);
    op.Process();
}
