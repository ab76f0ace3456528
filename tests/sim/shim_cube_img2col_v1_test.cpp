// LoadData 3D, the v1 form (LoadData3DParamsV1), against plain C++: a convolution whose A2 tile
// is filled one 16 x C0 fractal per call (window corner leftTopH/leftTopW, filter point
// fetchFilterH/fetchFilterW, channel block c1Index) equals a plain C++ img2col times the weights,
// for half and int8, with padding, stride, two channel blocks and ragged outputs (Hout x Wout not a
// multiple of 16), each on 3 input sets; each call is one MTE1 instruction timed by the 512 bytes
// it writes; a load the Mmad reads without a flag is a race; and what the documentation leaves
// open is refused as unsupported, naming the parameter and the coverage row.
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
using testing::conv_shape;
using testing::error_kind;
using testing::shim_run;

// The whole img2col matrix of `s`, fractal by fractal: row block mb starts at output position
// 16 mb, whose window corner is (oh * strideH - padTop, ow * strideW - padLeft); column block kb
// is channel block kb / (filterH filterW) at filter point kb % (filterH filterW).
template <typename In>
testing::a2_load<In> v1_load(const conv_shape& s, In pad_value) {
  return [s, pad_value](LocalTensor<In>& a2, LocalTensor<In>& a1) {
    constexpr uint32_t c0 = 32 / sizeof(In);
    const uint32_t kb_count = s.k_all() / c0, taps = s.filter_h * s.filter_w;
    for (uint32_t mb = 0; mb < s.tile_rows() / 16; ++mb)
      for (uint32_t kb = 0; kb < kb_count; ++kb) {
        const uint32_t first = mb * 16;
        const auto top = static_cast<int16_t>(first / s.out_w() * s.stride_h - s.pad[2]);
        const auto left = static_cast<int16_t>(first % s.out_w() * s.stride_w - s.pad[0]);
        LoadData3DParamsV1<In> p(s.pad, static_cast<uint16_t>(s.h), static_cast<uint16_t>(s.w),
                                 static_cast<uint16_t>(kb / taps),
                                 static_cast<uint8_t>(kb % taps % s.filter_w),
                                 static_cast<uint8_t>(kb % taps / s.filter_w), left, top,
                                 static_cast<uint8_t>(s.stride_w), static_cast<uint8_t>(s.stride_h),
                                 static_cast<uint8_t>(s.filter_w), static_cast<uint8_t>(s.filter_h),
                                 1, 1, 1, 0, 1, 0, pad_value);
        LoadData(a2[(mb * kb_count + kb) * 16 * c0], a1, p);
      }
  };
}

template <typename In, typename Acc>
void check_conv_v1(const conv_shape& s, float pad_value) {
  constexpr uint32_t c0 = 32 / sizeof(In);
  for (int seed = 0; seed < 3; ++seed) {
    INFO("input set ", seed);
    const std::vector<In> fm = testing::ramp<In>(s.channels * s.h * s.w, 3 + seed);
    const std::vector<In> wt = testing::ramp<In>(conv_shape::n * s.cols(), 1 + 2 * seed);
    shim_run run;
    std::vector<Acc> out;
    const core_trace t = testing::cube_conv<In, Acc>(
        run, s, fm, wt, v1_load<In>(s, static_cast<In>(pad_value)), out);
    CHECK_FALSE(find_first_race(t).has_value());
    const std::vector<double> want = testing::plain_conv(s, fm, wt, pad_value);
    for (size_t i = 0; i < want.size(); ++i) {
      INFO("row ", i / conv_shape::n, ", column ", i % conv_shape::n);
      REQUIRE(static_cast<double>(out[i]) == want[i]);
    }
    // One MTE1 instruction per fractal, costed by the 512 bytes it writes into L0A.
    uint32_t loads = 0;
    for (const instruction& in : t.instructions)
      if (std::string(in.api) == "LoadData (LoadData3DParamsV1)") {
        ++loads;
        CHECK(in.on == pipe::mte1);
        CHECK(in.cls == op_class::cube_load);
        CHECK(in.bytes == 512);
      }
    CHECK(loads == s.tile_rows() / 16 * (s.k_all() / c0));
  }
}

TEST_SUITE("LoadData 3D (img2col), v1 form") {
  TEST_CASE("v1: half: a 3 x 3 filter with padding 1 over a 4 x 4 map equals plain C++ img2col") {
    check_conv_v1<half, float>({16, 4, 4, 3, 3, {1, 1, 1, 1}}, 0.0f);
  }

  TEST_CASE("v1: half: two channel blocks, stride 2, asymmetric padding and a nonzero pad value") {
    conv_shape s{32, 9, 8, 3, 3, {1, 0, 2, 1}};  // out 5 x 4 = 20 positions: ragged
    s.stride_h = s.stride_w = 2;
    check_conv_v1<half, float>(s, 1.0f);
  }

  TEST_CASE("v1: half: a ragged 7 x 7 output, the last fractal's rows past position 49 unused") {
    check_conv_v1<half, float>({16, 7, 7, 3, 3, {1, 1, 1, 1}}, 0.0f);
  }

  TEST_CASE("v1: int8: two channel blocks of 32 into int32, a 2 x 2 filter, 8 x 4 positions") {
    check_conv_v1<int8_t, int32_t>({64, 9, 4, 2, 2, {0, 1, 0, 0}}, 0.0f);
  }

  TEST_CASE("v1: int8: a ragged 5 x 3 output") {
    check_conv_v1<int8_t, int32_t>({32, 5, 3, 3, 3, {1, 1, 1, 1}}, 0.0f);
  }

  TEST_CASE("v1: the load read by the Mmad without a flag is a data race on MTE1") {
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
               LoadData3DParamsV1<half>(pad, 4, 4, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 0, 1, 0,
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

// Runs one v1 load of a 16-channel 4 x 4 map (half, or `In`) into a 512-byte L0A tile with
// `edit` applied to its parameters (a 3 x 3 filter, padding 1); returns the error kind and its
// message.
template <typename In = half, const IsResetLoad3dConfig& config = IS_RESER_LOAD3D_DEFAULT_CONFIG,
          typename Edit>
std::string refused(const Edit& edit, std::string* message, bool into_b2 = false) {
  shim_run run;
  return error_kind(
      [&] {
        run.run([&] {
          TPipe pipe;
          TBuf<TPosition::A1> a1b;
          TBuf<TPosition::A2> a2b;
          TBuf<TPosition::B2> b2b;
          pipe.InitBuffer(a1b, 4 * 4 * 32);
          pipe.InitBuffer(a2b, 512);
          pipe.InitBuffer(b2b, 512);
          LocalTensor<In> a1 = a1b.Get<In>();
          LocalTensor<In> dst = into_b2 ? b2b.Get<In>() : a2b.Get<In>();
          const uint8_t pad[4] = {1, 1, 1, 1};
          LoadData3DParamsV1<In> p(pad, 4, 4, 0, 1, 1, -1, -1, 1, 1, 3, 3, 1, 1, 1, 0, 1, 0, In(0));
          edit(p);
          LoadData<In, config>(dst, a1, p);
        });
      },
      message);
}

constexpr IsResetLoad3dConfig no_padding_config = {true, false};

TEST_SUITE("LoadData 3D (img2col), v1 form: what is refused") {
  TEST_CASE("v1: the honest baseline load runs") {
    std::string message;
    CHECK(refused([](LoadData3DParamsV1<half>&) {}, &message) == "");
  }

  TEST_CASE("v1: open semantics are unsupported, naming the parameter and the coverage row") {
    const std::vector<std::pair<std::function<void(LoadData3DParamsV1<half>&)>, std::string>>
        cases = {
            {[](LoadData3DParamsV1<half>& p) { p.repeatTime = 2; }, "repeatTime 2"},
            {[](LoadData3DParamsV1<half>& p) { p.cSize = 1; }, "cSize 1"},
            // Stride 2 from -1: a corner between output positions.
            {[](LoadData3DParamsV1<half>& p) {
               p.strideW = 2;
               p.leftTopW = 0;
             },
             "leftTopW 0"},
        };
    for (const auto& [edit, name] : cases) {
      std::string message;
      CHECK(refused(edit, &message) == "unsupported");
      CHECK_MESSAGE(message.find(name) != std::string::npos, message);
      CHECK(message.find("row \"LoadData3DParamsV1\"") != std::string::npos);
    }
    std::string message;
    CHECK(refused([](LoadData3DParamsV1<half>&) {}, &message, /*into_b2=*/true) == "unsupported");
    CHECK(message.find("B2") != std::string::npos);
    CHECK(refused<half, no_padding_config>([](LoadData3DParamsV1<half>&) {}, &message) ==
          "unsupported");
    CHECK(message.find("isSetPadding") != std::string::npos);
  }

  TEST_CASE("v1: wrong arguments are errors of the kernel") {
    std::string message;
    CHECK(refused<float>([](LoadData3DParamsV1<float>&) {}, &message) == "bad_argument");
    CHECK(message.find("documented for uint8_t, int8_t and half") != std::string::npos);
    CHECK(refused([](LoadData3DParamsV1<half>& p) { p.fetchFilterW = 3; }, &message) ==
          "bad_argument");
    CHECK(message.find("outside the 3 x 3 filter") != std::string::npos);
    CHECK(refused([](LoadData3DParamsV1<half>& p) { p.leftTopH = -2; }, &message) ==
          "bad_argument");
    CHECK(message.find("outside the padding") != std::string::npos);
    CHECK(refused([](LoadData3DParamsV1<half>& p) { p.leftTopW = 3; }, &message) == "bad_argument");
    CHECK(message.find("no output position of the 4 x 4 output") != std::string::npos);
    // Channel block 1 of a map that has one: reads past the L1 buffer.
    CHECK(refused([](LoadData3DParamsV1<half>& p) { p.c1Index = 1; }, &message) ==
          "ub_out_of_bounds");
  }
}

}  // namespace
}  // namespace aopt::sim
