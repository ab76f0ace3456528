// LoadData 3D (img2col, LoadData3DParamsV2) against plain C++: a convolution computed on the cube
// (feature map GM -> A1 in NC1HWC0, img2col into A2, the weights as B, Mmad, Fixpipe) equals a
// plain C++ img2col times the weights, for half, float and int8 with padding, stride,
// dilation, a second channel block, a window of the img2col matrix and ragged outputs (Hout x Wout
// not a multiple of 16, on 3 input sets); the load is one MTE1
// instruction timed by the bytes it writes; a load the Mmad reads without a flag is a race; and
// what the documentation leaves open is refused as unsupported, naming the parameter.
#include <doctest/doctest.h>

#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "npu/sim/runtime/hazard_detector.hpp"
#include "sim/cube_conv_fixture.hpp"
#include "sim/shim_fixture.hpp"

namespace aopt::sim {
namespace {

using namespace AscendC;  // NOLINT(google-build-using-namespace): kernels are written this way
using testing::error_kind;
using testing::shim_run;

using testing::conv_shape;

// The v2 load of the window into A2: mExtension is the rows the shape loads.
template <typename In>
testing::a2_load<In> v2_load(const conv_shape& s, In pad_value) {
  return [s, pad_value](LocalTensor<In>& a2, LocalTensor<In>& a1) {
    LoadData3DParamsV2<In> p;
    for (int i = 0; i < 4; ++i) p.padList[i] = s.pad[i];
    p.l1H = static_cast<uint16_t>(s.h);
    p.l1W = static_cast<uint16_t>(s.w);
    p.channelSize = static_cast<uint16_t>(s.channels);
    p.kExtension = static_cast<uint16_t>(s.cols());
    p.mExtension = static_cast<uint16_t>(s.loaded_rows());
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
  };
}

template <typename In, typename Acc>
void check_conv(const conv_shape& s, float pad_value, int seed = 0) {
  const std::vector<In> fm = testing::ramp<In>(s.channels * s.h * s.w, 3 + seed);
  const std::vector<In> wt = testing::ramp<In>(conv_shape::n * s.cols(), 1 + 2 * seed);
  shim_run run;
  std::vector<Acc> out;
  const core_trace t =
      testing::cube_conv<In, Acc>(run, s, fm, wt, v2_load<In>(s, static_cast<In>(pad_value)), out);
  CHECK_FALSE(find_first_race(t).has_value());
  const std::vector<double> want = testing::plain_conv(s, fm, wt, pad_value);
  for (size_t i = 0; i < want.size(); ++i) {
    INFO("row ", i / conv_shape::n, ", column ", i % conv_shape::n);
    REQUIRE(static_cast<double>(out[i]) == want[i]);
  }
  // One MTE1 instruction for the img2col load, costed by the bytes it writes into L0A.
  uint32_t loads = 0;
  for (const instruction& in : t.instructions)
    if (std::string(in.api) == "LoadData (LoadData3DParamsV2)") {
      ++loads;
      CHECK(in.on == pipe::mte1);
      CHECK(in.cls == op_class::cube_load);
      CHECK(in.bytes == uint64_t{s.loaded_rows()} * s.cols() * sizeof(In));
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

  // Hout x Wout not a multiple of 16: the last fractal of A2 is partial. Its rows past the output
  // positions hold unspecified values (the shim's poison), which a Mmad over the whole tile
  // carries into the same rows of CO1 only; a Fixpipe of the valid rows is the convolution.
  TEST_CASE("half: a ragged 7 x 7 output, loaded and multiplied as a whole 64-row tile") {
    conv_shape s{16, 7, 7, 3, 3, {1, 1, 1, 1}};  // 49 positions
    s.load_rows = s.mmad_rows = 64;
    for (int seed = 0; seed < 3; ++seed) check_conv<half, float>(s, 0.0f, seed);
  }

  TEST_CASE("half: a ragged 7 x 7 output, loaded and multiplied as its 49 rows") {
    conv_shape s{32, 7, 7, 3, 3, {1, 1, 1, 1}};
    for (int seed = 0; seed < 3; ++seed) check_conv<half, float>(s, 1.0f, seed);
  }

  TEST_CASE("float and int8: a ragged 5 x 3 output (15 positions), whole tile and 15 rows") {
    conv_shape s{8, 5, 3, 3, 3, {1, 1, 1, 1}};
    s.load_rows = s.mmad_rows = 16;
    for (int seed = 0; seed < 3; ++seed) check_conv<float, float>(s, 0.0f, seed);
    conv_shape q{32, 5, 3, 3, 3, {1, 1, 1, 1}};
    for (int seed = 0; seed < 3; ++seed) check_conv<int8_t, int32_t>(q, 0.0f, seed);
  }

  TEST_CASE("a ragged output's second fractal (mStartPt 16 of 21 positions)") {
    conv_shape s{16, 7, 3, 1, 1, {0, 0, 0, 0}};  // 7 x 3 = 21 positions, a 1 x 1 filter
    s.m_start = 16;
    s.m_ext = 5;
    s.load_rows = s.mmad_rows = 16;
    for (int seed = 0; seed < 3; ++seed) check_conv<half, float>(s, 0.0f, seed);
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
            {[](LoadData3DParamsV2<half>& p) { p.mStartPt = 8; }, "mStartPt"},
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

  TEST_CASE("a partial last fractal runs, and whole fractals past the output positions do not") {
    std::string message;
    // 3 x 4 = 12 positions of a 3 x 4 map: mExtension 12 and 16 end in its only fractal.
    for (uint16_t rows : {12, 16}) {
      CHECK(refused(
                [rows](LoadData3DParamsV2<half>& p) {
                  p.l1H = 3;
                  p.mExtension = rows;
                },
                &message) == "");
    }
    CHECK(refused(
              [](LoadData3DParamsV2<half>& p) {
                p.l1H = 3;
                p.mExtension = 17;
              },
              &message) == "unsupported");
    CHECK(message.find("the fractal (row 16) that holds the last of the 12 output positions") !=
          std::string::npos);
  }

  TEST_CASE("wrong arguments are errors of the kernel") {
    std::string message;
    CHECK(refused([](LoadData3DParamsV2<half>& p) { p.mStartPt = 16; }, &message) ==
          "bad_argument");
    CHECK(message.find("mStartPt 16 is past the 16 output positions") != std::string::npos);
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
