#include "kernel_operator.h"
#include "lib/matmul_intf.h"

using namespace AscendC;
using namespace matmul;

// c = gelu(a x b + bias), a MIX kernel: on each AIV the Matmul object has its group's AIC write
// this AIV's singleCoreM x singleCoreN part of a x b + bias to c in GM; the AIV then reads each
// baseM x baseN block back, applies GELU and writes it over the block (a GM round trip of the
// pre-activation, one block at a time, single-buffered).
class KernelMatmulGelu {
public:
    __aicore__ inline KernelMatmulGelu() {}
    __aicore__ inline bool Init(GM_ADDR a, GM_ADDR b, GM_ADDR bias, GM_ADDR c, const TCubeTiling& tiling)
    {
        this->tiling = tiling;
        aGlobal.SetGlobalBuffer((__gm__ half*)a, tiling.M * tiling.Ka);
        bGlobal.SetGlobalBuffer((__gm__ half*)b, tiling.Kb * tiling.N);
        biasGlobal.SetGlobalBuffer((__gm__ float*)bias, tiling.N);
        cGlobal.SetGlobalBuffer((__gm__ float*)c, tiling.M * tiling.N);
        uint32_t mBlocks = (tiling.M + tiling.singleCoreM - 1) / tiling.singleCoreM;
        uint32_t mIndex = GetBlockIdx() % mBlocks;
        uint32_t nIndex = GetBlockIdx() / mBlocks;
        offsetA = mIndex * tiling.Ka * tiling.singleCoreM;
        offsetB = nIndex * tiling.singleCoreN;
        offsetC = mIndex * tiling.N * tiling.singleCoreM + nIndex * tiling.singleCoreN;
        offsetBias = nIndex * tiling.singleCoreN;
        // A part past the edge of c (the split rounds up) has no work; one at the edge may be
        // smaller than singleCoreM x singleCoreN.
        if (mIndex * tiling.singleCoreM >= tiling.M || nIndex * tiling.singleCoreN >= tiling.N) {
            return false;
        }
        tailM = tiling.M - mIndex * tiling.singleCoreM;
        tailM = tailM < tiling.singleCoreM ? tailM : tiling.singleCoreM;
        tailN = tiling.N - nIndex * tiling.singleCoreN;
        tailN = tailN < tiling.singleCoreN ? tailN : tiling.singleCoreN;
        blocksM = (tailM + tiling.baseM - 1) / tiling.baseM;
        pipe.InitBuffer(inQueue, 1, tiling.baseM * tiling.baseN * sizeof(float));
        pipe.InitBuffer(outQueue, 1, tiling.baseM * tiling.baseN * sizeof(float));
        return true;
    }

    __aicore__ inline void Process()
    {
        matmulObj.SetTensorA(aGlobal[offsetA]);
        matmulObj.SetTensorB(bGlobal[offsetB]);
        matmulObj.SetBias(biasGlobal[offsetBias]);
        matmulObj.SetTail(tailM, tailN);
        uint32_t count = 0;
        while (matmulObj.template Iterate<true>()) {
            matmulObj.template GetTensorC<true>(cGlobal[offsetC]);
            PipeBarrier<PIPE_ALL>();
            CopyIn(count);
            Compute();
            CopyOut(count);
            PipeBarrier<PIPE_ALL>();
            count++;
        }
        matmulObj.End();
    }

    TPipe pipe;
    Matmul<MatmulType<TPosition::GM, CubeFormat::ND, half>, MatmulType<TPosition::GM, CubeFormat::ND, half>,
           MatmulType<TPosition::GM, CubeFormat::ND, float>, MatmulType<TPosition::GM, CubeFormat::ND, float>>
        matmulObj;

private:
    // Block `count` of this AIV's part (M first), read from c: a block at the edge of the part
    // holds fewer rows and columns, kept baseN apart in UB.
    __aicore__ inline DataCopyParams BlockParams(uint32_t count) const
    {
        uint32_t row = (count % blocksM) * tiling.baseM;
        uint32_t col = (count / blocksM) * tiling.baseN;
        uint32_t rows = tailM - row < tiling.baseM ? tailM - row : tiling.baseM;
        uint32_t cols = tailN - col < tiling.baseN ? tailN - col : tiling.baseN;
        DataCopyParams params;
        params.blockCount = rows;
        params.blockLen = cols * sizeof(float) / 32;
        params.srcStride = (tiling.N - cols) * sizeof(float) / 32;
        params.dstStride = (tiling.baseN - cols) * sizeof(float) / 32;
        return params;
    }

    __aicore__ inline uint32_t BlockOffset(uint32_t count) const
    {
        uint32_t row = (count % blocksM) * tiling.baseM;
        uint32_t col = (count / blocksM) * tiling.baseN;
        return offsetC + row * tiling.N + col;
    }

    __aicore__ inline void CopyIn(uint32_t count)
    {
        LocalTensor<float> x = inQueue.AllocTensor<float>();
        DataCopy(x, cGlobal[BlockOffset(count)], BlockParams(count));
        inQueue.EnQue(x);
    }

    __aicore__ inline void Compute()
    {
        LocalTensor<float> x = inQueue.DeQue<float>();
        LocalTensor<float> y = outQueue.AllocTensor<float>();
        Gelu(y, x, tiling.baseM * tiling.baseN);
        outQueue.EnQue(y);
        inQueue.FreeTensor(x);
    }

    __aicore__ inline void CopyOut(uint32_t count)
    {
        LocalTensor<float> y = outQueue.DeQue<float>();
        DataCopyParams in = BlockParams(count);
        DataCopyParams params = in;
        params.srcStride = in.dstStride;
        params.dstStride = in.srcStride;
        DataCopy(cGlobal[BlockOffset(count)], y, params);
        outQueue.FreeTensor(y);
    }

    TQue<TPosition::VECIN, 1> inQueue;
    TQue<TPosition::VECOUT, 1> outQueue;
    GlobalTensor<half> aGlobal;
    GlobalTensor<half> bGlobal;
    GlobalTensor<float> biasGlobal;
    GlobalTensor<float> cGlobal;
    TCubeTiling tiling;
    uint32_t offsetA = 0;
    uint32_t offsetB = 0;
    uint32_t offsetC = 0;
    uint32_t offsetBias = 0;
    uint32_t tailM = 0;
    uint32_t tailN = 0;
    uint32_t blocksM = 1;
};

extern "C" __global__ __aicore__ void matmul_gelu_custom(GM_ADDR a, GM_ADDR b, GM_ADDR bias, GM_ADDR c,
                                                        GM_ADDR workspace, GM_ADDR tiling)
{
    KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_MIX_AIC_1_2);
    GET_TILING_DATA(tilingData, tiling);
    KernelMatmulGelu op;
    REGIST_MATMUL_OBJ(&op.pipe, GetSysWorkSpacePtr(), op.matmulObj, &tilingData.cubeTilingData);
    // Each AIV computes one part of c; with an odd part count the last group's second AIV has none.
    if (GetBlockIdx() >= tilingData.cubeTilingData.usedCoreNum) return;
    if (op.Init(a, b, bias, c, tilingData.cubeTilingData)) op.Process();
}
