#include "kernel_operator.h"

using namespace AscendC;

constexpr int32_t QUEUE_DEPTH = 2;

// log_softmax over the last axis of a [rows, cols] float tensor:
// y = x - max - ln(sum(exp(x - max))), row by row.
class KernelLogSoftmax {
public:
    __aicore__ inline KernelLogSoftmax() {}
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, uint32_t rows, uint32_t cols, uint32_t colsAligned,
                                uint32_t rowsPerCore, uint32_t rowsPerTile, uint32_t bufferNum)
    {
        uint32_t rowStart = GetBlockIdx() * rowsPerCore;
        rowCount = rowStart < rows ? rows - rowStart : 0;
        if (rowCount > rowsPerCore) {
            rowCount = rowsPerCore;
        }
        this->cols = cols;
        this->colsAligned = colsAligned;
        this->rowsPerTile = rowsPerTile;
        xGm.SetGlobalBuffer((__gm__ float*)x + rowStart * cols, rowCount * cols);
        yGm.SetGlobalBuffer((__gm__ float*)y + rowStart * cols, rowCount * cols);
        pipe.InitBuffer(inQueueX, bufferNum, rowsPerTile * colsAligned * sizeof(float));
        pipe.InitBuffer(outQueueY, bufferNum, rowsPerTile * colsAligned * sizeof(float));
        pipe.InitBuffer(expBuf, colsAligned * sizeof(float));
        pipe.InitBuffer(workBuf, colsAligned * sizeof(float));
        pipe.InitBuffer(statBuf, 8 * sizeof(float));
    }

    __aicore__ inline void Process()
    {
        uint32_t tileNum = (rowCount + rowsPerTile - 1) / rowsPerTile;
        for (uint32_t i = 0; i < tileNum; i++) {
            uint32_t tileRows = (i + 1 == tileNum) ? rowCount - i * rowsPerTile : rowsPerTile;
            CopyIn(i, tileRows);
            Compute(tileRows);
            CopyOut(i, tileRows);
        }
    }

private:
    __aicore__ inline void CopyIn(uint32_t progress, uint32_t tileRows)
    {
        LocalTensor<float> xLocal = inQueueX.AllocTensor<float>();
        DataCopyExtParams copyParams{static_cast<uint16_t>(tileRows), static_cast<uint32_t>(cols * sizeof(float)), 0,
                                     0, 0};
        DataCopyPadExtParams<float> padParams{false, 0, 0, 0};
        DataCopyPad(xLocal, xGm[progress * rowsPerTile * cols], copyParams, padParams);
        inQueueX.EnQue(xLocal);
    }

    __aicore__ inline void Compute(uint32_t tileRows)
    {
        LocalTensor<float> xLocal = inQueueX.DeQue<float>();
        LocalTensor<float> yLocal = outQueueY.AllocTensor<float>();
        LocalTensor<float> expRow = expBuf.Get<float>();
        LocalTensor<float> work = workBuf.Get<float>();
        LocalTensor<float> stat = statBuf.Get<float>();
        for (uint32_t r = 0; r < tileRows; r++) {
            LocalTensor<float> xRow = xLocal[r * colsAligned];
            LocalTensor<float> yRow = yLocal[r * colsAligned];
            ReduceMax(stat, xRow, work, cols);
            PipeBarrier<PIPE_ALL>();
            float rowMax = stat.GetValue(0);
            PipeBarrier<PIPE_ALL>();
            Adds(yRow, xRow, -rowMax, cols);
            PipeBarrier<PIPE_V>();
            Exp(expRow, yRow, cols);
            PipeBarrier<PIPE_V>();
            ReduceSum(stat, expRow, work, cols);
            PipeBarrier<PIPE_V>();
            Ln(stat, stat, 1);
            PipeBarrier<PIPE_ALL>();
            float logSum = stat.GetValue(0);
            PipeBarrier<PIPE_ALL>();
            Adds(yRow, yRow, -logSum, cols);
            PipeBarrier<PIPE_V>();
        }
        outQueueY.EnQue(yLocal);
        inQueueX.FreeTensor(xLocal);
    }

    __aicore__ inline void CopyOut(uint32_t progress, uint32_t tileRows)
    {
        LocalTensor<float> yLocal = outQueueY.DeQue<float>();
        DataCopyExtParams copyParams{static_cast<uint16_t>(tileRows), static_cast<uint32_t>(cols * sizeof(float)), 0,
                                     0, 0};
        DataCopyPad(yGm[progress * rowsPerTile * cols], yLocal, copyParams);
        outQueueY.FreeTensor(yLocal);
    }

private:
    TPipe pipe;
    TQue<QuePosition::VECIN, QUEUE_DEPTH> inQueueX;
    TQue<QuePosition::VECOUT, QUEUE_DEPTH> outQueueY;
    TBuf<QuePosition::VECCALC> expBuf;
    TBuf<QuePosition::VECCALC> workBuf;
    TBuf<QuePosition::VECCALC> statBuf;
    GlobalTensor<float> xGm;
    GlobalTensor<float> yGm;
    uint32_t rowCount = 0;
    uint32_t cols = 0;
    uint32_t colsAligned = 0;
    uint32_t rowsPerTile = 0;
};

extern "C" __global__ __aicore__ void log_softmax_custom(GM_ADDR x, GM_ADDR y, GM_ADDR workspace, GM_ADDR tiling)
{
    GET_TILING_DATA(tilingData, tiling);
    KernelLogSoftmax op;
    op.Init(x, y, tilingData.rows, tilingData.cols, tilingData.colsAligned, tilingData.rowsPerCore,
            tilingData.rowsPerTile, tilingData.bufferNum);
    op.Process();
}
