#include "kernel_operator.h"

using namespace AscendC;

constexpr int32_t QUEUE_DEPTH = 2;
constexpr uint32_t ALIGN_NUM = 16;  // halves per 32-byte block

// Maximum of each row of a [rows, cols] half tensor, tile by tile: a tile of rows is copied in,
// each row is reduced, and the tile's maxima are copied out.
class KernelReduceMax {
public:
    __aicore__ inline KernelReduceMax() {}
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, uint32_t rows, uint32_t cols, uint32_t colsAligned,
                                uint32_t rowsPerCore, uint32_t rowsPerTile, uint32_t bufferNum)
    {
        uint32_t rowStart = GetBlockIdx() * rowsPerCore;
        this->rowCount = rowStart < rows ? rows - rowStart : 0;
        if (this->rowCount > rowsPerCore) {
            this->rowCount = rowsPerCore;
        }
        this->cols = cols;
        this->colsAligned = colsAligned;
        this->rowsPerTile = rowsPerTile;
        xGm.SetGlobalBuffer((__gm__ half*)x + rowStart * cols, rowCount * cols);
        yGm.SetGlobalBuffer((__gm__ half*)y + rowStart, rowCount);
        pipe.InitBuffer(inQueueX, bufferNum, rowsPerTile * colsAligned * sizeof(half));
        pipe.InitBuffer(outQueueY, bufferNum, (rowsPerTile + ALIGN_NUM) / ALIGN_NUM * ALIGN_NUM * sizeof(half));
        pipe.InitBuffer(workBuf, colsAligned * sizeof(half));
        pipe.InitBuffer(maxBuf, ALIGN_NUM * sizeof(half));
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
        DataCopyExtParams copyParams{static_cast<uint16_t>(tileRows), static_cast<uint32_t>(cols * sizeof(half)),
                                     0, 0, 0};
        DataCopyPadExtParams<half> padParams{false, 0, 0, 0};
        DataCopyPad(xLocal, xGm[progress * rowsPerTile * cols], copyParams, padParams);
        inQueueX.EnQue(xLocal);
    }

    __aicore__ inline void Compute(uint32_t tileRows)
    {
        LocalTensor<half> xLocal = inQueueX.DeQue<half>();
        LocalTensor<half> yLocal = outQueueY.AllocTensor<half>();
        LocalTensor<half> work = workBuf.Get<half>();
        LocalTensor<half> maxValue = maxBuf.Get<half>();
        for (uint32_t r = 0; r < tileRows; r++) {
            ReduceMax(maxValue, xLocal[r * colsAligned], work, cols);
            PipeBarrier<PIPE_ALL>();
            yLocal.SetValue(r, maxValue.GetValue(0));
            event_t eventSToV = static_cast<event_t>(pipe.FetchEventID(HardEvent::S_V));
            SetFlag<HardEvent::S_V>(eventSToV);
            WaitFlag<HardEvent::S_V>(eventSToV);
        }
        PipeBarrier<PIPE_ALL>();
        outQueueY.EnQue(yLocal);
        inQueueX.FreeTensor(xLocal);
    }

    __aicore__ inline void CopyOut(uint32_t progress, uint32_t tileRows)
    {
        LocalTensor<half> yLocal = outQueueY.DeQue<half>();
        DataCopyExtParams copyParams{1, static_cast<uint32_t>(tileRows * sizeof(half)), 0, 0, 0};
        DataCopyPad(yGm[progress * rowsPerTile], yLocal, copyParams);
        outQueueY.FreeTensor(yLocal);
    }

private:
    TPipe pipe;
    TQue<QuePosition::VECIN, QUEUE_DEPTH> inQueueX;
    TQue<QuePosition::VECOUT, QUEUE_DEPTH> outQueueY;
    TBuf<QuePosition::VECCALC> workBuf;
    TBuf<QuePosition::VECCALC> maxBuf;
    GlobalTensor<half> xGm;
    GlobalTensor<half> yGm;
    uint32_t rowCount = 0;
    uint32_t cols = 0;
    uint32_t colsAligned = 0;
    uint32_t rowsPerTile = 0;
};

extern "C" __global__ __aicore__ void reduce_max_custom(GM_ADDR x, GM_ADDR y, GM_ADDR workspace, GM_ADDR tiling)
{
    GET_TILING_DATA(tilingData, tiling);
    KernelReduceMax op;
    op.Init(x, y, tilingData.rows, tilingData.cols, tilingData.colsAligned, tilingData.rowsPerCore,
            tilingData.rowsPerTile, tilingData.bufferNum);
    op.Process();
}
