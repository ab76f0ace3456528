// A convolution of one image on the cube, for the img2col tests of both LoadData 3D forms: the
// feature map goes GM -> A1 as [C1][H][W][C0], a test-given load fills A2 with (a window of) its
// img2col matrix, the weights go GM -> B1 (NZ of B^T) -> B2, then Mmad and a Fixpipe of the valid
// rows; and the plain C++ img2col the results are compared with.
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "sim/shim_fixture.hpp"

namespace aopt::sim::testing {

// `channels` input channels (a multiple of c0), an h x w map, a filter_h x filter_w filter with
// n (16) output channels, padding {left, right, top, bottom}, strides and dilations. The img2col
// window is rows [m_start, m_start + m_ext) and columns [k_start, k_start + k_ext) (m_ext 0: all
// rows; k_ext 0: all columns). `load_rows` and `mmad_rows` (0: the window's rows) are the rows
// the load writes and the Mmad multiplies: past the output positions when Hout x Wout is not a
// multiple of 16.
struct conv_shape {
  uint32_t channels, h, w, filter_h, filter_w;
  uint8_t pad[4];
  uint32_t stride_h = 1, stride_w = 1, dilation_h = 1, dilation_w = 1;
  uint32_t m_start = 0, m_ext = 0, k_start = 0, k_ext = 0;
  uint32_t load_rows = 0, mmad_rows = 0;
  static constexpr uint32_t n = 16;

  uint32_t out_h() const {
    return (h + pad[2] + pad[3] - dilation_h * (filter_h - 1) - 1) / stride_h + 1;
  }
  uint32_t out_w() const {
    return (w + pad[0] + pad[1] - dilation_w * (filter_w - 1) - 1) / stride_w + 1;
  }
  uint32_t k_all() const { return channels * filter_h * filter_w; }
  uint32_t rows() const { return m_ext != 0 ? m_ext : out_h() * out_w(); }
  uint32_t cols() const { return k_ext != 0 ? k_ext : k_all(); }
  uint32_t loaded_rows() const { return load_rows != 0 ? load_rows : rows(); }
  uint32_t multiplied_rows() const { return mmad_rows != 0 ? mmad_rows : rows(); }
  // The A2 and CO1 tiles hold whole fractals.
  uint32_t tile_rows() const { return (rows() + 15) / 16 * 16; }
};

// Plain C++: the img2col matrix entry (m, k) of the feature map `fm` given as [C][H][W], with
// k ordered (c1, filter row, filter column, c0) for channel blocks of c0.
template <typename In>
double img2col_at(const conv_shape& s, const std::vector<In>& fm, uint32_t c0, uint32_t m,
                  uint32_t k, double pad_value) {
  const uint32_t oh = m / s.out_w(), ow = m % s.out_w();
  const uint32_t c1 = k / (s.filter_h * s.filter_w * c0);
  const uint32_t kh = k / (s.filter_w * c0) % s.filter_h;
  const uint32_t kw = k / c0 % s.filter_w;
  const uint32_t c = c1 * c0 + k % c0;
  const int ih = static_cast<int>(oh * s.stride_h + kh * s.dilation_h) - s.pad[2];
  const int iw = static_cast<int>(ow * s.stride_w + kw * s.dilation_w) - s.pad[0];
  if (ih < 0 || iw < 0 || ih >= static_cast<int>(s.h) || iw >= static_cast<int>(s.w))
    return pad_value;
  return static_cast<double>(fm[(c * s.h + static_cast<uint32_t>(ih)) * s.w + iw]);
}

// Plain C++: out[i][j] = sum over the window's columns of img2col(m_start + i, k) * wt[j][k].
template <typename In>
std::vector<double> plain_conv(const conv_shape& s, const std::vector<In>& fm,
                               const std::vector<In>& wt, double pad_value) {
  constexpr uint32_t c0 = 32 / sizeof(In);
  std::vector<double> out(uint64_t{s.rows()} * conv_shape::n, 0.0);
  for (uint32_t i = 0; i < s.rows(); ++i)
    for (uint32_t j = 0; j < conv_shape::n; ++j)
      for (uint32_t kk = 0; kk < s.cols(); ++kk)
        out[i * conv_shape::n + j] +=
            img2col_at(s, fm, c0, s.m_start + i, s.k_start + kk, pad_value) *
            static_cast<double>(wt[j * s.cols() + kk]);
  return out;
}

// Small integers: every product and sum is exact in half, float and int8/int32.
template <typename In>
std::vector<In> ramp(uint32_t count, int seed) {
  std::vector<In> v(count);
  for (uint32_t i = 0; i < count; ++i)
    v[i] = static_cast<In>(static_cast<float>((static_cast<int>(i) * 7 + seed) % 5 - 2));
  return v;
}

// Fills A2 (tile_rows() x cols() elements, DeQue'd from A1 as `a1`) from the feature map.
template <typename In>
using a2_load = std::function<void(AscendC::LocalTensor<In>& a2, AscendC::LocalTensor<In>& a1)>;

// Runs the cube convolution with `load` filling A2; out = rows() x n, of which the Fixpipe writes
// the window's rows only.
template <typename In, typename Acc>
core_trace cube_conv(shim_run& run, const conv_shape& s, const std::vector<In>& fm,
                     const std::vector<In>& wt, const a2_load<In>& load, std::vector<Acc>& out) {
  using namespace AscendC;  // NOLINT(google-build-using-namespace): kernels are written this way
  constexpr uint32_t c0 = 32 / sizeof(In);
  const uint32_t fm_elems = s.channels * s.h * s.w;
  In* fm_gm = run.gm<In>("fm", fm_elems);
  for (uint32_t c = 0; c < s.channels; ++c)
    for (uint32_t y = 0; y < s.h; ++y)
      for (uint32_t x = 0; x < s.w; ++x)
        fm_gm[(((c / c0) * s.h + y) * s.w + x) * c0 + c % c0] = fm[(c * s.h + y) * s.w + x];
  const uint32_t m = s.rows(), tile = s.tile_rows(), k = s.cols(), n = conv_shape::n;
  In* wt_gm = run.gm<In>("wt", n * k);
  for (uint32_t i = 0; i < n * k; ++i) wt_gm[i] = wt[i];
  Acc* out_gm = run.gm<Acc>("out", m * n);
  const core_trace t = run.run([&] {
    TPipe pipe;
    TQue<TPosition::A1, 1> inA1;
    TQue<TPosition::B1, 1> inB1;
    TQue<TPosition::A2, 1> inA2;
    TQue<TPosition::B2, 1> inB2;
    TQue<TPosition::CO1, 1> outCO1;
    pipe.InitBuffer(inA1, 1, fm_elems * sizeof(In));
    pipe.InitBuffer(inB1, 1, n * k * sizeof(In));
    pipe.InitBuffer(inA2, 1, tile * k * sizeof(In));
    pipe.InitBuffer(inB2, 1, n * k * sizeof(In));
    pipe.InitBuffer(outCO1, 1, tile * n * sizeof(Acc));
    GlobalTensor<In> fmg, wg;
    GlobalTensor<Acc> og;
    fmg.SetGlobalBuffer(reinterpret_cast<__gm__ In*>(fm_gm), fm_elems);
    wg.SetGlobalBuffer(reinterpret_cast<__gm__ In*>(wt_gm), n * k);
    og.SetGlobalBuffer(reinterpret_cast<__gm__ Acc*>(out_gm), m * n);

    LocalTensor<In> a1 = inA1.AllocTensor<In>();
    DataCopy(a1, fmg, fm_elems);
    inA1.EnQue(a1);
    LocalTensor<In> b1 = inB1.AllocTensor<In>();
    DataCopy(b1, wg, Nd2NzParams(1, n, k, 0, k, n, 1, 0));
    inB1.EnQue(b1);

    a1 = inA1.DeQue<In>();
    LocalTensor<In> a2 = inA2.AllocTensor<In>();
    load(a2, a1);
    inA2.EnQue(a2);
    inA1.FreeTensor(a1);

    b1 = inB1.DeQue<In>();
    LocalTensor<In> b2 = inB2.AllocTensor<In>();
    // NZ of B^T (n x k) is ZN of B: one 2D load of every fractal.
    LoadData(b2, b1,
             LoadData2DParams(0, static_cast<uint8_t>(k / c0 * (n / 16)), 1, 0, 0, false, 0));
    inB2.EnQue(b2);
    inB1.FreeTensor(b1);

    a2 = inA2.DeQue<In>();
    b2 = inB2.DeQue<In>();
    LocalTensor<Acc> co1 = outCO1.AllocTensor<Acc>();
    Mmad(co1, a2, b2,
         MmadParams(static_cast<uint16_t>(s.multiplied_rows()), n, static_cast<uint16_t>(k), false,
                    0, false, false, false));
    outCO1.EnQue(co1);
    inA2.FreeTensor(a2);
    inB2.FreeTensor(b2);
    co1 = outCO1.DeQue<Acc>();
    // Only the window's rows: the tile's rows past the output positions are not the result.
    FixpipeParamsV220 fp(n, static_cast<uint16_t>(m), static_cast<uint16_t>(tile), n, false);
    Fixpipe(og, co1, fp);
    outCO1.FreeTensor(co1);
  });
  out.assign(out_gm, out_gm + m * n);
  return t;
}

}  // namespace aopt::sim::testing
