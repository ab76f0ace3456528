// LoadData 3D (img2col, LoadData3DParamsV2) against plain C++: a convolution computed on the cube
// (feature map GM -> A1 in NC1HWC0, img2col into A2, the weights as B, Mmad, Fixpipe) equals a
// plain C++ img2col times the weights, for half, float and int8 with padding, stride,
// dilation, a second channel block and a window of the img2col matrix; the load is one MTE1
// instruction timed by the bytes it writes; a load the Mmad reads without a flag is a race; and
// what the documentation leaves open is refused as unsupported, naming the parameter.
#include <doctest/doctest.h>

#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "npu/sim/runtime/hazard_detector.hpp"
#include "sim/shim_fixture.hpp"

namespace aopt::sim {
namespace {

using namespace AscendC;  // NOLINT(google-build-using-namespace): kernels are written this way
using testing::error_kind;
using testing::shim_run;

// A convolution of one image: `channels` input channels (a multiple of c0), an h x w map, a
// filter_h x filter_w filter with n (16) output channels, padding {left, right, top, bottom},
// strides and dilations. The img2col window is rows [m_start, m_start + m_ext) and columns
// [k_start, k_start + k_ext) (m_ext 0: all rows; k_ext 0: all columns).
struct conv_shape {
  uint32_t channels, h, w, filter_h, filter_w;
  uint8_t pad[4];
  uint32_t stride_h = 1, stride_w = 1, dilation_h = 1, dilation_w = 1;
  uint32_t m_start = 0, m_ext = 0, k_start = 0, k_ext = 0;
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

// Runs the cube convolution: the feature map (given [C][H][W]) goes to GM as [C1][H][W][C0],
// the weights `wt` (n x cols, the img2col window's columns) as B transposed; out = rows x n.
template <typename In, typename Acc>
core_trace cube_conv(shim_run& run, const conv_shape& s, const std::vector<In>& fm,
                     const std::vector<In>& wt, In pad_value, std::vector<Acc>& out) {
  constexpr uint32_t c0 = 32 / sizeof(In);
  const uint32_t fm_elems = s.channels * s.h * s.w;
  In* fm_gm = run.gm<In>("fm", fm_elems);
  for (uint32_t c = 0; c < s.channels; ++c)
    for (uint32_t y = 0; y < s.h; ++y)
      for (uint32_t x = 0; x < s.w; ++x)
        fm_gm[(((c / c0) * s.h + y) * s.w + x) * c0 + c % c0] = fm[(c * s.h + y) * s.w + x];
  const uint32_t m = s.rows(), k = s.cols(), n = conv_shape::n;
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
    pipe.InitBuffer(inA2, 1, m * k * sizeof(In));
    pipe.InitBuffer(inB2, 1, n * k * sizeof(In));
    pipe.InitBuffer(outCO1, 1, m * n * sizeof(Acc));
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
    LoadData3DParamsV2<In> p;
    for (int i = 0; i < 4; ++i) p.padList[i] = s.pad[i];
    p.l1H = static_cast<uint16_t>(s.h);
    p.l1W = static_cast<uint16_t>(s.w);
    p.channelSize = static_cast<uint16_t>(s.channels);
    p.kExtension = static_cast<uint16_t>(k);
    p.mExtension = static_cast<uint16_t>(m);
    p.kStartPt = static_cast<uint16_t>(s.k_start);
    p.mStartPt = static_cast<uint16_t>(s.m_start);
    p.strideW = static_cast<uint8_t>(s.stride_w);
    p.strideH = static_cast<uint8_t>(s.stride_h);
    p.filterW = static_cast<uint8_t>(s.filter_w);
    p.filterH = static_cast<uint8_t>(s.filter_h);
    p.dilationFilterW = static_cast<uint8_t>(s.dilation_w);
    p.dilationFilterH = static_cast<uint8_t>(s.dilation_h);
    p.padValue = pad_value;
    LoadData(a2, a1, p);
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
         MmadParams(static_cast<uint16_t>(m), n, static_cast<uint16_t>(k), false, 0, false, false,
                    false));
    outCO1.EnQue(co1);
    inA2.FreeTensor(a2);
    inB2.FreeTensor(b2);
    co1 = outCO1.DeQue<Acc>();
    FixpipeParamsV220 fp(n, static_cast<uint16_t>(m), static_cast<uint16_t>(m), n, false);
    Fixpipe(og, co1, fp);
    outCO1.FreeTensor(co1);
  });
  out.assign(out_gm, out_gm + m * n);
  return t;
}

// Small integers: every product and sum is exact in half, float and int8/int32.
template <typename In>
std::vector<In> ramp(uint32_t count, int seed) {
  std::vector<In> v(count);
  for (uint32_t i = 0; i < count; ++i)
    v[i] = static_cast<In>(static_cast<float>((static_cast<int>(i) * 7 + seed) % 5 - 2));
  return v;
}

template <typename In, typename Acc>
void check_conv(const conv_shape& s, float pad_value) {
  constexpr uint32_t c0 = 32 / sizeof(In);
  const std::vector<In> fm = ramp<In>(s.channels * s.h * s.w, 3);
  const std::vector<In> wt = ramp<In>(conv_shape::n * s.cols(), 1);
  shim_run run;
  std::vector<Acc> out;
  const core_trace t = cube_conv<In, Acc>(run, s, fm, wt, static_cast<In>(pad_value), out);
  CHECK_FALSE(find_first_race(t).has_value());
  for (uint32_t i = 0; i < s.rows(); ++i)
    for (uint32_t j = 0; j < conv_shape::n; ++j) {
      double want = 0;
      for (uint32_t kk = 0; kk < s.cols(); ++kk)
        want += img2col_at(s, fm, c0, s.m_start + i, s.k_start + kk, pad_value) *
                static_cast<double>(wt[j * s.cols() + kk]);
      REQUIRE(static_cast<double>(out[i * conv_shape::n + j]) == want);
    }
  // One MTE1 instruction for the img2col load, costed by the bytes it writes into L0A.
  uint32_t loads = 0;
  for (const instruction& in : t.instructions)
    if (std::string(in.api) == "LoadData (LoadData3DParamsV2)") {
      ++loads;
      CHECK(in.on == pipe::mte1);
      CHECK(in.cls == op_class::cube_load);
      CHECK(in.bytes == uint64_t{s.rows()} * s.cols() * sizeof(In));
    }
  CHECK(loads == 1);
}

TEST_SUITE("LoadData 3D (img2col)") {
  TEST_CASE("half: a 3 x 3 filter with padding 1 over a 4 x 4 map equals plain C++ img2col") {
    check_conv<half, float>({16, 4, 4, 3, 3, {1, 1, 1, 1}}, 0.0f);
  }

  TEST_CASE("half: two channel blocks, stride 2, a nonzero pad value") {
    conv_shape s{32, 8, 8, 3, 3, {1, 1, 1, 1}};
    s.stride_h = s.stride_w = 2;
    check_conv<half, float>(s, 1.0f);
  }

  TEST_CASE("float: dilation 2 and asymmetric padding") {
    conv_shape s{8, 6, 6, 3, 3, {2, 0, 1, 1}};  // out 4 x 4: (6 + 2 - 5) + 1 both ways
    s.dilation_h = s.dilation_w = 2;
    check_conv<float, float>(s, 0.0f);
  }

  TEST_CASE("int8: windows of the img2col matrix (mStartPt, kStartPt) into int32") {
    conv_shape s{64, 9, 4, 2, 2, {0, 1, 0, 0}};  // out 8 x 4 = 32 rows, k 64 x 2 x 2 = 256
    s.m_ext = 16;
    s.k_start = 64;  // from (c1 0, filter row 1, column 0)
    s.k_ext = 128;
    check_conv<int8_t, int32_t>(s, 0.0f);
    s.m_start = 16;  // the second half of the output positions
    s.k_start = 128;
    check_conv<int8_t, int32_t>(s, 0.0f);
  }

  TEST_CASE("the img2col load read by the Mmad without a flag is a data race") {
    shim_run run;
    const core_trace t = run.run([&] {
      TPipe pipe;
      TBuf<TPosition::A1> a1b;
      TBuf<TPosition::B1> b1b;
      TBuf<TPosition::A2> a2b;
      TBuf<TPosition::B2> b2b;
      TBuf<TPosition::CO1> cb;
      pipe.InitBuffer(a1b, 16 * 4 * 4 * 2);
      pipe.InitBuffer(b1b, 512);
      pipe.InitBuffer(a2b, 512);
      pipe.InitBuffer(b2b, 512);
      pipe.InitBuffer(cb, 1024);
      LocalTensor<half> a1 = a1b.Get<half>(), b1 = b1b.Get<half>(), a2 = a2b.Get<half>(),
                        b2 = b2b.Get<half>();
      LocalTensor<float> co1 = cb.Get<float>();
      const uint8_t pad[4] = {0, 0, 0, 0};
      LoadData(a2, a1,
               LoadData3DParamsV2<half>(pad, 4, 4, 16, 16, 16, 0, 0, 1, 1, 1, 1, 1, 1, false, false,
                                        half(0)));
      LoadData(b2, b1, LoadData2DParams(0, 1, 1, 0, 0, true, 0));
      Mmad(co1, a2, b2, MmadParams(16, 16, 16, false, 0, false, false, false));
    });
    const auto race = find_first_race(t);
    REQUIRE(race.has_value());
    CHECK(race->message.find("MTE1") != std::string::npos);
    CHECK(race->message.find("Mmad") != std::string::npos);
  }
}

// Runs one img2col load of a 16-channel half 4 x 4 map into a 16 x 16 L0A tile with `edit`
// applied to its parameters; returns the error kind and its message.
template <const IsResetLoad3dConfig& config = IS_RESER_LOAD3D_DEFAULT_CONFIG>
std::string refused(const std::function<void(LoadData3DParamsV2<half>&)>& edit,
                    std::string* message, bool into_b2 = false) {
  shim_run run;
  return error_kind(
      [&] {
        run.run([&] {
          TPipe pipe;
          TBuf<TPosition::A1> a1b;
          TBuf<TPosition::A2> a2b;
          TBuf<TPosition::B2> b2b;
          pipe.InitBuffer(a1b, 16 * 4 * 4 * 2);
          pipe.InitBuffer(a2b, 8192);
          pipe.InitBuffer(b2b, 8192);
          LocalTensor<half> a1 = a1b.Get<half>();
          LocalTensor<half> dst = into_b2 ? b2b.Get<half>() : a2b.Get<half>();
          const uint8_t pad[4] = {0, 0, 0, 0};
          LoadData3DParamsV2<half> p(pad, 4, 4, 16, 16, 16, 0, 0, 1, 1, 1, 1, 1, 1, false, false,
                                     half(0));
          edit(p);
          LoadData<half, config>(dst, a1, p);
        });
      },
      message);
}

constexpr IsResetLoad3dConfig no_fmatrix = {false, true};

TEST_SUITE("LoadData 3D (img2col): what is refused") {
  TEST_CASE("the honest baseline load runs") {
    std::string message;
    CHECK(refused([](LoadData3DParamsV2<half>&) {}, &message) == "");
  }

  TEST_CASE("open semantics are unsupported, naming the parameter and the coverage row") {
    const std::vector<std::pair<std::function<void(LoadData3DParamsV2<half>&)>, std::string>>
        cases = {
            {[](LoadData3DParamsV2<half>& p) { p.enTranspose = true; }, "enTranspose"},
            {[](LoadData3DParamsV2<half>& p) { p.enSmallK = true; }, "enSmallK"},
            {[](LoadData3DParamsV2<half>& p) { p.fMatrixCtrl = true; }, "fMatrixCtrl"},
            {[](LoadData3DParamsV2<half>& p) { p.filterSizeW = true; }, "filterSizeW"},
            {[](LoadData3DParamsV2<half>& p) { p.channelSize = 8; }, "channelSize"},
            {[](LoadData3DParamsV2<half>& p) { p.mExtension = 32; }, "mExtension"},
            {[](LoadData3DParamsV2<half>& p) { p.mExtension = 8; }, "mExtension"},
            {[](LoadData3DParamsV2<half>& p) { p.kExtension = 8; }, "kExtension"},
        };
    for (const auto& [edit, name] : cases) {
      std::string message;
      CHECK(refused(edit, &message) == "unsupported");
      CHECK_MESSAGE(message.find(name) != std::string::npos, message);
      CHECK(message.find("LoadData3DParamsV2") != std::string::npos);
    }
    std::string message;
    CHECK(refused([](LoadData3DParamsV2<half>&) {}, &message, /*into_b2=*/true) == "unsupported");
    CHECK(message.find("B2") != std::string::npos);
    CHECK(refused<no_fmatrix>([](LoadData3DParamsV2<half>&) {}, &message) == "unsupported");
    CHECK(message.find("isSetFMatrix") != std::string::npos);
  }

  TEST_CASE("wrong arguments are errors of the kernel") {
    std::string message;
    CHECK(refused([](LoadData3DParamsV2<half>& p) { p.kExtension = 160; }, &message) ==
          "bad_argument");
    CHECK(message.find("kStartPt + kExtension") != std::string::npos);
    CHECK(refused([](LoadData3DParamsV2<half>& p) { p.strideW = 0; }, &message) == "bad_argument");
    // A map taller than the L1 buffer: reads past it.
    CHECK(refused(
              [](LoadData3DParamsV2<half>& p) {
                p.l1H = 8;
                p.mStartPt = 16;
              },
              &message) == "ub_out_of_bounds");
  }
}

}  // namespace
}  // namespace aopt::sim
