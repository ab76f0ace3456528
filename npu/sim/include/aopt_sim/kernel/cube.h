// aopt simulator, kernel side: the cube unit of an AI core (written from the public AscendC
// documentation of DataCopy with Nd2NzParams, LoadData, Mmad, Fixpipe and SetFixpipePreQuantFlag).
//
// Memories and positions: A1/B1/C1 live in L1, A2 in L0A, B2 in L0B, CO1 in L0C, C2 in the bias
// table; their sizes come from the hardware profile. Layouts (one fractal = 512 bytes, c0 = 32
// bytes / sizeof(element)):
//   * L1 holds matrices in NZ ("big N, small Z"): c0-wide column blocks, one after the other,
//     each a run of rows of c0 elements (DataCopy with Nd2NzParams writes this from ND in GM);
//   * A2 is ZZ: 16 x c0 fractals in row-major order, each row-major;
//   * B2 is ZN: c0 x 16 fractals in row-major order, each column-major;
//   * CO1 is NZ: 16 x 16 fractals of float/int32 in column-major order, each row-major.
// Pipes: GM -> L1 on MTE2, LoadData on MTE1, Mmad on M, Fixpipe on FIX; queues on these positions
// carry the hidden flags between them (A1/B1: MTE2 -> MTE1, A2/B2: MTE1 -> M, CO1: M -> FIX).
#pragma once

#include <cstdint>
#include <cstring>

#include "aopt_sim/kernel/defs.h"
#include "aopt_sim/kernel/dtypes.h"
#include "aopt_sim/kernel/runtime_api.h"
#include "aopt_sim/kernel/tensor.h"

// The quantization modes of the fixpipe (a global enum in AscendC kernels).
enum QuantMode_t {
  NoQuant = 0,   // float -> float, int32 -> int32
  F322F16,       // float -> half
  F322BF16,      // float -> bfloat16_t
  DEQF16,        // int32 -> half, times the scalar deqScalar
  VDEQF16,       // int32 -> half, times a per-column scale from the quantization tensor
  QF322B8_PRE,   // float -> int8, times the scalar
  VQF322B8_PRE,  // float -> int8, per-column scale
  REQ8,          // int32 -> int8, times the scalar
  VREQ8,         // int32 -> int8, per-column scale
};

namespace aopt_sim::rt {

struct nd2nz_geometry {
  uint32_t nd_num = 1;
  uint32_t n = 0;              // rows of each ND matrix
  uint32_t d = 0;              // elements per row
  uint32_t src_nd_stride = 0;  // elements between ND matrices in GM
  uint32_t src_d = 0;          // elements between rows in GM
  uint32_t dst_c0_stride = 0;  // 32-byte blocks between column blocks in L1
  uint32_t dst_n_stride = 0;   // 32-byte blocks between rows in L1
  uint32_t dst_nz_stride = 0;  // elements between NZ matrices in L1
};
void cube_copy_nd2nz(const local_ref& dst, const uint8_t* src, uint32_t elem_size,
                     const nd2nz_geometry& g, call_site site);

struct load2d_geometry {
  uint32_t start = 0;       // first source fractal
  uint32_t repeats = 0;     // fractals moved
  uint32_t src_stride = 0;  // fractals between source fractals
  uint32_t dst_gap = 0;     // fractals between destination fractals (end to start)
  bool transpose = false;
};
void cube_load_2d(const local_ref& dst, const local_ref& src, uint32_t elem_size,
                  const load2d_geometry& g, call_site site);

// The Matmul library's own transposing move of 4-byte operands, L1 -> A2/B2 on MTE1: the 2D
// LoadData transposes 16-bit fractals only, so a float A given transposed (K x M in GM) or a
// float B not transposed reaches L0 through this. The source is an NZ block of `src_rows` rows
// (K) per 8-column block of the other dimension (`outer`: M of A, N of B), as the ND -> NZ copy
// lays it; each destination fractal (outer block o, K block j) of 16 x 8 goes to fractal
// o * dst_outer_stride + j * dst_k_stride. Elements past `outer` or `k` are written as zero.
struct transpose_b32_geometry {
  uint32_t outer = 0;
  uint32_t k = 0;
  uint32_t src_rows = 0;
  uint32_t dst_outer_stride = 0;
  uint32_t dst_k_stride = 0;
};
void cube_load_transposed_b32(const local_ref& dst, const local_ref& src,
                              const transpose_b32_geometry& g, call_site site);

// LoadData 3D (img2col) from a feature map in L1, laid out [C1][l1H][l1W][C0] (NC1HWC0 without
// N), into A2 (ZZ). The img2col matrix has one row per output position (row-major over the
// output height and width) and one column per (c1, filter row, filter column, c0), in that
// order; the instruction writes its rows [m_start, m_start + m_ext) x columns [k_start,
// k_start + k_ext). Positions in the padding read `pad_bits` (the element's bit pattern). Rows
// past the last output position (the tail of the last fractal when Hout x Wout is not a multiple
// of 16) hold unspecified values: the documentation does not say what the hardware writes there.
struct load3d_geometry {
  uint32_t pad_left = 0, pad_right = 0, pad_top = 0, pad_bottom = 0;
  uint32_t l1_h = 0, l1_w = 0;
  uint32_t channels = 0;
  uint32_t k_ext = 0, m_ext = 0;
  uint32_t k_start = 0, m_start = 0;
  uint32_t stride_w = 1, stride_h = 1;
  uint32_t filter_w = 1, filter_h = 1;
  uint32_t dilation_w = 1, dilation_h = 1;
  uint64_t pad_bits = 0;
  // Options the shim refuses as unsupported (named in the message) rather than guess at.
  bool transpose = false, small_k = false, filter_size_w = false, filter_size_h = false,
       fmatrix_ctrl = false, set_fmatrix = true, set_padding = true;
};
void cube_load_3d(const local_ref& dst, const local_ref& src, uint32_t elem_size,
                  const load3d_geometry& g, call_site site);

// The v1 form's window: one 16 x C0 fractal per repeat, from channel block `c1_index` at filter
// point (`fetch_h`, `fetch_w`), for 16 consecutive output positions from the one whose window's
// top-left corner is (`left_top_h`, `left_top_w`) in feature-map coordinates (negative: in the
// padding). `g` gives the feature map, filter and padding; its window fields are unused.
struct load3d_v1_window {
  uint16_t c1_index = 0;
  uint8_t fetch_w = 0, fetch_h = 0;
  int16_t left_top_w = 0, left_top_h = 0;
  uint8_t jump_stride = 1, repeat_mode = 0, repeat_time = 1, c_size = 0;
};
void cube_load_3d_v1(const local_ref& dst, const local_ref& src, dtype t, const load3d_geometry& g,
                     const load3d_v1_window& w, call_site site);

struct mmad_geometry {
  uint32_t m = 0;
  uint32_t n = 0;
  uint32_t k = 0;
  bool accumulate = false;  // C += A * B (else C = A * B, or C = A * B + bias with a bias)
};
void cube_mmad(const local_ref& c, dtype c_t, const local_ref& a, dtype a_t, const local_ref& b,
               dtype b_t, const local_ref* bias, dtype bias_t, const mmad_geometry& g,
               call_site site);

struct fixpipe_geometry {
  uint32_t n = 0;
  uint32_t m = 0;
  uint32_t src_stride = 0;  // rows (of 16 elements) between the column blocks of CO1
  uint32_t dst_stride = 0;  // ND: elements between rows; NZ: 32-byte blocks between blocks
  uint8_t quant = NoQuant;
  uint64_t deq_scalar = 0;
  uint32_t nd_num = 1;
  uint32_t src_nd_stride = 0;  // 16 x 16 fractals between source matrices
  uint32_t dst_nd_stride = 0;  // elements between destination matrices
  bool relu = false;
  bool nz2nd = true;
};
// Into GM (`dst_gm`) or a local tensor (`dst_local`, when dst_gm is null). `quant_table`: the
// per-column uint64 scales of the vector quantization modes (position A1), else null.
void cube_fixpipe(uint8_t* dst_gm, const local_ref* dst_local, dtype dst_t, const local_ref& src,
                  dtype src_t, const local_ref* quant_table, const fixpipe_geometry& g,
                  call_site site);
void set_fixpipe_quant_scalar(uint64_t bits);
// Ends the run as "unsupported": `what` of the API of row `row` (docs/ascendc-api-coverage.md)
// is not simulated.
[[noreturn]] void kernel_unsupported(const char* row, const char* what);
uint64_t fixpipe_quant_scalar();

}  // namespace aopt_sim::rt

namespace AscendC {

struct Nd2NzParams {
  Nd2NzParams() {}
  Nd2NzParams(const uint16_t ndNumIn, const uint16_t nValueIn, const uint16_t dValueIn,
              const uint16_t srcNdMatrixStrideIn, const uint16_t srcDValueIn,
              const uint16_t dstNzC0StrideIn, const uint16_t dstNzNStrideIn,
              const uint16_t dstNzMatrixStrideIn)
      : ndNum(ndNumIn),
        nValue(nValueIn),
        dValue(dValueIn),
        srcNdMatrixStride(srcNdMatrixStrideIn),
        srcDValue(srcDValueIn),
        dstNzC0Stride(dstNzC0StrideIn),
        dstNzNStride(dstNzNStrideIn),
        dstNzMatrixStride(dstNzMatrixStrideIn) {}

  uint16_t ndNum = 1;
  uint16_t nValue = 0;
  uint16_t dValue = 0;
  uint16_t srcNdMatrixStride = 0;
  uint16_t srcDValue = 0;
  uint16_t dstNzC0Stride = 0;
  uint16_t dstNzNStride = 0;
  uint16_t dstNzMatrixStride = 0;
};

struct LoadData2DParams {
  LoadData2DParams() {}
  LoadData2DParams(const uint16_t startIndexIn, const uint8_t repeatTimesIn,
                   const uint16_t srcStrideIn, const uint8_t sidIn, const uint16_t dstGapIn,
                   const bool ifTransposeIn, const uint8_t addrModeIn)
      : startIndex(startIndexIn),
        repeatTimes(repeatTimesIn),
        srcStride(srcStrideIn),
        sid(sidIn),
        dstGap(dstGapIn),
        ifTranspose(ifTransposeIn),
        addrMode(addrModeIn) {}

  uint16_t startIndex = 0;
  uint8_t repeatTimes = 0;
  uint16_t srcStride = 0;
  uint8_t sid = 0;
  uint16_t dstGap = 0;
  bool ifTranspose = false;
  uint8_t addrMode = 0;
};
using LoadData2dParams = LoadData2DParams;

// Whether LoadData 3D sets the feature-map geometry and the padding value itself (the
// defaults); the shim simulates only the defaults (no SetFmatrix / SetLoadDataPaddingValue).
struct IsResetLoad3dConfig {
  bool isSetFMatrix = true;
  bool isSetPadding = true;
};
constexpr IsResetLoad3dConfig IS_RESER_LOAD3D_DEFAULT_CONFIG = {true, true};

// LoadData 3D, the v1 form: padList is {left, right, top, bottom}. Each repeat writes one
// 16 x C0 fractal of the img2col matrix (aopt_sim::rt::load3d_v1_window). The defaults of
// jumpStride and repeatTime (1) are the shim's: a default-constructed struct moves one fractal.
template <typename T>
struct LoadData3DParamsV1 {
  LoadData3DParamsV1() {}
  LoadData3DParamsV1(const uint8_t padListIn[4], const uint16_t l1HIn, const uint16_t l1WIn,
                     const uint16_t c1IndexIn, const uint8_t fetchFilterWIn,
                     const uint8_t fetchFilterHIn, const int16_t leftTopWIn,
                     const int16_t leftTopHIn, const uint8_t strideWIn, const uint8_t strideHIn,
                     const uint8_t filterWIn, const uint8_t filterHIn,
                     const uint8_t dilationFilterWIn, const uint8_t dilationFilterHIn,
                     const uint8_t jumpStrideIn, const uint8_t repeatModeIn,
                     const uint8_t repeatTimeIn, const uint8_t cSizeIn, const T padValueIn)
      : l1H(l1HIn),
        l1W(l1WIn),
        c1Index(c1IndexIn),
        fetchFilterW(fetchFilterWIn),
        fetchFilterH(fetchFilterHIn),
        leftTopW(leftTopWIn),
        leftTopH(leftTopHIn),
        strideW(strideWIn),
        strideH(strideHIn),
        filterW(filterWIn),
        filterH(filterHIn),
        dilationFilterW(dilationFilterWIn),
        dilationFilterH(dilationFilterHIn),
        jumpStride(jumpStrideIn),
        repeatMode(repeatModeIn),
        repeatTime(repeatTimeIn),
        cSize(cSizeIn),
        padValue(padValueIn) {
    for (int i = 0; i < 4; ++i) padList[i] = padListIn[i];
  }

  uint8_t padList[4] = {0, 0, 0, 0};
  uint16_t l1H = 0;
  uint16_t l1W = 0;
  uint16_t c1Index = 0;
  uint8_t fetchFilterW = 0;
  uint8_t fetchFilterH = 0;
  int16_t leftTopW = 0;
  int16_t leftTopH = 0;
  uint8_t strideW = 1;
  uint8_t strideH = 1;
  uint8_t filterW = 1;
  uint8_t filterH = 1;
  uint8_t dilationFilterW = 1;
  uint8_t dilationFilterH = 1;
  uint8_t jumpStride = 1;
  uint8_t repeatMode = 0;
  uint8_t repeatTime = 1;
  uint8_t cSize = 0;
  T padValue = 0;
};

// LoadData 3D, the v2 form: padList is {left, right, top, bottom}.
template <typename T>
struct LoadData3DParamsV2 {
  LoadData3DParamsV2() {}
  LoadData3DParamsV2(const uint8_t padListIn[4], const uint16_t l1HIn, const uint16_t l1WIn,
                     const uint16_t channelSizeIn, const uint16_t kExtensionIn,
                     const uint16_t mExtensionIn, const uint16_t kStartPtIn,
                     const uint16_t mStartPtIn, const uint8_t strideWIn, const uint8_t strideHIn,
                     const uint8_t filterWIn, const uint8_t filterHIn,
                     const uint8_t dilationFilterWIn, const uint8_t dilationFilterHIn,
                     const bool enTransposeIn, const bool enSmallKIn, const T padValueIn,
                     const bool filterSizeWIn = false, const bool filterSizeHIn = false,
                     const bool fMatrixCtrlIn = false)
      : l1H(l1HIn),
        l1W(l1WIn),
        channelSize(channelSizeIn),
        kExtension(kExtensionIn),
        mExtension(mExtensionIn),
        kStartPt(kStartPtIn),
        mStartPt(mStartPtIn),
        strideW(strideWIn),
        strideH(strideHIn),
        filterW(filterWIn),
        filterH(filterHIn),
        dilationFilterW(dilationFilterWIn),
        dilationFilterH(dilationFilterHIn),
        enTranspose(enTransposeIn),
        enSmallK(enSmallKIn),
        padValue(padValueIn),
        filterSizeW(filterSizeWIn),
        filterSizeH(filterSizeHIn),
        fMatrixCtrl(fMatrixCtrlIn) {
    for (int i = 0; i < 4; ++i) padList[i] = padListIn[i];
  }

  uint8_t padList[4] = {0, 0, 0, 0};
  uint16_t l1H = 0;
  uint16_t l1W = 0;
  uint16_t channelSize = 0;
  uint16_t kExtension = 0;
  uint16_t mExtension = 0;
  uint16_t kStartPt = 0;
  uint16_t mStartPt = 0;
  uint8_t strideW = 1;
  uint8_t strideH = 1;
  uint8_t filterW = 1;
  uint8_t filterH = 1;
  uint8_t dilationFilterW = 1;
  uint8_t dilationFilterH = 1;
  bool enTranspose = false;
  bool enSmallK = false;
  T padValue = 0;
  bool filterSizeW = false;
  bool filterSizeH = false;
  bool fMatrixCtrl = false;
};

struct MmadParams {
  MmadParams() {}
  MmadParams(const uint16_t mIn, const uint16_t nIn, const uint16_t kIn, const bool isBiasIn,
             const int32_t fmOffsetIn, const bool enSsparseIn, const bool enWinogradAIn,
             const bool enWinogradBIn)
      : m(mIn),
        n(nIn),
        k(kIn),
        isBias(isBiasIn),
        fmOffset(fmOffsetIn),
        enSsparse(enSsparseIn),
        enWinogradA(enWinogradAIn),
        enWinogradB(enWinogradBIn) {}
  MmadParams(const uint16_t mIn, const uint16_t nIn, const uint16_t kIn, const uint8_t unitFlagIn,
             const bool cmatrixSourceIn, const bool cmatrixInitValIn)
      : m(mIn),
        n(nIn),
        k(kIn),
        unitFlag(unitFlagIn),
        cmatrixInitVal(cmatrixInitValIn),
        cmatrixSource(cmatrixSourceIn) {}

  uint16_t m = 0;
  uint16_t n = 0;
  uint16_t k = 0;
  bool isBias = false;  // deprecated: C += A * B
  int32_t fmOffset = 0;
  bool enSsparse = false;
  bool enWinogradA = false;
  bool enWinogradB = false;
  uint8_t unitFlag = 0;
  bool cmatrixInitVal = true;  // C starts at 0 (else from cmatrixSource)
  bool cmatrixSource = false;  // C starts from the bias table (else from CO1)
};

enum class CO2Layout : uint8_t { NZ = 0, ROW_MAJOR };
struct FixpipeConfig {
  CO2Layout format;
};
constexpr FixpipeConfig CFG_NZ = {CO2Layout::NZ};
constexpr FixpipeConfig CFG_ROW_MAJOR = {CO2Layout::ROW_MAJOR};

struct FixpipeParamsV220 {
  FixpipeParamsV220() {}
  FixpipeParamsV220(const uint16_t nSizeIn, const uint16_t mSizeIn, const uint16_t srcStrideIn,
                    const uint32_t dstStrideIn, const bool reluEnIn)
      : nSize(nSizeIn),
        mSize(mSizeIn),
        srcStride(srcStrideIn),
        dstStride(dstStrideIn),
        reluEn(reluEnIn) {}

  uint16_t nSize = 0;
  uint16_t mSize = 0;
  uint16_t srcStride = 0;
  uint32_t dstStride = 0;
  QuantMode_t quantPre = QuantMode_t::NoQuant;
  uint64_t deqScalar = 0;
  uint16_t ndNum = 1;
  uint16_t srcNdStride = 0;
  uint16_t dstNdStride = 0;
  bool reluEn = false;
  uint8_t unitFlag = 0;
  bool isChannelSplit = false;
};

namespace detail {

template <typename T>
constexpr aopt_sim::rt::dtype cube_type() {
  return aopt_sim::rt::dtype_of<T>::value;
}

inline aopt_sim::rt::fixpipe_geometry fixpipe_of(const FixpipeParamsV220& p, bool nz2nd) {
  aopt_sim::rt::fixpipe_geometry g;
  g.n = p.nSize;
  g.m = p.mSize;
  g.src_stride = p.srcStride;
  g.dst_stride = p.dstStride;
  g.quant = static_cast<uint8_t>(p.quantPre);
  g.deq_scalar = p.deqScalar;
  g.nd_num = p.ndNum;
  g.src_nd_stride = p.srcNdStride;
  g.dst_nd_stride = p.dstNdStride;
  g.relu = p.reluEn;
  g.nz2nd = nz2nd;
  return g;
}

}  // namespace detail

// GM (ND) -> A1/B1 (NZ), on MTE2. Column blocks past dValue are zero-padded to 32 bytes.
template <typename T>
void DataCopy(const LocalTensor<T>& dst, const GlobalTensor<T>& src, const Nd2NzParams& p,
              aopt_sim::rt::call_site site = aopt_sim::rt::call_site(__builtin_LINE())) {
  aopt_sim::rt::nd2nz_geometry g;
  g.nd_num = p.ndNum;
  g.n = p.nValue;
  g.d = p.dValue;
  g.src_nd_stride = p.srcNdMatrixStride;
  g.src_d = p.srcDValue;
  g.dst_c0_stride = p.dstNzC0Stride;
  g.dst_n_stride = p.dstNzNStride;
  g.dst_nz_stride = p.dstNzMatrixStride;
  aopt_sim::rt::cube_copy_nd2nz(dst.aopt_ref(), reinterpret_cast<const uint8_t*>(src.GetPhyAddr()),
                                static_cast<uint32_t>(sizeof(T)), g, site);
}

// A1 -> A2, B1 -> B2 (2D: whole 512-byte fractals), on MTE1.
template <typename T>
void LoadData(const LocalTensor<T>& dst, const LocalTensor<T>& src, const LoadData2DParams& p,
              aopt_sim::rt::call_site site = aopt_sim::rt::call_site(__builtin_LINE())) {
  aopt_sim::rt::load2d_geometry g;
  g.start = p.startIndex;
  g.repeats = p.repeatTimes;
  g.src_stride = p.srcStride;
  g.dst_gap = p.dstGap;
  g.transpose = p.ifTranspose;
  aopt_sim::rt::cube_load_2d(dst.aopt_ref(), src.aopt_ref(), static_cast<uint32_t>(sizeof(T)), g,
                             site);
}

namespace detail {

// The feature map, filter and padding both 3D forms describe alike.
template <typename P, typename U>
aopt_sim::rt::load3d_geometry load3d_map_of(const P& p, const IsResetLoad3dConfig& config) {
  aopt_sim::rt::load3d_geometry g;
  g.pad_left = p.padList[0];
  g.pad_right = p.padList[1];
  g.pad_top = p.padList[2];
  g.pad_bottom = p.padList[3];
  g.l1_h = p.l1H;
  g.l1_w = p.l1W;
  g.stride_w = p.strideW;
  g.stride_h = p.strideH;
  g.filter_w = p.filterW;
  g.filter_h = p.filterH;
  g.dilation_w = p.dilationFilterW;
  g.dilation_h = p.dilationFilterH;
  std::memcpy(&g.pad_bits, &p.padValue, sizeof(U));
  g.set_fmatrix = config.isSetFMatrix;
  g.set_padding = config.isSetPadding;
  return g;
}

}  // namespace detail

// L1 feature map -> A2 (3D: img2col, v1 form: one fractal per repeat), on MTE1.
template <typename T, const IsResetLoad3dConfig& defaultConfig = IS_RESER_LOAD3D_DEFAULT_CONFIG,
          typename U = T>
void LoadData(const LocalTensor<T>& dst, const LocalTensor<T>& src, const LoadData3DParamsV1<U>& p,
              aopt_sim::rt::call_site site = aopt_sim::rt::call_site(__builtin_LINE())) {
  static_assert(sizeof(U) == sizeof(T), "LoadData3DParamsV1<U>: U is the element type of T");
  const aopt_sim::rt::load3d_geometry g =
      detail::load3d_map_of<LoadData3DParamsV1<U>, U>(p, defaultConfig);
  aopt_sim::rt::load3d_v1_window w;
  w.c1_index = p.c1Index;
  w.fetch_w = p.fetchFilterW;
  w.fetch_h = p.fetchFilterH;
  w.left_top_w = p.leftTopW;
  w.left_top_h = p.leftTopH;
  w.jump_stride = p.jumpStride;
  w.repeat_mode = p.repeatMode;
  w.repeat_time = p.repeatTime;
  w.c_size = p.cSize;
  aopt_sim::rt::cube_load_3d_v1(dst.aopt_ref(), src.aopt_ref(), detail::cube_type<T>(), g, w, site);
}

// L1 feature map -> A2 (3D: img2col), on MTE1.
template <typename T, const IsResetLoad3dConfig& defaultConfig = IS_RESER_LOAD3D_DEFAULT_CONFIG,
          typename U = T>
void LoadData(const LocalTensor<T>& dst, const LocalTensor<T>& src, const LoadData3DParamsV2<U>& p,
              aopt_sim::rt::call_site site = aopt_sim::rt::call_site(__builtin_LINE())) {
  static_assert(sizeof(U) == sizeof(T), "LoadData3DParamsV2<U>: U is the element type of T");
  aopt_sim::rt::load3d_geometry g =
      detail::load3d_map_of<LoadData3DParamsV2<U>, U>(p, defaultConfig);
  g.channels = p.channelSize;
  g.k_ext = p.kExtension;
  g.m_ext = p.mExtension;
  g.k_start = p.kStartPt;
  g.m_start = p.mStartPt;
  g.transpose = p.enTranspose;
  g.small_k = p.enSmallK;
  g.filter_size_w = p.filterSizeW;
  g.filter_size_h = p.filterSizeH;
  g.fmatrix_ctrl = p.fMatrixCtrl;
  aopt_sim::rt::cube_load_3d(dst.aopt_ref(), src.aopt_ref(), static_cast<uint32_t>(sizeof(T)), g,
                             site);
}

// CO1 (+)= A2 x B2, on M: half/bfloat16_t in, float out; int8_t in, int32_t out; float in,
// float out.
template <typename T, typename U, typename S>
void Mmad(const LocalTensor<T>& dst, const LocalTensor<U>& fm, const LocalTensor<S>& filter,
          const MmadParams& p,
          aopt_sim::rt::call_site site = aopt_sim::rt::call_site(__builtin_LINE())) {
  aopt_sim::rt::mmad_geometry g;
  g.m = p.m;
  g.n = p.n;
  g.k = p.k;
  g.accumulate = p.isBias || !p.cmatrixInitVal;
  aopt_sim::rt::cube_mmad(dst.aopt_ref(), detail::cube_type<T>(), fm.aopt_ref(),
                          detail::cube_type<U>(), filter.aopt_ref(), detail::cube_type<S>(),
                          nullptr, aopt_sim::rt::dtype::other, g, site);
}

// CO1 = A2 x B2 + bias (one value per column, from C2).
template <typename T, typename U, typename S, typename V>
void Mmad(const LocalTensor<T>& dst, const LocalTensor<U>& fm, const LocalTensor<S>& filter,
          const LocalTensor<V>& bias, const MmadParams& p,
          aopt_sim::rt::call_site site = aopt_sim::rt::call_site(__builtin_LINE())) {
  aopt_sim::rt::mmad_geometry g;
  g.m = p.m;
  g.n = p.n;
  g.k = p.k;
  g.accumulate = false;
  aopt_sim::rt::cube_mmad(dst.aopt_ref(), detail::cube_type<T>(), fm.aopt_ref(),
                          detail::cube_type<U>(), filter.aopt_ref(), detail::cube_type<S>(),
                          &bias.aopt_ref(), detail::cube_type<V>(), g, site);
}

// CO1 -> GM, on FIX, with NZ -> ND (CFG_ROW_MAJOR), ReLU and quantization on the way.
template <typename T, typename U, const FixpipeConfig& config = CFG_ROW_MAJOR>
void Fixpipe(const GlobalTensor<T>& dst, const LocalTensor<U>& src, const FixpipeParamsV220& p,
             aopt_sim::rt::call_site site = aopt_sim::rt::call_site(__builtin_LINE())) {
  aopt_sim::rt::cube_fixpipe(reinterpret_cast<uint8_t*>(dst.GetPhyAddr()), nullptr,
                             detail::cube_type<T>(), src.aopt_ref(), detail::cube_type<U>(),
                             nullptr, detail::fixpipe_of(p, config.format == CO2Layout::ROW_MAJOR),
                             site);
}

// The same with per-column quantization scales (uint64_t, position A1).
template <typename T, typename U, const FixpipeConfig& config = CFG_ROW_MAJOR, typename S>
void Fixpipe(const GlobalTensor<T>& dst, const LocalTensor<U>& src,
             const LocalTensor<S>& cbufWorkspace, const FixpipeParamsV220& p,
             aopt_sim::rt::call_site site = aopt_sim::rt::call_site(__builtin_LINE())) {
  aopt_sim::rt::cube_fixpipe(reinterpret_cast<uint8_t*>(dst.GetPhyAddr()), nullptr,
                             detail::cube_type<T>(), src.aopt_ref(), detail::cube_type<U>(),
                             &cbufWorkspace.aopt_ref(),
                             detail::fixpipe_of(p, config.format == CO2Layout::ROW_MAJOR), site);
}

// CO1 -> a local tensor (A1/B1 in L1, or CO2/UB).
template <typename T, typename U, const FixpipeConfig& config = CFG_ROW_MAJOR>
void Fixpipe(const LocalTensor<T>& dst, const LocalTensor<U>& src, const FixpipeParamsV220& p,
             aopt_sim::rt::call_site site = aopt_sim::rt::call_site(__builtin_LINE())) {
  aopt_sim::rt::cube_fixpipe(nullptr, &dst.aopt_ref(), detail::cube_type<T>(), src.aopt_ref(),
                             detail::cube_type<U>(), nullptr,
                             detail::fixpipe_of(p, config.format == CO2Layout::ROW_MAJOR), site);
}

// The scalar of the scalar quantization modes for a later Fixpipe whose deqScalar is 0.
inline void SetFixpipePreQuantFlag(uint64_t config) {
  aopt_sim::rt::set_fixpipe_quant_scalar(config);
}

}  // namespace AscendC
