// Test operator kernel class: a core reads its segments' offsets once, then reduces each
// segment in chunks (ReduceSum on the vector unit, the partial sums added on the scalar unit)
// and writes its sums at the end.
#ifndef SEGMENT_SUM_KERNEL_H
#define SEGMENT_SUM_KERNEL_H

#include <cstdint>

#include "kernel_operator.h"

namespace SegmentSum {
using namespace AscendC;

constexpr uint32_t BUFFER_NUM = 2;
constexpr uint32_t CHUNK = 1024;  // values reduced at once

template <typename T>
class SegmentSumKernel {
public:
    __aicore__ inline SegmentSumKernel() {}

    __aicore__ inline void Init(GM_ADDR values, GM_ADDR offsets, GM_ADDR out, uint32_t segments,
                                uint32_t segmentsPerCore)
    {
        const uint32_t start = GetBlockIdx() * segmentsPerCore;
        count_ = start >= segments ? 0 : (segments - start < segmentsPerCore ? segments - start : segmentsPerCore);
        valuesGm_.SetGlobalBuffer((__gm__ T*)values);
        offsetsGm_.SetGlobalBuffer((__gm__ int32_t*)offsets + start, count_ + 1);
        outGm_.SetGlobalBuffer((__gm__ T*)out + start, count_);
        pipe_.InitBuffer(offsetsBuf_, AlignUp(segmentsPerCore + 1, 8) * sizeof(int32_t));
        pipe_.InitBuffer(sumsBuf_, AlignUp(segmentsPerCore, 8) * sizeof(T));
        pipe_.InitBuffer(reducedBuf_, 32);
        pipe_.InitBuffer(workBuf_, CHUNK * sizeof(T));
        pipe_.InitBuffer(valuesQueue_, BUFFER_NUM, CHUNK * sizeof(T));
    }

    __aicore__ inline void Process()
    {
        if (count_ == 0) {
            return;
        }
        LocalTensor<int32_t> offsets = offsetsBuf_.Get<int32_t>();
        DataCopyPad(offsets, offsetsGm_, DataCopyExtParams{1, (count_ + 1) * 4, 0, 0, 0},
                    DataCopyPadExtParams<int32_t>{false, 0, 0, 0});
        SetFlag<HardEvent::MTE2_S>(EVENT_ID0);
        WaitFlag<HardEvent::MTE2_S>(EVENT_ID0);
        LocalTensor<T> sums = sumsBuf_.Get<T>();
        LocalTensor<T> reduced = reducedBuf_.Get<T>();
        LocalTensor<T> work = workBuf_.Get<T>();
        for (uint32_t s = 0; s < count_; ++s) {
            const int32_t begin = offsets.GetValue(s);
            const int32_t end = offsets.GetValue(s + 1);
            T acc = 0;
            for (int32_t b = begin; b < end; b += CHUNK) {
                const uint32_t n = static_cast<uint32_t>(end - b < static_cast<int32_t>(CHUNK) ? end - b : CHUNK);
                LocalTensor<T> chunk = valuesQueue_.template AllocTensor<T>();
                DataCopyPad(chunk, valuesGm_[b], DataCopyExtParams{1, static_cast<uint32_t>(n * sizeof(T)), 0, 0, 0},
                            DataCopyPadExtParams<T>{false, 0, 0, 0});
                valuesQueue_.EnQue(chunk);
                chunk = valuesQueue_.template DeQue<T>();
                ReduceSum<T>(reduced, chunk, work, n);
                valuesQueue_.FreeTensor(chunk);
                SetFlag<HardEvent::V_S>(EVENT_ID0);
                WaitFlag<HardEvent::V_S>(EVENT_ID0);
                acc += reduced.GetValue(0);
            }
            sums.SetValue(s, acc);
        }
        SetFlag<HardEvent::S_MTE3>(EVENT_ID0);
        WaitFlag<HardEvent::S_MTE3>(EVENT_ID0);
        DataCopyPad(outGm_, sums, DataCopyExtParams{1, static_cast<uint32_t>(count_ * sizeof(T)), 0, 0, 0});
    }

private:
    TPipe pipe_;
    TBuf<TPosition::VECCALC> offsetsBuf_;
    TBuf<TPosition::VECCALC> sumsBuf_;
    TBuf<TPosition::VECCALC> reducedBuf_;
    TBuf<TPosition::VECCALC> workBuf_;
    TQue<QuePosition::VECIN, BUFFER_NUM> valuesQueue_;
    GlobalTensor<T> valuesGm_;
    GlobalTensor<int32_t> offsetsGm_;
    GlobalTensor<T> outGm_;
    uint32_t count_ = 0;
};
}  // namespace SegmentSum

#endif  // SEGMENT_SUM_KERNEL_H
