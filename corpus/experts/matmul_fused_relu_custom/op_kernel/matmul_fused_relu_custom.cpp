#include "kernel_operator.h"

using namespace AscendC;

// c = relu(a x b) (half in, float accumulate, half out) on the cube, the ReLU fused into the
// fixpipe on the way out of CO1. Each core computes whole
// baseM x baseN tiles of c, round-robin; for each tile it walks k in baseK steps:
// GM -> A1/B1 (ND -> NZ), A1 -> A2 and B1 -> B2 (LoadData, B transposed per fractal), Mmad
// accumulating in CO1, then one Fixpipe of the tile into c (NZ -> ND, float -> half).
class KernelMatmulRelu {
public:
    __aicore__ inline KernelMatmulRelu() {}
    __aicore__ inline void Init(GM_ADDR a, GM_ADDR b, GM_ADDR c, uint32_t m, uint32_t n, uint32_t k,
                                uint32_t baseM, uint32_t baseN, uint32_t baseK)
    {
        this->m = m;
        this->n = n;
        this->k = k;
        this->baseM = baseM;
        this->baseN = baseN;
        this->baseK = baseK;
        aGm.SetGlobalBuffer((__gm__ half*)a, m * k);
        bGm.SetGlobalBuffer((__gm__ half*)b, k * n);
        cGm.SetGlobalBuffer((__gm__ half*)c, m * n);
        // Two L1 buffers per operand: MTE2 loads the next K step while the cube multiplies.
        pipe.InitBuffer(inQueueA1, 2, baseM * baseK * sizeof(half));
        pipe.InitBuffer(inQueueB1, 2, baseK * baseN * sizeof(half));
        pipe.InitBuffer(inQueueA2, 1, baseM * baseK * sizeof(half));
        pipe.InitBuffer(inQueueB2, 1, baseK * baseN * sizeof(half));
        pipe.InitBuffer(outQueueCO1, 1, baseM * baseN * sizeof(float));
    }

    __aicore__ inline void Process()
    {
        uint32_t tilesN = n / baseN;
        uint32_t tiles = (m / baseM) * tilesN;
        uint32_t kSteps = k / baseK;
        for (uint32_t t = GetBlockIdx(); t < tiles; t += GetBlockNum()) {
            uint32_t row = (t / tilesN) * baseM;
            uint32_t col = (t % tilesN) * baseN;
            LocalTensor<float> c1 = outQueueCO1.AllocTensor<float>();
            for (uint32_t s = 0; s < kSteps; s++) {
                CopyIn(row, col, s * baseK);
                SplitA();
                SplitB();
                Compute(c1, s == 0);
            }
            outQueueCO1.EnQue(c1);
            CopyOut(row, col);
        }
    }

private:
    __aicore__ inline void CopyIn(uint32_t row, uint32_t col, uint32_t kOffset)
    {
        LocalTensor<half> a1 = inQueueA1.AllocTensor<half>();
        LocalTensor<half> b1 = inQueueB1.AllocTensor<half>();
        // baseM rows of baseK, and baseK rows of baseN, each into NZ (column blocks of 16).
        DataCopy(a1, aGm[row * k + kOffset], Nd2NzParams(1, baseM, baseK, 0, k, baseM, 1, 0));
        DataCopy(b1, bGm[kOffset * n + col], Nd2NzParams(1, baseK, baseN, 0, n, baseK, 1, 0));
        inQueueA1.EnQue(a1);
        inQueueB1.EnQue(b1);
    }

    __aicore__ inline void SplitA()
    {
        LocalTensor<half> a1 = inQueueA1.DeQue<half>();
        LocalTensor<half> a2 = inQueueA2.AllocTensor<half>();
        uint32_t mBlocks = baseM / 16;
        uint32_t kBlocks = baseK / 16;
        for (uint32_t i = 0; i < mBlocks; i++) {
            LoadData2DParams params;
            params.startIndex = 0;
            params.repeatTimes = kBlocks;
            params.srcStride = mBlocks;
            params.ifTranspose = false;
            LoadData(a2[i * 16 * baseK], a1[i * 16 * 16], params);
        }
        inQueueA2.EnQue(a2);
        inQueueA1.FreeTensor(a1);
    }

    __aicore__ inline void SplitB()
    {
        LocalTensor<half> b1 = inQueueB1.DeQue<half>();
        LocalTensor<half> b2 = inQueueB2.AllocTensor<half>();
        uint32_t kBlocks = baseK / 16;
        uint32_t nBlocks = baseN / 16;
        for (uint32_t i = 0; i < kBlocks; i++) {
            LoadData2DParams params;
            params.startIndex = 0;
            params.repeatTimes = nBlocks;
            params.srcStride = kBlocks;
            params.ifTranspose = true;
            LoadData(b2[i * 16 * baseN], b1[i * 16 * 16], params);
        }
        inQueueB2.EnQue(b2);
        inQueueB1.FreeTensor(b1);
    }

    __aicore__ inline void Compute(const LocalTensor<float>& c1, bool first)
    {
        LocalTensor<half> a2 = inQueueA2.DeQue<half>();
        LocalTensor<half> b2 = inQueueB2.DeQue<half>();
        MmadParams params;
        params.m = baseM;
        params.n = baseN;
        params.k = baseK;
        params.cmatrixInitVal = first;
        Mmad(c1, a2, b2, params);
        inQueueA2.FreeTensor(a2);
        inQueueB2.FreeTensor(b2);
    }

    __aicore__ inline void CopyOut(uint32_t row, uint32_t col)
    {
        LocalTensor<float> c1 = outQueueCO1.DeQue<float>();
        FixpipeParamsV220 params;
        params.nSize = baseN;
        params.mSize = baseM;
        params.srcStride = baseM;
        params.dstStride = n;
        params.quantPre = QuantMode_t::F322F16;
        params.reluEn = true;
        Fixpipe(cGm[row * n + col], c1, params);
        outQueueCO1.FreeTensor(c1);
    }

    TPipe pipe;
    TQue<TPosition::A1, 1> inQueueA1;
    TQue<TPosition::B1, 1> inQueueB1;
    TQue<TPosition::A2, 1> inQueueA2;
    TQue<TPosition::B2, 1> inQueueB2;
    TQue<TPosition::CO1, 1> outQueueCO1;
    GlobalTensor<half> aGm;
    GlobalTensor<half> bGm;
    GlobalTensor<half> cGm;
    uint32_t m = 0;
    uint32_t n = 0;
    uint32_t k = 0;
    uint32_t baseM = 0;
    uint32_t baseN = 0;
    uint32_t baseK = 0;
};

extern "C" __global__ __aicore__ void matmul_fused_relu_custom(GM_ADDR a, GM_ADDR b, GM_ADDR c, GM_ADDR workspace,
                                                        GM_ADDR tiling)
{
    KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_AIC_ONLY);
    GET_TILING_DATA(tilingData, tiling);
    KernelMatmulRelu op;
    op.Init(a, b, c, tilingData.m, tilingData.n, tilingData.k, tilingData.baseM, tilingData.baseN,
            tilingData.baseK);
    op.Process();
}
