#include "kernel_operator.h"

using namespace AscendC;

constexpr int32_t QUEUE_DEPTH = 2;

// RMSNorm over the last axis of a [rows, cols] bfloat16 tensor (cols a multiple of 16):
// y = x / sqrt(mean(x^2) + epsilon) * gamma, in float.
class KernelRmsNorm {
public:
    __aicore__ inline KernelRmsNorm() {}
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR gamma, GM_ADDR y, uint32_t rows, uint32_t cols,
                                uint32_t rowsPerCore, uint32_t rowsPerTile, uint32_t bufferNum, float epsilon)
    {
        uint32_t rowStart = GetBlockIdx() * rowsPerCore;
        rowCount = rowStart < rows ? rows - rowStart : 0;
        if (rowCount > rowsPerCore) {
            rowCount = rowsPerCore;
        }
        this->cols = cols;
        this->rowsPerTile = rowsPerTile;
        this->epsilon = epsilon;
        xGm.SetGlobalBuffer((__gm__ bfloat16_t*)x + rowStart * cols, rowCount * cols);
        gammaGm.SetGlobalBuffer((__gm__ bfloat16_t*)gamma, cols);
        yGm.SetGlobalBuffer((__gm__ bfloat16_t*)y + rowStart * cols, rowCount * cols);
        pipe.InitBuffer(inQueueX, bufferNum, rowsPerTile * cols * sizeof(bfloat16_t));
        pipe.InitBuffer(outQueueY, bufferNum, rowsPerTile * cols * sizeof(bfloat16_t));
        pipe.InitBuffer(gammaQueue, 1, cols * sizeof(bfloat16_t));
        pipe.InitBuffer(gammaBuf, cols * sizeof(float));
        pipe.InitBuffer(rowBuf, cols * sizeof(float));
        pipe.InitBuffer(squareBuf, cols * sizeof(float));
        pipe.InitBuffer(workBuf, cols * sizeof(float));
        pipe.InitBuffer(statBuf, 8 * sizeof(float));
    }

    __aicore__ inline void Process()
    {
        LocalTensor<bfloat16_t> gammaLocal = gammaQueue.AllocTensor<bfloat16_t>();
        DataCopy(gammaLocal, gammaGm, cols);
        gammaQueue.EnQue(gammaLocal);
        gammaLocal = gammaQueue.DeQue<bfloat16_t>();
        LocalTensor<float> gammaFloat = gammaBuf.Get<float>();
        Cast(gammaFloat, gammaLocal, RoundMode::CAST_NONE, cols);
        PipeBarrier<PIPE_V>();
        gammaQueue.FreeTensor(gammaLocal);

        uint32_t tileNum = (rowCount + rowsPerTile - 1) / rowsPerTile;
        for (uint32_t i = 0; i < tileNum; i++) {
            uint32_t tileRows = (i + 1 == tileNum) ? rowCount - i * rowsPerTile : rowsPerTile;
            CopyIn(i, tileRows);
            Compute(tileRows, gammaFloat);
            CopyOut(i, tileRows);
        }
    }

private:
    __aicore__ inline void CopyIn(uint32_t progress, uint32_t tileRows)
    {
        LocalTensor<bfloat16_t> xLocal = inQueueX.AllocTensor<bfloat16_t>();
        DataCopy(xLocal, xGm[progress * rowsPerTile * cols], tileRows * cols);
        inQueueX.EnQue(xLocal);
    }

    __aicore__ inline void Compute(uint32_t tileRows, LocalTensor<float>& gammaFloat)
    {
        LocalTensor<bfloat16_t> xLocal = inQueueX.DeQue<bfloat16_t>();
        LocalTensor<bfloat16_t> yLocal = outQueueY.AllocTensor<bfloat16_t>();
        LocalTensor<float> row = rowBuf.Get<float>();
        LocalTensor<float> square = squareBuf.Get<float>();
        LocalTensor<float> work = workBuf.Get<float>();
        LocalTensor<float> stat = statBuf.Get<float>();
        for (uint32_t r = 0; r < tileRows; r++) {
            Cast(row, xLocal[r * cols], RoundMode::CAST_NONE, cols);
            PipeBarrier<PIPE_V>();
            Mul(square, row, row, cols);
            PipeBarrier<PIPE_V>();
            ReduceSum(stat, square, work, cols);
            event_t eventVToS = static_cast<event_t>(pipe.FetchEventID(HardEvent::V_S));
            SetFlag<HardEvent::V_S>(eventVToS);
            WaitFlag<HardEvent::V_S>(eventVToS);
            float meanSquare = stat.GetValue(0) / static_cast<float>(cols);
            event_t eventSToV = static_cast<event_t>(pipe.FetchEventID(HardEvent::S_V));
            SetFlag<HardEvent::S_V>(eventSToV);
            WaitFlag<HardEvent::S_V>(eventSToV);
            Duplicate(stat, meanSquare + epsilon, 8);
            PipeBarrier<PIPE_V>();
            Rsqrt(stat, stat, 8);
            SetFlag<HardEvent::V_S>(eventVToS);
            WaitFlag<HardEvent::V_S>(eventVToS);
            float rstd = stat.GetValue(0);
            SetFlag<HardEvent::S_V>(eventSToV);
            WaitFlag<HardEvent::S_V>(eventSToV);
            Muls(row, row, rstd, cols);
            PipeBarrier<PIPE_V>();
            Mul(row, row, gammaFloat, cols);
            PipeBarrier<PIPE_V>();
            Cast(yLocal[r * cols], row, RoundMode::CAST_RINT, cols);
            PipeBarrier<PIPE_V>();
        }
        outQueueY.EnQue(yLocal);
        inQueueX.FreeTensor(xLocal);
    }

    __aicore__ inline void CopyOut(uint32_t progress, uint32_t tileRows)
    {
        LocalTensor<bfloat16_t> yLocal = outQueueY.DeQue<bfloat16_t>();
        DataCopy(yGm[progress * rowsPerTile * cols], yLocal, tileRows * cols);
        outQueueY.FreeTensor(yLocal);
    }

private:
    TPipe pipe;
    TQue<QuePosition::VECIN, QUEUE_DEPTH> inQueueX;
    TQue<QuePosition::VECOUT, QUEUE_DEPTH> outQueueY;
    TQue<QuePosition::VECIN, 1> gammaQueue;
    TBuf<QuePosition::VECCALC> gammaBuf;
    TBuf<QuePosition::VECCALC> rowBuf;
    TBuf<QuePosition::VECCALC> squareBuf;
    TBuf<QuePosition::VECCALC> workBuf;
    TBuf<QuePosition::VECCALC> statBuf;
    GlobalTensor<bfloat16_t> xGm;
    GlobalTensor<bfloat16_t> gammaGm;
    GlobalTensor<bfloat16_t> yGm;
    uint32_t rowCount = 0;
    uint32_t cols = 0;
    uint32_t rowsPerTile = 0;
    float epsilon = 0;
};

extern "C" __global__ __aicore__ void rms_norm_custom(GM_ADDR x, GM_ADDR gamma, GM_ADDR y, GM_ADDR workspace,
                                                      GM_ADDR tiling)
{
    GET_TILING_DATA(tilingData, tiling);
    KernelRmsNorm op;
    op.Init(x, gamma, y, tilingData.rows, tilingData.cols, tilingData.rowsPerCore, tilingData.rowsPerTile,
            tilingData.bufferNum, tilingData.epsilon);
    op.Process();
}
