#include "npu/ascendc_api_coverage.hpp"

namespace aopt::npu {
namespace {

constexpr api_support yes = api_support::supported;
constexpr api_support part = api_support::partial;
constexpr api_support no = api_support::not_yet;

// Kernel groups follow the AscendC reference (basic APIs: data structures, memory and queues,
// data movement, vector computation, synchronisation, system; then the advanced math library
// and debugging); host groups follow the tiling, platform and registration references.
const char* const memory = "Kernel: memory and queue management";
const char* const tensors = "Kernel: tensors";
const char* const movement = "Kernel: data movement";
const char* const arith = "Kernel: vector computation, element-wise";
const char* const bits = "Kernel: vector computation, bitwise";
const char* const compare = "Kernel: vector computation, compare and select";
const char* const reduce = "Kernel: vector computation, reduction";
const char* const arrange = "Kernel: vector computation, gather, fill and transpose";
const char* const sort = "Kernel: vector computation, sorting";
const char* const mask = "Kernel: vector computation, mask";
const char* const sync = "Kernel: synchronisation";
const char* const atomic = "Kernel: atomic accumulation";
const char* const system = "Kernel: system, workspace and cache";
const char* const mathlib = "Kernel: math library (advanced APIs)";
const char* const debug = "Kernel: debugging and scalar C++";
const char* const cube = "Kernel: cube (matrix) path";
const char* const scalar = "Kernel: scalar helpers, constants and CANN headers";
const char* const types = "Kernel: parameter types and enums";
const char* const tiling = "Host: tiling";
const char* const platform = "Host: platform";
const char* const reg = "Host: operator registration and graph types";

}  // namespace

const char* to_string(api_support s) {
  switch (s) {
    case api_support::supported:
      return "supported";
    case api_support::partial:
      return "partial";
    case api_support::not_yet:
      return "not yet";
  }
  return "not yet";
}

const std::vector<ascendc_api>& ascendc_api_coverage() {
  static const std::vector<ascendc_api> table = {
      {memory, "TPipe", yes, "InitBuffer for TQue/TBuf, Reset; at most 64 buffers"},
      {memory, "InitBuffer", yes, "TQue (num, bytes) and TBuf (bytes)"},
      {memory, "TQue", yes, "AllocTensor, EnQue, DeQue, FreeTensor; VECIN/VECOUT/VECCALC"},
      {memory, "TQueBind", yes, "VECIN -> VECOUT binding"},
      {memory, "TBuf", yes,
       "Get<T>(), Get<T>(n), GetWithOffset, AllocTensor<T>() (the whole buffer), FreeTensor "
       "(releases nothing)"},
      {memory, "AllocTensor", yes, "contents uninitialised (poisoned)"},
      {memory, "EnQue", yes, "hidden SetFlag of the queue's producer pipe"},
      {memory, "DeQue", yes, "hidden WaitFlag of the queue's consumer pipe"},
      {memory, "FreeTensor", yes, "hidden SetFlag for the buffer's reuse"},
      {memory, "TBufPool", yes,
       "TPipe::InitBufPool and TBufPool::InitBufPool (own range or a share pool's), InitBuffer of "
       "TQue/TQueBind/TBuf inside the pool, bufIDSize up to 16; Reset is a full barrier"},
      {tensors, "GlobalTensor", yes,
       "SetGlobalBuffer, GetValue, SetValue, operator[], operator() (a reference whose reads and "
       "writes are traced scalar GM accesses)"},
      {tensors, "LocalTensor", yes,
       "GetValue, SetValue, operator[], operator(), ReinterpretCast, GetSize; the whole-tensor "
       "operators dst = a + b (also -, *, /, bitwise and, bitwise or) and dst = a < b (also >, "
       "<=, >=, ==, !=) run "
       "Add/Sub/Mul/Div/And/Or and Compare over a.GetSize() elements"},
      {tensors, "GetPhyAddr", part,
       "only as the address another GlobalTensor is set to (y.SetGlobalBuffer((__gm__ T*)"
       "x.GetPhyAddr() + n, len): casts, parentheses and pointer + or - in between), in "
       "templates too; anywhere else the AST screen refuses it: a raw pointer into GM or UB "
       "bypasses the traced tensor API (use DataCopy, the vector API, GetValue/SetValue)"},
      {tensors, "SetGlobalBuffer", yes, "pointer and element count"},
      {tensors, "GetValue", yes, "scalar pipe; ordered by auto-sync when device.auto_sync"},
      {tensors, "SetValue", yes, "scalar pipe; ordered by auto-sync when device.auto_sync"},
      {tensors, "ReinterpretCast", yes, ""},
      {tensors, "ToFloat", yes, "bfloat16_t -> float (and ToBfloat16)"},
      {movement, "DataCopy", yes,
       "GM<->UB count form and DataCopyParams strides, UB->UB; the enhanced form with "
       "DataCopyEnhancedParams (BlockMode, DeqScale) copies as the plain one, as documented off "
       "the CO1 -> CO2 path"},
      {movement, "DataCopyPad", yes,
       "DataCopyExtParams / DataCopyPadExtParams both directions; DataCopyParams / "
       "DataCopyPadParams; a braced 4-element {count, len, srcStride, dstStride} is "
       "DataCopyParams (DataCopyExtParams takes 5)"},
      {movement, "SetPadValue", yes, ""},
      {movement, "Copy", yes, "UB->UB on V with a continuous or bit mask and CopyRepeatParams"},
      {arith, "Add", yes, "count, mask and bit-mask forms; Sub/Mul/Div/Max/Min alike"},
      {arith, "Sub", yes, ""},
      {arith, "Mul", yes, ""},
      {arith, "Div", yes, ""},
      {arith, "Max", yes, ""},
      {arith, "Min", yes, ""},
      {arith, "Adds", yes, "tensor-scalar, count and mask forms"},
      {arith, "Muls", yes, ""},
      {arith, "Maxs", yes, ""},
      {arith, "Mins", yes, ""},
      {arith, "LeakyRelu", yes, ""},
      {arith, "Exp", yes, "count and mask forms; Exp<T, taylorLevel, isReuseSource> overloads"},
      {arith, "Ln", yes, "count and mask forms; Ln<T, isReuseSource>"},
      {arith, "Abs", yes, ""},
      {arith, "Sqrt", yes, ""},
      {arith, "Rsqrt", yes, ""},
      {arith, "Reciprocal", yes, ""},
      {arith, "Relu", yes, ""},
      {arith, "Neg", yes, "count form"},
      {arith, "Axpy", yes, "float, half, half into float"},
      {arith, "Duplicate", yes, "count and mask forms"},
      {arith, "Cast", yes, "every RoundMode, widths counted by the wider type"},
      {arith, "FusedMulAdd", yes,
       "count and mask/repeat forms, half/float: dst = src0 * dst + src1"},
      {arith, "MulAddDst", yes,
       "count and mask/repeat forms, equal half/float types: dst = src0 * src1 + dst"},
      {arith, "AddRelu", yes,
       "dst = max(src0 + src1, 0); count and mask/repeat forms (continuous or bit mask, "
       "BinaryRepeatParams), as Add"},
      {arith, "SetDeqScale", part,
       "SetDeqScale(half scale) sets DEQSCALE, which Cast int32_t -> half (every RoundMode: src * "
       "scale rounded once) and AddDeqRelu read; its value before the first SetDeqScale is not "
       "documented (the simulator starts at 1, a plain conversion); the (float, offset, "
       "signMode) and VdeqInfo forms serve CastDeq, which is not provided"},
      {arith, "AddDeqRelu", yes,
       "count and mask/repeat forms: half dst = max(src0 + src1 scaled by DEQSCALE, 0), one "
       "rounding into half; the int32 sum is exact (the documentation does not say whether it "
       "wraps or saturates first)"},
      {bits, "And", yes, "integer types, count and mask forms"},
      {bits, "Or", yes, "integer types, count and mask forms"},
      {bits, "Xor", yes, "integer types, count form (with or without a tmp buffer)"},
      {bits, "Not", yes, "integer types"},
      {bits, "ShiftLeft", yes, "integer types"},
      {bits, "ShiftRight", yes, "integer types (arithmetic for signed)"},
      {compare, "Compare", yes, "every CMPMODE, into a bit mask or the CMPMASK register"},
      {compare, "Compares", yes, ""},
      {compare, "CompareScalar", yes, ""},
      {compare, "Select", yes, "tensor/tensor, tensor/scalar and register modes"},
      {compare, "SetCmpMask", yes, ""},
      {compare, "GetCmpMask", yes, ""},
      {reduce, "ReduceSum", yes,
       "count and mask forms; ReduceMax/ReduceMin with index; the library's pattern forms "
       "ReduceSum/ReduceMax/ReduceMin<T, Pattern::Reduce::AR or RA> over a 2-D srcShape, "
       "srcInnerPad rows padded to 32 bytes, with or without a tmp buffer"},
      {reduce, "ReduceMax", yes, ""},
      {reduce, "ReduceMin", yes, ""},
      {reduce, "WholeReduceSum", yes,
       "newer name ReduceRepeatSum (ReduceRepeatMax, ReduceRepeatMin alike)"},
      {reduce, "WholeReduceMax", yes, "ReduceOrder"},
      {reduce, "WholeReduceMin", yes, ""},
      {reduce, "BlockReduceSum", yes,
       "newer name ReduceDataBlockSum (ReduceDataBlockMax, ReduceDataBlockMin alike)"},
      {reduce, "BlockReduceMax", yes, ""},
      {reduce, "BlockReduceMin", yes, ""},
      {reduce, "RepeatReduceSum", yes, ""},
      {reduce, "PairReduceSum", yes, "continuous and bit masks, strides"},
      {arrange, "Gather", yes,
       "count form; continuous and bit mask forms with repeats and a destination repeat stride "
       "(the offsets of repeat r are srcOffset[r * lanes ...], 256 bytes of lanes a repeat)"},
      {arrange, "Gatherb", yes,
       "uint16_t/uint32_t (the A2/A3 types): 8 blocks a repeat by byte offsets, destination "
       "block and repeat strides"},
      {arrange, "GatherMask", yes,
       "built-in patterns 1-7 and uint16/uint32 user patterns (src1RepeatStride), normal mode "
       "and counter mode in its A2/A3 form (mask elements per repeat), block and repeat "
       "strides, rsvdCnt; leaves the mask mode normal"},
      {arrange, "Scatter", no,
       "documented only for Atlas 200I/500 A2 and Atlas inference AI Core, not the A2/A3 chips "
       "the simulator's profiles model"},
      {arrange, "TransDataTo5HD", part,
       "the LocalTensor list form (NCHW_CONV_ADDR_LIST_SIZE = 16 destination and source "
       "tensors, TransDataTo5HDParams) for 8, 16 and 32-bit types, repeat strides in 32-byte "
       "blocks; the uint64_t address-list form is not provided (its addresses come from "
       "GetPhyAddr, which the screen allows only as a GlobalTensor's address). The documentation "
       "gives the 32-bit rule as a "
       "figure: read as element j of source blocks 0..7 into destination block 2j and of 8..15 "
       "into 2j + 1"},
      {arrange, "Brcb", yes, "BrcbRepeatParams strides"},
      {arrange, "CreateVecIndex", yes,
       "count form; lane-mask forms (continuous and bit mask) with block and repeat strides"},
      {arrange, "Transpose", yes,
       "the 16 x 16 two-byte form; the enhanced form with TransposeParamsExt: "
       "TRANSPOSE_ND2ND_B16 (the 16 x 16 form), TRANSPOSE_NCHW2NHWC and TRANSPOSE_NHWC2NCHW of 1, "
       "2 and 4-byte types (dst must not overlap src); the reserved types are refused; priced as "
       "one simple pass over the bytes written (the library's steps are not documented)"},
      {sort, "Sort32", yes, "half/float scores, 8-byte (score, index) pairs, stable"},
      {sort, "MrgSort", yes,
       "2 to 4 lists of 8-byte (score, index) pairs, largest first, ties keep list order, "
       "ifExhaustedSuspension; repeatTimes 1..255 under its documented conditions (four equal "
       "contiguous lists, no suspension), refused otherwise"},
      {sort, "GetMrgSortResult", yes, "pairs the last MrgSort took from each list"},
      {sort, "Sort", part,
       "the A2/A3 (score, index) layout, per repeat of 32 or full (isFullSort); the region "
       "proposal layout of Atlas inference cores is not provided"},
      {sort, "Concat", yes,
       "the A2/A3 layout: the repeatTime x 16 scores copied one to one into concat, as Sort "
       "reads them; the region proposal layout of Atlas inference cores is not provided"},
      {sort, "Extract", yes,
       "repeats of 32 (score, index) pairs into scores and uint32 indexes (the A2/A3 layout)"},
      {mask, "SetMaskCount", yes, ""},
      {mask, "SetMaskNorm", yes, ""},
      {mask, "SetVectorMask", yes, "length and bit forms"},
      {mask, "ResetMask", yes, ""},
      {sync, "SetFlag", yes,
       "HardEvent X_Y for S, V, MTE2, MTE3 and the cube's MTE1, M, FIX; ids 0..7"},
      {sync, "WaitFlag", yes, ""},
      {sync, "PipeBarrier", yes,
       "PIPE_V, PIPE_MTE2, PIPE_MTE3, PIPE_MTE1, PIPE_M, PIPE_FIX, PIPE_ALL"},
      {sync, "FetchEventID", yes, "and AllocEventID / ReleaseEventID"},
      {sync, "TQueSync", yes, "SetFlag/WaitFlag between two pipe_t"},
      {sync, "SyncAll", part,
       "hardware and software barriers really synchronise the blocks (a block waits until every "
       "block arrives; timed at the last arrival plus its GM flag accesses, an estimate); "
       "blockDim above the core count or a SyncAll some block skips is a deadlock; software "
       "form: usedCores other than 0 or blockDim is refused (which blocks take part is not "
       "documented), the workspaces' flag values are not modelled"},
      {sync, "CrossCoreSetFlag", part,
       "MIX kernels: a counter per core and flagId (at most 16 pending sets); mode 2 exactly as "
       "documented (the AIC's set counts for each of its AIVs, the AIVs' for the AIC once both "
       "set it); modes 1 and 0, which the documentation gives one line each, as barriers among "
       "a group's AIVs and among all cores of one kind; fires when its pipe's earlier work is "
       "done; PIPE_S/PIPE_ALL and flagId above 15 are refused"},
      {sync, "CrossCoreWaitFlag", yes,
       "blocks the core until its counter of the flag is above 0, then takes one; timed at the "
       "sets it consumed; a wait no core can satisfy is a deadlock naming it"},
      {sync, "IBSet", part,
       "sets the flag of (blockIdx, eventID) once the core's earlier work is done; a waiting "
       "block hands its turn on until the flag is set, so it may wait for a later block; "
       "blockIdx, eventID and the documented workspace sizes are checked (gmWorkspace at least "
       "cores * 32 * eventID + blockIdx * 32 + 32 bytes, ubWorkspace 32); the workspace's layout "
       "and values are not documented and not modelled (the flags live in the simulator, a flag "
       "once set stays set)"},
      {sync, "IBWait", part,
       "see IBSet; waits no earlier than the flag's IBSet in the timing; a wait no block "
       "satisfies, its own blockIdx or blockDim above the core count is refused"},
      {sync, "pipe_barrier", yes, "the pre-AscendC intrinsic: pipe_barrier(PIPE_X)"},
      {sync, "set_flag", yes,
       "the pre-AscendC intrinsics set_flag/wait_flag(src, dst, id): id an EVENT_IDn, an "
       "integer literal or variable"},
      {sync, "wait_flag", yes, ""},
      {atomic, "SetAtomicAdd", yes, "UB->GM copies accumulate"},
      {atomic, "SetAtomicNone", yes, ""},
      {atomic, "SetAtomicMax", yes, "UB->GM copies keep the larger of the GM and UB values"},
      {atomic, "SetAtomicMin", yes, "UB->GM copies keep the smaller of the GM and UB values"},
      {system, "GetBlockIdx", yes, ""},
      {system, "GetBlockNum", yes, "logical blockDim up to 65535, run in waves"},
      {system, "GetSubBlockIdx", yes, "an AIV's place in its MIX group; 0 otherwise"},
      {system, "GetSubBlockNum", yes, "AIVs per AIC of a MIX kernel (2 or 1); 1 otherwise"},
      {system, "GetTaskRation", yes, "AIVs per AIC of a MIX kernel (2 or 1); 1 otherwise"},
      {system, "ASCEND_IS_AIV", yes,
       "which unit runs the code: in a MIX kernel the AIC or an AIV of each group; any other "
       "kernel runs on cores that count as AIVs"},
      {system, "ASCEND_IS_AIC", yes, "see ASCEND_IS_AIV"},
      {system, "SetKernelMode", yes, "accepted; the simulator runs vector kernels"},
      {system, "GetTPipePtr", yes, "the kernel's TPipe"},
      {system, "GetSystemCycle", part, "monotonic (instructions so far), not a cycle count"},
      {system, "GetDataBlockSizeInBytes", yes, "32"},
      {system, "GetUserWorkspace", yes, "the system workspace is empty"},
      {system, "SetSysWorkspace", yes, ""},
      {system, "GetSysWorkSpacePtr", yes, ""},
      {system, "InitGlobalMemory", yes, "one MTE3 transfer of the filled bytes"},
      {system, "InitOutput", yes,
       "InitGlobalMemory's earlier name (value defaults to 0): the same transfer"},
      {system, "DataCacheCleanAndInvalid", yes,
       "GM is coherent in the simulator; costs one scalar GM access"},
      {system, "TILING_KEY_IS", yes, ""},
      {system, "GET_TILING_DATA", yes, "and GET_TILING_DATA_WITH_STRUCT"},
      {system, "KERNEL_TASK_TYPE_DEFAULT", yes,
       "KERNEL_TYPE_MIX_AIC_1_2 / _1_1 launch blockDim groups of one AIC and two (one) AIVs that "
       "run concurrently (GetBlockIdx on an AIV in [0, 2 * blockDim)); blockDim above the AIC "
       "count is refused; a vector instruction on an AIC or a cube instruction on an AIV is "
       "unsupported, naming it; other types run as before"},
      {system, "KERNEL_TASK_TYPE", yes, "as KERNEL_TASK_TYPE_DEFAULT for its tiling key"},
      {mathlib, "Log", yes, "count form, with or without a tmp buffer"},
      {mathlib, "Power", yes, "tensor^tensor, tensor^scalar, scalar^tensor"},
      {mathlib, "ClampMax", yes, "count form, with or without a tmp buffer"},
      {mathlib, "ClampMin", yes, ""},
      {mathlib, "CumSum", yes, "last or first axis, outputLastRow"},
      {mathlib, "Tanh", yes, ""},
      {mathlib, "Sigmoid", yes, ""},
      {mathlib, "Sin", yes, "count, tmp-buffer and whole-tensor Sin(dst, src) forms"},
      {mathlib, "Cos", yes, "count, tmp-buffer and whole-tensor Cos(dst, src) forms"},
      {mathlib, "Atan", yes, "count, tmp-buffer and whole-tensor forms"},
      {mathlib, "Sign", yes, "-1, 0 or 1; count, tmp-buffer and whole-tensor forms"},
      {mathlib, "Log2", yes, "count, tmp-buffer and whole-tensor forms"},
      {mathlib, "Log10", yes, "count, tmp-buffer and whole-tensor forms"},
      {mathlib, "Asin", yes, "count, tmp-buffer and whole-tensor forms"},
      {mathlib, "Acos", yes, "count, tmp-buffer and whole-tensor forms"},
      {mathlib, "Tan", yes, "count, tmp-buffer and whole-tensor forms"},
      {mathlib, "Sinh", yes, "count, tmp-buffer and whole-tensor forms"},
      {mathlib, "Cosh", yes, "count, tmp-buffer and whole-tensor forms"},
      {mathlib, "Atanh", yes, "count, tmp-buffer and whole-tensor forms"},
      {mathlib, "Erfc", yes, "count, tmp-buffer and whole-tensor forms"},
      {mathlib, "Frac", yes, "x - trunc(x); count, tmp-buffer and whole-tensor forms"},
      {mathlib, "Fmod", yes, "dst = fmod(src0, src1), count form, with or without a tmp buffer"},
      {mathlib, "Sum", yes, "SumParams {outter, inner, n}: the sum of each row's first n elements"},
      {mathlib, "Mean", yes, "MeanParams {outter, inner, n}; accType widens the sum"},
      {mathlib, "BroadCast", yes, "dim 1 and 2, axis 0 or 1, from a size-1 axis"},
      {mathlib, "Broadcast", yes, "the later name of BroadCast: the same forms and results"},
      {mathlib, "ArithProgression", yes,
       "dst[i] = firstValue + i * diffValue for count elements; half, float, int16_t, int32_t"},
      {mathlib, "UnPad", yes,
       "UnPadParams rightPad (leftPad 0) of a [height, width] tensor; the shape comes from the "
       "UnPadTiling that UnPadTilingFunc filled"},
      {mathlib, "Erf", yes, ""},
      {mathlib, "Gelu", yes, "tanh approximation"},
      {mathlib, "Silu", yes, ""},
      {mathlib, "Floor", yes, ""},
      {mathlib, "Ceil", yes, "the tensor forms; Ceil(a, b) on integers is a / b rounded up"},
      {mathlib, "Round", yes, ""},
      {mathlib, "Trunc", yes, ""},
      {mathlib, "Pad", yes,
       "PadParams rightPad and padValue (leftPad 0) of a [height, width] tensor: each row's "
       "first srcOriWidth elements, then padValue to the 32-byte aligned width; the shape comes "
       "from the PadTiling that PadTilingFunc filled; with or without a sharedTmpBuffer"},
      {mathlib, "TopK", no, "not implemented; Sort32, MrgSort and Sort are"},
      {mathlib, "SoftMax", part,
       "ND rows of an [m, k] tensor (k 32-byte aligned): dst with the row max and sum (one "
       "32-byte block per row; half data with float max and sum too), or dst alone, with or "
       "without a sharedTmpBuffer; the shape from SoftMaxShapeInfo (oriSrcK: the valid part of "
       "padded rows) or the SoftMaxTiling; SoftmaxConfig and SOFTMAX_DEFAULT_CFG accepted. The "
       "NZ format (isDataFormatNZ) is not yet"},
      {mathlib, "SimpleSoftMax", part,
       "dst = exp(src - inMax) / inSum per row, the forms and shapes of SoftMax; NZ not yet"},
      {mathlib, "LogSoftMax", no,
       "not implemented; SoftMax and SimpleSoftMax are, and a log-softmax written with "
       "ReduceMax/WholeReduceMax, Sub, Exp, ReduceSum/BlockReduceSum and Ln runs"},
      {mathlib, "LayerNorm", part,
       "the form with output, mean and variance of a [B, S, H] tensor (H 32-byte aligned, "
       "originalHLength the valid part), with or without a sharedTmpBuffer, from the "
       "LayerNormTiling; the rstd form (LayerNormPara, LayerNormConfig) is not yet"},
      {mathlib, "RmsNorm", yes,
       "dst = src * rstd * gamma per row of a [B, S, H] tensor (H 32-byte aligned, "
       "originalHLength the valid part), half or float, with or without a sharedTmpBuffer, from "
       "the RmsNormTiling; isBasicBlock changes no result"},
      {debug, "printf", yes, "to stderr; PRINTF too"},
      {debug, "assert", yes, "a failed check is runtime_error assertion; message args ignored"},
      {debug, "ASSERT", yes, ""},
      {debug, "ASCENDC_ASSERT", yes, "as assert; the message argument is ignored"},
      {debug, "DumpTensor", part, "accepted, prints nothing"},
      {debug, "cout", yes, "std::cout reachable through kernel_operator.h"},
      {debug, "sqrt", yes, "C/C++ scalar math (sqrt, exp, abs, ...) and min/max in AscendC"},
      {scalar, "DivCeil", yes, "a / b rounded up, integer arguments of mixed types; 0 when b is 0"},
      {scalar, "AlignUp", yes, "a rounded up to a multiple of b, integer arguments of mixed types"},
      {scalar, "ScalarGetSFFValue", yes, "first 0 or 1 bit from the LSB, -1 if none"},
      {scalar, "ScalarGetCountOfValue", yes, "how many 0 or 1 bits"},
      {scalar, "ScalarCountLeadingZero", yes, ""},
      {scalar, "ScalarCast", yes, "float -> int32/half with a RoundMode"},
      {scalar, "sbitset0", yes, "the compiler intrinsics: a copy with bit idx cleared"},
      {scalar, "sbitset1", yes, "a copy with bit idx set"},
      {scalar, "AscendCUtils", yes, "GetBitSize, GetC0Size, GetC0Count"},
      {scalar, "IsSameType", yes, ""},
      {scalar, "likely", yes, "and unlikely"},
      {scalar, "FULL_MASK", yes, "all 64 mask bits"},
      {scalar, "ONE_REPEAT_FLOAT_SIZE", yes, "64 (and ONE_REPEAT_HALF_SIZE 128)"},
      {scalar, "B32_DATA_NUM_PER_BLOCK", yes, "8 (and B16_DATA_NUM_PER_BLOCK 16)"},
      {scalar, "B32_DATA_NUM_PER_REPEAT", yes, "64 (and B16_DATA_NUM_PER_REPEAT 128)"},
      {scalar, "B32_BYTE_SIZE", yes, "4 (and B16_BYTE_SIZE, B8_BYTE_SIZE)"},
      {scalar, "BRCB_BROADCAST_NUMBER", yes, "8"},
      {scalar, "PI", yes, "float pi"},
      {scalar, "kernel_utils.h", yes, "a thin header over kernel_operator.h"},
      {scalar, "kernel_tiling/kernel_tiling.h", yes,
       "the library tiling structs UnPadTiling, PadTiling, SoftMaxTiling, LayerNormTiling and "
       "RmsNormTiling "
       "(aopt_sim/library_tiling.h)"},
      {scalar, "kernel_tpipe_impl.h", yes, "a thin header over kernel_operator.h"},
      {scalar, "kernel_operator_intf.h", yes,
       "thin, as are kernel_macros.h, kernel_tensor.h, kernel_common.h, kernel_event.h, "
       "kernel_log.h and kernel_struct_data_copy.h"},
      {scalar, "ONE_BLK_SIZE", yes, "32 (and ONE_BLOCK_SIZE)"},
      {scalar, "ONE_REPEAT_BYTE_SIZE", yes, "256"},
      {scalar, "DEFAULT_BLK_NUM", yes, "8 blocks a repeat"},
      {scalar, "DEFAULT_BLK_STRIDE", yes, "1"},
      {scalar, "DEFAULT_REPEAT_STRIDE", yes, "8"},
      {scalar, "DEFAULT_DATA_COPY_NBURST", yes, "1"},
      {scalar, "MAX_REPEAT_TIMES", yes, "255"},
      {scalar, "BLOCK_CUBE", yes, "16"},
      {scalar, "MASK_PLACEHOLDER", yes, "0"},
      {scalar, "QUE_MAX_EVENT", yes, "8"},
      {types, "TPosition", yes,
       "GM, VECIN, VECOUT, VECCALC, A1..CO2, ... (QuePosition is the same enum)"},
      {types, "QuePosition", yes, ""},
      {types, "HardEvent", yes, "X_Y for the pipes S, V, M, MTE1, MTE2, MTE3, FIX"},
      {types, "TEventID", yes, ""},
      {types, "RoundMode", yes,
       "CAST_NONE, CAST_RINT, CAST_FLOOR, CAST_CEIL, CAST_ROUND, CAST_TRUNC, CAST_ODD"},
      {types, "SELMODE", yes, "VSEL_CMPMASK_SPR, VSEL_TENSOR_SCALAR_MODE, VSEL_TENSOR_TENSOR_MODE"},
      {types, "MaskMode", yes, "NORMAL, COUNTER"},
      {types, "KernelMode", yes, "accepted by SetKernelMode"},
      {types, "CacheMode", yes, "SetL2CacheHint accepts it (no effect)"},
      {types, "CacheLine", yes, "DataCacheCleanAndInvalid's template argument"},
      {types, "DcciDst", yes, "DataCacheCleanAndInvalid's template argument"},
      {types, "UnaryRepeatParams", yes, "block and repeat strides of one-source instructions"},
      {types, "BinaryRepeatParams", yes, "block and repeat strides of two-source instructions"},
      {types, "GatherMaskParams", yes, ""},
      {types, "GatherMaskMode", yes,
       "defaultGatherMaskMode (and defaultGahterMaskMode, the spelling CANN also accepts)"},
      {types, "GatherRepeatParams", yes, ""},
      {types, "TransDataTo5HDParams", yes,
       "dstHighHalf, srcHighHalf (8-bit types), repeatTimes, dstRepStride, srcRepStride"},
      {types, "TransposeParamsExt", yes, "nSize, cSize, hSize, wSize, transposeType"},
      {types, "TransposeType", yes,
       "the documented names; ND2ND_B16, NCHW2NHWC and NHWC2NCHW transpose, the rest are "
       "reserved"},
      {types, "MrgSort4Info", yes, ""},
      {types, "MrgSortSrcList", yes, ""},
      {types, "CumSumInfo", yes, ""},
      {types, "CumSumConfig", yes, "defaultCumSumConfig"},
      {cube, "Mmad", yes,
       "A2 x B2 -> CO1: half/bfloat16_t/float -> float, int8_t/uint8_t -> int32_t; "
       "cmatrixInitVal (or isBias) false accumulates; the bias form reads C2; on pipe M at the "
       "profile's MACs per cycle per type"},
      {cube, "LoadData", part,
       "2D (LoadData2DParams, or LoadData2dParams) A1 -> A2 and B1 -> B2 on MTE1, ifTranspose "
       "for 16-bit types; 3D (img2col) with LoadData3DParamsV2 and LoadData3DParamsV1 (their "
       "rows); the 3D v2Pro form and GM sources are not simulated"},
      {cube, "LoadData3DParamsV2", part,
       "img2col of an L1 feature map ([C1][H][W][C0]) into A2 (ZZ) on MTE1, timed by the bytes "
       "written like the 2D form: padList, l1H/l1W, strides, filters, dilations, padValue, the "
       "window kStartPt/kExtension (multiples of C0) and mStartPt (a multiple of 16, an output "
       "position)/mExtension (any length up to the end of the fractal that holds the last output "
       "position); half/bfloat16_t/float/int8_t/uint8_t with channelSize a multiple of C0. When "
       "Hout x Wout is not a multiple of 16, the rows past the last output position hold "
       "unspecified values (the documentation does not say what the hardware writes; the shim "
       "writes the uninitialised-memory byte), so Mmad may multiply the whole fractal and a "
       "Fixpipe of the valid rows is the convolution. Unsupported (named in the message): B2 "
       "destinations, enTranspose, enSmallK, filterSizeW/H, fMatrixCtrl, IsResetLoad3dConfig "
       "other than IS_RESER_LOAD3D_DEFAULT_CONFIG, other channelSize, mStartPt not a multiple of "
       "16, whole fractals past the output positions"},
      {cube, "LoadData3DParamsV1", part,
       "img2col with the img2col core of LoadData3DParamsV2 (same layouts, padding and "
       "unspecified rows past the output positions), one 16 x C0 fractal per call: the 16 output "
       "positions from the one whose window corner is leftTopH/leftTopW (negative: in the "
       "padding), channel block c1Index at filter point fetchFilterH/fetchFilterW; padList, "
       "l1H/l1W, strides, filters, dilations, padValue; half/int8_t/uint8_t (the documented v1 "
       "types; the Load3D page lists them for Atlas training and inference products, not A2); "
       "timed by the 512 bytes written. Unsupported (named in the message): repeatTime other "
       "than 1 (so repeatMode and jumpStride have no effect), cSize 1, a window corner off the "
       "stride grid, B2 destinations, IsResetLoad3dConfig other than "
       "IS_RESER_LOAD3D_DEFAULT_CONFIG"},
      {cube, "LoadDataWithTranspose", no,
       "not simulated (2D LoadData's ifTranspose covers 16-bit types)"},
      {cube, "Fixpipe", yes,
       "FixpipeParamsV220, CO1 -> GM or L1 on FIX; FixpipeConfig CFG_ROW_MAJOR (NZ -> ND) and "
       "CFG_NZ (CO2Layout); reluEn; quantPre NoQuant, F322F16, F322BF16, DEQF16, VDEQF16, "
       "QF322B8_PRE, VQF322B8_PRE, REQ8, VREQ8 (vector modes with the cbufWorkspace scales); "
       "ndNum"},
      {cube, "SetFixpipePreQuantFlag", yes, "the scalar of a Fixpipe whose deqScalar is 0"},
      {cube, "Nd2NzParams", yes,
       "DataCopy GM -> A1/B1/C1 (ND -> NZ) on MTE2, column blocks zero-padded to 32 bytes; "
       "costed at the L2 rate for bytes an earlier GM access of the launch touched, at the GM rate "
       "for the rest"},
      {cube, "Nz2NdParamsFull", no,
       "DataCopy NZ -> ND into GM is not simulated (Fixpipe does it from CO1)"},
      {cube, "MmadParams", yes, "m, n, k up to 4095; cmatrixInitVal, cmatrixSource, isBias"},
      {cube, "Matmul", part,
       "lib/matmul_intf.h: A and B in GM, ND (half/bfloat16_t/float, each transposed or not, by "
       "MatmulType's ISTRANS or SetTensorA/SetTensorB; int8_t with B transposed and A not), "
       "bias, SetOrgShape/SetTail, Iterate/IterateAll/GetTensorC into GM (enAtomic 1/2/3: "
       "accumulated by SetAtomicAdd/Max/Min) or a local tensor; a float operand that needs a "
       "transpose reaches L0 through the library's transposing move (MTE1, priced by its bytes); "
       "a transposed int8 A, L1/UB inputs and enAtomic into a local tensor end the run as "
       "unsupported. As the public samples rely on, `using namespace matmul;` alone makes the "
       "AscendC names (GetBlockIdx, GetSysWorkSpacePtr...) visible"},
      {cube, "lib/matmul_intf.h", yes, "the header of the Matmul high-level API"},
      {cube, "MatmulType", part,
       "an AscendC name (and matmul::) with the documented parameters: POSITION, FORMAT, TYPE, "
       "ISTRANS, LAYOUT, IBSHARE; LAYOUT NONE or NORMAL (a batch layout fails to compile, naming "
       "this row); IBSHARE changes no result"},
      {cube, "LayoutMode", part,
       "NONE, BSNGD, SBNGD, BNGS1S2, NORMAL: the values exist, only NONE and NORMAL are "
       "simulated"},
      {cube, "MatmulConfig", yes,
       "an AscendC name (and matmul::); Matmul accepts every config and computes the same "
       "product"},
      {cube, "GetNormalConfig", yes, "returns CFG_NORM; its option arguments are accepted"},
      {cube, "GetIBShareNormConfig", yes, "returns CFG_NORM; its option arguments are accepted"},
      {cube, "GetMDLConfig", yes,
       "returns CFG_MDL (GetSpecialMDLConfig likewise); its option arguments are accepted"},
      {cube, "REGIST_MATMUL_OBJ", yes,
       "initialises each Matmul with its TCubeTiling on the calling core; in a MIX kernel the "
       "AIC's kernel ends there (it serves its AIVs' Matmul objects, whose cube work is timed on "
       "the AIC's pipes, shared by the group), which holds when it is called in the kernel "
       "function itself"},
      {tiling, "TilingContext", yes, "shapes, dtypes, attrs, platform, block dim, key, data"},
      {tiling, "GetInputShape", yes, "GetOriginShape / GetStorageShape"},
      {tiling, "GetRequiredInputShape", yes,
       "op.json's inputs are all present: as GetInputShape; GetRequiredInputDesc, "
       "GetRequiredInputTensor, GetRequiredInputDataType likewise"},
      {tiling, "GetOptionalInputShape", yes,
       "as GetInputShape (an absent optional input cannot be declared yet)"},
      {tiling, "GetAttrPointer", yes, ""},
      {tiling, "SetBlockDim", yes, "1..65535"},
      {tiling, "SetTilingKey", yes, ""},
      {tiling, "SetLocalMemorySize", yes,
       "recorded (GetLocalMemorySize reads it back); the simulated cores have no SIMT data cache "
       "to size"},
      {tiling, "GetRawTilingData", yes, ""},
      {tiling, "GetWorkspaceSizes", yes, "at most 1 GiB"},
      {tiling, "BEGIN_TILING_DATA_DEF", yes, "TILING_DATA_FIELD_DEF(_ARR), END_TILING_DATA_DEF"},
      {tiling, "REGISTER_TILING_DATA_CLASS", yes, ""},
      {tiling, "TilingParseContext", yes,
       "TilingParse<CompileInfo>(f) runs once per launch; GetCompiledInfo, GetPlatformInfo"},
      {tiling, "GetCompileInfo", yes, "the CompileInfo the registered TilingParse filled"},
      {tiling, "IMPL_OP_OPTILING", yes, ".Tiling(f).TilingParse<CompileInfo>(g)"},
      {tiling, "aclAppLog", yes,
       "`acl/acl_base.h` with ACL_APP_LOG and the log levels: the line goes to the tiling "
       "process's stderr"},
      {tiling, "DlogSub", part,
       "`toolchain/slog.h` (`base/dlog_pub.h`): Dlog, DlogSub, DlogRecord, CheckLogLevel, "
       "dlog_getlevel/setlevel, module ids and levels; every level is DLOG_NULL, so nothing is "
       "logged (nor its arguments evaluated)"},
      {tiling, "REPORT_INNER_ERR_MSG", part, "`base/err_msg.h`: the report is dropped"},
      {tiling, "memcpy_s", yes,
       "`securec.h`: memset_s, memcpy_s, memmove_s, strcpy_s, strncpy_s, strcat_s, strncat_s, "
       "sprintf_s, snprintf_s (and the v forms) with securec's return codes (EOK, "
       "EINVAL/ERANGE and their _AND_RESET forms, EOVERLAP_AND_RESET)"},
      {tiling, "GetNodeType", yes,
       "and GetNodeName, on the tiling, tiling-parse, infer-shape and infer-datatype contexts"},
      {tiling, "InferShapeRangeContext", part, "compiles (registration only), never called"},
      {tiling, "GetUnPadMaxMinTmpSize", yes,
       "and UnPadTilingFunc; one 32-byte block, as the math library's helpers"},
      {tiling, "GetPadMaxMinTmpSize", yes,
       "and PadTilingFunc (srcShape, oriSrcShape); one 32-byte block"},
      {tiling, "SoftMaxTilingFunc", yes,
       "the [m, k] view of the shape into SoftMaxTiling (the documented fields); "
       "GetSoftMaxMaxTmpSize and GetSoftMaxMinTmpSize: one 32-byte block"},
      {tiling, "GetLayerNormNDTilingInfo", yes,
       "[B, S, H] into LayerNormTiling (the documented fields), GetLayerNormNDTillingInfo too; "
       "GetLayerNormMaxMinTmpSize: one 32-byte block"},
      {tiling, "GetRmsNormTilingInfo", yes,
       "[B, S, H] and the valid length of its rows (originSrcShape's last axis) into "
       "RmsNormTiling (the documented fields); false when H is not 32-byte aligned; "
       "GetRmsNormMaxMinTmpSize: one 32-byte block"},
      {tiling, "GetSinMaxMinTmpSize", yes,
       "(srcShape, typeSize, isReuseSource, max, min) for Sin, Cos, Tan, Tanh, Asin, Acos, "
       "Atan, Sinh, Cosh, Atanh, Erf, Erfc, Sign, Frac, Floor, Ceil, Trunc, Log, Log2, Log10, "
       "Sigmoid and Clamp (GetCosMaxMinTmpSize, ...): the simulator's kernels use no temporary "
       "buffer, so min = max = one 32-byte block, the smallest buffer InitBuffer gives"},
      {tiling, "GetSinTmpBufferFactorSize", yes,
       "and the TmpBufferFactorSize of the same APIs and Mean: maxLiveNodeCount 0 (documented "
       "as possible) and extraBuf 32"},
      {tiling, "GetRoundMaxMinTmpSize", yes, "with the platform; GetRoundTmpBufferFactorSize"},
      {tiling, "GetPowerMaxMinTmpSize", yes, "both shapes, typeIsInt; 32 and 32"},
      {tiling, "GetCumSumMaxMinTmpSize", yes, "isLastAxis; 32 and 32"},
      {tiling, "GetSumMaxMinTmpSize", yes, "n, typeSize; 32 and 32"},
      {tiling, "GetMeanMaxMinTmpSize", yes, "n, srcTypeSize, accTypeSize; 32 and 32"},
      {tiling, "GetBroadCastMaxMinTmpSize", yes, "with the platform and both shapes; 32 and 32"},
      {tiling, "GetSortTmpSize", yes, "with the platform, the element count and size; 32"},
      {tiling, "TopkTiling", no,
       "the TopK library's tiling struct (TopKTilingFunc, GetTopKMaxMinTmpSize): TopK is not "
       "implemented"},
      {tiling, "LogSoftMaxTiling", no,
       "the LogSoftMax library's tiling struct (LogSoftMaxTilingFunc, GetLogSoftMaxMaxTmpSize): "
       "LogSoftMax is not implemented"},
      {tiling, "GetGeluMaxMinTmpSize", yes, "and GetGeluMaxTmpSize, GetGeluMinTmpSize: 32"},
      {tiling, "MultiCoreMatmulTiling", yes,
       "MatmulApiTiling too: SetDim, SetA/B/C/BiasType, SetShape, SetOrgShape, SetBias, "
       "SetBufferSpace, SetFixSplit, GetTiling (base tiles fitting L0A/L0B/L0C, a near-square "
       "core grid, L1 depths)"},
      {platform, "PlatformAscendC", yes,
       "GetCoreNum, GetCoreNumAiv/Aic, GetCoreMemSize, GetSocVersion, CalcTschBlockDim"},
      {platform, "GetCoreMemSize", yes, "UB, L1, L0, L2, HBM"},
      {platform, "GetPlatformRes", part,
       "version SoC_version/Short_SoC_version, SoCInfo core counts"},
      {reg, "OpDef", yes, "the whole Input/Output/Attr/AICore chain compiles"},
      {reg, "OP_ADD", yes, ""},
      {reg, "TypeUtils", yes, "GetDataTypeLength"},
      {reg, "AscendString", yes, "GetString, comparison"},
      {reg, "Operator", yes,
       "ge::Operator with GetInputDesc/GetOutputDesc (name or index), "
       "UpdateInputDesc/UpdateOutputDesc, SetAttr/GetAttr by name; ge::Shape, ge::TensorDesc; "
       "IMPLEMT_COMMON_INFERFUNC (registration records nothing: the simulator does not compile "
       "graphs)"},
  };
  return table;
}

const ascendc_api* find_ascendc_api(std::string_view name) {
  for (const ascendc_api& a : ascendc_api_coverage())
    if (name == a.name) return &a;
  return nullptr;
}

}  // namespace aopt::npu
