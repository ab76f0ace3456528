#include "kernel_operator.h"

using namespace AscendC;

constexpr int32_t BUFFER_NUM = 2;

// Two passes over the core's rows, as the two framework operators it replaces:
// y = relu(x + bias), then y = y + r.
class KernelBiasReluResidual {
public:
    __aicore__ inline KernelBiasReluResidual() {}
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR bias, GM_ADDR r, GM_ADDR y, uint32_t rows, uint32_t cols,
                                uint32_t formerNum, uint32_t formerRows, uint32_t tailRows, uint32_t rowsPerTile)
    {
        uint32_t core = GetBlockIdx();
        rowStart = core * tailRows;
        rowCount = tailRows;
        if (core + 1 == GetBlockNum()) {
            rowCount = rows - rowStart;
        }
        this->cols = cols;
        this->rowsPerTile = rowsPerTile;
        xGm.SetGlobalBuffer((__gm__ float*)x + rowStart * cols, rowCount * cols);
        rGm.SetGlobalBuffer((__gm__ float*)r + rowStart * cols, rowCount * cols);
        yGm.SetGlobalBuffer((__gm__ float*)y + rowStart * cols, rowCount * cols);
        biasGm.SetGlobalBuffer((__gm__ float*)bias, cols);
        pipe.InitBuffer(inQueueX, BUFFER_NUM, rowsPerTile * cols * sizeof(float));
        pipe.InitBuffer(inQueueR, BUFFER_NUM, rowsPerTile * cols * sizeof(float));
        pipe.InitBuffer(outQueueY, BUFFER_NUM, rowsPerTile * cols * sizeof(float));
        pipe.InitBuffer(biasBuf, cols * sizeof(float));
    }

    __aicore__ inline void Process()
    {
        LocalTensor<float> biasLocal = biasBuf.Get<float>();
        DataCopy(biasLocal, biasGm, cols);
        PipeBarrier<PIPE_ALL>();
        uint32_t tileNum = (rowCount + rowsPerTile - 1) / rowsPerTile;
        for (uint32_t i = 0; i < tileNum; i++) {
            uint32_t tileRows = i + 1 == tileNum ? rowCount - i * rowsPerTile : rowsPerTile;
            CopyIn(xGm, i, tileRows);
            BiasRelu(biasLocal, tileRows);
            CopyOut(i, tileRows);
        }
        // The second pass reads back what the first wrote.
        PipeBarrier<PIPE_ALL>();
        for (uint32_t i = 0; i < tileNum; i++) {
            uint32_t tileRows = i + 1 == tileNum ? rowCount - i * rowsPerTile : rowsPerTile;
            CopyIn(yGm, i, tileRows);
            Residual(i, tileRows);
            CopyOut(i, tileRows);
        }
    }

private:
    __aicore__ inline void CopyIn(GlobalTensor<float>& src, uint32_t progress, uint32_t tileRows)
    {
        LocalTensor<float> xLocal = inQueueX.AllocTensor<float>();
        DataCopy(xLocal, src[progress * rowsPerTile * cols], tileRows * cols);
        inQueueX.EnQue(xLocal);
    }

    __aicore__ inline void BiasRelu(LocalTensor<float>& biasLocal, uint32_t tileRows)
    {
        LocalTensor<float> xLocal = inQueueX.DeQue<float>();
        LocalTensor<float> yLocal = outQueueY.AllocTensor<float>();
        for (uint32_t row = 0; row < tileRows; row++) {
            Add(yLocal[row * cols], xLocal[row * cols], biasLocal, cols);
        }
        PipeBarrier<PIPE_V>();
        Relu(yLocal, yLocal, tileRows * cols);
        outQueueY.EnQue<float>(yLocal);
        inQueueX.FreeTensor(xLocal);
    }

    __aicore__ inline void Residual(uint32_t progress, uint32_t tileRows)
    {
        LocalTensor<float> rLocal = inQueueR.AllocTensor<float>();
        DataCopy(rLocal, rGm[progress * rowsPerTile * cols], tileRows * cols);
        inQueueR.EnQue(rLocal);
        rLocal = inQueueR.DeQue<float>();
        LocalTensor<float> xLocal = inQueueX.DeQue<float>();
        LocalTensor<float> yLocal = outQueueY.AllocTensor<float>();
        Add(yLocal, xLocal, rLocal, tileRows * cols);
        outQueueY.EnQue<float>(yLocal);
        inQueueX.FreeTensor(xLocal);
        inQueueR.FreeTensor(rLocal);
    }

    __aicore__ inline void CopyOut(uint32_t progress, uint32_t tileRows)
    {
        LocalTensor<float> yLocal = outQueueY.DeQue<float>();
        DataCopy(yGm[progress * rowsPerTile * cols], yLocal, tileRows * cols);
        outQueueY.FreeTensor(yLocal);
    }

private:
    TPipe pipe;
    TQue<QuePosition::VECIN, BUFFER_NUM> inQueueX;
    TQue<QuePosition::VECIN, BUFFER_NUM> inQueueR;
    TQue<QuePosition::VECOUT, BUFFER_NUM> outQueueY;
    TBuf<TPosition::VECCALC> biasBuf;
    GlobalTensor<float> xGm;
    GlobalTensor<float> rGm;
    GlobalTensor<float> biasGm;
    GlobalTensor<float> yGm;
    uint32_t rowStart = 0;
    uint32_t rowCount = 0;
    uint32_t cols = 0;
    uint32_t rowsPerTile = 0;
};

extern "C" __global__ __aicore__ void bias_relu_residual_custom(GM_ADDR x, GM_ADDR bias, GM_ADDR r, GM_ADDR y,
                                                                GM_ADDR workspace, GM_ADDR tiling)
{
    GET_TILING_DATA(tilingData, tiling);
    KernelBiasReluResidual op;
    op.Init(x, bias, r, y, tilingData.rows, tilingData.cols, tilingData.formerNum, tilingData.formerRows,
            tilingData.tailRows, tilingData.rowsPerTile);
    op.Process();
}
