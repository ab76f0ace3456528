// Test operator kernel: y = 2x + 1. Each core takes perCoreLength elements (the last core the
// rest) and streams them through the UB in tiles of tileLength, the last tile shorter.
#include "kernel_operator.h"
using namespace AscendC;

namespace {
constexpr int32_t BUFFER_NUM = 2;
}

class KernelAffineSplit {
public:
    __aicore__ inline KernelAffineSplit() {}
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, uint32_t perCoreLength,
                                uint32_t lastCoreLength, uint32_t tileLength)
    {
        const bool last = GetBlockIdx() == GetBlockNum() - 1;
        length_ = last ? lastCoreLength : perCoreLength;
        tileLength_ = tileLength;
        xGm_.SetGlobalBuffer((__gm__ float*)x + perCoreLength * GetBlockIdx(), length_);
        yGm_.SetGlobalBuffer((__gm__ float*)y + perCoreLength * GetBlockIdx(), length_);
        pipe_.InitBuffer(inQueue_, BUFFER_NUM, tileLength_ * sizeof(float));
        pipe_.InitBuffer(outQueue_, BUFFER_NUM, tileLength_ * sizeof(float));
    }
    __aicore__ inline void Process()
    {
        for (uint32_t done = 0; done < length_; done += tileLength_) {
            const uint32_t count = length_ - done < tileLength_ ? length_ - done : tileLength_;
            LocalTensor<float> in = inQueue_.AllocTensor<float>();
            DataCopy(in, xGm_[done], count);
            inQueue_.EnQue(in);
            LocalTensor<float> src = inQueue_.DeQue<float>();
            LocalTensor<float> dst = outQueue_.AllocTensor<float>();
            Muls(dst, src, 2.0f, count);
            Adds(dst, dst, 1.0f, count);
            outQueue_.EnQue(dst);
            inQueue_.FreeTensor(src);
            LocalTensor<float> out = outQueue_.DeQue<float>();
            DataCopy(yGm_[done], out, count);
            outQueue_.FreeTensor(out);
        }
    }

private:
    TPipe pipe_;
    TQue<QuePosition::VECIN, BUFFER_NUM> inQueue_;
    TQue<QuePosition::VECOUT, BUFFER_NUM> outQueue_;
    GlobalTensor<float> xGm_;
    GlobalTensor<float> yGm_;
    uint32_t length_ = 0;
    uint32_t tileLength_ = 0;
};

extern "C" __global__ __aicore__ void affine_split_custom(GM_ADDR x, GM_ADDR y, GM_ADDR workspace,
                                                          GM_ADDR tiling)
{
    GET_TILING_DATA(tilingData, tiling);
    KernelAffineSplit op;
    op.Init(x, y, tilingData.perCoreLength, tilingData.lastCoreLength, tilingData.tileLength);
    op.Process();
}
