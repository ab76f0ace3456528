// Small AscendC kernels for the text-level tests of the kernel rules, the diagnoser and the
// refiner. They follow the corpus style; compiling them is left to the integration tests.
#pragma once

namespace aopt::agent::testing {

// Queues, double buffering, count-form DataCopy and vector ops.
inline constexpr const char* kQueueKernel = R"(#include "kernel_operator.h"

using namespace AscendC;

constexpr int32_t BUFFER_NUM = 2;

class KernelAxpy {
public:
    __aicore__ inline KernelAxpy() {}
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, GM_ADDR z, uint32_t totalLength, uint32_t tileLength,
                                float alpha)
    {
        this->tileLength = tileLength;
        this->tileNum = totalLength / tileLength;
        this->alpha = alpha;
        xGm.SetGlobalBuffer((__gm__ half*)x, totalLength);
        yGm.SetGlobalBuffer((__gm__ half*)y, totalLength);
        zGm.SetGlobalBuffer((__gm__ half*)z, totalLength);
        pipe.InitBuffer(inQueueX, BUFFER_NUM, tileLength * sizeof(half));
        pipe.InitBuffer(inQueueY, bufferNum, tileLength * sizeof(half));
        pipe.InitBuffer(outQueueZ, BUFFER_NUM, tileLength * sizeof(half));
        pipe.InitBuffer(tmpBuf, tileLength * sizeof(half));
    }

    __aicore__ inline void Process()
    {
        for (uint32_t i = 0; i < tileNum; i++) {
            CopyIn(i);
            Compute();
            CopyOut(i);
        }
    }

private:
    __aicore__ inline void CopyIn(uint32_t progress)
    {
        LocalTensor<half> xLocal = inQueueX.AllocTensor<half>();
        LocalTensor<half> yLocal = inQueueY.AllocTensor<half>();
        DataCopy(xLocal, xGm[progress * tileLength], tileLength);
        DataCopy(yLocal, yGm[progress * tileLength], tileLength);
        inQueueX.EnQue(xLocal);
        inQueueY.EnQue(yLocal);
    }

    __aicore__ inline void Compute()
    {
        LocalTensor<half> xLocal = inQueueX.DeQue<half>();
        LocalTensor<half> yLocal = inQueueY.DeQue<half>();
        LocalTensor<half> zLocal = outQueueZ.AllocTensor<half>();
        LocalTensor<half> tmp = tmpBuf.Get<half>();
        Muls(tmp, xLocal, static_cast<half>(alpha), tileLength);
        PipeBarrier<PIPE_V>();
        Add(zLocal, tmp, yLocal, tileLength);
        outQueueZ.EnQue(zLocal);
        inQueueX.FreeTensor(xLocal);
        inQueueY.FreeTensor(yLocal);
    }

    __aicore__ inline void CopyOut(uint32_t progress)
    {
        LocalTensor<half> zLocal = outQueueZ.DeQue<half>();
        DataCopy(zGm[progress * tileLength], zLocal, tileLength);
        outQueueZ.FreeTensor(zLocal);
    }

private:
    TPipe pipe;
    TQue<QuePosition::VECIN, 2> inQueueX;
    TQue<QuePosition::VECIN, 2> inQueueY;
    TQue<QuePosition::VECOUT, 2> outQueueZ;
    TBuf<QuePosition::VECCALC> tmpBuf;
    GlobalTensor<half> xGm;
    GlobalTensor<half> yGm;
    GlobalTensor<half> zGm;
    uint32_t tileLength = 0;
    uint32_t tileNum = 0;
    uint32_t bufferNum = 2;
    float alpha = 0;
};
)";

// TBuf buffers ordered by fine-grained flags and a V->S handoff.
inline constexpr const char* kFlagKernel = R"(#include "kernel_operator.h"

using namespace AscendC;

class KernelRowMax {
public:
    __aicore__ inline void Process()
    {
        LocalTensor<float> xLocal = xBuf.Get<float>();
        LocalTensor<float> maxLocal = maxBuf.Get<float>();
        for (uint32_t r = 0; r < rows; r++) {
            DataCopy(xLocal, xGm[r * cols], cols);
            event_t eventMte2V = static_cast<event_t>(pipe.FetchEventID(HardEvent::MTE2_V));
            SetFlag<HardEvent::MTE2_V>(eventMte2V);
            WaitFlag<HardEvent::MTE2_V>(eventMte2V);
            ReduceMax(maxLocal, xLocal, workLocal, cols);
            event_t eventVS = static_cast<event_t>(pipe.FetchEventID(HardEvent::V_S));
            SetFlag<HardEvent::V_S>(eventVS);
            WaitFlag<HardEvent::V_S>(eventVS);
            yGm.SetValue(r, maxLocal.GetValue(0));
        }
    }

private:
    TPipe pipe;
    TBuf<QuePosition::VECCALC> xBuf;
    TBuf<QuePosition::VECCALC> maxBuf;
    LocalTensor<float> workLocal;
    GlobalTensor<float> xGm;
    GlobalTensor<float> yGm;
    uint32_t rows = 0;
    uint32_t cols = 0;
};
)";

// Plain TBuf buffers fenced by full barriers, as a naive baseline writes them.
inline constexpr const char* kBarrierKernel = R"(#include "kernel_operator.h"

using namespace AscendC;

class KernelScale {
public:
    __aicore__ inline void Process()
    {
        for (uint32_t i = 0; i < tileNum; i++) {
            LocalTensor<float> xLocal = xBuf.Get<float>();
            DataCopy(xLocal, xGm[i * tileLength], tileLength);
            PipeBarrier<PIPE_ALL>();
            Muls(xLocal, xLocal, scale, tileLength);
            PipeBarrier<PIPE_ALL>();
            DataCopy(yGm[i * tileLength], xLocal, tileLength);
            PipeBarrier<PIPE_ALL>();
        }
    }

private:
    TPipe pipe;
    TBuf<QuePosition::VECCALC> xBuf;
    GlobalTensor<float> xGm;
    GlobalTensor<float> yGm;
    uint32_t tileNum = 0;
    uint32_t tileLength = 0;
    float scale = 0;
};
)";

}  // namespace aopt::agent::testing
