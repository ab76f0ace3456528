#include "kernel_operator.h"

using namespace AscendC;

// c = a x b (half in, float out) on the cube. Each core takes whole row panels of c (baseM rows,
// every column), round-robin. It brings the panel's rows of a (baseM x k) into L1 once, converted
// to NZ on the way in, and keeps them there while it walks the panel's baseN-wide column tiles;
// for each tile it walks k in baseK steps: b GM -> B1 (ND -> NZ), the step's columns of the
// resident panel A1 -> A2 and B1 -> B2 (LoadData, B transposed per fractal), Mmad accumulating
// in CO1, then one Fixpipe of the tile into c.
class KernelMatmulResidentPanel {
public:
    __aicore__ inline KernelMatmulResidentPanel() {}
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
        cGm.SetGlobalBuffer((__gm__ float*)c, m * n);
        // Two L1 buffers of each: MTE2 loads the next panel while the cube finishes this one's
        // last tile, and the next K step of b while the cube multiplies.
        pipe.InitBuffer(inQueueA1, 2, baseM * k * sizeof(half));
        pipe.InitBuffer(inQueueB1, 2, baseK * baseN * sizeof(half));
        pipe.InitBuffer(inQueueA2, 1, baseM * baseK * sizeof(half));
        pipe.InitBuffer(inQueueB2, 1, baseK * baseN * sizeof(half));
        pipe.InitBuffer(outQueueCO1, 1, baseM * baseN * sizeof(float));
    }

    __aicore__ inline void Process()
    {
        uint32_t panels = m / baseM;
        uint32_t tilesN = n / baseN;
        uint32_t kSteps = k / baseK;
        for (uint32_t p = GetBlockIdx(); p < panels; p += GetBlockNum()) {
            uint32_t row = p * baseM;
            CopyInPanel(row);
            LocalTensor<half> a1 = inQueueA1.DeQue<half>();
            for (uint32_t j = 0; j < tilesN; j++) {
                uint32_t col = j * baseN;
                LocalTensor<float> c1 = outQueueCO1.AllocTensor<float>();
                for (uint32_t s = 0; s < kSteps; s++) {
                    CopyInB(col, s * baseK);
                    SplitA(a1, s * baseK);
                    SplitB();
                    Compute(c1, s == 0);
                }
                outQueueCO1.EnQue(c1);
                CopyOut(row, col);
            }
            inQueueA1.FreeTensor(a1);
        }
    }

private:
    __aicore__ inline void CopyInPanel(uint32_t row)
    {
        LocalTensor<half> a1 = inQueueA1.AllocTensor<half>();
        // baseM rows of k into NZ: k / 16 column blocks of baseM x 16.
        DataCopy(a1, aGm[row * k], Nd2NzParams(1, baseM, k, 0, k, baseM, 1, 0));
        inQueueA1.EnQue(a1);
    }

    __aicore__ inline void CopyInB(uint32_t col, uint32_t kOffset)
    {
        LocalTensor<half> b1 = inQueueB1.AllocTensor<half>();
        DataCopy(b1, bGm[kOffset * n + col], Nd2NzParams(1, baseK, baseN, 0, n, baseK, 1, 0));
        inQueueB1.EnQue(b1);
    }

    // The K step's baseK columns of the panel start at column block kOffset / 16, each block
    // baseM x 16: the same layout as a baseM x baseK block of its own.
    __aicore__ inline void SplitA(const LocalTensor<half>& a1, uint32_t kOffset)
    {
        LocalTensor<half> a2 = inQueueA2.AllocTensor<half>();
        uint32_t mBlocks = baseM / 16;
        uint32_t kBlocks = baseK / 16;
        for (uint32_t i = 0; i < mBlocks; i++) {
            LoadData2DParams params;
            params.startIndex = 0;
            params.repeatTimes = kBlocks;
            params.srcStride = mBlocks;
            params.ifTranspose = false;
            LoadData(a2[i * 16 * baseK], a1[kOffset * baseM + i * 16 * 16], params);
        }
        inQueueA2.EnQue(a2);
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
    GlobalTensor<float> cGm;
    uint32_t m = 0;
    uint32_t n = 0;
    uint32_t k = 0;
    uint32_t baseM = 0;
    uint32_t baseN = 0;
    uint32_t baseK = 0;
};

extern "C" __global__ __aicore__ void matmul_resident_panel_custom(GM_ADDR a, GM_ADDR b, GM_ADDR c,
                                                                  GM_ADDR workspace, GM_ADDR tiling)
{
    KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_AIC_ONLY);
    GET_TILING_DATA(tilingData, tiling);
    KernelMatmulResidentPanel op;
    op.Init(a, b, c, tilingData.m, tilingData.n, tilingData.k, tilingData.baseM, tilingData.baseN,
            tilingData.baseK);
    op.Process();
}
