#include "kernel_operator.h"

using namespace AscendC;

constexpr int32_t QUEUE_DEPTH = 2;

// Inference batch norm over the last (channel) axis of a [rows, channels] half tensor:
// y = (x - mean) * gamma / sqrt(variance + epsilon) + beta. The per-channel statistics fold into
// one scale and one shift per core; each row is then a multiply and an add in float.
class KernelBatchNorm {
public:
    __aicore__ inline KernelBatchNorm() {}
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR mean, GM_ADDR variance, GM_ADDR gamma, GM_ADDR beta, GM_ADDR y,
                                uint32_t rows, uint32_t channels, uint32_t rowsPerCore, uint32_t rowsPerTile,
                                uint32_t bufferNum, float epsilon)
    {
        uint32_t rowStart = GetBlockIdx() * rowsPerCore;
        rowCount = rowStart < rows ? rows - rowStart : 0;
        if (rowCount > rowsPerCore) {
            rowCount = rowsPerCore;
        }
        this->channels = channels;
        this->rowsPerTile = rowsPerTile;
        this->epsilon = epsilon;
        xGm.SetGlobalBuffer((__gm__ half*)x + rowStart * channels, rowCount * channels);
        meanGm.SetGlobalBuffer((__gm__ float*)mean, channels);
        varianceGm.SetGlobalBuffer((__gm__ float*)variance, channels);
        gammaGm.SetGlobalBuffer((__gm__ float*)gamma, channels);
        betaGm.SetGlobalBuffer((__gm__ float*)beta, channels);
        yGm.SetGlobalBuffer((__gm__ half*)y + rowStart * channels, rowCount * channels);
        pipe.InitBuffer(inQueueX, bufferNum, rowsPerTile * channels * sizeof(half));
        pipe.InitBuffer(outQueueY, bufferNum, rowsPerTile * channels * sizeof(half));
        pipe.InitBuffer(paramQueue, 1, 4 * channels * sizeof(float));
        pipe.InitBuffer(scaleBuf, channels * sizeof(float));
        pipe.InitBuffer(shiftBuf, channels * sizeof(float));
        pipe.InitBuffer(rowBuf, rowsPerTile * channels * sizeof(float));
    }

    __aicore__ inline void Process()
    {
        FoldParams();
        uint32_t tileNum = (rowCount + rowsPerTile - 1) / rowsPerTile;
        for (uint32_t i = 0; i < tileNum; i++) {
            uint32_t tileRows = (i + 1 == tileNum) ? rowCount - i * rowsPerTile : rowsPerTile;
            CopyIn(i, tileRows);
            Compute(tileRows);
            CopyOut(i, tileRows);
        }
    }

private:
    __aicore__ inline void FoldParams()
    {
        LocalTensor<float> params = paramQueue.AllocTensor<float>();
        DataCopy(params, meanGm, channels);
        DataCopy(params[channels], varianceGm, channels);
        DataCopy(params[2 * channels], gammaGm, channels);
        DataCopy(params[3 * channels], betaGm, channels);
        paramQueue.EnQue(params);
        params = paramQueue.DeQue<float>();
        LocalTensor<float> scale = scaleBuf.Get<float>();
        LocalTensor<float> shift = shiftBuf.Get<float>();
        // scale = gamma / sqrt(variance + epsilon); shift = beta - mean * scale
        Adds(scale, params[channels], epsilon, channels);
        PipeBarrier<PIPE_V>();
        Sqrt(scale, scale, channels);
        PipeBarrier<PIPE_V>();
        Div(scale, params[2 * channels], scale, channels);
        PipeBarrier<PIPE_V>();
        Mul(shift, params, scale, channels);
        PipeBarrier<PIPE_V>();
        Sub(shift, params[3 * channels], shift, channels);
        PipeBarrier<PIPE_V>();
        paramQueue.FreeTensor(params);
    }

    __aicore__ inline void CopyIn(uint32_t progress, uint32_t tileRows)
    {
        LocalTensor<half> xLocal = inQueueX.AllocTensor<half>();
        DataCopy(xLocal, xGm[progress * rowsPerTile * channels], tileRows * channels);
        inQueueX.EnQue(xLocal);
    }

    __aicore__ inline void Compute(uint32_t tileRows)
    {
        LocalTensor<half> xLocal = inQueueX.DeQue<half>();
        LocalTensor<half> yLocal = outQueueY.AllocTensor<half>();
        LocalTensor<float> row = rowBuf.Get<float>();
        LocalTensor<float> scale = scaleBuf.Get<float>();
        LocalTensor<float> shift = shiftBuf.Get<float>();
        Cast(row, xLocal, RoundMode::CAST_NONE, tileRows * channels);
        PipeBarrier<PIPE_V>();
        for (uint32_t r = 0; r < tileRows; r++) {
            Mul(row[r * channels], row[r * channels], scale, channels);
            PipeBarrier<PIPE_V>();
            Add(row[r * channels], row[r * channels], shift, channels);
            PipeBarrier<PIPE_V>();
        }
        Cast(yLocal, row, RoundMode::CAST_RINT, tileRows * channels);
        outQueueY.EnQue(yLocal);
        inQueueX.FreeTensor(xLocal);
    }

    __aicore__ inline void CopyOut(uint32_t progress, uint32_t tileRows)
    {
        LocalTensor<half> yLocal = outQueueY.DeQue<half>();
        DataCopy(yGm[progress * rowsPerTile * channels], yLocal, tileRows * channels);
        outQueueY.FreeTensor(yLocal);
    }

private:
    TPipe pipe;
    TQue<QuePosition::VECIN, QUEUE_DEPTH> inQueueX;
    TQue<QuePosition::VECOUT, QUEUE_DEPTH> outQueueY;
    TQue<QuePosition::VECIN, 1> paramQueue;
    TBuf<QuePosition::VECCALC> scaleBuf;
    TBuf<QuePosition::VECCALC> shiftBuf;
    TBuf<QuePosition::VECCALC> rowBuf;
    GlobalTensor<half> xGm;
    GlobalTensor<float> meanGm;
    GlobalTensor<float> varianceGm;
    GlobalTensor<float> gammaGm;
    GlobalTensor<float> betaGm;
    GlobalTensor<half> yGm;
    uint32_t rowCount = 0;
    uint32_t channels = 0;
    uint32_t rowsPerTile = 0;
    float epsilon = 0;
};

extern "C" __global__ __aicore__ void batch_norm_custom(GM_ADDR x, GM_ADDR mean, GM_ADDR variance, GM_ADDR gamma,
                                                        GM_ADDR beta, GM_ADDR y, GM_ADDR workspace, GM_ADDR tiling)
{
    GET_TILING_DATA(tilingData, tiling);
    KernelBatchNorm op;
    op.Init(x, mean, variance, gamma, beta, y, tilingData.rows, tilingData.channels, tilingData.rowsPerCore,
            tilingData.rowsPerTile, tilingData.bufferNum, tilingData.epsilon);
    op.Process();
}
