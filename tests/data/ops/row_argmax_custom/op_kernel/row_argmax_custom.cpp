// Test operator kernel: values[r] = max(x[r, :]), indices[r] = its first index, through
// ReduceMax with calIndex (the index comes back in the bits of the second element). A core's
// results are gathered in UB and written with one DataCopyPad (their size is not 32-byte whole).
#include "kernel_operator.h"

namespace RowArgmax {
using namespace AscendC;

class Kernel {
public:
    __aicore__ inline Kernel() {}
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR values, GM_ADDR indices,
                                const RowArgmaxCustomTilingData& tiling)
    {
        numCol_ = tiling.numCol;
        rows_ = GetBlockIdx() == GetBlockNum() - 1 ? tiling.rowsLastCore : tiling.rowsPerCore;
        const uint64_t row0 = static_cast<uint64_t>(GetBlockIdx()) * tiling.rowsPerCore;
        xGm_.SetGlobalBuffer((__gm__ float*)x + row0 * numCol_, rows_ * numCol_);
        valuesGm_.SetGlobalBuffer((__gm__ float*)values + row0, rows_);
        indicesGm_.SetGlobalBuffer((__gm__ int32_t*)indices + row0, rows_);
        pipe_.InitBuffer(inQueue_, 2, numCol_ * sizeof(float));
        pipe_.InitBuffer(valuesQueue_, 1, AlignUp(rows_, 8) * sizeof(float));
        pipe_.InitBuffer(indicesQueue_, 1, AlignUp(rows_, 8) * sizeof(int32_t));
        pipe_.InitBuffer(resultBuf_, 8 * sizeof(float));
        pipe_.InitBuffer(workBuf_, numCol_ * sizeof(float));
    }
    __aicore__ inline void Process()
    {
        LocalTensor<float> values = valuesQueue_.AllocTensor<float>();
        LocalTensor<int32_t> indices = indicesQueue_.AllocTensor<int32_t>();
        LocalTensor<float> result = resultBuf_.Get<float>();
        LocalTensor<float> work = workBuf_.Get<float>();
        for (uint32_t r = 0; r < rows_; ++r) {
            LocalTensor<float> xLocal = inQueue_.AllocTensor<float>();
            DataCopy(xLocal, xGm_[r * numCol_], numCol_);
            inQueue_.EnQue(xLocal);
            xLocal = inQueue_.DeQue<float>();
            ReduceMax<float>(result, xLocal, work, numCol_, true);
            inQueue_.FreeTensor(xLocal);
            event_t vToS = static_cast<event_t>(GetTPipePtr()->FetchEventID(HardEvent::V_S));
            SetFlag<HardEvent::V_S>(vToS);
            WaitFlag<HardEvent::V_S>(vToS);
            const float maxValue = result.GetValue(0);
            const float indexBits = result.GetValue(1);
            values.SetValue(r, maxValue);
            indices.SetValue(r, static_cast<int32_t>(*reinterpret_cast<const uint32_t*>(&indexBits)));
            event_t sToV = static_cast<event_t>(GetTPipePtr()->FetchEventID(HardEvent::S_V));
            SetFlag<HardEvent::S_V>(sToV);
            WaitFlag<HardEvent::S_V>(sToV);
        }
        valuesQueue_.EnQue(values);
        indicesQueue_.EnQue(indices);
        values = valuesQueue_.DeQue<float>();
        indices = indicesQueue_.DeQue<int32_t>();
        DataCopyExtParams copyParams{1, static_cast<uint32_t>(rows_ * sizeof(float)), 0, 0, 0};
        DataCopyPad(valuesGm_, values, copyParams);
        DataCopyPad(indicesGm_, indices, copyParams);
        valuesQueue_.FreeTensor(values);
        indicesQueue_.FreeTensor(indices);
    }

private:
    TPipe pipe_;
    TQue<QuePosition::VECIN, 2> inQueue_;
    TQue<QuePosition::VECOUT, 1> valuesQueue_;
    TQue<QuePosition::VECOUT, 1> indicesQueue_;
    TBuf<TPosition::VECCALC> resultBuf_;
    TBuf<TPosition::VECCALC> workBuf_;
    GlobalTensor<float> xGm_;
    GlobalTensor<float> valuesGm_;
    GlobalTensor<int32_t> indicesGm_;
    uint32_t numCol_ = 0;
    uint32_t rows_ = 0;
};
}  // namespace RowArgmax

extern "C" __global__ __aicore__ void row_argmax_custom(GM_ADDR x, GM_ADDR values, GM_ADDR indices,
                                                        GM_ADDR workspace, GM_ADDR tiling)
{
    GET_TILING_DATA(tilingData, tiling);
    RowArgmax::Kernel op;
    op.Init(x, values, indices, tilingData);
    op.Process();
}
