#include "kernel_operator.h"

using namespace AscendC;

constexpr uint32_t ALIGN_NUM = 8;  // floats per 32-byte block

// y[i] = x[i] + i. Written as public vector operators are: TBuf buffers, each stage ordered by a
// hand-placed flag. The positions of a tile are one CreateVecIndex on the vector unit, issued
// before the copy-in so that it runs while MTE2 brings the tile.
class KernelPositionAdd {
public:
    __aicore__ inline KernelPositionAdd() {}
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, uint32_t totalLength, uint32_t formerNum, uint32_t formerLength,
                                uint32_t tailLength, uint32_t tileLength)
    {
        uint32_t blockIdx = GetBlockIdx();
        if (blockIdx < formerNum) {
            offset = blockIdx * formerLength;
            length = formerLength;
        } else {
            offset = formerNum * formerLength + (blockIdx - formerNum) * tailLength;
            length = tailLength;
        }
        if (blockIdx + 1 == GetBlockNum()) {
            length = totalLength - offset;
        }
        this->tileLength = tileLength;
        xGm.SetGlobalBuffer((__gm__ float*)x + offset, length);
        yGm.SetGlobalBuffer((__gm__ float*)y + offset, length);
        pipe.InitBuffer(xBuf, tileLength * sizeof(float));
        pipe.InitBuffer(posBuf, tileLength * sizeof(float));
        pipe.InitBuffer(yBuf, tileLength * sizeof(float));
    }

    __aicore__ inline void Process()
    {
        xLocal = xBuf.Get<float>();
        posLocal = posBuf.Get<float>();
        yLocal = yBuf.Get<float>();
        uint32_t tileNum = (length + tileLength - 1) / tileLength;
        for (uint32_t i = 0; i < tileNum; i++) {
            uint32_t count = (i + 1 == tileNum) ? length - i * tileLength : tileLength;
            CreateVecIndex(posLocal, static_cast<float>(offset + i * tileLength), count);
            CopyIn(i, count);
            SetFlag<HardEvent::MTE2_V>(EVENT_ID0);
            WaitFlag<HardEvent::MTE2_V>(EVENT_ID0);
            Add(yLocal, xLocal, posLocal, count);
            SetFlag<HardEvent::V_MTE3>(EVENT_ID0);
            WaitFlag<HardEvent::V_MTE3>(EVENT_ID0);
            CopyOut(i, count);
            SetFlag<HardEvent::MTE3_MTE2>(EVENT_ID0);
            WaitFlag<HardEvent::MTE3_MTE2>(EVENT_ID0);
        }
    }

private:
    __aicore__ inline void CopyIn(uint32_t i, uint32_t count)
    {
        if (count % ALIGN_NUM == 0) {
            DataCopy(xLocal, xGm[i * tileLength], count);
        } else {
            DataCopyExtParams copyParams{1, static_cast<uint32_t>(count * sizeof(float)), 0, 0, 0};
            DataCopyPadExtParams<float> padParams{false, 0, 0, 0};
            DataCopyPad(xLocal, xGm[i * tileLength], copyParams, padParams);
        }
    }

    __aicore__ inline void CopyOut(uint32_t i, uint32_t count)
    {
        if (count % ALIGN_NUM == 0) {
            DataCopy(yGm[i * tileLength], yLocal, count);
        } else {
            DataCopyExtParams copyParams{1, static_cast<uint32_t>(count * sizeof(float)), 0, 0, 0};
            DataCopyPad(yGm[i * tileLength], yLocal, copyParams);
        }
    }

    TPipe pipe;
    TBuf<TPosition::VECCALC> xBuf, posBuf, yBuf;
    LocalTensor<float> xLocal, posLocal, yLocal;
    GlobalTensor<float> xGm;
    GlobalTensor<float> yGm;
    uint32_t offset = 0;
    uint32_t length = 0;
    uint32_t tileLength = 0;
};

extern "C" __global__ __aicore__ void position_add_custom(GM_ADDR x, GM_ADDR y, GM_ADDR workspace, GM_ADDR tiling)
{
    GET_TILING_DATA(tilingData, tiling);
    KernelPositionAdd op;
    op.Init(x, y, tilingData.totalLength, tilingData.formerNum, tilingData.formerLength, tilingData.tailLength,
            tilingData.tileLength);
    op.Process();
}
