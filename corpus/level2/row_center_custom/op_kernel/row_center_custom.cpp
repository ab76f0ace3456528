#include "kernel_operator.h"

using namespace AscendC;

constexpr int32_t BUFFER_NUM = 2;

class KernelRowCenter {
public:
    __aicore__ inline KernelRowCenter() {}
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, uint32_t rows, uint32_t cols, uint32_t formerNum,
                                uint32_t formerRows, uint32_t tailRows, uint32_t rowsPerTile)
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
        yGm.SetGlobalBuffer((__gm__ float*)y + rowStart * cols, rowCount * cols);
        pipe.InitBuffer(inQueueX, BUFFER_NUM, rowsPerTile * cols * sizeof(float));
        pipe.InitBuffer(outQueueY, BUFFER_NUM, rowsPerTile * cols * sizeof(float));
        pipe.InitBuffer(workBuf, cols * sizeof(float));
        pipe.InitBuffer(sumBuf, 8 * sizeof(float));
    }

    __aicore__ inline void Process()
    {
        uint32_t tileNum = (rowCount + rowsPerTile - 1) / rowsPerTile;
        for (uint32_t i = 0; i < tileNum; i++) {
            uint32_t tileRows = i + 1 == tileNum ? rowCount - i * rowsPerTile : rowsPerTile;
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
        LocalTensor<float> workLocal = workBuf.Get<float>();
        LocalTensor<float> sumLocal = sumBuf.Get<float>();
        for (uint32_t r = 0; r < tileRows; r++) {
            ReduceSum(sumLocal, xLocal[r * cols], workLocal, cols);
            PipeBarrier<PIPE_ALL>();
            float mean = sumLocal.GetValue(0) / cols;
            PipeBarrier<PIPE_ALL>();
            Adds(yLocal[r * cols], xLocal[r * cols], -mean, cols);
        }
        outQueueY.EnQue<float>(yLocal);
        inQueueX.FreeTensor(xLocal);
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
    TQue<QuePosition::VECOUT, BUFFER_NUM> outQueueY;
    TBuf<TPosition::VECCALC> workBuf;
    TBuf<TPosition::VECCALC> sumBuf;
    GlobalTensor<float> xGm;
    GlobalTensor<float> yGm;
    uint32_t rowStart = 0;
    uint32_t rowCount = 0;
    uint32_t cols = 0;
    uint32_t rowsPerTile = 0;
};

extern "C" __global__ __aicore__ void row_center_custom(GM_ADDR x, GM_ADDR y, GM_ADDR workspace, GM_ADDR tiling)
{
    GET_TILING_DATA(tilingData, tiling);
    KernelRowCenter op;
    op.Init(x, y, tilingData.rows, tilingData.cols, tilingData.formerNum, tilingData.formerRows,
            tilingData.tailRows, tilingData.rowsPerTile);
    op.Process();
}
