#include "kernel_operator.h"

using namespace AscendC;

constexpr int32_t QUEUE_DEPTH = 2;
constexpr uint32_t ALIGN_NUM = 8;  // floats per 32-byte block

// Sums each row of a [rows, cols] float tensor. Every core owns a contiguous range of rows,
// reduces them one by one and writes its results with a single copy at the end.
class KernelReduceSum {
public:
    __aicore__ inline KernelReduceSum() {}
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
        xGm.SetGlobalBuffer((__gm__ float*)x + rowStart * cols, rowCount * cols);
        yGm.SetGlobalBuffer((__gm__ float*)y + rowStart, rowCount);
        pipe.InitBuffer(inQueueX, bufferNum, rowsPerTile * colsAligned * sizeof(float));
        pipe.InitBuffer(workBuf, colsAligned * sizeof(float));
        pipe.InitBuffer(sumBuf, ALIGN_NUM * sizeof(float));
        pipe.InitBuffer(resultBuf, (rowsPerCore + ALIGN_NUM) * sizeof(float));
    }

    __aicore__ inline void Process()
    {
        LocalTensor<float> result = resultBuf.Get<float>();
        uint32_t tileNum = (rowCount + rowsPerTile - 1) / rowsPerTile;
        for (uint32_t i = 0; i < tileNum; i++) {
            uint32_t tileRows = (i + 1 == tileNum) ? rowCount - i * rowsPerTile : rowsPerTile;
            CopyIn(i, tileRows);
            Compute(i, tileRows, result);
        }
        // The results were written by the scalar unit; the copy engine must see them.
        event_t eventSToMte3 = static_cast<event_t>(pipe.FetchEventID(HardEvent::S_MTE3));
        SetFlag<HardEvent::S_MTE3>(eventSToMte3);
        WaitFlag<HardEvent::S_MTE3>(eventSToMte3);
        DataCopyExtParams copyParams{1, static_cast<uint32_t>(rowCount * sizeof(float)), 0, 0, 0};
        DataCopyPad(yGm, result, copyParams);
    }

private:
    __aicore__ inline void CopyIn(uint32_t progress, uint32_t tileRows)
    {
        LocalTensor<float> xLocal = inQueueX.AllocTensor<float>();
        // One block per row; each row lands 32-byte aligned in UB.
        DataCopyExtParams copyParams{static_cast<uint16_t>(tileRows), static_cast<uint32_t>(cols * sizeof(float)),
                                     0, 0, 0};
        DataCopyPadExtParams<float> padParams{false, 0, 0, 0};
        DataCopyPad(xLocal, xGm[progress * rowsPerTile * cols], copyParams, padParams);
        inQueueX.EnQue(xLocal);
    }

    __aicore__ inline void Compute(uint32_t progress, uint32_t tileRows, LocalTensor<float>& result)
    {
        LocalTensor<float> xLocal = inQueueX.DeQue<float>();
        LocalTensor<float> work = workBuf.Get<float>();
        LocalTensor<float> sum = sumBuf.Get<float>();
        for (uint32_t r = 0; r < tileRows; r++) {
            ReduceSum(sum, xLocal[r * colsAligned], work, cols);
            event_t eventVToS = static_cast<event_t>(pipe.FetchEventID(HardEvent::V_S));
            SetFlag<HardEvent::V_S>(eventVToS);
            WaitFlag<HardEvent::V_S>(eventVToS);
            result.SetValue(progress * rowsPerTile + r, sum.GetValue(0));
            // The next ReduceSum overwrites the slot the scalar unit just read.
            event_t eventSToV = static_cast<event_t>(pipe.FetchEventID(HardEvent::S_V));
            SetFlag<HardEvent::S_V>(eventSToV);
            WaitFlag<HardEvent::S_V>(eventSToV);
        }
        inQueueX.FreeTensor(xLocal);
    }

private:
    TPipe pipe;
    TQue<QuePosition::VECIN, QUEUE_DEPTH> inQueueX;
    TBuf<QuePosition::VECCALC> workBuf;
    TBuf<QuePosition::VECCALC> sumBuf;
    TBuf<QuePosition::VECCALC> resultBuf;
    GlobalTensor<float> xGm;
    GlobalTensor<float> yGm;
    uint32_t rowCount = 0;
    uint32_t cols = 0;
    uint32_t colsAligned = 0;
    uint32_t rowsPerTile = 0;
};

extern "C" __global__ __aicore__ void reduce_sum_custom(GM_ADDR x, GM_ADDR y, GM_ADDR workspace, GM_ADDR tiling)
{
    GET_TILING_DATA(tilingData, tiling);
    KernelReduceSum op;
    op.Init(x, y, tilingData.rows, tilingData.cols, tilingData.colsAligned, tilingData.rowsPerCore,
            tilingData.rowsPerTile, tilingData.bufferNum);
    op.Process();
}
