// Every overload of the shim's kernel API compiles (-Wall -Wextra -Werror) and runs on a
// simulated core: the forms real operators call, with the argument types they pass.
#include <doctest/doctest.h>

#include "sim/shim_fixture.hpp"

namespace aopt::sim {
namespace {

using namespace AscendC;  // NOLINT(google-build-using-namespace): kernels are written this way
using testing::shim_run;

template <typename T>
void every_vector_form(LocalTensor<T> d, LocalTensor<T> a, LocalTensor<T> b,
                       LocalTensor<uint8_t> bits) {
  uint64_t mask[2] = {~0ull, 0};
  const BinaryRepeatParams bp(1, 1, 1, 8, 8, 8);
  const UnaryRepeatParams up(1, 1, 8, 8);
  const int32_t n = 256 / sizeof(T);
  Add(d, a, b, n);
  Sub(d, a, b, 64, 1, bp);
  Mul(d, a, b, mask, 1, bp);
  Div<T, false>(d, a, b, MASK_PLACEHOLDER, 1, bp);
  Max(d, a, b, n);
  Min(d, a, b, n);
  Adds(d, a, 1, n);
  Muls(d, a, static_cast<T>(2), 32, 1, up);
  Maxs(d, a, 0.5f, mask, 1, up);
  Mins(d, a, 0.5, n);
  LeakyRelu(d, a, 0.01f, n);
  Exp(d, a, n);
  Ln(d, a, 64, 1, up);
  Abs(d, a, mask, 1, up);
  Sqrt(d, a, n);
  Rsqrt(d, a, n);
  Reciprocal(d, a, n);
  Relu(d, a, n);
  Tanh(d, a, n);
  Sigmoid(d, a, bits, n);
  Duplicate(d, static_cast<T>(1), n);
  Duplicate(d, 1.0f, 64, 1, 1, 8);
  Duplicate<T, true>(d, 1.0f, mask, 1, 1, 8);
  Axpy(d, a, 0.5f, n);
  Axpy(d, a, 0.5f, 64, 1, up);
  Compare(bits, a, b, CMPMODE::EQ, n);
  Compare(bits, a, b, CMPMODE::NE, 64, 1, bp);
  Compare(a, b, CMPMODE::GT, mask, bp);
  CompareScalar(bits, a, 0.0f, CMPMODE::LE, n);
  Compares(bits, a, 0.0f, CMPMODE::GE, 64, 1, up);
  Select(d, bits, a, b, SELMODE::VSEL_TENSOR_TENSOR_MODE, n);
  Select(d, bits, a, 0.0f, SELMODE::VSEL_TENSOR_SCALAR_MODE, 64, 1, bp);
  Select(d, bits, a, b, SELMODE::VSEL_CMPMASK_SPR, mask, 1, bp);
  SetCmpMask(bits);
  SetVectorMask<T>(64);
  Select<T, SELMODE::VSEL_CMPMASK_SPR>(d, a, b, 1, bp);
  GetCmpMask(bits);
  ResetMask();
  ReduceSum(d, a, b, n);
  ReduceMax(d, a, b, n, true);
  ReduceMin(d, a, b, 64, 1, 8);
  ReduceSum(d, a, b, mask, 1, 8);
  WholeReduceSum(d, a, 64, 1, 1, 1, 8);
  WholeReduceSum(d, a, mask, 1, 1, 1, 8);
  WholeReduceMax(d, a, 64, 1, 1, 1, 8, ReduceOrder::ORDER_ONLY_VALUE);
  WholeReduceMin(d, a, mask, 1, 1, 1, 8);
  RepeatReduceSum(d, a, 1, 64, 0, 1, 1, 8);
  BlockReduceSum(d, a, 1, 64, 1, 1, 8);
  BlockReduceMax(d, a, 1, mask, 1, 1, 8);
  BlockReduceMin(d, a, 1, 64, 1, 1, 8);
  PipeBarrier<PIPE_V>();
}

TEST_SUITE("sim") {
  TEST_CASE("every vector API form compiles and runs for float and half") {
    shim_run run;
    const core_trace t = run.run([] {
      TPipe pipe;
      TBuf<TPosition::VECCALC> buf;
      pipe.InitBuffer(buf, 4096);
      LocalTensor<uint8_t> all = buf.Get<uint8_t>();
      every_vector_form(all.ReinterpretCast<float>(), all[1024].ReinterpretCast<float>(),
                        all[2048].ReinterpretCast<float>(), all[3072]);
      every_vector_form(all.ReinterpretCast<half>(), all[1024].ReinterpretCast<half>(),
                        all[2048].ReinterpretCast<half>(), all[3072]);
    });
    CHECK(t.instructions.size() > 90);
  }

  TEST_CASE("every data movement, cast, queue and sync form compiles and runs") {
    shim_run run;
    float* x = run.gm<float>("x", 1024);
    run.launch.tiling_key = 2;
    const core_trace t = run.run([&] {
      TPipe pipe;
      TQue<QuePosition::VECIN, 2> in;
      TQue<TPosition::VECOUT, 1> out;
      TQueBind<TPosition::VECIN, TPosition::VECOUT, 1> bind;
      TBuf<> scratch;
      pipe.InitBuffer(in, 2, 1024);
      pipe.InitBuffer(out, 1, 1024);
      pipe.InitBuffer(bind, 1, 1024);
      pipe.InitBuffer(scratch, 2048);
      GlobalTensor<float> g;
      g.SetGlobalBuffer(reinterpret_cast<__gm__ float*>(x), 1024);

      LocalTensor<float> a = in.AllocTensor<float>();
      DataCopy(a, g, 256);
      DataCopy(a, g[256], DataCopyParams{2, 2, 0, 0});
      DataCopyPad(a, g, DataCopyExtParams{1, 12, 0, 0, 0},
                  DataCopyPadExtParams<float>{true, 0, 0, 0.0f});
      DataCopyPad(a, g, DataCopyParams{1, 12, 0, 0}, DataCopyPadParams{true, 0, 1, 0});
      in.EnQue(a);
      LocalTensor<float> ina = in.DeQue<float>();
      LocalTensor<half> h = scratch.Get<half>();
      LocalTensor<int32_t> i32 = scratch.GetWithOffset<int32_t>(64, 1024);
      Cast(h, ina, RoundMode::CAST_ROUND, 64);
      Cast(h, ina, RoundMode::CAST_RINT, 64, 1, {1, 1, 4, 8});
      Cast(i32, ina, RoundMode::CAST_TRUNC, 64);
      LocalTensor<float> o = out.AllocTensor<float>();
      DataCopy(o, ina, 256);
      DataCopy(o, ina, DataCopyParams{1, 32, 0, 0});
      in.FreeTensor(ina);
      out.EnQue<float>(o);
      LocalTensor<float> oo = out.DeQue<float>();
      DataCopy(g, oo, 256);
      DataCopy(g, oo, DataCopyParams{1, 8, 0, 0});
      DataCopyPad(g, oo, DataCopyExtParams{1, 4, 0, 0, 0});
      DataCopyPad(g, oo, DataCopyParams{1, 4, 0, 0});
      out.FreeTensor(oo);

      LocalTensor<float> m = bind.AllocTensor<float>();
      DataCopy(m, g, 64);
      bind.EnQue(m);
      LocalTensor<float> mm = bind.DeQue<float>();
      DataCopy(g[512], mm, 64);
      bind.FreeTensor(mm);

      LocalTensor<int16_t> s16 = scratch.Get<int16_t>();
      And(s16, s16, s16, 128);
      Or(s16, s16, s16, 128);
      Not(s16, s16, 128);
      ShiftLeft(s16, s16, 1, 128);
      ShiftRight(s16, s16, 1, 128);
      ShiftRight(s16, s16, 1, 64, 1, {1, 1, 8, 8}, false);

      TEventID id = pipe.AllocEventID<HardEvent::MTE3_MTE2>();
      SetFlag<HardEvent::MTE3_MTE2>(id);
      WaitFlag<HardEvent::MTE3_MTE2>(id);
      pipe.ReleaseEventID<HardEvent::MTE3_MTE2>(id);
      pipe_barrier(PIPE_ALL);
      PipeBarrier<PIPE_MTE2>();
      PipeBarrier<PIPE_MTE3>();
      SetPadValue<float>(0.0f);
      SetMaskCount();
      SetVectorMask<float, MaskMode::COUNTER>(128);
      SetMaskNorm();
      SetVectorMask<float>(~0ull, ~0ull);
      if (TILING_KEY_IS(2) && GetBlockIdx() == 0)
        g.SetValue(1023, static_cast<float>(GetBlockNum()));
    });
    CHECK(x[1023] == 1.0f);
    CHECK(t.instructions.size() > 30);
  }
}

}  // namespace
}  // namespace aopt::sim
