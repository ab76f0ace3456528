#include "kernel_operator.h"

using namespace AscendC;

constexpr int32_t QUEUE_DEPTH = 2;
constexpr uint32_t HALVES_PER_REPEAT = 128;

// y[r, c] = x[r, c] + bias[c] for a [rows, cols] half tensor, cols a multiple of 128.
// The bias row is loaded once. The broadcast costs nothing: for each 128-column strip, one Add
// in repeat form walks down the rows of the tile (repeat stride = one row) while the bias
// operand's repeat stride is 0, so every repeat re-reads the same bias strip.
class KernelBiasAdd {
public:
    __aicore__ inline KernelBiasAdd() {}
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR bias, GM_ADDR y, uint32_t cols, uint32_t formerNum,
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
        this->rowsPerTile = rowsPerTile;
        xGm.SetGlobalBuffer((__gm__ half*)x + rowStart * cols, rowCount * cols);
        biasGm.SetGlobalBuffer((__gm__ half*)bias, cols);
        yGm.SetGlobalBuffer((__gm__ half*)y + rowStart * cols, rowCount * cols);
        pipe.InitBuffer(biasQueue, 1, cols * sizeof(half));
        pipe.InitBuffer(inQueueX, bufferNum, rowsPerTile * cols * sizeof(half));
        pipe.InitBuffer(outQueueY, bufferNum, rowsPerTile * cols * sizeof(half));
    }

    __aicore__ inline void Process()
    {
        LocalTensor<half> biasLocal = biasQueue.AllocTensor<half>();
        DataCopy(biasLocal, biasGm, cols);
        biasQueue.EnQue(biasLocal);
        biasLocal = biasQueue.DeQue<half>();
        uint32_t tileNum = (rowCount + rowsPerTile - 1) / rowsPerTile;
        for (uint32_t i = 0; i < tileNum; i++) {
            uint32_t tileRows = (i + 1 == tileNum) ? rowCount - i * rowsPerTile : rowsPerTile;
            CopyIn(i, tileRows);
            Compute(tileRows, biasLocal);
            CopyOut(i, tileRows);
        }
        biasQueue.FreeTensor(biasLocal);
    }

private:
    __aicore__ inline void CopyIn(uint32_t progress, uint32_t tileRows)
    {
        LocalTensor<half> xLocal = inQueueX.AllocTensor<half>();
        DataCopy(xLocal, xGm[progress * rowsPerTile * cols], tileRows * cols);
        inQueueX.EnQue(xLocal);
    }

    __aicore__ inline void Compute(uint32_t tileRows, LocalTensor<half>& biasLocal)
    {
        LocalTensor<half> xLocal = inQueueX.DeQue<half>();
        LocalTensor<half> yLocal = outQueueY.AllocTensor<half>();
        uint8_t rowStride = static_cast<uint8_t>(cols * sizeof(half) / 32);  // in 32-byte blocks
        BinaryRepeatParams params(1, 1, 1, rowStride, rowStride, 0);
        for (uint32_t c = 0; c < cols; c += HALVES_PER_REPEAT) {
            Add(yLocal[c], xLocal[c], biasLocal[c], HALVES_PER_REPEAT, static_cast<uint8_t>(tileRows), params);
        }
        outQueueY.EnQue(yLocal);
        inQueueX.FreeTensor(xLocal);
    }

    __aicore__ inline void CopyOut(uint32_t progress, uint32_t tileRows)
    {
        LocalTensor<half> yLocal = outQueueY.DeQue<half>();
        DataCopy(yGm[progress * rowsPerTile * cols], yLocal, tileRows * cols);
        outQueueY.FreeTensor(yLocal);
    }

private:
    TPipe pipe;
    TQue<QuePosition::VECIN, 1> biasQueue;
    TQue<QuePosition::VECIN, QUEUE_DEPTH> inQueueX;
    TQue<QuePosition::VECOUT, QUEUE_DEPTH> outQueueY;
    GlobalTensor<half> xGm;
    GlobalTensor<half> biasGm;
    GlobalTensor<half> yGm;
    uint32_t rowCount = 0;
    uint32_t cols = 0;
    uint32_t rowsPerTile = 0;
};

extern "C" __global__ __aicore__ void bias_add_custom(GM_ADDR x, GM_ADDR bias, GM_ADDR y, GM_ADDR workspace,
                                                      GM_ADDR tiling)
{
    GET_TILING_DATA(tilingData, tiling);
    KernelBiasAdd op;
    op.Init(x, bias, y, tilingData.cols, tilingData.formerNum, tilingData.formerRows, tilingData.tailRows,
            tilingData.rowsPerTile, tilingData.bufferNum);
    op.Process();
}
