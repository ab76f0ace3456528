// Numerics of the shim's vector instructions against plain C++: count form and mask/repeat
// forms (continuous and bit masks, strides, the mask register, counter mode) for the element
// types that matter, with half and bfloat16 rounding.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <limits>
#include <map>

#include "sim/shim_fixture.hpp"

namespace aopt::sim {
namespace {

using namespace AscendC;  // NOLINT(google-build-using-namespace): kernels are written this way
using testing::round_bf16;
using testing::round_half;
using testing::shim_run;

// How many representable floats lie between a and b (0: the same float).
int64_t ulps_apart(float a, float b) {
  auto ordered = [](float f) {
    int32_t bits = 0;
    std::memcpy(&bits, &f, sizeof bits);
    return bits < 0 ? int64_t{std::numeric_limits<int32_t>::min()} - bits : int64_t{bits};
  };
  return std::llabs(ordered(a) - ordered(b));
}

template <typename T>
void load(const LocalTensor<T>& t, const std::vector<T>& v) {
  for (size_t i = 0; i < v.size(); ++i) t.SetValue(static_cast<uint32_t>(i), v[i]);
}

template <typename T>
std::vector<T> read(const LocalTensor<T>& t, size_t n) {
  std::vector<T> out(n);
  for (size_t i = 0; i < n; ++i) out[i] = t.GetValue(static_cast<uint32_t>(i));
  return out;
}

// Runs `body` with three 8 KiB UB tensors viewed as T (dst, a, b), each starting 32-byte aligned.
template <typename T>
void with_tensors(const std::function<void(LocalTensor<T>, LocalTensor<T>, LocalTensor<T>)>& body) {
  shim_run run;
  run.run([&] {
    TPipe pipe;
    TBuf<TPosition::VECCALC> d;
    TBuf<TPosition::VECCALC> a;
    TBuf<TPosition::VECCALC> b;
    pipe.InitBuffer(d, 8192);
    pipe.InitBuffer(a, 8192);
    pipe.InitBuffer(b, 8192);
    body(d.Get<T>(), a.Get<T>(), b.Get<T>());
  });
}

std::vector<float> ramp(size_t n, float start, float step) {
  std::vector<float> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = start + step * static_cast<float>(i);
  return v;
}

std::vector<half> to_half(const std::vector<float>& v) {
  std::vector<half> out(v.size());
  for (size_t i = 0; i < v.size(); ++i) out[i] = static_cast<half>(v[i]);
  return out;
}

TEST_SUITE("sim") {
  TEST_CASE("binary ops in count form match C++ on float") {
    const size_t n = 1000;
    const std::vector<float> x = ramp(n, -3.0f, 0.0071f);
    const std::vector<float> y = ramp(n, 1.5f, -0.0033f);
    std::vector<std::vector<float>> got;
    with_tensors<float>([&](LocalTensor<float> d, LocalTensor<float> a, LocalTensor<float> b) {
      load(a, x);
      load(b, y);
      Add(d, a, b, n);
      got.push_back(read(d, n));
      Sub(d, a, b, n);
      got.push_back(read(d, n));
      Mul(d, a, b, n);
      got.push_back(read(d, n));
      Div(d, a, b, n);
      got.push_back(read(d, n));
      Max(d, a, b, n);
      got.push_back(read(d, n));
      Min(d, a, b, n);
      got.push_back(read(d, n));
    });
    for (size_t i = 0; i < n; ++i) {
      CHECK(got[0][i] == x[i] + y[i]);
      CHECK(got[1][i] == x[i] - y[i]);
      CHECK(got[2][i] == x[i] * y[i]);
      CHECK(got[3][i] == x[i] / y[i]);
      CHECK(got[4][i] == std::max(x[i], y[i]));
      CHECK(got[5][i] == std::min(x[i], y[i]));
    }
  }

  TEST_CASE("half arithmetic rounds each result to half, bfloat16 to bfloat16") {
    const size_t n = 300;
    const std::vector<half> x = to_half(ramp(n, 0.1f, 0.37f));
    const std::vector<half> y = to_half(ramp(n, 3.3f, 0.011f));
    std::vector<half> sum;
    std::vector<half> prod;
    std::vector<half> quot;
    with_tensors<half>([&](LocalTensor<half> d, LocalTensor<half> a, LocalTensor<half> b) {
      load(a, x);
      load(b, y);
      Add(d, a, b, n);
      sum = read(d, n);
      Mul(d, a, b, n);
      prod = read(d, n);
      Div(d, a, b, n);
      quot = read(d, n);
    });
    for (size_t i = 0; i < n; ++i) {
      const float a = x[i];
      const float b = y[i];
      CHECK(static_cast<float>(sum[i]) == round_half(a + b));
      CHECK(static_cast<float>(prod[i]) == round_half(a * b));
      CHECK(static_cast<float>(quot[i]) == round_half(a / b));
    }
    std::vector<bfloat16_t> bsum;
    with_tensors<bfloat16_t>(
        [&](LocalTensor<bfloat16_t> d, LocalTensor<bfloat16_t> a, LocalTensor<bfloat16_t> b) {
          for (uint32_t i = 0; i < 64; ++i) {
            a.SetValue(i, bfloat16_t(1.0f + static_cast<float>(i) / 64));
            b.SetValue(i, bfloat16_t(static_cast<float>(i) * 0.0078125f));
          }
          Add(d, a, b, 64);
          bsum = read(d, 64);
        });
    for (uint32_t i = 0; i < 64; ++i) {
      const float a = bfloat16_t(1.0f + static_cast<float>(i) / 64);
      const float b = bfloat16_t(static_cast<float>(i) * 0.0078125f);
      CHECK(static_cast<float>(bsum[i]) == round_bf16(a + b));
    }
  }

  TEST_CASE("integer ops wrap, divide toward zero and do bit logic") {
    std::vector<int16_t> wrapped;
    with_tensors<int16_t>(
        [&](LocalTensor<int16_t> d, LocalTensor<int16_t> a, LocalTensor<int16_t> b) {
          load(a, std::vector<int16_t>(16, 32000));
          load(b, std::vector<int16_t>(16, 1000));
          Add(d, a, b, 16);
          wrapped = read(d, 16);
        });
    CHECK(wrapped[0] == static_cast<int16_t>(-32536));
    std::vector<int32_t> q;
    std::vector<int32_t> shifted;
    with_tensors<int32_t>(
        [&](LocalTensor<int32_t> d, LocalTensor<int32_t> a, LocalTensor<int32_t> b) {
          load(a, std::vector<int32_t>{-7, 7, 9, -9, 5, 6, 7, 8});
          load(b, std::vector<int32_t>{2, 2, -4, -4, 1, 1, 1, 1});
          Div(d, a, b, 8);
          q = read(d, 8);
          ShiftRight(d, a, 1, 8);
          shifted = read(d, 8);
        });
    CHECK(q[0] == -3);
    CHECK(q[1] == 3);
    CHECK(q[2] == -2);
    CHECK(q[3] == 2);
    CHECK(shifted[0] == -4);  // arithmetic shift of a signed type
    std::vector<uint16_t> logic;
    with_tensors<uint16_t>(
        [&](LocalTensor<uint16_t> d, LocalTensor<uint16_t> a, LocalTensor<uint16_t> b) {
          load(a, std::vector<uint16_t>(16, 0xF0F0));
          load(b, std::vector<uint16_t>(16, 0x0FF0));
          And(d, a, b, 16);
          logic.push_back(d.GetValue(0));
          Or(d, a, b, 16);
          logic.push_back(d.GetValue(0));
          Not(d, a, 16);
          logic.push_back(d.GetValue(0));
          ShiftLeft(d, a, 4, 16);
          logic.push_back(d.GetValue(0));
          ShiftRight(d, a, 4, 16);
          logic.push_back(d.GetValue(0));
        });
    CHECK(logic == std::vector<uint16_t>{0x00F0, 0xFFF0, 0x0F0F, 0x0F00, 0x0F0F});
  }

  TEST_CASE("tensor-scalar ops apply the scalar converted to the tensors' type") {
    const size_t n = 200;
    const std::vector<float> x = ramp(n, -5.0f, 0.05f);
    std::vector<std::vector<float>> got;
    with_tensors<float>([&](LocalTensor<float> d, LocalTensor<float> a, LocalTensor<float>) {
      load(a, x);
      Adds(d, a, 1.25f, n);
      got.push_back(read(d, n));
      Muls(d, a, -2, n);  // an int literal converts to float
      got.push_back(read(d, n));
      Maxs(d, a, 0.5f, n);
      got.push_back(read(d, n));
      Mins(d, a, 0.5f, n);
      got.push_back(read(d, n));
      LeakyRelu(d, a, 0.1f, n);
      got.push_back(read(d, n));
    });
    for (size_t i = 0; i < n; ++i) {
      CHECK(got[0][i] == x[i] + 1.25f);
      CHECK(got[1][i] == x[i] * -2.0f);
      CHECK(got[2][i] == std::max(x[i], 0.5f));
      CHECK(got[3][i] == std::min(x[i], 0.5f));
      CHECK(got[4][i] == (x[i] >= 0 ? x[i] : x[i] * 0.1f));
    }
    std::vector<half> h;
    with_tensors<half>([&](LocalTensor<half> d, LocalTensor<half> a, LocalTensor<half>) {
      load(a, to_half(ramp(64, 0.3f, 0.1f)));
      Muls(d, a, 0.1f, 64);  // the scalar becomes half 0.1 first
      h = read(d, 64);
    });
    const float tenth = round_half(0.1f);
    for (size_t i = 0; i < 64; ++i)
      CHECK(static_cast<float>(h[i]) ==
            round_half(round_half(0.3f + 0.1f * static_cast<float>(i)) * tenth));
  }

  TEST_CASE("unary and transcendental ops compute in float and round to the element type") {
    const size_t n = 256;
    const std::vector<float> x = ramp(n, 0.01f, 0.031f);
    std::vector<std::vector<float>> got;
    with_tensors<float>([&](LocalTensor<float> d, LocalTensor<float> a, LocalTensor<float>) {
      load(a, x);
      Exp(d, a, n);
      got.push_back(read(d, n));
      Ln(d, a, n);
      got.push_back(read(d, n));
      Sqrt(d, a, n);
      got.push_back(read(d, n));
      Rsqrt(d, a, n);
      got.push_back(read(d, n));
      Reciprocal(d, a, n);
      got.push_back(read(d, n));
      Tanh(d, a, n);
      got.push_back(read(d, n));
      Sigmoid(d, a, n);
      got.push_back(read(d, n));
      Muls(d, a, -1.0f, n);
      Abs(d, d, n);
      got.push_back(read(d, n));
      Muls(d, a, -1.0f, n);
      Relu(d, d, n);
      got.push_back(read(d, n));
    });
    // Exp, Ln and Tanh run through glibc's vector variants (runtime/vector_libm.hpp): within
    // 2 ulp of libm's scalar result, Ln within 4; the others exactly as in C++.
    for (size_t i = 0; i < n; ++i) {
      CHECK(ulps_apart(got[0][i], std::exp(x[i])) <= 2);
      CHECK(ulps_apart(got[1][i], std::log(x[i])) <= 4);
      CHECK(got[2][i] == std::sqrt(x[i]));
      CHECK(got[3][i] == 1.0f / std::sqrt(x[i]));
      CHECK(got[4][i] == 1.0f / x[i]);
      CHECK(ulps_apart(got[5][i], std::tanh(x[i])) <= 2);
      CHECK(got[6][i] ==
            doctest::Approx(1.0 / (1.0 + std::exp(-static_cast<double>(x[i])))).epsilon(1e-6));
      CHECK(got[7][i] == x[i]);
      CHECK(got[8][i] == 0.0f);
    }
    std::vector<half> e;
    const std::vector<half> hx = to_half(ramp(128, -2.0f, 0.03f));
    with_tensors<half>([&](LocalTensor<half> d, LocalTensor<half> a, LocalTensor<half>) {
      load(a, hx);
      Exp(d, a, 128);
      e = read(d, 128);
    });
    for (size_t i = 0; i < 128; ++i)
      CHECK(static_cast<float>(e[i]) == round_half(std::exp(static_cast<float>(hx[i]))));
  }

  TEST_CASE("Exp of every fp16 value is libm's expf rounded to fp16, and its limits are IEEE's") {
    // The vector variant differs from expf in the last bits of a float, never by enough to move
    // an fp16 result: a half kernel's Exp is what it was when the shim called expf per element.
    const size_t per_call = 4096;  // 8 KiB of halves
    size_t differing = 0, compared = 0;
    with_tensors<half>([&](LocalTensor<half> d, LocalTensor<half> a, LocalTensor<half>) {
      for (uint32_t first = 0; first < 0x10000; first += per_call) {
        std::vector<half> in(per_call);
        for (size_t i = 0; i < per_call; ++i) {
          const auto bits = static_cast<uint16_t>(first + i);
          std::memcpy(&in[i], &bits, sizeof bits);
        }
        load(a, in);
        Exp(d, a, per_call);
        const std::vector<half> out = read(d, per_call);
        for (size_t i = 0; i < per_call; ++i) {
          const float v = static_cast<float>(in[i]);
          if (std::isnan(v)) continue;
          ++compared;
          const float want = round_half(std::exp(v));
          const float have = static_cast<float>(out[i]);
          if (have != want) ++differing;
        }
      }
    });
    CHECK(compared == 0x10000 - 2 * 1023);  // every half but the NaNs
    CHECK(differing == 0);

    const std::vector<float> limits = {100.0f,
                                       -110.0f,
                                       std::numeric_limits<float>::infinity(),
                                       -std::numeric_limits<float>::infinity(),
                                       std::numeric_limits<float>::quiet_NaN(),
                                       0.0f};
    std::vector<float> got;
    with_tensors<float>([&](LocalTensor<float> d, LocalTensor<float> a, LocalTensor<float>) {
      load(a, limits);
      Exp(d, a, static_cast<uint32_t>(limits.size()));
      got = read(d, limits.size());
    });
    CHECK(got[0] == std::numeric_limits<float>::infinity());
    CHECK(got[1] == 0.0f);
    CHECK(got[2] == std::numeric_limits<float>::infinity());
    CHECK(got[3] == 0.0f);
    CHECK(std::isnan(got[4]));
    CHECK(got[5] == 1.0f);
  }

  TEST_CASE("an op the vector unit does not have for a type is reported") {
    shim_run run;
    std::string message;
    CHECK(testing::error_kind(
              [&] {
                run.run([] {
                  TPipe pipe;
                  TBuf<TPosition::VECCALC> b;
                  pipe.InitBuffer(b, 256);
                  Exp(b.Get<int32_t>(), b.Get<int32_t>(), 64);
                });
              },
              &message) == "bad_argument");
    CHECK(message.find("Exp") != std::string::npos);
    CHECK(message.find("int32_t") != std::string::npos);
  }

  TEST_CASE("Duplicate fills in count form and with block strides in mask form") {
    std::vector<float> filled;
    std::vector<float> strided;
    with_tensors<float>([&](LocalTensor<float> d, LocalTensor<float>, LocalTensor<float>) {
      Duplicate(d, 0.0f, 256);
      Duplicate(d, 2.5f, 100);
      filled = read(d, 101);
      Duplicate(d, 0.0f, 256);
      // One repeat, 8 lanes of each 32-byte block every second block.
      Duplicate<float>(d, 7.0f, 64, 1, 2, 8);
      strided = read(d, 128);
    });
    CHECK(filled[99] == 2.5f);
    CHECK(filled[100] == 0.0f);
    for (size_t i = 0; i < 128; ++i) CHECK(strided[i] == ((i / 8) % 2 == 0 ? 7.0f : 0.0f));
  }

  TEST_CASE("a continuous mask computes the first lanes of each repeat and keeps the others") {
    std::vector<float> got;
    with_tensors<float>([&](LocalTensor<float> d, LocalTensor<float> a, LocalTensor<float> b) {
      load(a, ramp(128, 0, 1));
      load(b, ramp(128, 1000, 0));
      Duplicate(d, -1.0f, 128);
      Add(d, a, b, 10, 2, {1, 1, 1, 8, 8, 8});
      got = read(d, 128);
    });
    for (size_t i = 0; i < 128; ++i) {
      const size_t lane = i % 64;
      CHECK(got[i] == (lane < 10 ? 1000.0f + static_cast<float>(i) : -1.0f));
    }
  }

  TEST_CASE("a bit mask selects lanes of 16-bit types across both mask words") {
    std::vector<half> got;
    with_tensors<half>([&](LocalTensor<half> d, LocalTensor<half> a, LocalTensor<half>) {
      load(a, to_half(ramp(128, 1, 1)));
      Duplicate(d, static_cast<half>(0), 128);
      const uint64_t mask[2] = {0x5555555555555555ull, 0x1ull};
      Muls(d, a, 2.0f, mask, 1, {1, 1, 8, 8});
      got = read(d, 128);
    });
    for (size_t i = 0; i < 128; ++i) {
      const bool on = i < 64 ? i % 2 == 0 : i == 64;
      CHECK(static_cast<float>(got[i]) == (on ? 2.0f * static_cast<float>(i + 1) : 0.0f));
    }
  }

  TEST_CASE("block and repeat strides address the operands of each repeat") {
    std::vector<float> got;
    with_tensors<float>([&](LocalTensor<float> d, LocalTensor<float> a, LocalTensor<float> b) {
      load(a, ramp(512, 0, 1));
      load(b, ramp(512, 0, 0));
      Duplicate(d, -1.0f, 512);
      // src0 reads every second block (block stride 2) and skips 16 blocks per repeat.
      Add(d, a, b, 64, 2, {1, 2, 1, 8, 16, 8});
      got = read(d, 128);
    });
    for (uint32_t r = 0; r < 2; ++r) {
      for (uint32_t lane = 0; lane < 64; ++lane) {
        const uint32_t src = r * 128 + (lane / 8) * 16 + lane % 8;
        CHECK(got[r * 64 + lane] == static_cast<float>(src));
      }
    }
  }

  TEST_CASE("isSetMask=false uses SetVectorMask, and a mask-form call sets the register") {
    std::vector<float> got;
    with_tensors<float>([&](LocalTensor<float> d, LocalTensor<float> a, LocalTensor<float>) {
      load(a, ramp(64, 1, 1));
      Duplicate(d, 0.0f, 64);
      SetVectorMask<float>(0, 0xF0);
      Adds<float, false>(d, a, 100.0f, MASK_PLACEHOLDER, 1, {1, 1, 8, 8});
      Muls(d, d, 1.0f, 3, 1, {1, 1, 8, 8});  // loads mask 3 into the register
      Adds<float, false>(d, d, 1.0f, MASK_PLACEHOLDER, 1, {1, 1, 8, 8});
      ResetMask();
      got = read(d, 8);
    });
    CHECK(got == std::vector<float>{1, 1, 1, 0, 105, 106, 107, 108});
  }

  TEST_CASE("counter mode processes exactly the element count over as many repeats as needed") {
    std::vector<float> got;
    with_tensors<float>([&](LocalTensor<float> d, LocalTensor<float> a, LocalTensor<float> b) {
      load(a, ramp(256, 0, 1));
      load(b, ramp(256, 0, 1));
      Duplicate(d, -1.0f, 256);
      SetMaskCount();
      SetVectorMask<float, MaskMode::COUNTER>(0, 150);
      Add<float, false>(d, a, b, MASK_PLACEHOLDER, 1, {1, 1, 1, 8, 8, 8});
      SetMaskNorm();
      ResetMask();
      got = read(d, 256);
    });
    for (size_t i = 0; i < 256; ++i)
      CHECK(got[i] == (i < 150 ? 2.0f * static_cast<float>(i) : -1.0f));
  }

  TEST_CASE("Cast rounds by every RoundMode") {
    const std::vector<float> x{2.5f, -2.5f, 1.7f, -1.2f, 3.5f, 1e10f, -1e10f, 0.49999997f};
    std::map<RoundMode, std::vector<int32_t>> ints;
    with_tensors<float>([&](LocalTensor<float>, LocalTensor<float> a, LocalTensor<float> b) {
      load(a, x);
      LocalTensor<int32_t> out = b.ReinterpretCast<int32_t>();
      for (RoundMode m : {RoundMode::CAST_RINT, RoundMode::CAST_FLOOR, RoundMode::CAST_CEIL,
                          RoundMode::CAST_ROUND, RoundMode::CAST_TRUNC, RoundMode::CAST_NONE}) {
        Cast(out, a, m, 8);
        ints[m] = read(out, 8);
      }
    });
    const int32_t big = std::numeric_limits<int32_t>::max();
    const int32_t small = std::numeric_limits<int32_t>::min();
    CHECK(ints[RoundMode::CAST_RINT] == std::vector<int32_t>{2, -2, 2, -1, 4, big, small, 0});
    CHECK(ints[RoundMode::CAST_FLOOR] == std::vector<int32_t>{2, -3, 1, -2, 3, big, small, 0});
    CHECK(ints[RoundMode::CAST_CEIL] == std::vector<int32_t>{3, -2, 2, -1, 4, big, small, 1});
    CHECK(ints[RoundMode::CAST_ROUND] == std::vector<int32_t>{3, -3, 2, -1, 4, big, small, 0});
    CHECK(ints[RoundMode::CAST_TRUNC] == std::vector<int32_t>{2, -2, 1, -1, 3, big, small, 0});
    CHECK(ints[RoundMode::CAST_NONE] == ints[RoundMode::CAST_RINT]);

    // float -> half: 1 + 2^-11 + 2^-20 lies just above the midpoint of 1 and 1 + 2^-10.
    const float above_mid = 1.0f + std::ldexp(1.0f, -11) + std::ldexp(1.0f, -20);
    const float one_up = 1.0f + std::ldexp(1.0f, -10);
    std::map<RoundMode, float> halves;
    std::vector<float> widened;
    with_tensors<float>([&](LocalTensor<float> d, LocalTensor<float> a, LocalTensor<float>) {
      load(a, std::vector<float>{above_mid, -above_mid, 70000.0f, 1.0f + std::ldexp(1.0f, -12)});
      LocalTensor<half> h = d.ReinterpretCast<half>();
      for (RoundMode m : {RoundMode::CAST_RINT, RoundMode::CAST_FLOOR, RoundMode::CAST_CEIL,
                          RoundMode::CAST_TRUNC, RoundMode::CAST_ODD}) {
        Cast(h, a, m, 4);
        halves[m] = h.GetValue(0);
        if (m == RoundMode::CAST_FLOOR) CHECK(static_cast<float>(h.GetValue(1)) == -one_up);
        if (m == RoundMode::CAST_RINT) CHECK(std::isinf(static_cast<float>(h.GetValue(2))));
        if (m == RoundMode::CAST_TRUNC) CHECK(static_cast<float>(h.GetValue(2)) == 65504.0f);
        if (m == RoundMode::CAST_ODD) CHECK(static_cast<float>(h.GetValue(3)) == one_up);
      }
      Cast(a, h, RoundMode::CAST_NONE, 2);
      widened = read(a, 2);
    });
    CHECK(halves[RoundMode::CAST_RINT] == one_up);
    CHECK(halves[RoundMode::CAST_FLOOR] == 1.0f);
    CHECK(halves[RoundMode::CAST_CEIL] == one_up);
    CHECK(halves[RoundMode::CAST_TRUNC] == 1.0f);
    CHECK(halves[RoundMode::CAST_ODD] == one_up);
    CHECK(widened == std::vector<float>{one_up, -one_up});
  }

  TEST_CASE("Cast saturates integers, converts bfloat16 and rounds float to integral floats") {
    std::vector<int8_t> q;
    std::vector<float> rounded;
    std::vector<float> from_bf16;
    with_tensors<half>([&](LocalTensor<half> d, LocalTensor<half> a, LocalTensor<half> b) {
      load(a, to_half({300.0f, -300.0f, 12.5f, -0.4f}));
      LocalTensor<int8_t> out = d.ReinterpretCast<int8_t>();
      Cast(out, a, RoundMode::CAST_RINT, 32);
      q = read(out, 4);
      LocalTensor<float> f = b.ReinterpretCast<float>();
      load(f, std::vector<float>{2.5f, -2.5f, 0.7f, 1e20f});
      Cast(f, f, RoundMode::CAST_ROUND, 8);
      rounded = read(f, 4);
      LocalTensor<bfloat16_t> bf = d.ReinterpretCast<bfloat16_t>();
      load(f, std::vector<float>{1.0f + std::ldexp(1.0f, -9), 3.0f});
      Cast(bf, f, RoundMode::CAST_RINT, 2);
      Cast(f, bf, RoundMode::CAST_NONE, 2);
      from_bf16 = read(f, 2);
    });
    CHECK(q == std::vector<int8_t>{127, -128, 12, 0});
    CHECK(rounded == std::vector<float>{3.0f, -3.0f, 1.0f, 1e20f});
    CHECK(from_bf16 == std::vector<float>{1.0f, 3.0f});
  }

  TEST_CASE("Cast in mask form counts lanes by the wider type") {
    std::vector<float> got;
    with_tensors<half>([&](LocalTensor<half> d, LocalTensor<half> a, LocalTensor<half>) {
      load(a, to_half(ramp(128, 0, 1)));
      LocalTensor<float> f = d.ReinterpretCast<float>();
      Duplicate(f, -1.0f, 128);
      // 2 repeats of 64 lanes: half source repeats are 128 bytes (4 blocks) apart.
      Cast(f, a, RoundMode::CAST_NONE, 64, 2, {1, 1, 8, 4});
      got = read(f, 128);
    });
    for (size_t i = 0; i < 128; ++i) CHECK(got[i] == static_cast<float>(i));
  }

  TEST_CASE("Compare writes one bit per element and Select picks by those bits") {
    std::vector<uint8_t> bits;
    std::vector<uint8_t> scalar_bits;
    std::vector<float> picked;
    std::vector<float> with_scalar;
    with_tensors<float>([&](LocalTensor<float> d, LocalTensor<float> a, LocalTensor<float> b) {
      load(a, ramp(64, 0, 1));
      load(b, ramp(64, 63, -1));
      LocalTensor<uint8_t> m = d.ReinterpretCast<uint8_t>();
      Compare(m, a, b, CMPMODE::LT, 64);
      bits = read(m, 8);
      LocalTensor<float> out = d[64];
      Select(out, m, a, b, SELMODE::VSEL_TENSOR_TENSOR_MODE, 64);
      picked = read(out, 64);
      Select(out, m, a, -5.0f, SELMODE::VSEL_TENSOR_SCALAR_MODE, 64);
      with_scalar = read(out, 64);
      CompareScalar(m, a, 10.0f, CMPMODE::GE, 64);
      scalar_bits = read(m, 8);
    });
    // a < b for i < 32.
    CHECK(bits == std::vector<uint8_t>{0xff, 0xff, 0xff, 0xff, 0, 0, 0, 0});
    CHECK(scalar_bits == std::vector<uint8_t>{0x00, 0xfc, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff});
    for (size_t i = 0; i < 64; ++i) {
      CHECK(picked[i] == std::min(static_cast<float>(i), static_cast<float>(63 - i)));
      CHECK(with_scalar[i] == (i < 32 ? static_cast<float>(i) : -5.0f));
    }
  }

  TEST_CASE("Select in VSEL_CMPMASK_SPR mode reuses the first repeat's bits every repeat") {
    std::vector<float> got;
    with_tensors<float>([&](LocalTensor<float> d, LocalTensor<float> a, LocalTensor<float> b) {
      load(a, ramp(128, 1, 0));
      load(b, ramp(128, 2, 0));
      LocalTensor<uint64_t> m = d.ReinterpretCast<uint64_t>();
      m.SetValue(0, 0x00000000000000ffull);
      m.SetValue(1, 0);
      LocalTensor<float> out = d[64];
      Select(out, m.ReinterpretCast<uint8_t>(), a, b, SELMODE::VSEL_CMPMASK_SPR, 64, 2,
             {1, 1, 1, 8, 8, 8});
      got = read(out, 128);
    });
    for (size_t i = 0; i < 128; ++i) CHECK(got[i] == (i % 64 < 8 ? 1.0f : 2.0f));
  }

  TEST_CASE("ReduceSum, ReduceMax and ReduceMin reduce a tensor and report the index") {
    std::vector<float> x = ramp(1000, 0.5f, 0.25f);
    x[777] = 5000.0f;
    x[123] = -7.0f;
    float sum = 0;
    float mx = 0;
    uint32_t mx_index = 0;
    float mn = 0;
    uint32_t mn_index = 0;
    with_tensors<float>([&](LocalTensor<float> d, LocalTensor<float> a, LocalTensor<float> b) {
      load(a, x);
      ReduceSum(d, a, b, 1000);
      sum = d.GetValue(0);
      ReduceMax(d, a, b, 1000, true);
      mx = d.GetValue(0);
      mx_index = d.ReinterpretCast<uint32_t>().GetValue(1);
      ReduceMin(d, a, b, 1000, true);
      mn = d.GetValue(0);
      mn_index = d.ReinterpretCast<uint32_t>().GetValue(1);
    });
    double exact = 0;
    for (float v : x) exact += v;
    CHECK(sum == doctest::Approx(exact).epsilon(1e-6));
    CHECK(mx == 5000.0f);
    CHECK(mx_index == 777);
    CHECK(mn == -7.0f);
    CHECK(mn_index == 123);
  }

  TEST_CASE("a half ReduceSum adds pairwise in half precision") {
    // 2048 ones: exact in a tree of half additions, while a sequential half sum stalls at 2048.
    half sum = 0;
    half masked = 0;
    with_tensors<half>([&](LocalTensor<half> d, LocalTensor<half> a, LocalTensor<half> b) {
      Duplicate(a, static_cast<half>(1), 4096);
      ReduceSum(d, a, b, 4096);
      sum = d.GetValue(0);
      ReduceSum(d, a, b, 16, 3, 8);  // 16 lanes of each of 3 repeats
      masked = d.GetValue(0);
    });
    CHECK(static_cast<float>(sum) == 4096.0f);
    CHECK(static_cast<float>(masked) == 48.0f);
  }

  TEST_CASE("WholeReduce* give one result per repeat and BlockReduce* one per block") {
    std::vector<float> sums;
    std::vector<float> max_pairs;
    std::vector<float> block_sums;
    std::vector<float> block_max;
    with_tensors<float>([&](LocalTensor<float> d, LocalTensor<float> a, LocalTensor<float>) {
      load(a, ramp(192, 0, 1));
      WholeReduceSum(d, a, 64, 3, 1, 1, 8);
      sums = read(d, 3);
      WholeReduceMax(d, a, 32, 2, 1, 1, 8, ReduceOrder::ORDER_VALUE_INDEX);
      max_pairs = read(d, 4);
      BlockReduceSum(d, a, 2, 64, 1, 1, 8);
      block_sums = read(d, 16);
      BlockReduceMax(d, a, 1, 64, 1, 1, 8);
      block_max = read(d, 8);
    });
    CHECK(sums == std::vector<float>{2016, 6112, 10208});
    CHECK(max_pairs[0] == 31.0f);
    CHECK(max_pairs[2] == 95.0f);
    uint32_t index = 0;
    std::memcpy(&index, &max_pairs[1], sizeof index);
    CHECK(index == 31);
    for (size_t b = 0; b < 16; ++b) CHECK(block_sums[b] == static_cast<float>(64 * b + 28));
    for (size_t b = 0; b < 8; ++b) CHECK(block_max[b] == static_cast<float>(8 * b + 7));
  }

  TEST_CASE(
      "the newer names ReduceRepeat* and ReduceDataBlock* reduce as WholeReduce*/BlockReduce*") {
    std::vector<float> sums;
    std::vector<float> mins;
    std::vector<float> block_sums;
    with_tensors<float>([&](LocalTensor<float> d, LocalTensor<float> a, LocalTensor<float>) {
      load(a, ramp(128, 0, 1));
      ReduceRepeatSum(d, a, 64, 2, 1, 1, 8);
      sums = read(d, 2);
      ReduceRepeatMin(d, a, 64, 2, 1, 1, 8, ReduceOrder::ORDER_ONLY_VALUE);
      mins = read(d, 2);
      ReduceDataBlockSum(d, a, 1, 64, 1, 1, 8);
      block_sums = read(d, 8);
    });
    CHECK(sums == std::vector<float>{2016, 6112});
    CHECK(mins == std::vector<float>{0, 64});
    for (size_t b = 0; b < 8; ++b) CHECK(block_sums[b] == static_cast<float>(64 * b + 28));
  }

  TEST_CASE("Axpy accumulates src * scalar into dst, also from half into float") {
    std::vector<float> got;
    std::vector<float> mixed;
    with_tensors<float>([&](LocalTensor<float> d, LocalTensor<float> a, LocalTensor<float> b) {
      load(a, ramp(64, 1, 1));
      Duplicate(d, 10.0f, 64);
      Axpy(d, a, 0.5f, 64);
      got = read(d, 64);
      LocalTensor<half> h = b.ReinterpretCast<half>();
      Duplicate(h, static_cast<half>(3), 64);
      Duplicate(d, 1.0f, 64);
      Axpy(d, h, 2.0f, 64);
      mixed = read(d, 64);
    });
    for (size_t i = 0; i < 64; ++i) {
      CHECK(got[i] == 10.0f + 0.5f * static_cast<float>(i + 1));
      CHECK(mixed[i] == 7.0f);
    }
  }
}

}  // namespace
}  // namespace aopt::sim
