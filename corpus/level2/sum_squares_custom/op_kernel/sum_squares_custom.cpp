#include "kernel_operator.h"

using namespace AscendC;

constexpr int32_t QUEUE_DEPTH = 2;

// y[r] = sum_c x[r, c]^2 for a [rows, cols] half tensor, accumulated in float.
class KernelSumSquares {
public:
    __aicore__ inline KernelSumSquares() {}
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
        yGm.SetGlobalBuffer((__gm__ float*)y + rowStart, rowCount);
        pipe.InitBuffer(inQueueX, bufferNum, rowsPerTile * colsAligned * sizeof(half));
        pipe.InitBuffer(outQueueY, bufferNum, (rowsPerTile + 7) / 8 * 8 * sizeof(float));
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

    __aicore__ inline void Compute(uint32_t tileRows)
    {
        LocalTensor<half> xLocal = inQueueX.DeQue<half>();
        LocalTensor<float> yLocal = outQueueY.AllocTensor<float>();
        LocalTensor<float> row = rowBuf.Get<float>();
        LocalTensor<float> work = workBuf.Get<float>();
        LocalTensor<float> stat = statBuf.Get<float>();
        for (uint32_t r = 0; r < tileRows; r++) {
            Cast(row, xLocal[r * colsAligned], RoundMode::CAST_NONE, cols);
            PipeBarrier<PIPE_V>();
            Mul(row, row, row, cols);
            PipeBarrier<PIPE_V>();
            ReduceSum(stat, row, work, cols);
            event_t eventVToS = static_cast<event_t>(pipe.FetchEventID(HardEvent::V_S));
            SetFlag<HardEvent::V_S>(eventVToS);
            WaitFlag<HardEvent::V_S>(eventVToS);
            yLocal.SetValue(r, stat.GetValue(0));
            event_t eventSToV = static_cast<event_t>(pipe.FetchEventID(HardEvent::S_V));
            SetFlag<HardEvent::S_V>(eventSToV);
            WaitFlag<HardEvent::S_V>(eventSToV);
        }
        outQueueY.EnQue(yLocal);
        inQueueX.FreeTensor(xLocal);
    }

    __aicore__ inline void CopyOut(uint32_t progress, uint32_t tileRows)
    {
        LocalTensor<float> yLocal = outQueueY.DeQue<float>();
        // The results were written by the scalar unit.
        event_t eventSToMte3 = static_cast<event_t>(pipe.FetchEventID(HardEvent::S_MTE3));
        SetFlag<HardEvent::S_MTE3>(eventSToMte3);
        WaitFlag<HardEvent::S_MTE3>(eventSToMte3);
        DataCopyExtParams copyParams{1, static_cast<uint32_t>(tileRows * sizeof(float)), 0, 0, 0};
        DataCopyPad(yGm[progress * rowsPerTile], yLocal, copyParams);
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
    GlobalTensor<float> yGm;
    uint32_t rowCount = 0;
    uint32_t cols = 0;
    uint32_t colsAligned = 0;
    uint32_t rowsPerTile = 0;
};

extern "C" __global__ __aicore__ void sum_squares_custom(GM_ADDR x, GM_ADDR y, GM_ADDR workspace, GM_ADDR tiling)
{
    GET_TILING_DATA(tilingData, tiling);
    KernelSumSquares op;
    op.Init(x, y, tilingData.rows, tilingData.cols, tilingData.colsAligned, tilingData.rowsPerCore,
            tilingData.rowsPerTile, tilingData.bufferNum);
    op.Process();
}
