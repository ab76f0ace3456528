// Test operator kernel: y = x * rsqrt(mean(x^2) + epsilon) * gamma per row, in float (half data
// is widened first and rounded back at the end). Each core takes rowsPerCore rows (the last core
// the rest) in loops of rowsPerLoop rows, the last loop shorter.
#include "kernel_operator.h"
#include "rms_norm_base.h"

namespace RmsNormCustom {
template <typename T>
class KernelRmsNorm {
public:
    __aicore__ inline KernelRmsNorm() {}
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR gamma, GM_ADDR y,
                                const RmsNormCustomTilingData& tiling)
    {
        numCol_ = tiling.numCol;
        rowsPerLoop_ = tiling.rowsPerLoop;
        epsilon_ = tiling.epsilon;
        avgFactor_ = tiling.avgFactor;
        const uint32_t blockIdx = GetBlockIdx();
        rows_ = blockIdx == GetBlockNum() - 1 ? tiling.rowsLastCore : tiling.rowsPerCore;
        const uint64_t offset = static_cast<uint64_t>(tiling.rowsPerCore) * blockIdx * numCol_;
        xGm_.SetGlobalBuffer((__gm__ T*)x + offset, rows_ * numCol_);
        yGm_.SetGlobalBuffer((__gm__ T*)y + offset, rows_ * numCol_);
        gammaGm_.SetGlobalBuffer((__gm__ T*)gamma, numCol_);

        const uint32_t loopElems = rowsPerLoop_ * numCol_;
        pipe_.InitBuffer(inQueueX_, BUFFER_NUM, loopElems * sizeof(T));
        pipe_.InitBuffer(outQueueY_, BUFFER_NUM, loopElems * sizeof(T));
        pipe_.InitBuffer(inQueueGamma_, 1, numCol_ * sizeof(T));
        pipe_.InitBuffer(gammaBuf_, numCol_ * sizeof(float));
        pipe_.InitBuffer(xFloatBuf_, loopElems * sizeof(float));
        pipe_.InitBuffer(sqBuf_, numCol_ * sizeof(float));
        pipe_.InitBuffer(workBuf_, numCol_ * sizeof(float));
        pipe_.InitBuffer(sumBuf_, rowsPerLoop_ * FLOAT_PER_BLOCK * sizeof(float));
    }

    __aicore__ inline void Process()
    {
        LoadGamma();
        for (uint32_t done = 0; done < rows_; done += rowsPerLoop_) {
            const uint32_t rows = Min(rowsPerLoop_, rows_ - done);
            CopyIn(done, rows);
            Compute(rows);
            CopyOut(done, rows);
        }
    }

private:
    __aicore__ inline void LoadGamma()
    {
        LocalTensor<T> gammaIn = inQueueGamma_.AllocTensor<T>();
        DataCopy(gammaIn, gammaGm_, numCol_);
        inQueueGamma_.EnQue(gammaIn);
        gammaIn = inQueueGamma_.DeQue<T>();
        LocalTensor<float> gamma = gammaBuf_.Get<float>();
        if constexpr (std::is_same_v<T, float>) {
            Adds(gamma, gammaIn, 0.0f, numCol_);
        } else {
            Cast(gamma, gammaIn, RoundMode::CAST_NONE, numCol_);
        }
        inQueueGamma_.FreeTensor(gammaIn);
    }

    __aicore__ inline void CopyIn(uint32_t row, uint32_t rows)
    {
        LocalTensor<T> xLocal = inQueueX_.AllocTensor<T>();
        DataCopy(xLocal, xGm_[row * numCol_], rows * numCol_);
        inQueueX_.EnQue(xLocal);
    }

    __aicore__ inline void Compute(uint32_t rows)
    {
        LocalTensor<T> xLocal = inQueueX_.DeQue<T>();
        LocalTensor<float> xFloat = xFloatBuf_.Get<float>();
        if constexpr (std::is_same_v<T, float>) {
            Adds(xFloat, xLocal, 0.0f, rows * numCol_);
        } else {
            Cast(xFloat, xLocal, RoundMode::CAST_NONE, rows * numCol_);
        }
        inQueueX_.FreeTensor(xLocal);

        LocalTensor<float> sq = sqBuf_.Get<float>();
        LocalTensor<float> work = workBuf_.Get<float>();
        LocalTensor<float> sums = sumBuf_.Get<float>();
        for (uint32_t r = 0; r < rows; ++r) {
            Mul(sq, xFloat[r * numCol_], xFloat[r * numCol_], numCol_);
            PipeBarrier<PIPE_V>();
            ReduceSum<float>(sums[r * FLOAT_PER_BLOCK], sq, work, numCol_);
            PipeBarrier<PIPE_V>();
        }
        WaitVectorForScalar();
        LocalTensor<float> gamma = gammaBuf_.Get<float>();
        for (uint32_t r = 0; r < rows; ++r) {
            const float meanSq = sums.GetValue(r * FLOAT_PER_BLOCK) * avgFactor_;
            const float rstd = 1.0f / sqrt(meanSq + epsilon_);
            Muls(xFloat[r * numCol_], xFloat[r * numCol_], rstd, numCol_);
        }
        PipeBarrier<PIPE_V>();
        for (uint32_t r = 0; r < rows; ++r) {
            Mul(xFloat[r * numCol_], xFloat[r * numCol_], gamma, numCol_);
        }
        PipeBarrier<PIPE_V>();
        WaitScalarForVector();

        LocalTensor<T> yLocal = outQueueY_.AllocTensor<T>();
        if constexpr (std::is_same_v<T, float>) {
            Adds(yLocal, xFloat, 0.0f, rows * numCol_);
        } else {
            Cast(yLocal, xFloat, RoundMode::CAST_RINT, rows * numCol_);
        }
        outQueueY_.EnQue(yLocal);
    }

    __aicore__ inline void CopyOut(uint32_t row, uint32_t rows)
    {
        LocalTensor<T> yLocal = outQueueY_.DeQue<T>();
        DataCopy(yGm_[row * numCol_], yLocal, rows * numCol_);
        outQueueY_.FreeTensor(yLocal);
    }

    TPipe pipe_;
    TQue<QuePosition::VECIN, BUFFER_NUM> inQueueX_;
    TQue<QuePosition::VECIN, 1> inQueueGamma_;
    TQue<QuePosition::VECOUT, BUFFER_NUM> outQueueY_;
    TBuf<TPosition::VECCALC> gammaBuf_;
    TBuf<TPosition::VECCALC> xFloatBuf_;
    TBuf<TPosition::VECCALC> sqBuf_;
    TBuf<TPosition::VECCALC> workBuf_;
    TBuf<TPosition::VECCALC> sumBuf_;
    GlobalTensor<T> xGm_;
    GlobalTensor<T> gammaGm_;
    GlobalTensor<T> yGm_;
    uint32_t numCol_ = 0;
    uint32_t rows_ = 0;
    uint32_t rowsPerLoop_ = 0;
    float epsilon_ = 0.0f;
    float avgFactor_ = 0.0f;
};
}  // namespace RmsNormCustom

extern "C" __global__ __aicore__ void rms_norm_custom(GM_ADDR x, GM_ADDR gamma, GM_ADDR y,
                                                      GM_ADDR workspace, GM_ADDR tiling)
{
    GET_TILING_DATA(tilingData, tiling);
    if (TILING_KEY_IS(1)) {
        RmsNormCustom::KernelRmsNorm<float> op;
        op.Init(x, gamma, y, tilingData);
        op.Process();
    } else if (TILING_KEY_IS(2)) {
        RmsNormCustom::KernelRmsNorm<half> op;
        op.Init(x, gamma, y, tilingData);
        op.Process();
    }
}
