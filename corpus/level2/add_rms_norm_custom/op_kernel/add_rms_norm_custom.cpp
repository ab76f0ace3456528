#include "kernel_operator.h"

using namespace AscendC;

// x = x1 + x2; y = x / sqrt(mean(x^2) + epsilon) * gamma, over the last axis of [rows, cols]
// half tensors (cols a multiple of 16). Plain buffers, each stage fenced by a full barrier.
class KernelAddRmsNorm {
public:
    __aicore__ inline KernelAddRmsNorm() {}
    __aicore__ inline void Init(GM_ADDR x1, GM_ADDR x2, GM_ADDR gamma, GM_ADDR y, GM_ADDR x, uint32_t rows,
                                uint32_t cols, uint32_t rowsPerCore, uint32_t rowsPerTile, float epsilon)
    {
        uint32_t rowStart = GetBlockIdx() * rowsPerCore;
        rowCount = rowStart < rows ? rows - rowStart : 0;
        if (rowCount > rowsPerCore) {
            rowCount = rowsPerCore;
        }
        this->cols = cols;
        this->rowsPerTile = rowsPerTile;
        this->epsilon = epsilon;
        uint64_t offset = static_cast<uint64_t>(rowStart) * cols;
        x1Gm.SetGlobalBuffer((__gm__ half*)x1 + offset, rowCount * cols);
        x2Gm.SetGlobalBuffer((__gm__ half*)x2 + offset, rowCount * cols);
        gammaGm.SetGlobalBuffer((__gm__ half*)gamma, cols);
        yGm.SetGlobalBuffer((__gm__ half*)y + offset, rowCount * cols);
        xGm.SetGlobalBuffer((__gm__ half*)x + offset, rowCount * cols);
        uint32_t tileBytes = rowsPerTile * cols * sizeof(half);
        pipe.InitBuffer(x1Buf, tileBytes);
        pipe.InitBuffer(x2Buf, tileBytes);
        pipe.InitBuffer(yBuf, tileBytes);
        pipe.InitBuffer(xBuf, tileBytes);
        pipe.InitBuffer(sumBuf, rowsPerTile * cols * sizeof(float));
        pipe.InitBuffer(gammaBuf, cols * sizeof(half));
        pipe.InitBuffer(gammaFloatBuf, cols * sizeof(float));
        pipe.InitBuffer(squareBuf, cols * sizeof(float));
        pipe.InitBuffer(workBuf, cols * sizeof(float));
        pipe.InitBuffer(statBuf, 8 * sizeof(float));
    }

    __aicore__ inline void Process()
    {
        LocalTensor<half> gammaLocal = gammaBuf.Get<half>();
        LocalTensor<float> gammaFloat = gammaFloatBuf.Get<float>();
        DataCopy(gammaLocal, gammaGm, cols);
        PipeBarrier<PIPE_ALL>();
        Cast(gammaFloat, gammaLocal, RoundMode::CAST_NONE, cols);
        PipeBarrier<PIPE_ALL>();

        uint32_t tileNum = (rowCount + rowsPerTile - 1) / rowsPerTile;
        for (uint32_t i = 0; i < tileNum; i++) {
            uint32_t tileRows = (i + 1 == tileNum) ? rowCount - i * rowsPerTile : rowsPerTile;
            uint32_t offset = i * rowsPerTile * cols;
            LocalTensor<half> x1Local = x1Buf.Get<half>();
            LocalTensor<half> x2Local = x2Buf.Get<half>();
            DataCopy(x1Local, x1Gm[offset], tileRows * cols);
            DataCopy(x2Local, x2Gm[offset], tileRows * cols);
            PipeBarrier<PIPE_ALL>();
            Compute(tileRows, gammaFloat);
            PipeBarrier<PIPE_ALL>();
            DataCopy(yGm[offset], yBuf.Get<half>(), tileRows * cols);
            DataCopy(xGm[offset], xBuf.Get<half>(), tileRows * cols);
            PipeBarrier<PIPE_ALL>();
        }
    }

private:
    __aicore__ inline void Compute(uint32_t tileRows, LocalTensor<float>& gammaFloat)
    {
        LocalTensor<half> x1Local = x1Buf.Get<half>();
        LocalTensor<half> x2Local = x2Buf.Get<half>();
        LocalTensor<half> yLocal = yBuf.Get<half>();
        LocalTensor<half> xLocal = xBuf.Get<half>();
        LocalTensor<float> sum = sumBuf.Get<float>();
        LocalTensor<float> square = squareBuf.Get<float>();
        LocalTensor<float> work = workBuf.Get<float>();
        LocalTensor<float> stat = statBuf.Get<float>();
        uint32_t count = tileRows * cols;

        // The residual sum in float; its half copy is the second output.
        Cast(sum, x1Local, RoundMode::CAST_NONE, count);
        Cast(square, x2Local, RoundMode::CAST_NONE, cols);
        PipeBarrier<PIPE_V>();
        for (uint32_t r = 0; r < tileRows; r++) {
            if (r > 0) {
                Cast(square, x2Local[r * cols], RoundMode::CAST_NONE, cols);
                PipeBarrier<PIPE_V>();
            }
            Add(sum[r * cols], sum[r * cols], square, cols);
            PipeBarrier<PIPE_V>();
        }
        Cast(xLocal, sum, RoundMode::CAST_RINT, count);

        for (uint32_t r = 0; r < tileRows; r++) {
            LocalTensor<float> row = sum[r * cols];
            Mul(square, row, row, cols);
            PipeBarrier<PIPE_V>();
            ReduceSum(stat, square, work, cols);
            PipeBarrier<PIPE_ALL>();
            float meanSquare = stat.GetValue(0) / static_cast<float>(cols);
            PipeBarrier<PIPE_ALL>();
            Duplicate(stat, meanSquare + epsilon, 8);
            PipeBarrier<PIPE_V>();
            Sqrt(stat, stat, 8);
            PipeBarrier<PIPE_ALL>();
            float rstd = 1.0f / stat.GetValue(0);
            PipeBarrier<PIPE_ALL>();
            Muls(row, row, rstd, cols);
            PipeBarrier<PIPE_V>();
            Mul(row, row, gammaFloat, cols);
            PipeBarrier<PIPE_V>();
            Cast(yLocal[r * cols], row, RoundMode::CAST_RINT, cols);
            PipeBarrier<PIPE_V>();
        }
    }

private:
    TPipe pipe;
    TBuf<QuePosition::VECCALC> x1Buf;
    TBuf<QuePosition::VECCALC> x2Buf;
    TBuf<QuePosition::VECCALC> yBuf;
    TBuf<QuePosition::VECCALC> xBuf;
    TBuf<QuePosition::VECCALC> sumBuf;
    TBuf<QuePosition::VECCALC> gammaBuf;
    TBuf<QuePosition::VECCALC> gammaFloatBuf;
    TBuf<QuePosition::VECCALC> squareBuf;
    TBuf<QuePosition::VECCALC> workBuf;
    TBuf<QuePosition::VECCALC> statBuf;
    GlobalTensor<half> x1Gm;
    GlobalTensor<half> x2Gm;
    GlobalTensor<half> gammaGm;
    GlobalTensor<half> yGm;
    GlobalTensor<half> xGm;
    uint32_t rowCount = 0;
    uint32_t cols = 0;
    uint32_t rowsPerTile = 0;
    float epsilon = 0;
};

extern "C" __global__ __aicore__ void add_rms_norm_custom(GM_ADDR x1, GM_ADDR x2, GM_ADDR gamma, GM_ADDR y, GM_ADDR x,
                                                          GM_ADDR workspace, GM_ADDR tiling)
{
    GET_TILING_DATA(tilingData, tiling);
    KernelAddRmsNorm op;
    op.Init(x1, x2, gamma, y, x, tilingData.rows, tilingData.cols, tilingData.rowsPerCore, tilingData.rowsPerTile,
            tilingData.epsilon);
    op.Process();
}
