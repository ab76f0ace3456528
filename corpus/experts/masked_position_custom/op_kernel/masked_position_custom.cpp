#include "kernel_operator.h"

using namespace AscendC;

constexpr uint32_t ALIGN_NUM = 8;  // int32 elements per 32-byte block

// y[i] = mask[i] * i. Written as public vector operators are: the mask and result TBufs hold a
// ping and a pong half, and each half has its own event id, so MTE2 fills one half of the mask
// while the vector unit multiplies the other and MTE3 drains the result half before it. The
// positions are one CreateVecIndex per tile; only the vector unit touches them, in order.
class KernelMaskedPosition {
public:
    __aicore__ inline KernelMaskedPosition() {}
    __aicore__ inline void Init(GM_ADDR mask, GM_ADDR y, uint32_t totalLength, uint32_t formerNum,
                                uint32_t formerLength, uint32_t tailLength, uint32_t tileLength)
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
        maskGm.SetGlobalBuffer((__gm__ int32_t*)mask + offset, length);
        yGm.SetGlobalBuffer((__gm__ int32_t*)y + offset, length);
        pipe.InitBuffer(maskBuf, 2 * tileLength * sizeof(int32_t));
        pipe.InitBuffer(yBuf, 2 * tileLength * sizeof(int32_t));
        pipe.InitBuffer(posBuf, tileLength * sizeof(int32_t));
    }

    __aicore__ inline void Process()
    {
        LocalTensor<int32_t> maskLocal = maskBuf.Get<int32_t>();
        LocalTensor<int32_t> yLocal = yBuf.Get<int32_t>();
        LocalTensor<int32_t> posLocal = posBuf.Get<int32_t>();
        uint32_t tileNum = (length + tileLength - 1) / tileLength;
        // Both halves start free: their first load and first result wait for nothing.
        SetFlag<HardEvent::V_MTE2>(EVENT_ID0);
        SetFlag<HardEvent::V_MTE2>(EVENT_ID1);
        SetFlag<HardEvent::MTE3_V>(EVENT_ID0);
        SetFlag<HardEvent::MTE3_V>(EVENT_ID1);
        for (uint32_t i = 0; i < tileNum; i++) {
            uint32_t count = (i + 1 == tileNum) ? length - i * tileLength : tileLength;
            event_t ping = (i % 2 == 0) ? EVENT_ID0 : EVENT_ID1;
            uint32_t half = (i % 2) * tileLength;
            WaitFlag<HardEvent::V_MTE2>(ping);
            CopyIn(maskLocal[half], i, count);
            SetFlag<HardEvent::MTE2_V>(ping);
            CreateVecIndex(posLocal, static_cast<int32_t>(offset + i * tileLength), count);
            WaitFlag<HardEvent::MTE3_V>(ping);
            WaitFlag<HardEvent::MTE2_V>(ping);
            Mul(yLocal[half], maskLocal[half], posLocal, count);
            SetFlag<HardEvent::V_MTE2>(ping);
            SetFlag<HardEvent::V_MTE3>(ping);
            WaitFlag<HardEvent::V_MTE3>(ping);
            CopyOut(yLocal[half], i, count);
            SetFlag<HardEvent::MTE3_V>(ping);
        }
        WaitFlag<HardEvent::V_MTE2>(EVENT_ID0);
        WaitFlag<HardEvent::V_MTE2>(EVENT_ID1);
        WaitFlag<HardEvent::MTE3_V>(EVENT_ID0);
        WaitFlag<HardEvent::MTE3_V>(EVENT_ID1);
    }

private:
    __aicore__ inline void CopyIn(const LocalTensor<int32_t>& dst, uint32_t i, uint32_t count)
    {
        if (count % ALIGN_NUM == 0) {
            DataCopy(dst, maskGm[i * tileLength], count);
        } else {
            DataCopyExtParams copyParams{1, static_cast<uint32_t>(count * sizeof(int32_t)), 0, 0, 0};
            DataCopyPadExtParams<int32_t> padParams{false, 0, 0, 0};
            DataCopyPad(dst, maskGm[i * tileLength], copyParams, padParams);
        }
    }

    __aicore__ inline void CopyOut(const LocalTensor<int32_t>& src, uint32_t i, uint32_t count)
    {
        if (count % ALIGN_NUM == 0) {
            DataCopy(yGm[i * tileLength], src, count);
        } else {
            DataCopyExtParams copyParams{1, static_cast<uint32_t>(count * sizeof(int32_t)), 0, 0, 0};
            DataCopyPad(yGm[i * tileLength], src, copyParams);
        }
    }

    TPipe pipe;
    TBuf<TPosition::VECCALC> maskBuf, yBuf, posBuf;
    GlobalTensor<int32_t> maskGm;
    GlobalTensor<int32_t> yGm;
    uint32_t offset = 0;
    uint32_t length = 0;
    uint32_t tileLength = 0;
};

extern "C" __global__ __aicore__ void masked_position_custom(GM_ADDR mask, GM_ADDR y, GM_ADDR workspace, GM_ADDR tiling)
{
    GET_TILING_DATA(tilingData, tiling);
    KernelMaskedPosition op;
    op.Init(mask, y, tilingData.totalLength, tilingData.formerNum, tilingData.formerLength, tilingData.tailLength,
            tilingData.tileLength);
    op.Process();
}
