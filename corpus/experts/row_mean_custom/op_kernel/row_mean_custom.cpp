#include "kernel_operator.h"

using namespace AscendC;

constexpr int32_t QUEUE_DEPTH = 2;
constexpr uint32_t ALIGN_NUM = 8;     // floats per 32-byte block
constexpr uint32_t MAX_REPEAT = 248;  // <= 255 repeats and a 32-byte aligned destination offset

// Mean of each row of a [rows, cols] float tensor with cols <= 64 and a multiple of 8.
// A tile of rows arrives with one contiguous copy; one WholeReduceSum per 248 rows reduces one
// row per repeat (mask = cols, source repeat stride = one row), so the results land packed and
// are scaled and stored without any scalar work.
class KernelRowMean {
public:
    __aicore__ inline KernelRowMean() {}
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, uint32_t cols, uint32_t formerNum, uint32_t formerRows,
                                uint32_t tailRows, uint32_t rowsPerTile, uint32_t bufferNum)
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
        this->rowsPerTile = rowsPerTile;
        xGm.SetGlobalBuffer((__gm__ float*)x + rowStart * cols, rowCount * cols);
        yGm.SetGlobalBuffer((__gm__ float*)y + rowStart, rowCount);
        pipe.InitBuffer(inQueueX, bufferNum, rowsPerTile * cols * sizeof(float));
        pipe.InitBuffer(outQueueY, bufferNum, rowsPerTile * sizeof(float));
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
        DataCopy(xLocal, xGm[progress * rowsPerTile * cols], tileRows * cols);
        inQueueX.EnQue(xLocal);
    }

    __aicore__ inline void Compute(uint32_t tileRows)
    {
        LocalTensor<float> xLocal = inQueueX.DeQue<float>();
        LocalTensor<float> yLocal = outQueueY.AllocTensor<float>();
        int32_t rowStride = static_cast<int32_t>(cols / ALIGN_NUM);  // in 32-byte blocks
        for (uint32_t done = 0; done < tileRows; done += MAX_REPEAT) {
            uint32_t repeat = tileRows - done < MAX_REPEAT ? tileRows - done : MAX_REPEAT;
            WholeReduceSum(yLocal[done], xLocal[done * cols], static_cast<int32_t>(cols), static_cast<int32_t>(repeat),
                           1, 1, rowStride);
        }
        PipeBarrier<PIPE_V>();
        Muls(yLocal, yLocal, 1.0f / static_cast<float>(cols), tileRows);
        outQueueY.EnQue(yLocal);
        inQueueX.FreeTensor(xLocal);
    }

    __aicore__ inline void CopyOut(uint32_t progress, uint32_t tileRows)
    {
        LocalTensor<float> yLocal = outQueueY.DeQue<float>();
        if (tileRows % ALIGN_NUM == 0) {
            DataCopy(yGm[progress * rowsPerTile], yLocal, tileRows);
        } else {
            DataCopyExtParams copyParams{1, static_cast<uint32_t>(tileRows * sizeof(float)), 0, 0, 0};
            DataCopyPad(yGm[progress * rowsPerTile], yLocal, copyParams);
        }
        outQueueY.FreeTensor(yLocal);
    }

private:
    TPipe pipe;
    TQue<QuePosition::VECIN, QUEUE_DEPTH> inQueueX;
    TQue<QuePosition::VECOUT, QUEUE_DEPTH> outQueueY;
    GlobalTensor<float> xGm;
    GlobalTensor<float> yGm;
    uint32_t rowCount = 0;
    uint32_t cols = 0;
    uint32_t rowsPerTile = 0;
};

extern "C" __global__ __aicore__ void row_mean_custom(GM_ADDR x, GM_ADDR y, GM_ADDR workspace, GM_ADDR tiling)
{
    GET_TILING_DATA(tilingData, tiling);
    KernelRowMean op;
    op.Init(x, y, tilingData.cols, tilingData.formerNum, tilingData.formerRows, tilingData.tailRows,
            tilingData.rowsPerTile, tilingData.bufferNum);
    op.Process();
}
