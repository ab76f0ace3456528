#include "kernel_operator.h"

using namespace AscendC;

constexpr int32_t QUEUE_DEPTH = 2;

// Scales each row of a [rows, cols] half tensor by the reciprocal of its largest magnitude (the
// per-row range a symmetric quantizer needs), in float. The row's maximum is read back by the
// scalar unit, which therefore waits for the vector unit on every row; so the next tile's
// copy-in is issued before the current tile is computed, and MTE2 loads it meanwhile.
class KernelRowAbsmaxScale {
public:
    __aicore__ inline KernelRowAbsmaxScale() {}
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, uint32_t cols, uint32_t colsAligned, uint32_t formerNum,
                                uint32_t formerRows, uint32_t tailRows, uint32_t rowsPerTile, uint32_t bufferNum)
    {
        uint32_t blockIdx = GetBlockIdx();
        uint32_t rowStart = 0;
        if (blockIdx < formerNum) {
            rowStart = blockIdx * formerRows;
            rowCount = formerRows;
        } else {
            rowStart = formerNum * formerRows + (blockIdx - formerNum) * tailRows;
            rowCount = tailRows;
        }
        this->cols = cols;
        this->colsAligned = colsAligned;
        this->rowsPerTile = rowsPerTile;
        xGm.SetGlobalBuffer((__gm__ half*)x + rowStart * cols, rowCount * cols);
        yGm.SetGlobalBuffer((__gm__ half*)y + rowStart * cols, rowCount * cols);
        pipe.InitBuffer(inQueueX, bufferNum, rowsPerTile * colsAligned * sizeof(half));
        pipe.InitBuffer(outQueueY, bufferNum, rowsPerTile * colsAligned * sizeof(half));
        pipe.InitBuffer(rowBuf, colsAligned * sizeof(float));
        pipe.InitBuffer(magnitudeBuf, colsAligned * sizeof(float));
        pipe.InitBuffer(workBuf, colsAligned * sizeof(float));
        pipe.InitBuffer(maxBuf, 8 * sizeof(float));
    }

    __aicore__ inline void Process()
    {
        uint32_t tileNum = (rowCount + rowsPerTile - 1) / rowsPerTile;
        if (tileNum > 0) {
            uint32_t t = 0;
            uint32_t tileRows = (t + 1 == tileNum) ? rowCount - t * rowsPerTile : rowsPerTile;
            CopyIn(t, tileRows);
        }
        for (uint32_t t = 0; t < tileNum; t++) {
            if (t + 1 < tileNum) {
                uint32_t nextRows = (t + 2 == tileNum) ? rowCount - (t + 1) * rowsPerTile : rowsPerTile;
                CopyIn(t + 1, nextRows);
            }
            uint32_t tileRows = (t + 1 == tileNum) ? rowCount - t * rowsPerTile : rowsPerTile;
            Compute(tileRows);
            CopyOut(t, tileRows);
        }
    }

private:
    __aicore__ inline void CopyIn(uint32_t tile, uint32_t tileRows)
    {
        LocalTensor<half> xLocal = inQueueX.AllocTensor<half>();
        DataCopyExtParams copyParams{static_cast<uint16_t>(tileRows), static_cast<uint32_t>(cols * sizeof(half)), 0, 0,
                                     0};
        DataCopyPadExtParams<half> padParams{false, 0, 0, 0};
        DataCopyPad(xLocal, xGm[tile * rowsPerTile * cols], copyParams, padParams);
        inQueueX.EnQue(xLocal);
    }

    __aicore__ inline void Compute(uint32_t tileRows)
    {
        LocalTensor<half> xLocal = inQueueX.DeQue<half>();
        LocalTensor<half> yLocal = outQueueY.AllocTensor<half>();
        LocalTensor<float> row = rowBuf.Get<float>();
        LocalTensor<float> magnitude = magnitudeBuf.Get<float>();
        LocalTensor<float> work = workBuf.Get<float>();
        LocalTensor<float> largest = maxBuf.Get<float>();
        for (uint32_t r = 0; r < tileRows; r++) {
            Cast(row, xLocal[r * colsAligned], RoundMode::CAST_NONE, cols);
            PipeBarrier<PIPE_V>();
            Abs(magnitude, row, cols);
            PipeBarrier<PIPE_V>();
            ReduceMax(largest, magnitude, work, cols);
            event_t eventVToS = static_cast<event_t>(pipe.FetchEventID(HardEvent::V_S));
            SetFlag<HardEvent::V_S>(eventVToS);
            WaitFlag<HardEvent::V_S>(eventVToS);
            float scale = 1.0f / largest.GetValue(0);
            Muls(row, row, scale, cols);
            PipeBarrier<PIPE_V>();
            Cast(yLocal[r * colsAligned], row, RoundMode::CAST_RINT, cols);
            PipeBarrier<PIPE_V>();
        }
        outQueueY.EnQue(yLocal);
        inQueueX.FreeTensor(xLocal);
    }

    __aicore__ inline void CopyOut(uint32_t tile, uint32_t tileRows)
    {
        LocalTensor<half> yLocal = outQueueY.DeQue<half>();
        DataCopyExtParams copyParams{static_cast<uint16_t>(tileRows), static_cast<uint32_t>(cols * sizeof(half)), 0, 0,
                                     0};
        DataCopyPad(yGm[tile * rowsPerTile * cols], yLocal, copyParams);
        outQueueY.FreeTensor(yLocal);
    }

private:
    TPipe pipe;
    TQue<QuePosition::VECIN, QUEUE_DEPTH> inQueueX;
    TQue<QuePosition::VECOUT, QUEUE_DEPTH> outQueueY;
    TBuf<QuePosition::VECCALC> rowBuf;
    TBuf<QuePosition::VECCALC> magnitudeBuf;
    TBuf<QuePosition::VECCALC> workBuf;
    TBuf<QuePosition::VECCALC> maxBuf;
    GlobalTensor<half> xGm;
    GlobalTensor<half> yGm;
    uint32_t rowCount = 0;
    uint32_t cols = 0;
    uint32_t colsAligned = 0;
    uint32_t rowsPerTile = 0;
};

extern "C" __global__ __aicore__ void row_absmax_scale_custom(GM_ADDR x, GM_ADDR y, GM_ADDR workspace, GM_ADDR tiling)
{
    GET_TILING_DATA(tilingData, tiling);
    KernelRowAbsmaxScale op;
    op.Init(x, y, tilingData.cols, tilingData.colsAligned, tilingData.formerNum, tilingData.formerRows,
            tilingData.tailRows, tilingData.rowsPerTile, tilingData.bufferNum);
    op.Process();
}
