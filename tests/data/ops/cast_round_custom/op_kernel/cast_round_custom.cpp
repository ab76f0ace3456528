// Test operator kernel: y = Cast<int32>(x) in the round mode the tiling key names. Each core
// takes perCoreLength elements (the last core the rest) in tiles of tileLength; the last tile of
// the last core may end inside a 32-byte block, so it moves with DataCopyPad.
#include "kernel_operator.h"
using namespace AscendC;

template <RoundMode MODE>
class KernelCastRound {
public:
    __aicore__ inline KernelCastRound() {}
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, const CastRoundCustomTilingData& tiling)
    {
        const uint64_t start = static_cast<uint64_t>(GetBlockIdx()) * tiling.perCoreLength;
        length_ = static_cast<uint32_t>(tiling.totalLength - start < tiling.perCoreLength
                                            ? tiling.totalLength - start
                                            : tiling.perCoreLength);
        tileLength_ = tiling.tileLength;
        xGm_.SetGlobalBuffer((__gm__ float*)x + start, length_);
        yGm_.SetGlobalBuffer((__gm__ int32_t*)y + start, length_);
        pipe_.InitBuffer(inQueue_, 2, tileLength_ * sizeof(float));
        pipe_.InitBuffer(outQueue_, 2, tileLength_ * sizeof(int32_t));
    }
    __aicore__ inline void Process()
    {
        for (uint32_t done = 0; done < length_; done += tileLength_) {
            const uint32_t count = length_ - done < tileLength_ ? length_ - done : tileLength_;
            LocalTensor<float> xLocal = inQueue_.AllocTensor<float>();
            DataCopyExtParams copyIn{1, static_cast<uint32_t>(count * sizeof(float)), 0, 0, 0};
            DataCopyPadExtParams<float> padParams{false, 0, 0, 0};
            DataCopyPad(xLocal, xGm_[done], copyIn, padParams);
            inQueue_.EnQue(xLocal);
            xLocal = inQueue_.DeQue<float>();
            LocalTensor<int32_t> yLocal = outQueue_.AllocTensor<int32_t>();
            Cast(yLocal, xLocal, MODE, count);
            outQueue_.EnQue(yLocal);
            inQueue_.FreeTensor(xLocal);
            yLocal = outQueue_.DeQue<int32_t>();
            DataCopyExtParams copyOut{1, static_cast<uint32_t>(count * sizeof(int32_t)), 0, 0, 0};
            DataCopyPad(yGm_[done], yLocal, copyOut);
            outQueue_.FreeTensor(yLocal);
        }
    }

private:
    TPipe pipe_;
    TQue<QuePosition::VECIN, 2> inQueue_;
    TQue<QuePosition::VECOUT, 2> outQueue_;
    GlobalTensor<float> xGm_;
    GlobalTensor<int32_t> yGm_;
    uint32_t length_ = 0;
    uint32_t tileLength_ = 0;
};

template <RoundMode MODE>
__aicore__ inline void RunCastRound(GM_ADDR x, GM_ADDR y, const CastRoundCustomTilingData& tiling)
{
    KernelCastRound<MODE> op;
    op.Init(x, y, tiling);
    op.Process();
}

extern "C" __global__ __aicore__ void cast_round_custom(GM_ADDR x, GM_ADDR y, GM_ADDR workspace,
                                                        GM_ADDR tiling)
{
    GET_TILING_DATA(tilingData, tiling);
    if (TILING_KEY_IS(1)) {
        RunCastRound<RoundMode::CAST_RINT>(x, y, tilingData);
    } else if (TILING_KEY_IS(2)) {
        RunCastRound<RoundMode::CAST_FLOOR>(x, y, tilingData);
    } else if (TILING_KEY_IS(3)) {
        RunCastRound<RoundMode::CAST_CEIL>(x, y, tilingData);
    } else if (TILING_KEY_IS(4)) {
        RunCastRound<RoundMode::CAST_ROUND>(x, y, tilingData);
    } else if (TILING_KEY_IS(5)) {
        RunCastRound<RoundMode::CAST_TRUNC>(x, y, tilingData);
    }
}
