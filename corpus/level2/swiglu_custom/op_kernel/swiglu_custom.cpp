#include "kernel_operator.h"

using namespace AscendC;

constexpr int32_t QUEUE_DEPTH = 2;
constexpr uint32_t BLOCK_BYTES = 32;

// SwiGLU over the last axis: x = [gate | up] with halves of halfCols columns,
// y = silu(gate) * up = gate / (1 + exp(-gate)) * up, computed in float.
// Each half of a tile of rows arrives with one strided copy that skips the other half.
class KernelSwiglu {
public:
    __aicore__ inline KernelSwiglu() {}
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, uint32_t rows, uint32_t halfCols, uint32_t rowsPerCore,
                                uint32_t rowsPerTile, uint32_t bufferNum)
    {
        uint32_t rowStart = GetBlockIdx() * rowsPerCore;
        rowCount = rowStart < rows ? rows - rowStart : 0;
        if (rowCount > rowsPerCore) {
            rowCount = rowsPerCore;
        }
        this->halfCols = halfCols;
        this->rowsPerTile = rowsPerTile;
        xGm.SetGlobalBuffer((__gm__ half*)x + rowStart * 2 * halfCols, rowCount * 2 * halfCols);
        yGm.SetGlobalBuffer((__gm__ half*)y + rowStart * halfCols, rowCount * halfCols);
        pipe.InitBuffer(inQueueGate, bufferNum, rowsPerTile * halfCols * sizeof(half));
        pipe.InitBuffer(inQueueUp, bufferNum, rowsPerTile * halfCols * sizeof(half));
        pipe.InitBuffer(outQueueY, bufferNum, rowsPerTile * halfCols * sizeof(half));
        pipe.InitBuffer(gateBuf, rowsPerTile * halfCols * sizeof(float));
        pipe.InitBuffer(tmpBuf, rowsPerTile * halfCols * sizeof(float));
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
        LocalTensor<half> gateLocal = inQueueGate.AllocTensor<half>();
        LocalTensor<half> upLocal = inQueueUp.AllocTensor<half>();
        uint16_t halfBlocks = static_cast<uint16_t>(halfCols * sizeof(half) / BLOCK_BYTES);
        DataCopyParams params{static_cast<uint16_t>(tileRows), halfBlocks, halfBlocks, 0};
        uint32_t offset = progress * rowsPerTile * 2 * halfCols;
        DataCopy(gateLocal, xGm[offset], params);
        DataCopy(upLocal, xGm[offset + halfCols], params);
        inQueueGate.EnQue(gateLocal);
        inQueueUp.EnQue(upLocal);
    }

    __aicore__ inline void Compute(uint32_t tileRows)
    {
        LocalTensor<half> gateLocal = inQueueGate.DeQue<half>();
        LocalTensor<half> upLocal = inQueueUp.DeQue<half>();
        LocalTensor<half> yLocal = outQueueY.AllocTensor<half>();
        LocalTensor<float> gate = gateBuf.Get<float>();
        LocalTensor<float> tmp = tmpBuf.Get<float>();
        uint32_t count = tileRows * halfCols;

        Cast(gate, gateLocal, RoundMode::CAST_NONE, count);
        PipeBarrier<PIPE_V>();
        Muls(tmp, gate, -1.0f, count);
        PipeBarrier<PIPE_V>();
        Exp(tmp, tmp, count);
        PipeBarrier<PIPE_V>();
        Adds(tmp, tmp, 1.0f, count);
        PipeBarrier<PIPE_V>();
        Div(gate, gate, tmp, count);
        PipeBarrier<PIPE_V>();
        Cast(tmp, upLocal, RoundMode::CAST_NONE, count);
        PipeBarrier<PIPE_V>();
        Mul(gate, gate, tmp, count);
        PipeBarrier<PIPE_V>();
        Cast(yLocal, gate, RoundMode::CAST_RINT, count);
        outQueueY.EnQue(yLocal);
        inQueueGate.FreeTensor(gateLocal);
        inQueueUp.FreeTensor(upLocal);
    }

    __aicore__ inline void CopyOut(uint32_t progress, uint32_t tileRows)
    {
        LocalTensor<half> yLocal = outQueueY.DeQue<half>();
        DataCopy(yGm[progress * rowsPerTile * halfCols], yLocal, tileRows * halfCols);
        outQueueY.FreeTensor(yLocal);
    }

private:
    TPipe pipe;
    TQue<QuePosition::VECIN, QUEUE_DEPTH> inQueueGate;
    TQue<QuePosition::VECIN, QUEUE_DEPTH> inQueueUp;
    TQue<QuePosition::VECOUT, QUEUE_DEPTH> outQueueY;
    TBuf<QuePosition::VECCALC> gateBuf;
    TBuf<QuePosition::VECCALC> tmpBuf;
    GlobalTensor<half> xGm;
    GlobalTensor<half> yGm;
    uint32_t rowCount = 0;
    uint32_t halfCols = 0;
    uint32_t rowsPerTile = 0;
};

extern "C" __global__ __aicore__ void swiglu_custom(GM_ADDR x, GM_ADDR y, GM_ADDR workspace, GM_ADDR tiling)
{
    GET_TILING_DATA(tilingData, tiling);
    KernelSwiglu op;
    op.Init(x, y, tilingData.rows, tilingData.halfCols, tilingData.rowsPerCore, tilingData.rowsPerTile,
            tilingData.bufferNum);
    op.Process();
}
