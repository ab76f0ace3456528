#include "kernel_operator.h"

using namespace AscendC;

// c = (a x w^T) * scale: int8 a [M, K] and weight w [N, K] on the cube, int32 accumulation in
// CO1, dequantized to half by the fixpipe (DEQF16). Each core computes whole baseM x baseN tiles
// of c, round-robin, walking k in baseK steps: GM -> A1/B1 (ND -> NZ), A1 -> A2 row block by row
// block, B1 -> B2 as is (the NZ of w's rows is the ZN layout B2 wants), Mmad, then one Fixpipe.
class KernelMatmulInt8 {
public:
    __aicore__ inline KernelMatmulInt8() {}
    __aicore__ inline void Init(GM_ADDR a, GM_ADDR w, GM_ADDR c, uint32_t m, uint32_t n, uint32_t k,
                                uint32_t baseM, uint32_t baseN, uint32_t baseK, uint32_t l1BufferNum,
                                float scale)
    {
        this->m = m;
        this->n = n;
        this->k = k;
        this->baseM = baseM;
        this->baseN = baseN;
        this->baseK = baseK;
        this->scale = scale;
        aGm.SetGlobalBuffer((__gm__ int8_t*)a, m * k);
        wGm.SetGlobalBuffer((__gm__ int8_t*)w, n * k);
        cGm.SetGlobalBuffer((__gm__ half*)c, m * n);
        pipe.InitBuffer(inQueueA1, l1BufferNum, baseM * baseK);
        pipe.InitBuffer(inQueueB1, l1BufferNum, baseN * baseK);
        pipe.InitBuffer(inQueueA2, 1, baseM * baseK);
        pipe.InitBuffer(inQueueB2, 1, baseN * baseK);
        pipe.InitBuffer(outQueueCO1, 1, baseM * baseN * sizeof(int32_t));
    }

    __aicore__ inline void Process()
    {
        uint32_t tilesN = n / baseN;
        uint32_t tiles = (m / baseM) * tilesN;
        uint32_t kSteps = k / baseK;
        for (uint32_t t = GetBlockIdx(); t < tiles; t += GetBlockNum()) {
            uint32_t row = (t / tilesN) * baseM;
            uint32_t col = (t % tilesN) * baseN;
            LocalTensor<int32_t> c1 = outQueueCO1.AllocTensor<int32_t>();
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
        LocalTensor<int8_t> a1 = inQueueA1.AllocTensor<int8_t>();
        LocalTensor<int8_t> b1 = inQueueB1.AllocTensor<int8_t>();
        DataCopy(a1, aGm[row * k + kOffset], Nd2NzParams(1, baseM, baseK, 0, k, baseM, 1, 0));
        DataCopy(b1, wGm[col * k + kOffset], Nd2NzParams(1, baseN, baseK, 0, k, baseN, 1, 0));
        inQueueA1.EnQue(a1);
        inQueueB1.EnQue(b1);
    }

    __aicore__ inline void SplitA()
    {
        LocalTensor<int8_t> a1 = inQueueA1.DeQue<int8_t>();
        LocalTensor<int8_t> a2 = inQueueA2.AllocTensor<int8_t>();
        uint32_t mBlocks = baseM / 16;
        uint32_t kBlocks = baseK / 32;
        for (uint32_t i = 0; i < mBlocks; i++) {
            LoadData2DParams params;
            params.repeatTimes = kBlocks;
            params.srcStride = mBlocks;
            LoadData(a2[i * 16 * baseK], a1[i * 16 * 32], params);
        }
        inQueueA2.EnQue(a2);
        inQueueA1.FreeTensor(a1);
    }

    __aicore__ inline void SplitB()
    {
        LocalTensor<int8_t> b1 = inQueueB1.DeQue<int8_t>();
        LocalTensor<int8_t> b2 = inQueueB2.AllocTensor<int8_t>();
        uint32_t kBlocks = baseK / 32;
        uint32_t nBlocks = baseN / 16;
        for (uint32_t i = 0; i < kBlocks; i++) {
            LoadData2DParams params;
            params.repeatTimes = nBlocks;
            params.srcStride = 1;
            LoadData(b2[i * 32 * baseN], b1[i * 32 * baseN], params);
        }
        inQueueB2.EnQue(b2);
        inQueueB1.FreeTensor(b1);
    }

    __aicore__ inline void Compute(const LocalTensor<int32_t>& c1, bool first)
    {
        LocalTensor<int8_t> a2 = inQueueA2.DeQue<int8_t>();
        LocalTensor<int8_t> b2 = inQueueB2.DeQue<int8_t>();
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
        LocalTensor<int32_t> c1 = outQueueCO1.DeQue<int32_t>();
        FixpipeParamsV220 params;
        params.nSize = baseN;
        params.mSize = baseM;
        params.srcStride = baseM;
        params.dstStride = n;
        params.quantPre = QuantMode_t::DEQF16;
        float s = scale;
        params.deqScalar = static_cast<uint64_t>(*reinterpret_cast<int32_t*>(&s));
        Fixpipe(cGm[row * n + col], c1, params);
        outQueueCO1.FreeTensor(c1);
    }

    TPipe pipe;
    TQue<TPosition::A1, 1> inQueueA1;
    TQue<TPosition::B1, 1> inQueueB1;
    TQue<TPosition::A2, 1> inQueueA2;
    TQue<TPosition::B2, 1> inQueueB2;
    TQue<TPosition::CO1, 1> outQueueCO1;
    GlobalTensor<int8_t> aGm;
    GlobalTensor<int8_t> wGm;
    GlobalTensor<half> cGm;
    uint32_t m = 0;
    uint32_t n = 0;
    uint32_t k = 0;
    uint32_t baseM = 0;
    uint32_t baseN = 0;
    uint32_t baseK = 0;
    float scale = 0;
};

extern "C" __global__ __aicore__ void matmul_int8_dequant_custom(GM_ADDR a, GM_ADDR w, GM_ADDR c,
                                                                GM_ADDR workspace, GM_ADDR tiling)
{
    KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_AIC_ONLY);
    GET_TILING_DATA(tilingData, tiling);
    KernelMatmulInt8 op;
    op.Init(a, w, c, tilingData.m, tilingData.n, tilingData.k, tilingData.baseM, tilingData.baseN,
            tilingData.baseK, tilingData.l1BufferNum, tilingData.scale);
    op.Process();
}
