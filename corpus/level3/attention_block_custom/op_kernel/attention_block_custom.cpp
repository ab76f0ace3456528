#include "kernel_operator.h"
#include "lib/matmul_intf.h"

using namespace AscendC;
using namespace matmul;

// out = softmax(q k^T * scale) v for one head, a MIX kernel. Each AIV walks its rows of q in
// blocks: the score Matmul (k transposed) writes the block's scores to this AIV's workspace, the
// AIV reads them back row by row, computes the softmax in float (max, exp, sum, scale by the
// reciprocal), writes the probabilities as half to the workspace, and the value Matmul multiplies
// them by v into out. Every stage is single-buffered and fenced with full barriers.
class KernelAttentionBlock {
public:
    __aicore__ inline KernelAttentionBlock() {}
    __aicore__ inline void Init(GM_ADDR q, GM_ADDR k, GM_ADDR v, GM_ADDR out, GM_ADDR workspace,
                                const AttentionBlockCustomTilingData& t)
    {
        seqLen = t.seqLen;
        headDim = t.headDim;
        rowBlock = t.rowBlock;
        scale = t.scale;
        rowStart = GetBlockIdx() * t.rowsPerCore;
        rowEnd = rowStart + t.rowsPerCore < seqLen ? rowStart + t.rowsPerCore : seqLen;
        qGm.SetGlobalBuffer((__gm__ half*)q, seqLen * headDim);
        kGm.SetGlobalBuffer((__gm__ half*)k, seqLen * headDim);
        vGm.SetGlobalBuffer((__gm__ half*)v, seqLen * headDim);
        outGm.SetGlobalBuffer((__gm__ float*)out, seqLen * headDim);
        const uint32_t scoreElems = rowBlock * seqLen;
        __gm__ uint8_t* mine = workspace + GetBlockIdx() * scoreElems * (sizeof(float) + sizeof(half));
        scoreGm.SetGlobalBuffer((__gm__ float*)mine, scoreElems);
        probGm.SetGlobalBuffer((__gm__ half*)(mine + scoreElems * sizeof(float)), scoreElems);
        pipe.InitBuffer(rowQueue, 1, seqLen * sizeof(float));
        pipe.InitBuffer(probQueue, 1, seqLen * sizeof(half));
        pipe.InitBuffer(workBuf, 64 * sizeof(float));
    }

    __aicore__ inline void Process()
    {
        for (uint32_t row = rowStart; row < rowEnd; row += rowBlock) {
            const uint32_t rows = rowEnd - row < rowBlock ? rowEnd - row : rowBlock;
            scoreMm.SetTensorA(qGm[row * headDim]);
            scoreMm.SetTensorB(kGm, true);
            scoreMm.SetTail(rows, seqLen, headDim);
            scoreMm.IterateAll(scoreGm);
            PipeBarrier<PIPE_ALL>();
            for (uint32_t r = 0; r < rows; ++r) {
                Softmax(r);
                PipeBarrier<PIPE_ALL>();
            }
            valueMm.SetTensorA(probGm);
            valueMm.SetTensorB(vGm);
            valueMm.SetTail(rows, headDim, seqLen);
            valueMm.IterateAll(outGm[row * headDim]);
            PipeBarrier<PIPE_ALL>();
        }
        scoreMm.End();
        valueMm.End();
    }

    TPipe pipe;
    Matmul<MatmulType<TPosition::GM, CubeFormat::ND, half>, MatmulType<TPosition::GM, CubeFormat::ND, half, true>,
           MatmulType<TPosition::GM, CubeFormat::ND, float>>
        scoreMm;
    Matmul<MatmulType<TPosition::GM, CubeFormat::ND, half>, MatmulType<TPosition::GM, CubeFormat::ND, half>,
           MatmulType<TPosition::GM, CubeFormat::ND, float>>
        valueMm;

private:
    __aicore__ inline void Softmax(uint32_t r)
    {
        LocalTensor<float> x = rowQueue.AllocTensor<float>();
        DataCopy(x, scoreGm[r * seqLen], seqLen);
        rowQueue.EnQue(x);
        x = rowQueue.DeQue<float>();
        LocalTensor<float> work = workBuf.Get<float>();
        ReduceMax(work, x, work, seqLen);
        const float peak = work.GetValue(0);
        Adds(x, x, -peak, seqLen);
        Muls(x, x, scale, seqLen);
        Exp(x, x, seqLen);
        ReduceSum(work, x, work, seqLen);
        const float sum = work.GetValue(0);
        Muls(x, x, 1.0f / sum, seqLen);
        LocalTensor<half> p = probQueue.AllocTensor<half>();
        Cast(p, x, RoundMode::CAST_ROUND, seqLen);
        probQueue.EnQue(p);
        rowQueue.FreeTensor(x);
        p = probQueue.DeQue<half>();
        DataCopy(probGm[r * seqLen], p, seqLen);
        probQueue.FreeTensor(p);
    }

    TQue<TPosition::VECIN, 1> rowQueue;
    TQue<TPosition::VECOUT, 1> probQueue;
    TBuf<TPosition::VECCALC> workBuf;
    GlobalTensor<half> qGm, kGm, vGm, probGm;
    GlobalTensor<float> outGm, scoreGm;
    uint32_t seqLen = 0;
    uint32_t headDim = 0;
    uint32_t rowBlock = 0;
    uint32_t rowStart = 0;
    uint32_t rowEnd = 0;
    float scale = 1.0f;
};

extern "C" __global__ __aicore__ void attention_block_custom(GM_ADDR q, GM_ADDR k, GM_ADDR v, GM_ADDR out,
                                                            GM_ADDR workspace, GM_ADDR tiling)
{
    KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_MIX_AIC_1_2);
    GET_TILING_DATA(tilingData, tiling);
    KernelAttentionBlock op;
    REGIST_MATMUL_OBJ(&op.pipe, GetSysWorkSpacePtr(), op.scoreMm, &tilingData.scoreTiling, op.valueMm,
                      &tilingData.valueTiling);
    if (GetBlockIdx() * tilingData.rowsPerCore >= tilingData.seqLen) return;
    op.Init(q, k, v, out, GetUserWorkspace(workspace), tilingData);
    op.Process();
}
