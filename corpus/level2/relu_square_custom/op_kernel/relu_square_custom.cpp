#include "kernel_operator.h"

using namespace AscendC;

class KernelReluSquare {
public:
    __aicore__ inline KernelReluSquare() {}
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, uint32_t totalLength, uint32_t blockLength,
                                uint32_t tileLength)
    {
        uint32_t offset = GetBlockIdx() * blockLength;
        this->blockLength = totalLength - offset < blockLength ? totalLength - offset : blockLength;
        this->tileLength = tileLength;
        xGm.SetGlobalBuffer((__gm__ float*)x + offset, this->blockLength);
        yGm.SetGlobalBuffer((__gm__ float*)y + offset, this->blockLength);
        pipe.InitBuffer(xBuf, tileLength * sizeof(float));
        pipe.InitBuffer(yBuf, tileLength * sizeof(float));
    }

    __aicore__ inline void Process()
    {
        LocalTensor<float> xLocal = xBuf.Get<float>();
        LocalTensor<float> yLocal = yBuf.Get<float>();
        uint32_t loopCount = (blockLength + tileLength - 1) / tileLength;
        for (uint32_t i = 0; i < loopCount; i++) {
            uint32_t count = i + 1 == loopCount ? blockLength - i * tileLength : tileLength;
            DataCopy(xLocal, xGm[i * tileLength], count);
            PipeBarrier<PIPE_ALL>();
            Relu(yLocal, xLocal, count);
            PipeBarrier<PIPE_V>();
            Mul(yLocal, yLocal, yLocal, count);
            PipeBarrier<PIPE_ALL>();
            DataCopy(yGm[i * tileLength], yLocal, count);
            PipeBarrier<PIPE_ALL>();
        }
    }

private:
    TPipe pipe;
    TBuf<TPosition::VECCALC> xBuf;
    TBuf<TPosition::VECCALC> yBuf;
    GlobalTensor<float> xGm;
    GlobalTensor<float> yGm;
    uint32_t blockLength = 0;
    uint32_t tileLength = 0;
};

extern "C" __global__ __aicore__ void relu_square_custom(GM_ADDR x, GM_ADDR y, GM_ADDR workspace, GM_ADDR tiling)
{
    GET_TILING_DATA(tilingData, tiling);
    KernelReluSquare op;
    op.Init(x, y, tilingData.totalLength, tilingData.blockLength, tilingData.tileLength);
    op.Process();
}
