#include "kernel_operator.h"

using namespace AscendC;

constexpr int32_t QUEUE_DEPTH = 2;

// LayerNorm over the last axis of a [rows, cols] half tensor with half gamma and beta,
// one row at a time in float: mean, variance, normalize, scale and shift.
class KernelLayerNorm {
public:
    __aicore__ inline KernelLayerNorm() {}
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR gamma, GM_ADDR beta, GM_ADDR y, uint32_t rows, uint32_t cols,
                                uint32_t colsAligned, uint32_t rowsPerCore, uint32_t bufferNum, float epsilon)
    {
        uint32_t rowStart = GetBlockIdx() * rowsPerCore;
        rowCount = rowStart < rows ? rows - rowStart : 0;
        if (rowCount > rowsPerCore) {
            rowCount = rowsPerCore;
        }
        this->cols = cols;
        this->colsAligned = colsAligned;
        this->epsilon = epsilon;
        xGm.SetGlobalBuffer((__gm__ half*)x + rowStart * cols, rowCount * cols);
        gammaGm.SetGlobalBuffer((__gm__ half*)gamma, cols);
        betaGm.SetGlobalBuffer((__gm__ half*)beta, cols);
        yGm.SetGlobalBuffer((__gm__ half*)y + rowStart * cols, rowCount * cols);
        pipe.InitBuffer(inQueueX, bufferNum, colsAligned * sizeof(half));
        pipe.InitBuffer(outQueueY, bufferNum, colsAligned * sizeof(half));
        pipe.InitBuffer(paramQueue, 1, 2 * colsAligned * sizeof(half));
        pipe.InitBuffer(gammaBuf, colsAligned * sizeof(float));
        pipe.InitBuffer(betaBuf, colsAligned * sizeof(float));
        pipe.InitBuffer(rowBuf, colsAligned * sizeof(float));
        pipe.InitBuffer(squareBuf, colsAligned * sizeof(float));
        pipe.InitBuffer(workBuf, colsAligned * sizeof(float));
        pipe.InitBuffer(statBuf, 8 * sizeof(float));
    }

    __aicore__ inline void Process()
    {
        LoadParams();
        for (uint32_t r = 0; r < rowCount; r++) {
            CopyIn(r);
            Compute();
            CopyOut(r);
        }
    }

private:
    __aicore__ inline void LoadParams()
    {
        LocalTensor<half> params = paramQueue.AllocTensor<half>();
        DataCopyExtParams copyParams{1, static_cast<uint32_t>(cols * sizeof(half)), 0, 0, 0};
        DataCopyPadExtParams<half> padParams{false, 0, 0, 0};
        DataCopyPad(params, gammaGm, copyParams, padParams);
        DataCopyPad(params[colsAligned], betaGm, copyParams, padParams);
        paramQueue.EnQue(params);
        params = paramQueue.DeQue<half>();
        LocalTensor<float> gammaFloat = gammaBuf.Get<float>();
        LocalTensor<float> betaFloat = betaBuf.Get<float>();
        Cast(gammaFloat, params, RoundMode::CAST_NONE, cols);
        Cast(betaFloat, params[colsAligned], RoundMode::CAST_NONE, cols);
        PipeBarrier<PIPE_V>();
        paramQueue.FreeTensor(params);
    }

    __aicore__ inline void CopyIn(uint32_t row)
    {
        LocalTensor<half> xLocal = inQueueX.AllocTensor<half>();
        DataCopyExtParams copyParams{1, static_cast<uint32_t>(cols * sizeof(half)), 0, 0, 0};
        DataCopyPadExtParams<half> padParams{false, 0, 0, 0};
        DataCopyPad(xLocal, xGm[row * cols], copyParams, padParams);
        inQueueX.EnQue(xLocal);
    }

    __aicore__ inline float SumToScalar(LocalTensor<float>& src)
    {
        LocalTensor<float> work = workBuf.Get<float>();
        LocalTensor<float> stat = statBuf.Get<float>();
        ReduceSum(stat, src, work, cols);
        event_t eventVToS = static_cast<event_t>(pipe.FetchEventID(HardEvent::V_S));
        SetFlag<HardEvent::V_S>(eventVToS);
        WaitFlag<HardEvent::V_S>(eventVToS);
        float value = stat.GetValue(0);
        event_t eventSToV = static_cast<event_t>(pipe.FetchEventID(HardEvent::S_V));
        SetFlag<HardEvent::S_V>(eventSToV);
        WaitFlag<HardEvent::S_V>(eventSToV);
        return value;
    }

    __aicore__ inline void Compute()
    {
        LocalTensor<half> xLocal = inQueueX.DeQue<half>();
        LocalTensor<half> yLocal = outQueueY.AllocTensor<half>();
        LocalTensor<float> row = rowBuf.Get<float>();
        LocalTensor<float> square = squareBuf.Get<float>();
        LocalTensor<float> gammaFloat = gammaBuf.Get<float>();
        LocalTensor<float> betaFloat = betaBuf.Get<float>();
        float invCols = 1.0f / static_cast<float>(cols);

        Cast(row, xLocal, RoundMode::CAST_NONE, cols);
        PipeBarrier<PIPE_V>();
        float mean = SumToScalar(row) * invCols;
        Adds(row, row, -mean, cols);
        PipeBarrier<PIPE_V>();
        Mul(square, row, row, cols);
        PipeBarrier<PIPE_V>();
        float variance = SumToScalar(square) * invCols;
        // rstd on the vector unit: the scalar unit has no square root.
        LocalTensor<float> stat = statBuf.Get<float>();
        Duplicate(stat, variance + epsilon, 8);
        PipeBarrier<PIPE_V>();
        Sqrt(stat, stat, 8);
        PipeBarrier<PIPE_V>();
        Reciprocal(stat, stat, 8);
        event_t eventVToS = static_cast<event_t>(pipe.FetchEventID(HardEvent::V_S));
        SetFlag<HardEvent::V_S>(eventVToS);
        WaitFlag<HardEvent::V_S>(eventVToS);
        float rstd = stat.GetValue(0);
        event_t eventSToV = static_cast<event_t>(pipe.FetchEventID(HardEvent::S_V));
        SetFlag<HardEvent::S_V>(eventSToV);
        WaitFlag<HardEvent::S_V>(eventSToV);

        Muls(row, row, rstd, cols);
        PipeBarrier<PIPE_V>();
        Mul(row, row, gammaFloat, cols);
        PipeBarrier<PIPE_V>();
        Add(row, row, betaFloat, cols);
        PipeBarrier<PIPE_V>();
        Cast(yLocal, row, RoundMode::CAST_RINT, cols);
        outQueueY.EnQue(yLocal);
        inQueueX.FreeTensor(xLocal);
    }

    __aicore__ inline void CopyOut(uint32_t row)
    {
        LocalTensor<half> yLocal = outQueueY.DeQue<half>();
        DataCopyExtParams copyParams{1, static_cast<uint32_t>(cols * sizeof(half)), 0, 0, 0};
        DataCopyPad(yGm[row * cols], yLocal, copyParams);
        outQueueY.FreeTensor(yLocal);
    }

private:
    TPipe pipe;
    TQue<QuePosition::VECIN, QUEUE_DEPTH> inQueueX;
    TQue<QuePosition::VECOUT, QUEUE_DEPTH> outQueueY;
    TQue<QuePosition::VECIN, 1> paramQueue;
    TBuf<QuePosition::VECCALC> gammaBuf;
    TBuf<QuePosition::VECCALC> betaBuf;
    TBuf<QuePosition::VECCALC> rowBuf;
    TBuf<QuePosition::VECCALC> squareBuf;
    TBuf<QuePosition::VECCALC> workBuf;
    TBuf<QuePosition::VECCALC> statBuf;
    GlobalTensor<half> xGm;
    GlobalTensor<half> gammaGm;
    GlobalTensor<half> betaGm;
    GlobalTensor<half> yGm;
    uint32_t rowCount = 0;
    uint32_t cols = 0;
    uint32_t colsAligned = 0;
    float epsilon = 0;
};

extern "C" __global__ __aicore__ void layer_norm_custom(GM_ADDR x, GM_ADDR gamma, GM_ADDR beta, GM_ADDR y,
                                                        GM_ADDR workspace, GM_ADDR tiling)
{
    GET_TILING_DATA(tilingData, tiling);
    KernelLayerNorm op;
    op.Init(x, gamma, beta, y, tilingData.rows, tilingData.cols, tilingData.colsAligned, tilingData.rowsPerCore,
            tilingData.bufferNum, tilingData.epsilon);
    op.Process();
}
