#include "kernel_operator.h"
#include "lib/matmul_intf.h"

using namespace AscendC;
using namespace matmul;

// c = leaky_relu(a x b + bias), a MIX kernel: on each AIV the Matmul object has its group's AIC
// compute each baseM x baseN block of this AIV's part of c (with the bias) and hand it over in UB,
// where the AIV applies LeakyRelu and copies the block out. Each AIV owns one
// singleCoreM x singleCoreN block of c.
class KernelMatmulLeakyRelu {
public:
    __aicore__ inline KernelMatmulLeakyRelu() {}
    __aicore__ inline bool Init(GM_ADDR a, GM_ADDR b, GM_ADDR bias, GM_ADDR c, const TCubeTiling& tiling,
                                float alpha)
    {
        this->tiling = tiling;
        this->alpha = alpha;
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
        pipe.InitBuffer(reluOutQueue, 1, tiling.baseM * tiling.baseN * sizeof(float));
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
            LocalTensor<float> reluOut = reluOutQueue.AllocTensor<float>();
            matmulObj.template GetTensorC<true>(reluOut, false, true);
            LeakyRelu(reluOut, reluOut, alpha, tiling.baseM * tiling.baseN);
            reluOutQueue.EnQue(reluOut);
            CopyOut(count);
            count++;
        }
        matmulObj.End();
    }

    TPipe pipe;
    Matmul<MatmulType<TPosition::GM, CubeFormat::ND, half>, MatmulType<TPosition::GM, CubeFormat::ND, half>,
           MatmulType<TPosition::VECIN, CubeFormat::ND, float>, MatmulType<TPosition::GM, CubeFormat::ND, float>>
        matmulObj;

private:
    __aicore__ inline void CopyOut(uint32_t count)
    {
        LocalTensor<float> reluOut = reluOutQueue.DeQue<float>();
        uint32_t row = (count % blocksM) * tiling.baseM;
        uint32_t col = (count / blocksM) * tiling.baseN;
        // A block at the edge of the part holds fewer rows and columns (baseN apart in UB).
        uint32_t rows = tailM - row < tiling.baseM ? tailM - row : tiling.baseM;
        uint32_t cols = tailN - col < tiling.baseN ? tailN - col : tiling.baseN;
        DataCopyParams params;
        params.blockCount = rows;
        params.blockLen = cols * sizeof(float) / 32;
        params.srcStride = (tiling.baseN - cols) * sizeof(float) / 32;
        params.dstStride = (tiling.N - cols) * sizeof(float) / 32;
        DataCopy(cGlobal[offsetC + row * tiling.N + col], reluOut, params);
        reluOutQueue.FreeTensor(reluOut);
    }

    TQue<TPosition::VECOUT, 1> reluOutQueue;
    GlobalTensor<half> aGlobal;
    GlobalTensor<half> bGlobal;
    GlobalTensor<float> biasGlobal;
    GlobalTensor<float> cGlobal;
    TCubeTiling tiling;
    float alpha = 0;
    uint32_t offsetA = 0;
    uint32_t offsetB = 0;
    uint32_t offsetC = 0;
    uint32_t offsetBias = 0;
    uint32_t tailM = 0;
    uint32_t tailN = 0;
    uint32_t blocksM = 1;
};

extern "C" __global__ __aicore__ void matmul_leakyrelu_custom(GM_ADDR a, GM_ADDR b, GM_ADDR bias, GM_ADDR c,
                                                             GM_ADDR workspace, GM_ADDR tiling)
{
    KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_MIX_AIC_1_2);
    GET_TILING_DATA(tilingData, tiling);
    KernelMatmulLeakyRelu op;
    REGIST_MATMUL_OBJ(&op.pipe, GetSysWorkSpacePtr(), op.matmulObj, &tilingData.cubeTilingData);
    // Each AIV computes one part of c; with an odd part count the last group's second AIV has none.
    if (GetBlockIdx() >= tilingData.cubeTilingData.usedCoreNum) return;
    if (op.Init(a, b, bias, c, tilingData.cubeTilingData, tilingData.alpha)) op.Process();
}
