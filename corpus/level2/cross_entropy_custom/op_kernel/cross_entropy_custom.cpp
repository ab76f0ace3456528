#include "kernel_operator.h"

using namespace AscendC;

// Per-sample cross-entropy of [rows, classes] float logits against int32 class indices:
// loss[r] = max + ln(sum_c exp(x[r, c] - max)) - x[r, target[r]].
class KernelCrossEntropy {
public:
    __aicore__ inline KernelCrossEntropy() {}
    __aicore__ inline void Init(GM_ADDR logits, GM_ADDR target, GM_ADDR loss, uint32_t rows, uint32_t classes,
                                uint32_t classesAligned, uint32_t rowsPerCore, uint32_t rowsPerTile)
    {
        uint32_t rowStart = GetBlockIdx() * rowsPerCore;
        rowCount = rowStart < rows ? rows - rowStart : 0;
        if (rowCount > rowsPerCore) {
            rowCount = rowsPerCore;
        }
        this->classes = classes;
        this->classesAligned = classesAligned;
        this->rowsPerTile = rowsPerTile;
        logitsGm.SetGlobalBuffer((__gm__ float*)logits + rowStart * classes, rowCount * classes);
        targetGm.SetGlobalBuffer((__gm__ int32_t*)target + rowStart, rowCount);
        lossGm.SetGlobalBuffer((__gm__ float*)loss + rowStart, rowCount);
        uint32_t smallBytes = (rowsPerTile + 7) / 8 * 8 * sizeof(float);
        pipe.InitBuffer(inQueueLogits, 1, rowsPerTile * classesAligned * sizeof(float));
        pipe.InitBuffer(inQueueTarget, 1, smallBytes);
        pipe.InitBuffer(outQueueLoss, 1, smallBytes);
        pipe.InitBuffer(expBuf, classesAligned * sizeof(float));
        pipe.InitBuffer(workBuf, classesAligned * sizeof(float));
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
        LocalTensor<float> logitsLocal = inQueueLogits.AllocTensor<float>();
        LocalTensor<int32_t> targetLocal = inQueueTarget.AllocTensor<int32_t>();
        DataCopyExtParams rowParams{static_cast<uint16_t>(tileRows), static_cast<uint32_t>(classes * sizeof(float)),
                                    0, 0, 0};
        DataCopyPadExtParams<float> padParams{false, 0, 0, 0};
        DataCopyPad(logitsLocal, logitsGm[progress * rowsPerTile * classes], rowParams, padParams);
        DataCopyExtParams targetParams{1, static_cast<uint32_t>(tileRows * sizeof(int32_t)), 0, 0, 0};
        DataCopyPadExtParams<int32_t> targetPad{false, 0, 0, 0};
        DataCopyPad(targetLocal, targetGm[progress * rowsPerTile], targetParams, targetPad);
        inQueueLogits.EnQue(logitsLocal);
        inQueueTarget.EnQue(targetLocal);
    }

    __aicore__ inline void Compute(uint32_t tileRows)
    {
        LocalTensor<float> logitsLocal = inQueueLogits.DeQue<float>();
        LocalTensor<int32_t> targetLocal = inQueueTarget.DeQue<int32_t>();
        LocalTensor<float> lossLocal = outQueueLoss.AllocTensor<float>();
        LocalTensor<float> expRow = expBuf.Get<float>();
        LocalTensor<float> work = workBuf.Get<float>();
        LocalTensor<float> stat = statBuf.Get<float>();
        // The targets are read by the scalar unit.
        event_t eventMte2ToS = static_cast<event_t>(pipe.FetchEventID(HardEvent::MTE2_S));
        SetFlag<HardEvent::MTE2_S>(eventMte2ToS);
        WaitFlag<HardEvent::MTE2_S>(eventMte2ToS);
        for (uint32_t r = 0; r < tileRows; r++) {
            LocalTensor<float> row = logitsLocal[r * classesAligned];
            ReduceMax(stat, row, work, classes);
            PipeBarrier<PIPE_ALL>();
            float rowMax = stat.GetValue(0);
            PipeBarrier<PIPE_ALL>();
            Adds(expRow, row, -rowMax, classes);
            PipeBarrier<PIPE_V>();
            Exp(expRow, expRow, classes);
            PipeBarrier<PIPE_V>();
            ReduceSum(stat, expRow, work, classes);
            PipeBarrier<PIPE_V>();
            Ln(stat, stat, 1);
            PipeBarrier<PIPE_ALL>();
            int32_t label = targetLocal.GetValue(r);
            float picked = row.GetValue(static_cast<uint32_t>(label));
            lossLocal.SetValue(r, rowMax + stat.GetValue(0) - picked);
            PipeBarrier<PIPE_ALL>();
        }
        PipeBarrier<PIPE_ALL>();
        outQueueLoss.EnQue(lossLocal);
        inQueueLogits.FreeTensor(logitsLocal);
        inQueueTarget.FreeTensor(targetLocal);
    }

    __aicore__ inline void CopyOut(uint32_t progress, uint32_t tileRows)
    {
        LocalTensor<float> lossLocal = outQueueLoss.DeQue<float>();
        DataCopyExtParams copyParams{1, static_cast<uint32_t>(tileRows * sizeof(float)), 0, 0, 0};
        DataCopyPad(lossGm[progress * rowsPerTile], lossLocal, copyParams);
        outQueueLoss.FreeTensor(lossLocal);
    }

private:
    TPipe pipe;
    TQue<QuePosition::VECIN, 1> inQueueLogits;
    TQue<QuePosition::VECIN, 1> inQueueTarget;
    TQue<QuePosition::VECOUT, 1> outQueueLoss;
    TBuf<QuePosition::VECCALC> expBuf;
    TBuf<QuePosition::VECCALC> workBuf;
    TBuf<QuePosition::VECCALC> statBuf;
    GlobalTensor<float> logitsGm;
    GlobalTensor<int32_t> targetGm;
    GlobalTensor<float> lossGm;
    uint32_t rowCount = 0;
    uint32_t classes = 0;
    uint32_t classesAligned = 0;
    uint32_t rowsPerTile = 0;
};

extern "C" __global__ __aicore__ void cross_entropy_custom(GM_ADDR logits, GM_ADDR target, GM_ADDR loss,
                                                           GM_ADDR workspace, GM_ADDR tiling)
{
    GET_TILING_DATA(tilingData, tiling);
    KernelCrossEntropy op;
    op.Init(logits, target, loss, tilingData.rows, tilingData.classes, tilingData.classesAligned,
            tilingData.rowsPerCore, tilingData.rowsPerTile);
    op.Process();
}
