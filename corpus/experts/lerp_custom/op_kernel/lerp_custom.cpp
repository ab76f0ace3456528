#include "kernel_operator.h"

using namespace AscendC;

constexpr uint32_t ALIGN_NUM = 8;  // floats per 32-byte block
constexpr uint32_t SLOT_NUM = 2;

// y = start + weight * (end - start).
//
// Hand-pipelined instead of queues: two slots in one TBuf, each holding the three inputs and the
// output of one tile. Per slot, four events order the pipes:
//   MTE2 -> V    the inputs of the tile arrived
//   V -> MTE3    the output of the tile is computed
//   V -> MTE2    the inputs were consumed, the slot may be refilled
//   MTE3 -> V    the output left, the slot's output may be overwritten
// so the load of tile i+1, the compute of tile i and the store of tile i-1 overlap, and no pipe
// ever waits for more than the one thing it needs.
class KernelLerp {
public:
    __aicore__ inline KernelLerp() {}
    __aicore__ inline void Init(GM_ADDR start, GM_ADDR end, GM_ADDR weight, GM_ADDR y, uint32_t totalLength,
                                uint32_t formerNum, uint32_t formerLength, uint32_t tailLength, uint32_t tileLength)
    {
        uint32_t blockIdx = GetBlockIdx();
        uint32_t offset = 0;
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
        startGm.SetGlobalBuffer((__gm__ float*)start + offset, length);
        endGm.SetGlobalBuffer((__gm__ float*)end + offset, length);
        weightGm.SetGlobalBuffer((__gm__ float*)weight + offset, length);
        yGm.SetGlobalBuffer((__gm__ float*)y + offset, length);
        pipe.InitBuffer(slotBuf, SLOT_NUM * 4 * tileLength * sizeof(float));
    }

    __aicore__ inline void Process()
    {
        LocalTensor<float> slots = slotBuf.Get<float>();
        for (uint32_t s = 0; s < SLOT_NUM; s++) {
            inReady[s] = pipe.AllocEventID<HardEvent::MTE2_V>();
            outReady[s] = pipe.AllocEventID<HardEvent::V_MTE3>();
            inFree[s] = pipe.AllocEventID<HardEvent::V_MTE2>();
            outFree[s] = pipe.AllocEventID<HardEvent::MTE3_V>();
        }
        uint32_t tileNum = (length + tileLength - 1) / tileLength;
        for (uint32_t i = 0; i < tileNum; i++) {
            uint32_t s = i % SLOT_NUM;
            uint32_t count = (i + 1 == tileNum) ? length - i * tileLength : tileLength;
            LocalTensor<float> startLocal = slots[(s * 4 + 0) * tileLength];
            LocalTensor<float> endLocal = slots[(s * 4 + 1) * tileLength];
            LocalTensor<float> weightLocal = slots[(s * 4 + 2) * tileLength];
            LocalTensor<float> yLocal = slots[(s * 4 + 3) * tileLength];
            if (i >= SLOT_NUM) {
                WaitFlag<HardEvent::V_MTE2>(inFree[s]);
            }
            CopyIn(startLocal, startGm, i, count);
            CopyIn(endLocal, endGm, i, count);
            CopyIn(weightLocal, weightGm, i, count);
            SetFlag<HardEvent::MTE2_V>(inReady[s]);

            WaitFlag<HardEvent::MTE2_V>(inReady[s]);
            if (i >= SLOT_NUM) {
                WaitFlag<HardEvent::MTE3_V>(outFree[s]);
            }
            Sub(yLocal, endLocal, startLocal, count);
            PipeBarrier<PIPE_V>();
            Mul(yLocal, yLocal, weightLocal, count);
            PipeBarrier<PIPE_V>();
            Add(yLocal, yLocal, startLocal, count);
            SetFlag<HardEvent::V_MTE2>(inFree[s]);
            SetFlag<HardEvent::V_MTE3>(outReady[s]);

            WaitFlag<HardEvent::V_MTE3>(outReady[s]);
            CopyOut(yLocal, i, count);
            SetFlag<HardEvent::MTE3_V>(outFree[s]);
        }
        // Every SetFlag above needs its WaitFlag before the kernel ends.
        for (uint32_t i = (tileNum > SLOT_NUM ? tileNum - SLOT_NUM : 0); i < tileNum; i++) {
            uint32_t s = i % SLOT_NUM;
            WaitFlag<HardEvent::V_MTE2>(inFree[s]);
            WaitFlag<HardEvent::MTE3_V>(outFree[s]);
        }
        for (uint32_t s = 0; s < SLOT_NUM; s++) {
            pipe.ReleaseEventID<HardEvent::MTE2_V>(inReady[s]);
            pipe.ReleaseEventID<HardEvent::V_MTE3>(outReady[s]);
            pipe.ReleaseEventID<HardEvent::V_MTE2>(inFree[s]);
            pipe.ReleaseEventID<HardEvent::MTE3_V>(outFree[s]);
        }
    }

private:
    __aicore__ inline void CopyIn(LocalTensor<float>& dst, GlobalTensor<float>& src, uint32_t progress, uint32_t count)
    {
        if (count % ALIGN_NUM == 0) {
            DataCopy(dst, src[progress * tileLength], count);
        } else {
            DataCopyExtParams copyParams{1, static_cast<uint32_t>(count * sizeof(float)), 0, 0, 0};
            DataCopyPadExtParams<float> padParams{false, 0, 0, 0};
            DataCopyPad(dst, src[progress * tileLength], copyParams, padParams);
        }
    }

    __aicore__ inline void CopyOut(LocalTensor<float>& src, uint32_t progress, uint32_t count)
    {
        if (count % ALIGN_NUM == 0) {
            DataCopy(yGm[progress * tileLength], src, count);
        } else {
            DataCopyExtParams copyParams{1, static_cast<uint32_t>(count * sizeof(float)), 0, 0, 0};
            DataCopyPad(yGm[progress * tileLength], src, copyParams);
        }
    }

private:
    TPipe pipe;
    TBuf<QuePosition::VECCALC> slotBuf;
    GlobalTensor<float> startGm;
    GlobalTensor<float> endGm;
    GlobalTensor<float> weightGm;
    GlobalTensor<float> yGm;
    TEventID inReady[SLOT_NUM];
    TEventID outReady[SLOT_NUM];
    TEventID inFree[SLOT_NUM];
    TEventID outFree[SLOT_NUM];
    uint32_t length = 0;
    uint32_t tileLength = 0;
};

extern "C" __global__ __aicore__ void lerp_custom(GM_ADDR start, GM_ADDR end, GM_ADDR weight, GM_ADDR y,
                                                  GM_ADDR workspace, GM_ADDR tiling)
{
    GET_TILING_DATA(tilingData, tiling);
    KernelLerp op;
    op.Init(start, end, weight, y, tilingData.totalLength, tilingData.formerNum, tilingData.formerLength,
            tilingData.tailLength, tilingData.tileLength);
    op.Process();
}
