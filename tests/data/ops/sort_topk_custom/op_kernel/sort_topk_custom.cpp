// Test operator kernel: per row, the column indices 0..C-1 by CreateVecIndex, a full Sort of the
// (score, index) pairs (largest first), Extract back into values and indices, and the first k of
// each written by DataCopyPad (k elements are not a whole block).
#include "kernel_operator.h"

namespace SortTopk {
using namespace AscendC;
constexpr uint32_t SORT_REPEAT_ELEMS = 32;

class Kernel {
public:
    __aicore__ inline Kernel() {}
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR values, GM_ADDR indices,
                                const SortTopkCustomTilingData& tiling)
    {
        numCol_ = tiling.numCol;
        k_ = tiling.k;
        rows_ = GetBlockIdx() == GetBlockNum() - 1 ? tiling.rowsLastCore : tiling.rowsPerCore;
        const uint64_t row0 = static_cast<uint64_t>(GetBlockIdx()) * tiling.rowsPerCore;
        xGm_.SetGlobalBuffer((__gm__ float*)x + row0 * numCol_, rows_ * numCol_);
        valuesGm_.SetGlobalBuffer((__gm__ float*)values + row0 * k_, rows_ * k_);
        indicesGm_.SetGlobalBuffer((__gm__ int32_t*)indices + row0 * k_, rows_ * k_);
        pipe_.InitBuffer(inQueue_, 2, numCol_ * sizeof(float));
        pipe_.InitBuffer(valuesQueue_, 2, numCol_ * sizeof(float));
        pipe_.InitBuffer(indicesQueue_, 2, numCol_ * sizeof(uint32_t));
        pipe_.InitBuffer(indexBuf_, numCol_ * sizeof(uint32_t));
        pipe_.InitBuffer(sortedBuf_, numCol_ * 2 * sizeof(float));
        pipe_.InitBuffer(tmpBuf_, numCol_ * 2 * sizeof(float) + tiling.sortTmpSize);
    }
    __aicore__ inline void Process()
    {
        LocalTensor<int32_t> index = indexBuf_.Get<int32_t>();
        CreateVecIndex(index, 0, numCol_);
        const int32_t repeats = static_cast<int32_t>(numCol_ / SORT_REPEAT_ELEMS);
        for (uint32_t r = 0; r < rows_; ++r) {
            LocalTensor<float> xLocal = inQueue_.AllocTensor<float>();
            DataCopy(xLocal, xGm_[r * numCol_], numCol_);
            inQueue_.EnQue(xLocal);
            xLocal = inQueue_.DeQue<float>();

            LocalTensor<float> sorted = sortedBuf_.Get<float>();
            LocalTensor<float> tmp = tmpBuf_.Get<float>();
            Sort<float, true>(sorted, xLocal, index.ReinterpretCast<uint32_t>(), tmp, repeats);
            inQueue_.FreeTensor(xLocal);
            PipeBarrier<PIPE_V>();

            LocalTensor<float> values = valuesQueue_.AllocTensor<float>();
            LocalTensor<uint32_t> indices = indicesQueue_.AllocTensor<uint32_t>();
            Extract(values, indices, sorted, repeats);
            valuesQueue_.EnQue(values);
            indicesQueue_.EnQue(indices);
            values = valuesQueue_.DeQue<float>();
            indices = indicesQueue_.DeQue<uint32_t>();
            DataCopyExtParams copyOut{1, static_cast<uint32_t>(k_ * sizeof(float)), 0, 0, 0};
            DataCopyPad(valuesGm_[r * k_], values, copyOut);
            DataCopyPad(indicesGm_[r * k_], indices.ReinterpretCast<int32_t>(), copyOut);
            valuesQueue_.FreeTensor(values);
            indicesQueue_.FreeTensor(indices);
        }
    }

private:
    TPipe pipe_;
    TQue<QuePosition::VECIN, 2> inQueue_;
    TQue<QuePosition::VECOUT, 2> valuesQueue_;
    TQue<QuePosition::VECOUT, 2> indicesQueue_;
    TBuf<TPosition::VECCALC> indexBuf_;
    TBuf<TPosition::VECCALC> sortedBuf_;
    TBuf<TPosition::VECCALC> tmpBuf_;
    GlobalTensor<float> xGm_;
    GlobalTensor<float> valuesGm_;
    GlobalTensor<int32_t> indicesGm_;
    uint32_t numCol_ = 0;
    uint32_t k_ = 0;
    uint32_t rows_ = 0;
};
}  // namespace SortTopk

extern "C" __global__ __aicore__ void sort_topk_custom(GM_ADDR x, GM_ADDR values, GM_ADDR indices,
                                                       GM_ADDR workspace, GM_ADDR tiling)
{
    GET_TILING_DATA(tilingData, tiling);
    SortTopk::Kernel op;
    op.Init(x, values, indices, tilingData);
    op.Process();
}
