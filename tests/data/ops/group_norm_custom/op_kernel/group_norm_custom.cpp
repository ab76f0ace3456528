// Test operator kernel: GroupNorm. Per group: the mean and the variance by ReduceSum, read on
// the scalar unit; the normalisation by Adds/Muls; then the per-channel affine as public kernels
// write it: gamma and beta spread to one 32-byte block per channel by Brcb, and one Mul and one
// Add whose second operand has block stride 0 (each 64-float repeat, one channel, reads its
// channel's block eight times).
#include "kernel_operator.h"
using namespace AscendC;

namespace {
constexpr uint32_t FLOATS_PER_BLOCK = 8;
constexpr uint32_t FLOATS_PER_REPEAT = 64;

class KernelGroupNorm {
public:
    __aicore__ inline KernelGroupNorm() {}
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR gamma, GM_ADDR beta, GM_ADDR y,
                                const GroupNormCustomTilingData& tiling)
    {
        cg_ = tiling.channelsPerGroup;
        c_ = tiling.numChannels;
        hw_ = tiling.hw;
        eps_ = tiling.epsilon;
        groupLen_ = cg_ * hw_;
        groupsPerCore_ = tiling.groupsPerCore;
        groups_ = GetBlockIdx() == GetBlockNum() - 1 ? tiling.groupsLastCore : tiling.groupsPerCore;
        firstGroup_ = GetBlockIdx() * tiling.groupsPerCore;
        xGm_.SetGlobalBuffer((__gm__ float*)x + firstGroup_ * groupLen_, groups_ * groupLen_);
        yGm_.SetGlobalBuffer((__gm__ float*)y + firstGroup_ * groupLen_, groups_ * groupLen_);
        gammaGm_.SetGlobalBuffer((__gm__ float*)gamma, c_);
        betaGm_.SetGlobalBuffer((__gm__ float*)beta, c_);
        pipe_.InitBuffer(inQueue_, 2, groupLen_ * sizeof(float));
        pipe_.InitBuffer(outQueue_, 2, groupLen_ * sizeof(float));
        pipe_.InitBuffer(affineQueue_, 1, 2 * AlignUp(cg_, FLOATS_PER_BLOCK) * sizeof(float));
        pipe_.InitBuffer(brcbBuf_, 2 * AlignUp(cg_, FLOATS_PER_BLOCK) * FLOATS_PER_BLOCK * sizeof(float));
        pipe_.InitBuffer(sqBuf_, groupLen_ * sizeof(float));
        pipe_.InitBuffer(workBuf_, groupLen_ * sizeof(float));
        pipe_.InitBuffer(sumBuf_, 2 * FLOATS_PER_BLOCK * sizeof(float));
    }
    __aicore__ inline void Process()
    {
        for (uint32_t g = 0; g < groups_; ++g) {
            LocalTensor<float> xLocal = inQueue_.AllocTensor<float>();
            DataCopy(xLocal, xGm_[g * groupLen_], groupLen_);
            inQueue_.EnQue(xLocal);
            LoadAffine(g);
            Compute();
            LocalTensor<float> yLocal = outQueue_.DeQue<float>();
            DataCopy(yGm_[g * groupLen_], yLocal, groupLen_);
            outQueue_.FreeTensor(yLocal);
        }
    }

private:
    // gamma and beta of the group's channels, each channel's value spread over one block.
    __aicore__ inline void LoadAffine(uint32_t g)
    {
        const uint32_t channel0 = ((firstGroup_ + g) * cg_) % c_;
        const uint32_t aligned = AlignUp(cg_, FLOATS_PER_BLOCK);
        LocalTensor<float> affine = affineQueue_.AllocTensor<float>();
        DataCopyExtParams params{1, static_cast<uint32_t>(cg_ * sizeof(float)), 0, 0, 0};
        DataCopyPadExtParams<float> pad{false, 0, 0, 0};
        DataCopyPad(affine, gammaGm_[channel0], params, pad);
        DataCopyPad(affine[aligned], betaGm_[channel0], params, pad);
        affineQueue_.EnQue(affine);
        affine = affineQueue_.DeQue<float>();
        LocalTensor<float> brcb = brcbBuf_.Get<float>();
        Brcb(brcb, affine, static_cast<uint8_t>(2 * aligned / FLOATS_PER_BLOCK), {1, 8});
        affineQueue_.FreeTensor(affine);
    }

    __aicore__ inline void Compute()
    {
        LocalTensor<float> xLocal = inQueue_.DeQue<float>();
        LocalTensor<float> yLocal = outQueue_.AllocTensor<float>();
        LocalTensor<float> sq = sqBuf_.Get<float>();
        LocalTensor<float> work = workBuf_.Get<float>();
        LocalTensor<float> sums = sumBuf_.Get<float>();
        const float inv = 1.0f / static_cast<float>(groupLen_);

        ReduceSum<float>(sums, xLocal, work, groupLen_);
        event_t eventVS = static_cast<event_t>(GetTPipePtr()->FetchEventID(HardEvent::V_S));
        SetFlag<HardEvent::V_S>(eventVS);
        WaitFlag<HardEvent::V_S>(eventVS);
        const float mean = sums.GetValue(0) * inv;
        Adds(yLocal, xLocal, -mean, groupLen_);
        PipeBarrier<PIPE_V>();
        Mul(sq, yLocal, yLocal, groupLen_);
        PipeBarrier<PIPE_V>();
        ReduceSum<float>(sums[FLOATS_PER_BLOCK], sq, work, groupLen_);
        SetFlag<HardEvent::V_S>(eventVS);
        WaitFlag<HardEvent::V_S>(eventVS);
        const float rstd = 1.0f / sqrt(sums.GetValue(FLOATS_PER_BLOCK) * inv + eps_);
        Muls(yLocal, yLocal, rstd, groupLen_);
        PipeBarrier<PIPE_V>();

        LocalTensor<float> brcb = brcbBuf_.Get<float>();
        const uint32_t betaOffset = AlignUp(cg_, FLOATS_PER_BLOCK) * FLOATS_PER_BLOCK;
        BinaryRepeatParams repeat(1, 1, 0, 8, 8, 1);
        Mul(yLocal, yLocal, brcb, FLOATS_PER_REPEAT, static_cast<uint8_t>(cg_), repeat);
        PipeBarrier<PIPE_V>();
        Add(yLocal, yLocal, brcb[betaOffset], FLOATS_PER_REPEAT, static_cast<uint8_t>(cg_), repeat);
        event_t eventSV = static_cast<event_t>(GetTPipePtr()->FetchEventID(HardEvent::S_V));
        SetFlag<HardEvent::S_V>(eventSV);
        WaitFlag<HardEvent::S_V>(eventSV);
        outQueue_.EnQue(yLocal);
        inQueue_.FreeTensor(xLocal);
    }

    TPipe pipe_;
    TQue<QuePosition::VECIN, 2> inQueue_;
    TQue<QuePosition::VECIN, 1> affineQueue_;
    TQue<QuePosition::VECOUT, 2> outQueue_;
    TBuf<TPosition::VECCALC> brcbBuf_;
    TBuf<TPosition::VECCALC> sqBuf_;
    TBuf<TPosition::VECCALC> workBuf_;
    TBuf<TPosition::VECCALC> sumBuf_;
    GlobalTensor<float> xGm_;
    GlobalTensor<float> gammaGm_;
    GlobalTensor<float> betaGm_;
    GlobalTensor<float> yGm_;
    uint32_t cg_ = 0;
    uint32_t c_ = 0;
    uint32_t hw_ = 0;
    uint32_t groupLen_ = 0;
    uint32_t groups_ = 0;
    uint32_t groupsPerCore_ = 0;
    uint32_t firstGroup_ = 0;
    float eps_ = 0.0f;
};
}  // namespace

extern "C" __global__ __aicore__ void group_norm_custom(GM_ADDR x, GM_ADDR gamma, GM_ADDR beta,
                                                        GM_ADDR y, GM_ADDR workspace, GM_ADDR tiling)
{
    GET_TILING_DATA(tilingData, tiling);
    KernelGroupNorm op;
    op.Init(x, gamma, beta, y, tilingData);
    op.Process();
}
