#include "kernel_operator.h"

using namespace AscendC;

// GroupNorm of x [batch, channels, spatial...] (float): each (sample, group) normalizes its
// channelsPerGroup * spatial elements with their own mean and variance, then channel c is scaled
// by gamma[c] and shifted by beta[c]. A core owns whole groups; a group is read twice, once to
// accumulate sum and sum of squares tile by tile, once to normalize.
class KernelGroupNorm {
public:
    __aicore__ inline KernelGroupNorm() {}
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR gamma, GM_ADDR beta, GM_ADDR y, uint32_t groupCount,
                                uint32_t groups, uint32_t channelsPerGroup, uint32_t spatial, uint32_t groupsPerCore,
                                uint32_t tileLength, float epsilon)
    {
        groupStart = GetBlockIdx() * groupsPerCore;
        groupNum = groupStart < groupCount ? groupCount - groupStart : 0;
        if (groupNum > groupsPerCore) {
            groupNum = groupsPerCore;
        }
        this->groups = groups;
        this->channelsPerGroup = channelsPerGroup;
        this->spatial = spatial;
        this->tileLength = tileLength;
        this->epsilon = epsilon;
        groupLength = channelsPerGroup * spatial;
        xGm.SetGlobalBuffer((__gm__ float*)x, static_cast<uint64_t>(groupCount) * groupLength);
        yGm.SetGlobalBuffer((__gm__ float*)y, static_cast<uint64_t>(groupCount) * groupLength);
        gammaGm.SetGlobalBuffer((__gm__ float*)gamma, groups * channelsPerGroup);
        betaGm.SetGlobalBuffer((__gm__ float*)beta, groups * channelsPerGroup);
        pipe.InitBuffer(inQueueX, 1, tileLength * sizeof(float));
        pipe.InitBuffer(outQueueY, 1, tileLength * sizeof(float));
        pipe.InitBuffer(workBuf, tileLength * sizeof(float));
        pipe.InitBuffer(statBuf, 8 * sizeof(float));
    }

    __aicore__ inline void Process()
    {
        for (uint32_t g = 0; g < groupNum; g++) {
            uint32_t group = groupStart + g;
            uint64_t base = static_cast<uint64_t>(group) * groupLength;
            float mean = 0;
            float rstd = 0;
            Statistics(base, mean, rstd);
            uint32_t firstChannel = (group % groups) * channelsPerGroup;
            for (uint32_t c = 0; c < channelsPerGroup; c++) {
                float scale = gammaGm.GetValue(firstChannel + c) * rstd;
                float shift = betaGm.GetValue(firstChannel + c) - mean * scale;
                Normalize(base + static_cast<uint64_t>(c) * spatial, scale, shift);
            }
        }
    }

private:
    __aicore__ inline float SumToScalar(LocalTensor<float>& src, uint32_t count)
    {
        LocalTensor<float> work = workBuf.Get<float>();
        LocalTensor<float> stat = statBuf.Get<float>();
        ReduceSum(stat, src, work, count);
        PipeBarrier<PIPE_ALL>();
        float value = stat.GetValue(0);
        PipeBarrier<PIPE_ALL>();
        return value;
    }

    __aicore__ inline void Statistics(uint64_t base, float& mean, float& rstd)
    {
        float sum = 0;
        float squareSum = 0;
        uint32_t tileNum = (groupLength + tileLength - 1) / tileLength;
        for (uint32_t i = 0; i < tileNum; i++) {
            uint32_t count = (i + 1 == tileNum) ? groupLength - i * tileLength : tileLength;
            LocalTensor<float> xLocal = inQueueX.AllocTensor<float>();
            DataCopy(xLocal, xGm[base + i * tileLength], count);
            inQueueX.EnQue(xLocal);
            xLocal = inQueueX.DeQue<float>();
            sum += SumToScalar(xLocal, count);
            Mul(xLocal, xLocal, xLocal, count);
            PipeBarrier<PIPE_V>();
            squareSum += SumToScalar(xLocal, count);
            inQueueX.FreeTensor(xLocal);
        }
        mean = sum / static_cast<float>(groupLength);
        float variance = squareSum / static_cast<float>(groupLength) - mean * mean;
        LocalTensor<float> stat = statBuf.Get<float>();
        Duplicate(stat, variance + epsilon, 8);
        PipeBarrier<PIPE_V>();
        Sqrt(stat, stat, 8);
        PipeBarrier<PIPE_ALL>();
        rstd = 1.0f / stat.GetValue(0);
        PipeBarrier<PIPE_ALL>();
    }

    __aicore__ inline void Normalize(uint64_t base, float scale, float shift)
    {
        uint32_t tileNum = (spatial + tileLength - 1) / tileLength;
        for (uint32_t i = 0; i < tileNum; i++) {
            uint32_t count = (i + 1 == tileNum) ? spatial - i * tileLength : tileLength;
            LocalTensor<float> xLocal = inQueueX.AllocTensor<float>();
            DataCopy(xLocal, xGm[base + i * tileLength], count);
            inQueueX.EnQue(xLocal);
            xLocal = inQueueX.DeQue<float>();
            LocalTensor<float> yLocal = outQueueY.AllocTensor<float>();
            Muls(yLocal, xLocal, scale, count);
            PipeBarrier<PIPE_V>();
            Adds(yLocal, yLocal, shift, count);
            outQueueY.EnQue(yLocal);
            inQueueX.FreeTensor(xLocal);
            yLocal = outQueueY.DeQue<float>();
            DataCopy(yGm[base + i * tileLength], yLocal, count);
            outQueueY.FreeTensor(yLocal);
        }
    }

private:
    TPipe pipe;
    TQue<QuePosition::VECIN, 1> inQueueX;
    TQue<QuePosition::VECOUT, 1> outQueueY;
    TBuf<QuePosition::VECCALC> workBuf;
    TBuf<QuePosition::VECCALC> statBuf;
    GlobalTensor<float> xGm;
    GlobalTensor<float> yGm;
    GlobalTensor<float> gammaGm;
    GlobalTensor<float> betaGm;
    uint32_t groupStart = 0;
    uint32_t groupNum = 0;
    uint32_t groups = 0;
    uint32_t channelsPerGroup = 0;
    uint32_t spatial = 0;
    uint32_t groupLength = 0;
    uint32_t tileLength = 0;
    float epsilon = 0;
};

extern "C" __global__ __aicore__ void group_norm_custom(GM_ADDR x, GM_ADDR gamma, GM_ADDR beta, GM_ADDR y,
                                                        GM_ADDR workspace, GM_ADDR tiling)
{
    GET_TILING_DATA(tilingData, tiling);
    KernelGroupNorm op;
    op.Init(x, gamma, beta, y, tilingData.groupCount, tilingData.groups, tilingData.channelsPerGroup,
            tilingData.spatial, tilingData.groupsPerCore, tilingData.tileLength, tilingData.epsilon);
    op.Process();
}
