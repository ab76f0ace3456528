#include "kernel_operator.h"

using namespace AscendC;

constexpr int32_t BUFFER_NUM = 1;

class KernelLayerScaleResidual {
public:
    __aicore__ inline KernelLayerScaleResidual() {}
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR gamma, GM_ADDR r, GM_ADDR y, uint32_t rows, uint32_t cols,
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
        gammaGm.SetGlobalBuffer((__gm__ float*)gamma, cols);
        pipe.InitBuffer(inQueueX, BUFFER_NUM, rowsPerTile * cols * sizeof(float));
        pipe.InitBuffer(inQueueR, BUFFER_NUM, rowsPerTile * cols * sizeof(float));
        pipe.InitBuffer(inQueueGamma, BUFFER_NUM, cols * sizeof(float));
        pipe.InitBuffer(outQueueY, BUFFER_NUM, rowsPerTile * cols * sizeof(float));
    }

    __aicore__ inline void Process()
    {
        uint32_t tileNum = (rowCount + rowsPerTile - 1) / rowsPerTile;
        for (uint32_t i = 0; i < tileNum; i++) {
            uint32_t tileRows = i + 1 == tileNum ? rowCount - i * rowsPerTile : rowsPerTile;
            CopyIn(i, tileRows);
            PipeBarrier<PIPE_ALL>();
            Compute(tileRows);
            PipeBarrier<PIPE_ALL>();
            CopyOut(i, tileRows);
            PipeBarrier<PIPE_ALL>();
        }
    }

private:
    __aicore__ inline void CopyIn(uint32_t progress, uint32_t tileRows)
    {
        LocalTensor<float> xLocal = inQueueX.AllocTensor<float>();
        LocalTensor<float> rLocal = inQueueR.AllocTensor<float>();
        LocalTensor<float> gammaLocal = inQueueGamma.AllocTensor<float>();
        DataCopy(xLocal, xGm[progress * rowsPerTile * cols], tileRows * cols);
        DataCopy(rLocal, rGm[progress * rowsPerTile * cols], tileRows * cols);
        DataCopy(gammaLocal, gammaGm, cols);
        inQueueX.EnQue(xLocal);
        inQueueR.EnQue(rLocal);
        inQueueGamma.EnQue(gammaLocal);
    }

    __aicore__ inline void Compute(uint32_t tileRows)
    {
        LocalTensor<float> xLocal = inQueueX.DeQue<float>();
        LocalTensor<float> rLocal = inQueueR.DeQue<float>();
        LocalTensor<float> gammaLocal = inQueueGamma.DeQue<float>();
        LocalTensor<float> yLocal = outQueueY.AllocTensor<float>();
        for (uint32_t row = 0; row < tileRows; row++) {
            Mul(yLocal[row * cols], xLocal[row * cols], gammaLocal, cols);
        }
        PipeBarrier<PIPE_V>();
        Add(yLocal, yLocal, rLocal, tileRows * cols);
        outQueueY.EnQue<float>(yLocal);
        inQueueX.FreeTensor(xLocal);
        inQueueR.FreeTensor(rLocal);
        inQueueGamma.FreeTensor(gammaLocal);
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
    TQue<QuePosition::VECIN, BUFFER_NUM> inQueueGamma;
    TQue<QuePosition::VECOUT, BUFFER_NUM> outQueueY;
    GlobalTensor<float> xGm;
    GlobalTensor<float> rGm;
    GlobalTensor<float> gammaGm;
    GlobalTensor<float> yGm;
    uint32_t rowStart = 0;
    uint32_t rowCount = 0;
    uint32_t cols = 0;
    uint32_t rowsPerTile = 0;
};

extern "C" __global__ __aicore__ void layer_scale_residual_custom(GM_ADDR x, GM_ADDR gamma, GM_ADDR r, GM_ADDR y,
                                                                  GM_ADDR workspace, GM_ADDR tiling)
{
    GET_TILING_DATA(tilingData, tiling);
    KernelLayerScaleResidual op;
    op.Init(x, gamma, r, y, tilingData.rows, tilingData.cols, tilingData.formerNum, tilingData.formerRows,
            tilingData.tailRows, tilingData.rowsPerTile);
    op.Process();
}
