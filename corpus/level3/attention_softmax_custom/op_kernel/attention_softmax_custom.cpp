#include "kernel_operator.h"

using namespace AscendC;

constexpr int32_t QUEUE_DEPTH = 2;
constexpr float MASK_FILL = -10000.0f;

// Attention probabilities: probs = softmax(scores * scale + mask * MASK_FILL) over the last axis of
// [batch, heads, seq, seq] half scores; the [seq, seq] 0/1 mask is shared by all batches and heads
// (row r of the scores uses mask row r % seq). Computed in float, row by row.
class KernelAttentionSoftmax {
public:
    __aicore__ inline KernelAttentionSoftmax() {}
    __aicore__ inline void Init(GM_ADDR scores, GM_ADDR mask, GM_ADDR probs, uint32_t rows, uint32_t seqLen,
                                uint32_t rowsPerCore, uint32_t rowsPerTile, uint32_t bufferNum, float scale)
    {
        rowStart = GetBlockIdx() * rowsPerCore;
        rowCount = rowStart < rows ? rows - rowStart : 0;
        if (rowCount > rowsPerCore) {
            rowCount = rowsPerCore;
        }
        this->seqLen = seqLen;
        this->rowsPerTile = rowsPerTile;
        this->scale = scale;
        scoresGm.SetGlobalBuffer((__gm__ half*)scores + rowStart * seqLen, rowCount * seqLen);
        maskGm.SetGlobalBuffer((__gm__ uint8_t*)mask, seqLen * seqLen);
        probsGm.SetGlobalBuffer((__gm__ half*)probs + rowStart * seqLen, rowCount * seqLen);
        pipe.InitBuffer(inQueueScores, bufferNum, rowsPerTile * seqLen * sizeof(half));
        pipe.InitBuffer(inQueueMask, bufferNum, rowsPerTile * seqLen * sizeof(uint8_t));
        pipe.InitBuffer(outQueueProbs, bufferNum, rowsPerTile * seqLen * sizeof(half));
        pipe.InitBuffer(maskHalfBuf, seqLen * sizeof(half));
        pipe.InitBuffer(rowBuf, seqLen * sizeof(float));
        pipe.InitBuffer(maskFloatBuf, seqLen * sizeof(float));
        pipe.InitBuffer(workBuf, seqLen * sizeof(float));
        pipe.InitBuffer(statBuf, 8 * sizeof(float));
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
        LocalTensor<half> scoresLocal = inQueueScores.AllocTensor<half>();
        LocalTensor<uint8_t> maskLocal = inQueueMask.AllocTensor<uint8_t>();
        DataCopy(scoresLocal, scoresGm[progress * rowsPerTile * seqLen], tileRows * seqLen);
        for (uint32_t r = 0; r < tileRows; r++) {
            uint32_t maskRow = (rowStart + progress * rowsPerTile + r) % seqLen;
            DataCopy(maskLocal[r * seqLen], maskGm[maskRow * seqLen], seqLen);
        }
        inQueueScores.EnQue(scoresLocal);
        inQueueMask.EnQue(maskLocal);
    }

    __aicore__ inline float ReduceToScalar(bool isMax, LocalTensor<float>& row)
    {
        LocalTensor<float> work = workBuf.Get<float>();
        LocalTensor<float> stat = statBuf.Get<float>();
        if (isMax) {
            ReduceMax(stat, row, work, seqLen);
        } else {
            ReduceSum(stat, row, work, seqLen);
        }
        event_t eventVToS = static_cast<event_t>(pipe.FetchEventID(HardEvent::V_S));
        SetFlag<HardEvent::V_S>(eventVToS);
        WaitFlag<HardEvent::V_S>(eventVToS);
        float value = stat.GetValue(0);
        // The next reduction overwrites the slot the scalar unit just read.
        event_t eventSToV = static_cast<event_t>(pipe.FetchEventID(HardEvent::S_V));
        SetFlag<HardEvent::S_V>(eventSToV);
        WaitFlag<HardEvent::S_V>(eventSToV);
        return value;
    }

    __aicore__ inline void Compute(uint32_t tileRows)
    {
        LocalTensor<half> scoresLocal = inQueueScores.DeQue<half>();
        LocalTensor<uint8_t> maskLocal = inQueueMask.DeQue<uint8_t>();
        LocalTensor<half> probsLocal = outQueueProbs.AllocTensor<half>();
        LocalTensor<half> maskHalf = maskHalfBuf.Get<half>();
        LocalTensor<float> row = rowBuf.Get<float>();
        LocalTensor<float> maskFloat = maskFloatBuf.Get<float>();
        for (uint32_t r = 0; r < tileRows; r++) {
            Cast(row, scoresLocal[r * seqLen], RoundMode::CAST_NONE, seqLen);
            Cast(maskHalf, maskLocal[r * seqLen], RoundMode::CAST_NONE, seqLen);
            PipeBarrier<PIPE_V>();
            Cast(maskFloat, maskHalf, RoundMode::CAST_NONE, seqLen);
            Muls(row, row, scale, seqLen);
            PipeBarrier<PIPE_V>();
            Muls(maskFloat, maskFloat, MASK_FILL, seqLen);
            PipeBarrier<PIPE_V>();
            Add(row, row, maskFloat, seqLen);
            PipeBarrier<PIPE_V>();
            float rowMax = ReduceToScalar(true, row);
            Adds(row, row, -rowMax, seqLen);
            PipeBarrier<PIPE_V>();
            Exp(row, row, seqLen);
            PipeBarrier<PIPE_V>();
            float rowSum = ReduceToScalar(false, row);
            Muls(row, row, 1.0f / rowSum, seqLen);
            PipeBarrier<PIPE_V>();
            Cast(probsLocal[r * seqLen], row, RoundMode::CAST_RINT, seqLen);
            PipeBarrier<PIPE_V>();
        }
        outQueueProbs.EnQue(probsLocal);
        inQueueScores.FreeTensor(scoresLocal);
        inQueueMask.FreeTensor(maskLocal);
    }

    __aicore__ inline void CopyOut(uint32_t progress, uint32_t tileRows)
    {
        LocalTensor<half> probsLocal = outQueueProbs.DeQue<half>();
        DataCopy(probsGm[progress * rowsPerTile * seqLen], probsLocal, tileRows * seqLen);
        outQueueProbs.FreeTensor(probsLocal);
    }

private:
    TPipe pipe;
    TQue<QuePosition::VECIN, QUEUE_DEPTH> inQueueScores;
    TQue<QuePosition::VECIN, QUEUE_DEPTH> inQueueMask;
    TQue<QuePosition::VECOUT, QUEUE_DEPTH> outQueueProbs;
    TBuf<QuePosition::VECCALC> maskHalfBuf;
    TBuf<QuePosition::VECCALC> rowBuf;
    TBuf<QuePosition::VECCALC> maskFloatBuf;
    TBuf<QuePosition::VECCALC> workBuf;
    TBuf<QuePosition::VECCALC> statBuf;
    GlobalTensor<half> scoresGm;
    GlobalTensor<uint8_t> maskGm;
    GlobalTensor<half> probsGm;
    uint32_t rowStart = 0;
    uint32_t rowCount = 0;
    uint32_t seqLen = 0;
    uint32_t rowsPerTile = 0;
    float scale = 0;
};

extern "C" __global__ __aicore__ void attention_softmax_custom(GM_ADDR scores, GM_ADDR mask, GM_ADDR probs,
                                                               GM_ADDR workspace, GM_ADDR tiling)
{
    GET_TILING_DATA(tilingData, tiling);
    KernelAttentionSoftmax op;
    op.Init(scores, mask, probs, tilingData.rows, tilingData.seqLen, tilingData.rowsPerCore, tilingData.rowsPerTile,
            tilingData.bufferNum, tilingData.scale);
    op.Process();
}
