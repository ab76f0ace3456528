#include "kernel_operator.h"
#include "lib/matmul_intf.h"

using namespace matmul;

template <typename aType, typename bType, typename cType>
class MatmulAccumulateKernel {
public:
    __aicore__ inline MatmulAccumulateKernel(){};
    __aicore__ inline void Init(GM_ADDR a, GM_ADDR b, GM_ADDR c, const TCubeTiling& tiling, bool isTransA);
    __aicore__ inline void Process();

    Matmul<MatmulType<AscendC::TPosition::GM, CubeFormat::ND, aType>,
           MatmulType<AscendC::TPosition::GM, CubeFormat::ND, bType>,
           MatmulType<AscendC::TPosition::GM, CubeFormat::ND, cType>>
        matmulObj;

private:
    __aicore__ inline void CalcOffset(int32_t blockIdx, int32_t& offsetA, int32_t& offsetB, int32_t& offsetC);

    AscendC::GlobalTensor<aType> aGlobal;
    AscendC::GlobalTensor<bType> bGlobal;
    AscendC::GlobalTensor<cType> cGlobal;
    TCubeTiling tiling;
    bool isTransA = false;
    int32_t tailM = 0;
    int32_t tailN = 0;
};

template <typename aType, typename bType, typename cType>
__aicore__ inline void MatmulAccumulateKernel<aType, bType, cType>::Init(GM_ADDR a, GM_ADDR b, GM_ADDR c,
                                                                          const TCubeTiling& tiling,
                                                                          bool isTransA)
{
    this->tiling = tiling;
    this->isTransA = isTransA;
    aGlobal.SetGlobalBuffer(reinterpret_cast<__gm__ aType*>(a), tiling.M * tiling.Ka);
    bGlobal.SetGlobalBuffer(reinterpret_cast<__gm__ bType*>(b), tiling.Ka * tiling.N);
    cGlobal.SetGlobalBuffer(reinterpret_cast<__gm__ cType*>(c), tiling.M * tiling.N);
    int32_t offsetA = 0;
    int32_t offsetB = 0;
    int32_t offsetC = 0;
    CalcOffset(AscendC::GetBlockIdx(), offsetA, offsetB, offsetC);
    aGlobal = aGlobal[offsetA];
    bGlobal = bGlobal[offsetB];
    cGlobal = cGlobal[offsetC];
}

template <typename aType, typename bType, typename cType>
__aicore__ inline void MatmulAccumulateKernel<aType, bType, cType>::Process()
{
    if (tailM <= 0 || tailN <= 0) {
        return;
    }
    matmulObj.SetTensorA(aGlobal, isTransA);
    matmulObj.SetTensorB(bGlobal);
    matmulObj.SetTail(tailM, tailN);
    // enAtomic 1: the product is added to what c holds.
    matmulObj.IterateAll(cGlobal, 1);
    matmulObj.End();
}

template <typename aType, typename bType, typename cType>
__aicore__ inline void MatmulAccumulateKernel<aType, bType, cType>::CalcOffset(int32_t blockIdx, int32_t& offsetA,
                                                                                int32_t& offsetB, int32_t& offsetC)
{
    auto mSingleBlocks = (tiling.M + tiling.singleCoreM - 1) / tiling.singleCoreM;
    auto mCoreIndx = blockIdx % mSingleBlocks;
    auto nCoreIndx = blockIdx / mSingleBlocks;

    // a^T is K x M: this core's columns of it start at its first row of the product.
    offsetA = isTransA ? mCoreIndx * tiling.singleCoreM : mCoreIndx * tiling.Ka * tiling.singleCoreM;
    offsetB = nCoreIndx * tiling.singleCoreN;
    offsetC = mCoreIndx * tiling.N * tiling.singleCoreM + nCoreIndx * tiling.singleCoreN;

    tailM = tiling.M - mCoreIndx * tiling.singleCoreM;
    tailM = tailM < tiling.singleCoreM ? tailM : tiling.singleCoreM;
    tailN = tiling.N - nCoreIndx * tiling.singleCoreN;
    tailN = tailN < tiling.singleCoreN ? tailN : tiling.singleCoreN;
}

extern "C" __global__ __aicore__ void matmul_transpose_accumulate(GM_ADDR a, GM_ADDR b, GM_ADDR c,
                                                                  GM_ADDR workspace, GM_ADDR tiling)
{
    KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_MIX_AIC_1_2);
    GET_TILING_DATA(tilingData, tiling);
    MatmulAccumulateKernel<half, half, float> matmulKernel;
    AscendC::TPipe pipe;
    REGIST_MATMUL_OBJ(&pipe, GetSysWorkSpacePtr(), matmulKernel.matmulObj, &tilingData.cubeTilingData);
    if (AscendC::GetBlockIdx() >= tilingData.cubeTilingData.usedCoreNum) {
        return;
    }
    matmulKernel.Init(a, b, c, tilingData.cubeTilingData, tilingData.isTransA != 0);
    matmulKernel.Process();
}
