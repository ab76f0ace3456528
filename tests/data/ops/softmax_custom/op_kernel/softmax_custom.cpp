// Test operator kernel: y = softmax(x) over the last axis through the SoftMax library, rows in
// loops of rowsPerLoop (the last loop shorter: its shape is passed in SoftMaxShapeInfo).
#include "kernel_operator.h"
using namespace AscendC;

namespace {
constexpr int32_t BUFFER_NUM = 2;
constexpr uint32_t STAT_ELEMS = 8;  // one float block per row

class KernelSoftmax {
public:
    __aicore__ inline KernelSoftmax() {}
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, const SoftmaxCustomTilingData* tiling)
    {
        tiling_ = tiling;
        numCol_ = tiling->numCol;
        rowsPerLoop_ = tiling->rowsPerLoop;
        rows_ = GetBlockIdx() == GetBlockNum() - 1 ? tiling->rowsLastCore : tiling->rowsPerCore;
        const uint64_t offset = static_cast<uint64_t>(GetBlockIdx()) * tiling->rowsPerCore * numCol_;
        xGm_.SetGlobalBuffer((__gm__ float*)x + offset, rows_ * numCol_);
        yGm_.SetGlobalBuffer((__gm__ float*)y + offset, rows_ * numCol_);
        pipe_.InitBuffer(inQueue_, BUFFER_NUM, rowsPerLoop_ * numCol_ * sizeof(float));
        pipe_.InitBuffer(outQueue_, BUFFER_NUM, rowsPerLoop_ * numCol_ * sizeof(float));
        pipe_.InitBuffer(maxBuf_, rowsPerLoop_ * STAT_ELEMS * sizeof(float));
        pipe_.InitBuffer(sumBuf_, rowsPerLoop_ * STAT_ELEMS * sizeof(float));
        pipe_.InitBuffer(tmpBuf_, tiling->tmpBufferSize);
    }
    __aicore__ inline void Process()
    {
        for (uint32_t row = 0; row < rows_; row += rowsPerLoop_) {
            const uint32_t rows = rows_ - row < rowsPerLoop_ ? rows_ - row : rowsPerLoop_;
            LocalTensor<float> xLocal = inQueue_.AllocTensor<float>();
            DataCopy(xLocal, xGm_[row * numCol_], rows * numCol_);
            inQueue_.EnQue(xLocal);
            xLocal = inQueue_.DeQue<float>();

            LocalTensor<float> yLocal = outQueue_.AllocTensor<float>();
            LocalTensor<float> maxLocal = maxBuf_.Get<float>();
            LocalTensor<float> sumLocal = sumBuf_.Get<float>();
            LocalTensor<uint8_t> tmp = tmpBuf_.Get<uint8_t>();
            SoftMaxShapeInfo shapeInfo = {rows, numCol_, rows, numCol_};
            SoftMax<float>(yLocal, sumLocal, maxLocal, xLocal, tmp, tiling_->softmaxTiling,
                           shapeInfo);
            outQueue_.EnQue<float>(yLocal);
            inQueue_.FreeTensor(xLocal);

            yLocal = outQueue_.DeQue<float>();
            DataCopy(yGm_[row * numCol_], yLocal, rows * numCol_);
            outQueue_.FreeTensor(yLocal);
        }
    }

private:
    TPipe pipe_;
    TQue<QuePosition::VECIN, BUFFER_NUM> inQueue_;
    TQue<QuePosition::VECOUT, BUFFER_NUM> outQueue_;
    TBuf<QuePosition::VECCALC> maxBuf_;
    TBuf<QuePosition::VECCALC> sumBuf_;
    TBuf<QuePosition::VECCALC> tmpBuf_;
    GlobalTensor<float> xGm_;
    GlobalTensor<float> yGm_;
    const SoftmaxCustomTilingData* tiling_ = nullptr;
    uint32_t numCol_ = 0;
    uint32_t rows_ = 0;
    uint32_t rowsPerLoop_ = 0;
};
}  // namespace

extern "C" __global__ __aicore__ void softmax_custom(GM_ADDR x, GM_ADDR y, GM_ADDR workspace,
                                                     GM_ADDR tiling)
{
    GET_TILING_DATA(tilingData, tiling);
    KernelSoftmax op;
    op.Init(x, y, &tilingData);
    op.Process();
}
