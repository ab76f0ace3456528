#include "kernel_operator.h"

using namespace AscendC;

constexpr int32_t QUEUE_DEPTH = 2;

// Rotary position embedding (rotate-half form) of x [tokens, heads, headDim] with per-token
// cos and sin [tokens, headDim]:
//   y[..., :d/2] = x1 * cos[:d/2] - x2 * sin[:d/2]
//   y[..., d/2:] = x2 * cos[d/2:] + x1 * sin[d/2:]
// where x1 = x[..., :d/2] and x2 = x[..., d/2:]. Head by head, in half.
class KernelRotaryEmbedding {
public:
    __aicore__ inline KernelRotaryEmbedding() {}
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR cos, GM_ADDR sin, GM_ADDR y, uint32_t tokens, uint32_t heads,
                                uint32_t headDim, uint32_t tokensPerCore, uint32_t tokensPerTile, uint32_t bufferNum)
    {
        uint32_t tokenStart = GetBlockIdx() * tokensPerCore;
        tokenCount = tokenStart < tokens ? tokens - tokenStart : 0;
        if (tokenCount > tokensPerCore) {
            tokenCount = tokensPerCore;
        }
        this->heads = heads;
        this->headDim = headDim;
        this->tokensPerTile = tokensPerTile;
        rowLen = heads * headDim;
        xGm.SetGlobalBuffer((__gm__ half*)x + tokenStart * rowLen, tokenCount * rowLen);
        cosGm.SetGlobalBuffer((__gm__ half*)cos + tokenStart * headDim, tokenCount * headDim);
        sinGm.SetGlobalBuffer((__gm__ half*)sin + tokenStart * headDim, tokenCount * headDim);
        yGm.SetGlobalBuffer((__gm__ half*)y + tokenStart * rowLen, tokenCount * rowLen);
        pipe.InitBuffer(inQueueX, bufferNum, tokensPerTile * rowLen * sizeof(half));
        pipe.InitBuffer(inQueueCos, bufferNum, tokensPerTile * headDim * sizeof(half));
        pipe.InitBuffer(inQueueSin, bufferNum, tokensPerTile * headDim * sizeof(half));
        pipe.InitBuffer(outQueueY, bufferNum, tokensPerTile * rowLen * sizeof(half));
        pipe.InitBuffer(tmpBuf, headDim * sizeof(half));
    }

    __aicore__ inline void Process()
    {
        uint32_t tileNum = (tokenCount + tokensPerTile - 1) / tokensPerTile;
        for (uint32_t i = 0; i < tileNum; i++) {
            uint32_t tileTokens = (i + 1 == tileNum) ? tokenCount - i * tokensPerTile : tokensPerTile;
            CopyIn(i, tileTokens);
            Compute(tileTokens);
            CopyOut(i, tileTokens);
        }
    }

private:
    __aicore__ inline void CopyIn(uint32_t progress, uint32_t tileTokens)
    {
        LocalTensor<half> xLocal = inQueueX.AllocTensor<half>();
        LocalTensor<half> cosLocal = inQueueCos.AllocTensor<half>();
        LocalTensor<half> sinLocal = inQueueSin.AllocTensor<half>();
        DataCopy(xLocal, xGm[progress * tokensPerTile * rowLen], tileTokens * rowLen);
        DataCopy(cosLocal, cosGm[progress * tokensPerTile * headDim], tileTokens * headDim);
        DataCopy(sinLocal, sinGm[progress * tokensPerTile * headDim], tileTokens * headDim);
        inQueueX.EnQue(xLocal);
        inQueueCos.EnQue(cosLocal);
        inQueueSin.EnQue(sinLocal);
    }

    __aicore__ inline void Compute(uint32_t tileTokens)
    {
        LocalTensor<half> xLocal = inQueueX.DeQue<half>();
        LocalTensor<half> cosLocal = inQueueCos.DeQue<half>();
        LocalTensor<half> sinLocal = inQueueSin.DeQue<half>();
        LocalTensor<half> yLocal = outQueueY.AllocTensor<half>();
        LocalTensor<half> tmp = tmpBuf.Get<half>();
        uint32_t halfDim = headDim / 2;
        for (uint32_t t = 0; t < tileTokens; t++) {
            LocalTensor<half> cosRow = cosLocal[t * headDim];
            LocalTensor<half> sinRow = sinLocal[t * headDim];
            for (uint32_t h = 0; h < heads; h++) {
                uint32_t base = t * rowLen + h * headDim;
                LocalTensor<half> x1 = xLocal[base];
                LocalTensor<half> x2 = xLocal[base + halfDim];
                LocalTensor<half> y1 = yLocal[base];
                LocalTensor<half> y2 = yLocal[base + halfDim];
                Mul(y1, x1, cosRow, halfDim);
                Mul(tmp, x2, sinRow, halfDim);
                PipeBarrier<PIPE_V>();
                Sub(y1, y1, tmp, halfDim);
                Mul(y2, x2, cosRow[halfDim], halfDim);
                Mul(tmp[halfDim], x1, sinRow[halfDim], halfDim);
                PipeBarrier<PIPE_V>();
                Add(y2, y2, tmp[halfDim], halfDim);
                PipeBarrier<PIPE_V>();
            }
        }
        outQueueY.EnQue(yLocal);
        inQueueX.FreeTensor(xLocal);
        inQueueCos.FreeTensor(cosLocal);
        inQueueSin.FreeTensor(sinLocal);
    }

    __aicore__ inline void CopyOut(uint32_t progress, uint32_t tileTokens)
    {
        LocalTensor<half> yLocal = outQueueY.DeQue<half>();
        DataCopy(yGm[progress * tokensPerTile * rowLen], yLocal, tileTokens * rowLen);
        outQueueY.FreeTensor(yLocal);
    }

private:
    TPipe pipe;
    TQue<QuePosition::VECIN, QUEUE_DEPTH> inQueueX;
    TQue<QuePosition::VECIN, QUEUE_DEPTH> inQueueCos;
    TQue<QuePosition::VECIN, QUEUE_DEPTH> inQueueSin;
    TQue<QuePosition::VECOUT, QUEUE_DEPTH> outQueueY;
    TBuf<QuePosition::VECCALC> tmpBuf;
    GlobalTensor<half> xGm;
    GlobalTensor<half> cosGm;
    GlobalTensor<half> sinGm;
    GlobalTensor<half> yGm;
    uint32_t tokenCount = 0;
    uint32_t heads = 0;
    uint32_t headDim = 0;
    uint32_t rowLen = 0;
    uint32_t tokensPerTile = 0;
};

extern "C" __global__ __aicore__ void rotary_embedding_custom(GM_ADDR x, GM_ADDR cos, GM_ADDR sin, GM_ADDR y,
                                                              GM_ADDR workspace, GM_ADDR tiling)
{
    GET_TILING_DATA(tilingData, tiling);
    KernelRotaryEmbedding op;
    op.Init(x, cos, sin, y, tilingData.tokens, tilingData.heads, tilingData.headDim, tilingData.tokensPerCore,
            tilingData.tokensPerTile, tilingData.bufferNum);
    op.Process();
}
