#include "kernel_operator.h"

using namespace AscendC;

constexpr int32_t QUEUE_DEPTH = 2;
constexpr uint32_t FLOATS_PER_REPEAT = 64;
constexpr uint32_t MAX_REPEAT = 248;  // <= 255 repeats and a 32-byte aligned destination offset

// y = x / max(||x||_2, epsilon) per row of a [rows, cols] float tensor, cols a multiple of 512.
// One pass over GM: a tile of rows is loaded once, its squared norms come from two repeat-form
// reductions (64 floats per repeat into cols / 64 partials per row, then the partials of a row
// per repeat), the scales are computed as vectors, and only the final per-row scale goes
// through the scalar unit, once per row, after a single V -> S event per tile.
class KernelL2Normalize {
public:
    __aicore__ inline KernelL2Normalize() {}
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, uint32_t cols, uint32_t formerNum, uint32_t formerRows,
                                uint32_t tailRows, uint32_t rowsPerTile, uint32_t bufferNum, float epsilon)
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
        this->epsilon = epsilon;
        partialsPerRow = cols / FLOATS_PER_REPEAT;
        xGm.SetGlobalBuffer((__gm__ float*)x + rowStart * cols, rowCount * cols);
        yGm.SetGlobalBuffer((__gm__ float*)y + rowStart * cols, rowCount * cols);
        pipe.InitBuffer(inQueueX, bufferNum, rowsPerTile * cols * sizeof(float));
        pipe.InitBuffer(outQueueY, bufferNum, rowsPerTile * cols * sizeof(float));
        pipe.InitBuffer(squareBuf, rowsPerTile * cols * sizeof(float));
        pipe.InitBuffer(partialBuf, rowsPerTile * partialsPerRow * sizeof(float));
        pipe.InitBuffer(scaleBuf, (rowsPerTile + 8) / 8 * 8 * sizeof(float));
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
        LocalTensor<float> xLocal = inQueueX.AllocTensor<float>();
        DataCopy(xLocal, xGm[progress * rowsPerTile * cols], tileRows * cols);
        inQueueX.EnQue(xLocal);
    }

    __aicore__ inline void Compute(uint32_t tileRows)
    {
        LocalTensor<float> xLocal = inQueueX.DeQue<float>();
        LocalTensor<float> yLocal = outQueueY.AllocTensor<float>();
        LocalTensor<float> square = squareBuf.Get<float>();
        LocalTensor<float> partial = partialBuf.Get<float>();
        LocalTensor<float> scale = scaleBuf.Get<float>();

        Mul(square, xLocal, xLocal, tileRows * cols);
        PipeBarrier<PIPE_V>();
        uint32_t repeats = tileRows * partialsPerRow;
        for (uint32_t done = 0; done < repeats; done += MAX_REPEAT) {
            uint32_t n = repeats - done < MAX_REPEAT ? repeats - done : MAX_REPEAT;
            WholeReduceSum(partial[done], square[done * FLOATS_PER_REPEAT], FLOATS_PER_REPEAT, n, 1, 1, 8);
        }
        PipeBarrier<PIPE_V>();
        int32_t partialStride = static_cast<int32_t>(partialsPerRow / 8);  // in 32-byte blocks
        for (uint32_t done = 0; done < tileRows; done += MAX_REPEAT) {
            uint32_t n = tileRows - done < MAX_REPEAT ? tileRows - done : MAX_REPEAT;
            WholeReduceSum(scale[done], partial[done * partialsPerRow], static_cast<int32_t>(partialsPerRow), n, 1,
                           1, partialStride);
        }
        PipeBarrier<PIPE_V>();
        Sqrt(scale, scale, tileRows);
        PipeBarrier<PIPE_V>();
        Maxs(scale, scale, epsilon, tileRows);
        PipeBarrier<PIPE_V>();
        Reciprocal(scale, scale, tileRows);

        event_t eventVToS = static_cast<event_t>(pipe.FetchEventID(HardEvent::V_S));
        SetFlag<HardEvent::V_S>(eventVToS);
        WaitFlag<HardEvent::V_S>(eventVToS);
        for (uint32_t r = 0; r < tileRows; r++) {
            Muls(yLocal[r * cols], xLocal[r * cols], scale.GetValue(r), cols);
        }
        // The next tile's reductions overwrite the scales the scalar unit read.
        event_t eventSToV = static_cast<event_t>(pipe.FetchEventID(HardEvent::S_V));
        SetFlag<HardEvent::S_V>(eventSToV);
        WaitFlag<HardEvent::S_V>(eventSToV);
        outQueueY.EnQue(yLocal);
        inQueueX.FreeTensor(xLocal);
    }

    __aicore__ inline void CopyOut(uint32_t progress, uint32_t tileRows)
    {
        LocalTensor<float> yLocal = outQueueY.DeQue<float>();
        DataCopy(yGm[progress * rowsPerTile * cols], yLocal, tileRows * cols);
        outQueueY.FreeTensor(yLocal);
    }

private:
    TPipe pipe;
    TQue<QuePosition::VECIN, QUEUE_DEPTH> inQueueX;
    TQue<QuePosition::VECOUT, QUEUE_DEPTH> outQueueY;
    TBuf<QuePosition::VECCALC> squareBuf;
    TBuf<QuePosition::VECCALC> partialBuf;
    TBuf<QuePosition::VECCALC> scaleBuf;
    GlobalTensor<float> xGm;
    GlobalTensor<float> yGm;
    uint32_t rowCount = 0;
    uint32_t cols = 0;
    uint32_t partialsPerRow = 0;
    uint32_t rowsPerTile = 0;
    float epsilon = 0;
};

extern "C" __global__ __aicore__ void l2_normalize_custom(GM_ADDR x, GM_ADDR y, GM_ADDR workspace, GM_ADDR tiling)
{
    GET_TILING_DATA(tilingData, tiling);
    KernelL2Normalize op;
    op.Init(x, y, tilingData.cols, tilingData.formerNum, tilingData.formerRows, tilingData.tailRows,
            tilingData.rowsPerTile, tilingData.bufferNum, tilingData.epsilon);
    op.Process();
}
