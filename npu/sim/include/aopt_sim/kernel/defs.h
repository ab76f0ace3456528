// aopt simulator, kernel side: qualifiers, launch macros, constants and the enums of the AscendC
// kernel API (written from the public AscendC documentation; see ascendc-reference.md).
//
// The address-space and function qualifiers of the Ascend compiler are empty on the CPU. The
// pipe and event enums (`pipe_t`, `event_t`) are global names in AscendC kernels, everything
// else lives in namespace AscendC.
#pragma once

#include <cstdint>

#define __global__
#define __aicore__
#define __gm__
#define __ubuf__
#define __cbuf__
#define __ca__
#define __cb__
#define __cc__
#define __fbuf__
#define __in_pipe__(x)
#define __out_pipe__(x)
#define __inout_pipe__(x)

#ifndef GM_ADDR
#define GM_ADDR __gm__ uint8_t*
#endif

// Kernels guard their NPU-only launch stubs (`kernel<<<...>>>`) with these; the simulator is the
// CPU debug build of a kernel.
#ifndef ASCENDC_CPU_DEBUG
#define ASCENDC_CPU_DEBUG 1
#endif
#ifndef __CCE_KT_TEST__
#define __CCE_KT_TEST__ 1
#endif

// The architecture the kernel is compiled for, as CANN's compiler defines it for an Atlas A2
// (arch 2201): every simulated profile (config/hardware) is one. Kernels choose their A2 paths
// by these (`#if __CCE_AICORE__ == 220` selects a bfloat16 variant or a header; the other branch
// may include files of another architecture the package does not carry).
#ifndef __NPU_ARCH__
#define __NPU_ARCH__ 2201
#endif
#ifndef __CCE_AICORE__
#define __CCE_AICORE__ 220
#endif

// Which unit the code runs on. A kernel declared MIX runs as groups of one AIC and its AIVs
// (KERNEL_TASK_TYPE_DEFAULT below); any other kernel runs on cores that count as AIVs.
#define ASCEND_IS_AIV (::aopt_sim::rt::core_is_aiv())
#define ASCEND_IS_AIC (::aopt_sim::rt::core_is_aic())
#define ASCEND_IS_NOT_AIV (!::aopt_sim::rt::core_is_aiv())
#define ASCEND_IS_NOT_AIC (!::aopt_sim::rt::core_is_aic())

// The kernel type is a build-time attribute on the NPU. In the simulator a MIX type
// (KERNEL_TYPE_MIX_AIC_1_2 or _1_1) makes the launch one of AIC/AIV groups (the driver starts the
// input set again as such); the other types run as before.
#define KERNEL_TASK_TYPE_DEFAULT(type) ::aopt_sim::rt::kernel_task_type(static_cast<int>(type))
#define KERNEL_TASK_TYPE(key, type)                                 \
  do {                                                              \
    if (::aopt_sim::rt::tiling_key() == static_cast<uint64_t>(key)) \
      ::aopt_sim::rt::kernel_task_type(static_cast<int>(type));     \
  } while (0)

enum KernelMetaType {
  KERNEL_TYPE_AIV_ONLY,
  KERNEL_TYPE_AIC_ONLY,
  KERNEL_TYPE_MIX_AIV_1_0,
  KERNEL_TYPE_MIX_AIC_1_0,
  KERNEL_TYPE_MIX_AIC_1_1,
  KERNEL_TYPE_MIX_AIC_1_2,
  KERNEL_TYPE_MAX
};

enum pipe_t {
  PIPE_S = 0,
  PIPE_V,
  PIPE_M,
  PIPE_MTE1,
  PIPE_MTE2,
  PIPE_MTE3,
  PIPE_ALL,
  PIPE_MTE4,
  PIPE_MTE5,
  PIPE_V2,
  PIPE_FIX,
  MAX_PIPE
};

enum event_t {
  EVENT_ID0 = 0,
  EVENT_ID1,
  EVENT_ID2,
  EVENT_ID3,
  EVENT_ID4,
  EVENT_ID5,
  EVENT_ID6,
  EVENT_ID7
};

namespace AscendC {

enum class TPosition : uint8_t {
  GM,
  A1,
  A2,
  B1,
  B2,
  C1,
  C2,
  CO1,
  CO2,
  VECIN,
  VECOUT,
  VECCALC,
  LCM = VECCALC,
  SPM,
  SHM = SPM,
  TSCM,
  C2PIPE2GM,
  C2PIPE2LOCAL,
  MAX,
};
using QuePosition = TPosition;

// Synchronisation between a source and a destination pipe (SetFlag on the source, WaitFlag on
// the destination).
enum class HardEvent : uint8_t {
  MTE2_MTE1,
  MTE1_MTE2,
  MTE1_M,
  M_MTE1,
  MTE2_V,
  V_MTE2,
  MTE3_V,
  V_MTE3,
  M_V,
  V_M,
  V_V,
  MTE3_MTE1,
  MTE1_MTE3,
  MTE1_V,
  MTE2_M,
  M_MTE2,
  V_MTE1,
  M_FIX,
  FIX_M,
  MTE3_MTE2,
  MTE2_MTE3,
  S_V,
  V_S,
  S_MTE2,
  MTE2_S,
  S_MTE3,
  MTE3_S,
  MTE2_FIX,
  FIX_MTE2,
  FIX_S,
  M_S,
  FIX_MTE3,
  MTE1_FIX,
  FIX_MTE1,
  FIX_FIX,
  MAX,
};

enum class RoundMode : uint8_t {
  CAST_NONE = 0,  // round to nearest even where the conversion loses precision
  CAST_RINT,      // to nearest, ties to even
  CAST_FLOOR,
  CAST_CEIL,
  CAST_ROUND,  // to nearest, ties away from zero
  CAST_TRUNC,
  CAST_ODD,  // round to odd (float -> half)
};

enum class CMPMODE : uint8_t { LT = 0, GT, EQ, LE, GE, NE };

// Select: bit 1 picks src0, bit 0 picks src1 (or the scalar).
enum class SELMODE : uint8_t {
  VSEL_CMPMASK_SPR = 0,     // the first 128 (16-bit) / 64 (32-bit) mask bits, reused each repeat
  VSEL_TENSOR_SCALAR_MODE,  // mask bits consumed continuously, src1 is a scalar
  VSEL_TENSOR_TENSOR_MODE,  // mask bits consumed continuously, src1 is a tensor
};

enum class ReduceOrder : uint8_t {
  ORDER_VALUE_INDEX = 0,
  ORDER_INDEX_VALUE,
  ORDER_ONLY_VALUE,
  ORDER_ONLY_INDEX,
};

enum class MaskMode : uint8_t { NORMAL = 0, COUNTER };

enum class KernelMode : uint8_t { MIX_MODE = 0, AIC_MODE, AIV_MODE };

enum class CacheMode : uint8_t { CACHE_MODE_NORMAL = 0, CACHE_MODE_DISABLE, CACHE_MODE_LAST };

using TEventID = int8_t;

constexpr int32_t ONE_BLK_SIZE = 32;
constexpr int32_t ONE_REPEAT_BYTE_SIZE = 256;
constexpr int32_t DEFAULT_BLK_NUM = 8;
constexpr int32_t DEFAULT_BLK_STRIDE = 1;
constexpr uint8_t DEFAULT_REPEAT_STRIDE = 8;
constexpr int32_t MAX_REPEAT_TIMES = 255;
constexpr int32_t BLOCK_CUBE = 16;
constexpr int32_t MASK_PLACEHOLDER = 0;
constexpr uint16_t DEFAULT_DATA_COPY_NBURST = 1;
constexpr int32_t QUE_MAX_EVENT = 8;

// A vector instruction's address strides, in 32-byte blocks: between the blocks of one repeat
// and between repeats (defaults 1 and 8 = contiguous).
struct UnaryRepeatParams {
  UnaryRepeatParams() {}
  UnaryRepeatParams(const uint16_t dstBlkStrideIn, const uint16_t srcBlkStrideIn,
                    const uint8_t dstRepStrideIn, const uint8_t srcRepStrideIn)
      : dstBlkStride(dstBlkStrideIn),
        srcBlkStride(srcBlkStrideIn),
        dstRepStride(dstRepStrideIn),
        srcRepStride(srcRepStrideIn) {}
  UnaryRepeatParams(const uint16_t dstBlkStrideIn, const uint16_t srcBlkStrideIn,
                    const uint8_t dstRepStrideIn, const uint8_t srcRepStrideIn,
                    const bool halfBlockIn)
      : dstBlkStride(dstBlkStrideIn),
        srcBlkStride(srcBlkStrideIn),
        dstRepStride(dstRepStrideIn),
        srcRepStride(srcRepStrideIn),
        halfBlock(halfBlockIn) {}

  uint32_t blockNumber = DEFAULT_BLK_NUM;
  uint16_t dstBlkStride = DEFAULT_BLK_STRIDE;
  uint16_t srcBlkStride = DEFAULT_BLK_STRIDE;
  uint8_t dstRepStride = DEFAULT_REPEAT_STRIDE;
  uint8_t srcRepStride = DEFAULT_REPEAT_STRIDE;
  bool repeatStrideMode = false;
  bool strideSizeMode = false;
  bool halfBlock = false;
};

struct BinaryRepeatParams {
  BinaryRepeatParams() {}
  BinaryRepeatParams(const uint8_t dstBlkStrideIn, const uint8_t src0BlkStrideIn,
                     const uint8_t src1BlkStrideIn, const uint8_t dstRepStrideIn,
                     const uint8_t src0RepStrideIn, const uint8_t src1RepStrideIn)
      : dstBlkStride(dstBlkStrideIn),
        src0BlkStride(src0BlkStrideIn),
        src1BlkStride(src1BlkStrideIn),
        dstRepStride(dstRepStrideIn),
        src0RepStride(src0RepStrideIn),
        src1RepStride(src1RepStrideIn) {}

  uint32_t blockNumber = DEFAULT_BLK_NUM;
  uint8_t dstBlkStride = DEFAULT_BLK_STRIDE;
  uint8_t src0BlkStride = DEFAULT_BLK_STRIDE;
  uint8_t src1BlkStride = DEFAULT_BLK_STRIDE;
  uint8_t dstRepStride = DEFAULT_REPEAT_STRIDE;
  uint8_t src0RepStride = DEFAULT_REPEAT_STRIDE;
  uint8_t src1RepStride = DEFAULT_REPEAT_STRIDE;
  bool repeatStrideMode = false;
  bool strideSizeMode = false;
};

// DataCopy: `blockCount` bursts of `blockLen` 32-byte blocks; the gaps between bursts are in
// 32-byte blocks too. (DataCopyPad reads blockLen and srcStride in bytes.)
struct DataCopyParams {
  DataCopyParams() {}
  DataCopyParams(const uint16_t count, const uint16_t len, const uint16_t srcStrideIn,
                 const uint16_t dstStrideIn)
      : blockCount(count), blockLen(len), srcStride(srcStrideIn), dstStride(dstStrideIn) {}

  uint16_t blockCount = DEFAULT_DATA_COPY_NBURST;
  uint16_t blockLen = 0;
  uint16_t srcStride = 0;
  uint16_t dstStride = 0;
};

// The enhanced DataCopy's extra parameters, with their documented names and defaults. They
// compute on the CO1 -> CO2 path of another chip family only; elsewhere the copy is the plain one.
enum class BlockMode : uint8_t {
  BLOCK_MODE_NORMAL = 0,
  BLOCK_MODE_MATRIX,
  BLOCK_MODE_VECTOR,
  BLOCK_MODE_SMALL_CHANNEL,
  BLOCK_MODE_DEPTHWISE
};
enum class DeqScale : uint8_t { DEQ_NONE = 0, DEQ, VDEQ, DEQ8, VDEQ8, DEQ16, VDEQ16 };
struct DataCopyEnhancedParams {
  BlockMode blockMode = BlockMode::BLOCK_MODE_NORMAL;
  DeqScale deqScale = DeqScale::DEQ_NONE;
  uint64_t deqValue = 0;
  uint8_t sidStoreMode = 0;
  bool isRelu = false;
  uint8_t padMode = 0;
  uint64_t padValue = 0;
  uint64_t deqTensorAddr = 0;
};

// DataCopyPad: blockLen in bytes; the GM-side gap in bytes, the UB-side gap in 32-byte blocks.
struct DataCopyExtParams {
  DataCopyExtParams() {}
  // Five arguments, rsv included, as documented: a braced `{count, len, srcStride, dstStride}`
  // then means DataCopyParams only, so `DataCopyPad(gm, ub, {1, len, 0, 0})` is not ambiguous.
  DataCopyExtParams(const uint16_t count, const uint32_t len, const uint32_t srcStrideIn,
                    const uint32_t dstStrideIn, const uint32_t rsvIn)
      : blockCount(count),
        blockLen(len),
        srcStride(srcStrideIn),
        dstStride(dstStrideIn),
        rsv(rsvIn) {}

  uint16_t blockCount = DEFAULT_DATA_COPY_NBURST;
  uint32_t blockLen = 0;
  uint32_t srcStride = 0;
  uint32_t dstStride = 0;
  uint32_t rsv = 0;
};

// Padding of each burst in UB (GM -> UB DataCopyPad): leftPadding/rightPadding elements of
// paddingValue (isPad) or of the SetPadValue value.
template <typename T>
struct DataCopyPadExtParams {
  DataCopyPadExtParams() {}
  DataCopyPadExtParams(const bool isPadValue, const uint8_t leftPadValue,
                       const uint8_t rightPadValue, T padValue)
      : isPad(isPadValue),
        leftPadding(leftPadValue),
        rightPadding(rightPadValue),
        paddingValue(padValue) {}

  bool isPad = false;
  uint8_t leftPadding = 0;
  uint8_t rightPadding = 0;
  T paddingValue = 0;
};

struct DataCopyPadParams {
  DataCopyPadParams() {}
  DataCopyPadParams(const bool isPadValue, const uint8_t leftPadValue, const uint8_t rightPadValue,
                    const uint64_t padValue)
      : isPad(isPadValue),
        leftPadding(leftPadValue),
        rightPadding(rightPadValue),
        paddingValue(padValue) {}

  bool isPad = false;
  uint8_t leftPadding = 0;
  uint8_t rightPadding = 0;
  uint64_t paddingValue = 0;
};

}  // namespace AscendC
