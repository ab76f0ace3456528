// Test operator kernel: y = x * scale + bias with scale [N, 1] and bias [1, C] broadcast to
// [rows, C] in the UB by the Broadcast library (axis 1 and axis 0), then Mul and Add.
#include "kernel_operator.h"

namespace ScaleBiasBroadcast {
using namespace AscendC;
constexpr int32_t BUFFER_NUM = 2;

class Kernel {
public:
    __aicore__ inline Kernel() {}
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR scale, GM_ADDR bias, GM_ADDR y,
                                const ScaleBiasBroadcastTilingData& tiling)
    {
        numCol_ = tiling.numCol;
        rowsPerLoop_ = tiling.rowsPerLoop;
        rows_ = GetBlockIdx() == GetBlockNum() - 1 ? tiling.rowsLastCore : tiling.rowsPerCore;
        const uint64_t row0 = static_cast<uint64_t>(GetBlockIdx()) * tiling.rowsPerCore;
        xGm_.SetGlobalBuffer((__gm__ float*)x + row0 * numCol_, rows_ * numCol_);
        yGm_.SetGlobalBuffer((__gm__ float*)y + row0 * numCol_, rows_ * numCol_);
        scaleGm_.SetGlobalBuffer((__gm__ float*)scale + row0, rows_);
        biasGm_.SetGlobalBuffer((__gm__ float*)bias, numCol_);
        const uint32_t loopElems = rowsPerLoop_ * numCol_;
        pipe_.InitBuffer(xQueue_, BUFFER_NUM, loopElems * sizeof(float));
        pipe_.InitBuffer(scaleQueue_, BUFFER_NUM, AlignUp(rowsPerLoop_, 8U) * sizeof(float));
        pipe_.InitBuffer(biasQueue_, 1, numCol_ * sizeof(float));
        pipe_.InitBuffer(yQueue_, BUFFER_NUM, loopElems * sizeof(float));
        pipe_.InitBuffer(scaleBrcBuf_, loopElems * sizeof(float));
        pipe_.InitBuffer(biasBrcBuf_, loopElems * sizeof(float));
    }
    __aicore__ inline void Process()
    {
        LocalTensor<float> bias = biasQueue_.AllocTensor<float>();
        DataCopy(bias, biasGm_, numCol_);
        biasQueue_.EnQue(bias);
        bias = biasQueue_.DeQue<float>();
        for (uint32_t row = 0; row < rows_; row += rowsPerLoop_) {
            const uint32_t rows = rows_ - row < rowsPerLoop_ ? rows_ - row : rowsPerLoop_;
            LocalTensor<float> xLocal = xQueue_.AllocTensor<float>();
            LocalTensor<float> scaleLocal = scaleQueue_.AllocTensor<float>();
            DataCopy(xLocal, xGm_[row * numCol_], rows * numCol_);
            DataCopyPad(scaleLocal, scaleGm_[row], {1, static_cast<uint32_t>(rows * sizeof(float)), 0, 0, 0},
                        {false, 0, 0, 0});
            xQueue_.EnQue(xLocal);
            scaleQueue_.EnQue(scaleLocal);
            xLocal = xQueue_.DeQue<float>();
            scaleLocal = scaleQueue_.DeQue<float>();

            LocalTensor<float> scaleBrc = scaleBrcBuf_.Get<float>();
            LocalTensor<float> biasBrc = biasBrcBuf_.Get<float>();
            const uint32_t dstShape[2] = {rows, numCol_};
            const uint32_t scaleShape[2] = {rows, 1};
            const uint32_t biasShape[2] = {1, numCol_};
            Broadcast<float, 2, 1>(scaleBrc, scaleLocal, dstShape, scaleShape);
            Broadcast<float, 2, 0>(biasBrc, bias, dstShape, biasShape);
            PipeBarrier<PIPE_V>();
            LocalTensor<float> yLocal = yQueue_.AllocTensor<float>();
            Mul(yLocal, xLocal, scaleBrc, rows * numCol_);
            PipeBarrier<PIPE_V>();
            Add(yLocal, yLocal, biasBrc, rows * numCol_);
            yQueue_.EnQue(yLocal);
            xQueue_.FreeTensor(xLocal);
            scaleQueue_.FreeTensor(scaleLocal);

            yLocal = yQueue_.DeQue<float>();
            DataCopy(yGm_[row * numCol_], yLocal, rows * numCol_);
            yQueue_.FreeTensor(yLocal);
        }
        biasQueue_.FreeTensor(bias);
    }

private:
    TPipe pipe_;
    TQue<QuePosition::VECIN, BUFFER_NUM> xQueue_;
    TQue<QuePosition::VECIN, BUFFER_NUM> scaleQueue_;
    TQue<QuePosition::VECIN, 1> biasQueue_;
    TQue<QuePosition::VECOUT, BUFFER_NUM> yQueue_;
    TBuf<TPosition::VECCALC> scaleBrcBuf_;
    TBuf<TPosition::VECCALC> biasBrcBuf_;
    GlobalTensor<float> xGm_;
    GlobalTensor<float> scaleGm_;
    GlobalTensor<float> biasGm_;
    GlobalTensor<float> yGm_;
    uint32_t numCol_ = 0;
    uint32_t rows_ = 0;
    uint32_t rowsPerLoop_ = 0;
};
}  // namespace ScaleBiasBroadcast

extern "C" __global__ __aicore__ void scale_bias_broadcast_custom(GM_ADDR x, GM_ADDR scale,
                                                                  GM_ADDR bias, GM_ADDR y,
                                                                  GM_ADDR workspace, GM_ADDR tiling)
{
    GET_TILING_DATA(tilingData, tiling);
    ScaleBiasBroadcast::Kernel op;
    op.Init(x, scale, bias, y, tilingData);
    op.Process();
}
