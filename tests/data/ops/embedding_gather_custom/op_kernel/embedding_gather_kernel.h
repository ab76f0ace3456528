// Test operator kernel class: each core reads its block of int64 indices into UB once, then
// copies one table row per index through a double-buffered VECIN->VECOUT queue. A row's GM is
// viewed through a GlobalTensor set to the row's address, as public lookup kernels do.
#ifndef EMBEDDING_GATHER_KERNEL_H
#define EMBEDDING_GATHER_KERNEL_H

#include <cstdint>

#include "kernel_operator.h"

namespace EmbeddingGather {
using namespace AscendC;

constexpr uint32_t BUFFER_NUM = 2;
constexpr uint32_t INDEX_ALIGN = 4;  // int64 indices per 32-byte block

template <typename T>
class GatherKernel {
public:
    __aicore__ inline GatherKernel() {}

    __aicore__ inline void Init(GM_ADDR table, GM_ADDR indices, GM_ADDR out, uint32_t rows, uint32_t dim,
                                uint32_t rowsPerCore)
    {
        dim_ = dim;
        const uint32_t start = GetBlockIdx() * rowsPerCore;
        count_ = start >= rows ? 0 : (rows - start < rowsPerCore ? rows - start : rowsPerCore);
        tableGm_.SetGlobalBuffer((__gm__ T*)table);
        indicesGm_.SetGlobalBuffer((__gm__ int64_t*)indices + start, count_);
        outGm_.SetGlobalBuffer((__gm__ T*)out + static_cast<uint64_t>(start) * dim, count_ * dim);
        pipe_.InitBuffer(indexBuf_, AlignUp(rowsPerCore, INDEX_ALIGN) * sizeof(int64_t));
        pipe_.InitBuffer(rowQueue_, BUFFER_NUM, AlignUp(dim, 32 / sizeof(T)) * sizeof(T));
    }

    __aicore__ inline void Process()
    {
        if (count_ == 0) {
            return;
        }
        LocalTensor<int64_t> indexLocal = indexBuf_.Get<int64_t>();
        DataCopyExtParams indexParams{1, static_cast<uint32_t>(count_ * sizeof(int64_t)), 0, 0, 0};
        DataCopyPad(indexLocal, indicesGm_, indexParams, DataCopyPadExtParams<int64_t>{false, 0, 0, 0});
        SetFlag<HardEvent::MTE2_S>(EVENT_ID0);
        WaitFlag<HardEvent::MTE2_S>(EVENT_ID0);
        const DataCopyExtParams rowParams{1, static_cast<uint32_t>(dim_ * sizeof(T)), 0, 0, 0};
#pragma bisheng auto_sync parallel
        for (uint32_t i = 0; i < count_; ++i) {
            const int64_t row = indexLocal.GetValue(i);
            GlobalTensor<T> rowGm;
            rowGm.SetGlobalBuffer((__gm__ T*)tableGm_[row * dim_].GetPhyAddr(), dim_);
            LocalTensor<T> rowLocal = rowQueue_.template AllocTensor<T>();
#if __CCE_AICORE__ == 220
            DataCopyPad(rowLocal, rowGm, rowParams, DataCopyPadExtParams<T>{false, 0, 0, 0});
#else
            DataCopy(rowLocal, rowGm, AlignUp(dim_, 32 / sizeof(T)));
#endif
            rowQueue_.EnQue(rowLocal);
            rowLocal = rowQueue_.template DeQue<T>();
            DataCopyPad(outGm_[static_cast<uint64_t>(i) * dim_], rowLocal, rowParams);
            rowQueue_.FreeTensor(rowLocal);
        }
    }

private:
    TPipe pipe_;
    TBuf<TPosition::VECCALC> indexBuf_;
    TQueBind<TPosition::VECIN, TPosition::VECOUT, BUFFER_NUM> rowQueue_;
    GlobalTensor<T> tableGm_;
    GlobalTensor<T> outGm_;
    GlobalTensor<int64_t> indicesGm_;
    uint32_t dim_ = 0;
    uint32_t count_ = 0;
};
}  // namespace EmbeddingGather

#endif  // EMBEDDING_GATHER_KERNEL_H
