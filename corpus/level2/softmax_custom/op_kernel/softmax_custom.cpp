#include "kernel_operator.h"

using namespace AscendC;

constexpr int32_t QUEUE_DEPTH = 2;

// Softmax over the last axis of a [rows, cols] half tensor, computed in float row by row:
// max, exp(x - max), sum, scale.
class KernelSoftmax {
public:
    __aicore__ inline KernelSoftmax() {}
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
        xGm.SetGlobalBuffer((__gm__ half*)x + rowStart * cols, rowCount * cols);
        yGm.SetGlobalBuffer((__gm__ half*)y + rowStart * cols, rowCount * cols);
        pipe.InitBuffer(inQueueX, bufferNum, rowsPerTile * colsAligned * sizeof(half));
        pipe.InitBuffer(outQueueY, bufferNum, rowsPerTile * colsAligned * sizeof(half));
        pipe.InitBuffer(rowBuf, colsAligned * sizeof(float));
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
        LocalTensor<half> xLocal = inQueueX.AllocTensor<half>();
        DataCopyExtParams copyParams{static_cast<uint16_t>(tileRows), static_cast<uint32_t>(cols * sizeof(half)), 0, 0,
                                     0};
        DataCopyPadExtParams<half> padParams{false, 0, 0, 0};
        DataCopyPad(xLocal, xGm[progress * rowsPerTile * cols], copyParams, padParams);
        inQueueX.EnQue(xLocal);
    }

    __aicore__ inline float ReduceToScalar(bool isMax, LocalTensor<float>& row)
    {
        LocalTensor<float> work = workBuf.Get<float>();
        LocalTensor<float> stat = statBuf.Get<float>();
        if (isMax) {
            ReduceMax(stat, row, work, cols);
        } else {
            ReduceSum(stat, row, work, cols);
        }
        event_t eventVToS = static_cast<event_t>(pipe.FetchEventID(HardEvent::V_S));
        SetFlag<HardEvent::V_S>(eventVToS);
        WaitFlag<HardEvent::V_S>(eventVToS);
        float value = stat.GetValue(0);
        // The next reduction overwrites the slot the scalar unit just read.
        event_t eventSToV = static_cast<event_t>(pipe.FetchEventID(HardEvent::S_V));
        SetFlag<HardEvent::S_V>(eventSToV);
        WaitFlag<HardEvent::S_V>(eventSToV);
        return value;
    }

    __aicore__ inline void Compute(uint32_t tileRows)
    {
        LocalTensor<half> xLocal = inQueueX.DeQue<half>();
        LocalTensor<half> yLocal = outQueueY.AllocTensor<half>();
        LocalTensor<float> row = rowBuf.Get<float>();
        for (uint32_t r = 0; r < tileRows; r++) {
            Cast(row, xLocal[r * colsAligned], RoundMode::CAST_NONE, cols);
            PipeBarrier<PIPE_V>();
            float rowMax = ReduceToScalar(true, row);
            Adds(row, row, -rowMax, cols);
            PipeBarrier<PIPE_V>();
            Exp(row, row, cols);
            PipeBarrier<PIPE_V>();
            float rowSum = ReduceToScalar(false, row);
            Muls(row, row, 1.0f / rowSum, cols);
            PipeBarrier<PIPE_V>();
            Cast(yLocal[r * colsAligned], row, RoundMode::CAST_RINT, cols);
            PipeBarrier<PIPE_V>();
        }
        outQueueY.EnQue(yLocal);
        inQueueX.FreeTensor(xLocal);
    }

    __aicore__ inline void CopyOut(uint32_t progress, uint32_t tileRows)
    {
        LocalTensor<half> yLocal = outQueueY.DeQue<half>();
        DataCopyExtParams copyParams{static_cast<uint16_t>(tileRows), static_cast<uint32_t>(cols * sizeof(half)), 0, 0,
                                     0};
        DataCopyPad(yGm[progress * rowsPerTile * cols], yLocal, copyParams);
        outQueueY.FreeTensor(yLocal);
    }

private:
    TPipe pipe;
    TQue<QuePosition::VECIN, QUEUE_DEPTH> inQueueX;
    TQue<QuePosition::VECOUT, QUEUE_DEPTH> outQueueY;
    TBuf<QuePosition::VECCALC> rowBuf;
    TBuf<QuePosition::VECCALC> workBuf;
    TBuf<QuePosition::VECCALC> statBuf;
    GlobalTensor<half> xGm;
    GlobalTensor<half> yGm;
    uint32_t rowCount = 0;
    uint32_t cols = 0;
    uint32_t colsAligned = 0;
    uint32_t rowsPerTile = 0;
};

extern "C" __global__ __aicore__ void softmax_custom(GM_ADDR x, GM_ADDR y, GM_ADDR workspace, GM_ADDR tiling)
{
    GET_TILING_DATA(tilingData, tiling);
    KernelSoftmax op;
    op.Init(x, y, tilingData.rows, tilingData.cols, tilingData.colsAligned, tilingData.rowsPerCore,
            tilingData.rowsPerTile, tilingData.bufferNum);
    op.Process();
}
