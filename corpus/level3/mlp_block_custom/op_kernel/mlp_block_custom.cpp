#include "kernel_operator.h"

using namespace AscendC;

// The activation tail of a transformer MLP: y = residual + dropout(gelu(x + bias)), where dropout
// multiplies by the 0/1 keep mask and keep_scale. [rows, cols] half tensors, [cols] bias, gelu in
// its tanh form, computed in float. Plain buffers; each stage is fenced by a full barrier.
class KernelMlpBlock {
public:
    __aicore__ inline KernelMlpBlock() {}
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR bias, GM_ADDR mask, GM_ADDR residual, GM_ADDR y, uint32_t rows,
                                uint32_t cols, uint32_t rowsPerCore, uint32_t rowsPerTile, float keepScale)
    {
        uint32_t rowStart = GetBlockIdx() * rowsPerCore;
        rowCount = rowStart < rows ? rows - rowStart : 0;
        if (rowCount > rowsPerCore) {
            rowCount = rowsPerCore;
        }
        this->cols = cols;
        this->rowsPerTile = rowsPerTile;
        this->keepScale = keepScale;
        uint64_t offset = static_cast<uint64_t>(rowStart) * cols;
        xGm.SetGlobalBuffer((__gm__ half*)x + offset, rowCount * cols);
        biasGm.SetGlobalBuffer((__gm__ half*)bias, cols);
        maskGm.SetGlobalBuffer((__gm__ uint8_t*)mask + offset, rowCount * cols);
        residualGm.SetGlobalBuffer((__gm__ half*)residual + offset, rowCount * cols);
        yGm.SetGlobalBuffer((__gm__ half*)y + offset, rowCount * cols);
        uint32_t tile = rowsPerTile * cols;
        pipe.InitBuffer(xBuf, tile * sizeof(half));
        pipe.InitBuffer(maskBuf, tile * sizeof(uint8_t));
        pipe.InitBuffer(residualBuf, tile * sizeof(half));
        pipe.InitBuffer(yBuf, tile * sizeof(half));
        pipe.InitBuffer(maskHalfBuf, tile * sizeof(half));
        pipe.InitBuffer(valueBuf, tile * sizeof(float));
        pipe.InitBuffer(tmpBuf, tile * sizeof(float));
        pipe.InitBuffer(biasBuf, cols * sizeof(half));
        pipe.InitBuffer(biasFloatBuf, cols * sizeof(float));
    }

    __aicore__ inline void Process()
    {
        LocalTensor<half> biasLocal = biasBuf.Get<half>();
        LocalTensor<float> biasFloat = biasFloatBuf.Get<float>();
        DataCopy(biasLocal, biasGm, cols);
        PipeBarrier<PIPE_ALL>();
        Cast(biasFloat, biasLocal, RoundMode::CAST_NONE, cols);
        PipeBarrier<PIPE_ALL>();

        uint32_t tileNum = (rowCount + rowsPerTile - 1) / rowsPerTile;
        for (uint32_t i = 0; i < tileNum; i++) {
            uint32_t tileRows = (i + 1 == tileNum) ? rowCount - i * rowsPerTile : rowsPerTile;
            uint32_t offset = i * rowsPerTile * cols;
            uint32_t count = tileRows * cols;
            DataCopy(xBuf.Get<half>(), xGm[offset], count);
            DataCopy(maskBuf.Get<uint8_t>(), maskGm[offset], count);
            DataCopy(residualBuf.Get<half>(), residualGm[offset], count);
            PipeBarrier<PIPE_ALL>();
            Compute(tileRows, biasFloat);
            PipeBarrier<PIPE_ALL>();
            DataCopy(yGm[offset], yBuf.Get<half>(), count);
            PipeBarrier<PIPE_ALL>();
        }
    }

private:
    __aicore__ inline void Compute(uint32_t tileRows, LocalTensor<float>& biasFloat)
    {
        LocalTensor<half> xLocal = xBuf.Get<half>();
        LocalTensor<uint8_t> maskLocal = maskBuf.Get<uint8_t>();
        LocalTensor<half> residualLocal = residualBuf.Get<half>();
        LocalTensor<half> yLocal = yBuf.Get<half>();
        LocalTensor<half> maskHalf = maskHalfBuf.Get<half>();
        LocalTensor<float> value = valueBuf.Get<float>();
        LocalTensor<float> tmp = tmpBuf.Get<float>();
        uint32_t count = tileRows * cols;

        Cast(value, xLocal, RoundMode::CAST_NONE, count);
        PipeBarrier<PIPE_V>();
        for (uint32_t r = 0; r < tileRows; r++) {
            Add(value[r * cols], value[r * cols], biasFloat, cols);
        }
        PipeBarrier<PIPE_V>();
        // gelu(v) = v / (1 + exp(-1.5957691 * (v + 0.044715 * v^3)))
        Mul(tmp, value, value, count);
        PipeBarrier<PIPE_V>();
        Muls(tmp, tmp, 0.044715f, count);
        PipeBarrier<PIPE_V>();
        Adds(tmp, tmp, 1.0f, count);
        PipeBarrier<PIPE_V>();
        Mul(tmp, tmp, value, count);
        PipeBarrier<PIPE_V>();
        Muls(tmp, tmp, -1.5957691216f, count);
        PipeBarrier<PIPE_V>();
        Exp(tmp, tmp, count);
        PipeBarrier<PIPE_V>();
        Adds(tmp, tmp, 1.0f, count);
        PipeBarrier<PIPE_V>();
        Div(value, value, tmp, count);
        PipeBarrier<PIPE_V>();
        // dropout and residual
        Cast(maskHalf, maskLocal, RoundMode::CAST_NONE, count);
        PipeBarrier<PIPE_V>();
        Cast(tmp, maskHalf, RoundMode::CAST_NONE, count);
        PipeBarrier<PIPE_V>();
        Mul(value, value, tmp, count);
        PipeBarrier<PIPE_V>();
        Muls(value, value, keepScale, count);
        PipeBarrier<PIPE_V>();
        Cast(tmp, residualLocal, RoundMode::CAST_NONE, count);
        PipeBarrier<PIPE_V>();
        Add(value, value, tmp, count);
        PipeBarrier<PIPE_V>();
        Cast(yLocal, value, RoundMode::CAST_RINT, count);
    }

private:
    TPipe pipe;
    TBuf<QuePosition::VECCALC> xBuf;
    TBuf<QuePosition::VECCALC> maskBuf;
    TBuf<QuePosition::VECCALC> residualBuf;
    TBuf<QuePosition::VECCALC> yBuf;
    TBuf<QuePosition::VECCALC> maskHalfBuf;
    TBuf<QuePosition::VECCALC> valueBuf;
    TBuf<QuePosition::VECCALC> tmpBuf;
    TBuf<QuePosition::VECCALC> biasBuf;
    TBuf<QuePosition::VECCALC> biasFloatBuf;
    GlobalTensor<half> xGm;
    GlobalTensor<half> biasGm;
    GlobalTensor<uint8_t> maskGm;
    GlobalTensor<half> residualGm;
    GlobalTensor<half> yGm;
    uint32_t rowCount = 0;
    uint32_t cols = 0;
    uint32_t rowsPerTile = 0;
    float keepScale = 0;
};

extern "C" __global__ __aicore__ void mlp_block_custom(GM_ADDR x, GM_ADDR bias, GM_ADDR mask, GM_ADDR residual,
                                                       GM_ADDR y, GM_ADDR workspace, GM_ADDR tiling)
{
    GET_TILING_DATA(tilingData, tiling);
    KernelMlpBlock op;
    op.Init(x, bias, mask, residual, y, tilingData.rows, tilingData.cols, tilingData.rowsPerCore,
            tilingData.rowsPerTile, tilingData.keepScale);
    op.Process();
}
