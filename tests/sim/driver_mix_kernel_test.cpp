// A MIX kernel (KERNEL_TYPE_MIX_AIC_1_2) through run_driver in-process: each group's two AIVs
// double their 32 rows of a into a GM workspace and signal their AIC (CrossCoreSetFlag mode 2);
// the AIC waits for both, multiplies its 64 rows by b on the cube and writes c = (2a) x b. Written
// as the documentation's MIX examples are, with the misuses it rules out and the timing it implies.
#include <doctest/doctest.h>

#include <cstdint>
#include <string>

#include "register/op_def_registry.h"
#include "register/tilingdata_base.h"

namespace optiling {
BEGIN_TILING_DATA_DEF(MixTestTiling)
TILING_DATA_FIELD_DEF(uint32_t, rows);
END_TILING_DATA_DEF;
REGISTER_TILING_DATA_CLASS(MixTestDoubleMatmul, MixTestTiling);
}  // namespace optiling

#include "kernel_operator.h"
#include "npu/sim/runtime/hw_profile.hpp"
#include "npu/sim/runtime/run_driver.hpp"

namespace driver_mix_kernel_test {

using json = nlohmann::json;
using namespace AscendC;

constexpr uint32_t k_dim = 32;
constexpr uint32_t n_dim = 32;
constexpr uint32_t rows_per_aiv = 32;
constexpr uint32_t rows_per_group = 2 * rows_per_aiv;
constexpr uint32_t groups = 2;

ge::graphStatus tiling_func(gert::TilingContext* context) {
  optiling::MixTestTiling tiling;
  context->SetBlockDim(groups);
  tiling.set_rows(groups * rows_per_group);
  tiling.SaveToBuffer(context->GetRawTilingData()->GetData(),
                      context->GetRawTilingData()->GetCapacity());
  context->GetRawTilingData()->SetDataSize(tiling.GetDataSize());
  context->GetWorkspaceSizes(1)[0] = groups * rows_per_group * k_dim * sizeof(half);
  return ge::GRAPH_SUCCESS;
}

void reference(const aopt_ref::tensors& in, aopt_ref::tensors& out, const aopt_ref::attrs&) {
  const int64_t rows = in[0].numel() / k_dim;
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t c = 0; c < n_dim; ++c) {
      double sum = 0;
      for (int64_t k = 0; k < k_dim; ++k)
        sum += 2.0 * in[0].data[r * k_dim + k] * in[1].data[k * n_dim + c];
      out[0].data[r * n_dim + c] = static_cast<float>(sum);
    }
  }
}

enum class variant {
  flags,         // both AIVs set flag 0; the AIC waits for it
  no_wait,       // the AIC does not wait: it reads the workspace before the AIVs wrote it
  one_aiv_sets,  // only AIV 0 sets the flag: the AIC's counter never rises
  unbalanced,    // as flags, AIV 1 doubles its rows eight more times first (same result)
  vector_on_aic  // the AIC also runs a vector instruction
};

template <variant V>
class VectorPart {
 public:
  __aicore__ inline void Init(GM_ADDR a, GM_ADDR workspace) {
    const uint32_t first = GetBlockIdx() * rows_per_aiv;
    aGm_.SetGlobalBuffer((__gm__ half*)a + first * k_dim, rows_per_aiv * k_dim);
    wsGm_.SetGlobalBuffer((__gm__ half*)workspace + first * k_dim, rows_per_aiv * k_dim);
    pipe_.InitBuffer(inQueue_, 1, rows_per_aiv * k_dim * sizeof(half));
    pipe_.InitBuffer(outQueue_, 1, rows_per_aiv * k_dim * sizeof(half));
  }

  __aicore__ inline void Process() {
    const uint32_t count = rows_per_aiv * k_dim;
    LocalTensor<half> a = inQueue_.AllocTensor<half>();
    DataCopy(a, aGm_, count);
    inQueue_.EnQue(a);
    a = inQueue_.DeQue<half>();
    LocalTensor<half> twice = outQueue_.AllocTensor<half>();
    Muls(twice, a, static_cast<half>(2.0f), count);
    if (V == variant::unbalanced && GetSubBlockIdx() == 1) {
      for (int i = 0; i < 8; ++i) Muls(twice, a, static_cast<half>(2.0f), count);
    }
    outQueue_.EnQue(twice);
    twice = outQueue_.DeQue<half>();
    DataCopy(wsGm_, twice, count);
    outQueue_.FreeTensor(twice);
    inQueue_.FreeTensor(a);
    if (V != variant::one_aiv_sets || GetSubBlockIdx() == 0) CrossCoreSetFlag<0x2, PIPE_MTE3>(0);
  }

 private:
  TPipe pipe_;
  TQue<QuePosition::VECIN, 1> inQueue_;
  TQue<QuePosition::VECOUT, 1> outQueue_;
  GlobalTensor<half> aGm_, wsGm_;
};

template <variant V>
class CubePart {
 public:
  __aicore__ inline void Init(GM_ADDR b, GM_ADDR c, GM_ADDR workspace) {
    const uint32_t first = GetBlockIdx() * rows_per_group;
    wsGm_.SetGlobalBuffer((__gm__ half*)workspace + first * k_dim, rows_per_group * k_dim);
    bGm_.SetGlobalBuffer((__gm__ half*)b, k_dim * n_dim);
    cGm_.SetGlobalBuffer((__gm__ float*)c + first * n_dim, rows_per_group * n_dim);
    pipe_.InitBuffer(a1_, 1, rows_per_group * k_dim * sizeof(half));
    pipe_.InitBuffer(b1_, 1, k_dim * n_dim * sizeof(half));
    pipe_.InitBuffer(a2_, 1, rows_per_group * k_dim * sizeof(half));
    pipe_.InitBuffer(b2_, 1, k_dim * n_dim * sizeof(half));
    pipe_.InitBuffer(c1_, 1, rows_per_group * n_dim * sizeof(float));
    if (V == variant::vector_on_aic) pipe_.InitBuffer(scratch_, 256);
  }

  __aicore__ inline void Process() {
    if (V != variant::no_wait) CrossCoreWaitFlag(0);
    if (V == variant::vector_on_aic) {
      LocalTensor<float> s = scratch_.Get<float>();
      Duplicate(s, 0.0f, 64);
    }
    LocalTensor<half> a1 = a1_.AllocTensor<half>();
    LocalTensor<half> b1 = b1_.AllocTensor<half>();
    DataCopy(a1, wsGm_, Nd2NzParams(1, rows_per_group, k_dim, 0, k_dim, rows_per_group, 1, 0));
    DataCopy(b1, bGm_, Nd2NzParams(1, k_dim, n_dim, 0, n_dim, k_dim, 1, 0));
    a1_.EnQue(a1);
    b1_.EnQue(b1);
    a1 = a1_.DeQue<half>();
    LocalTensor<half> a2 = a2_.AllocTensor<half>();
    for (uint32_t i = 0; i < rows_per_group / 16; i++) {
      LoadData2DParams params;
      params.repeatTimes = k_dim / 16;
      params.srcStride = rows_per_group / 16;
      LoadData(a2[i * 16 * k_dim], a1[i * 16 * 16], params);
    }
    a2_.EnQue(a2);
    a1_.FreeTensor(a1);
    b1 = b1_.DeQue<half>();
    LocalTensor<half> b2 = b2_.AllocTensor<half>();
    for (uint32_t i = 0; i < k_dim / 16; i++) {
      LoadData2DParams params;
      params.repeatTimes = n_dim / 16;
      params.srcStride = k_dim / 16;
      params.ifTranspose = true;
      LoadData(b2[i * 16 * n_dim], b1[i * 16 * 16], params);
    }
    b2_.EnQue(b2);
    b1_.FreeTensor(b1);
    a2 = a2_.DeQue<half>();
    b2 = b2_.DeQue<half>();
    LocalTensor<float> c1 = c1_.AllocTensor<float>();
    MmadParams mm;
    mm.m = rows_per_group;
    mm.n = n_dim;
    mm.k = k_dim;
    mm.cmatrixInitVal = true;
    Mmad(c1, a2, b2, mm);
    a2_.FreeTensor(a2);
    b2_.FreeTensor(b2);
    c1_.EnQue(c1);
    c1 = c1_.DeQue<float>();
    FixpipeParamsV220 fix;
    fix.nSize = n_dim;
    fix.mSize = rows_per_group;
    fix.srcStride = rows_per_group;
    fix.dstStride = n_dim;
    fix.quantPre = QuantMode_t::NoQuant;
    Fixpipe(cGm_, c1, fix);
    c1_.FreeTensor(c1);
  }

 private:
  TPipe pipe_;
  TQue<TPosition::A1, 1> a1_;
  TQue<TPosition::B1, 1> b1_;
  TQue<TPosition::A2, 1> a2_;
  TQue<TPosition::B2, 1> b2_;
  TQue<TPosition::CO1, 1> c1_;
  TBuf<TPosition::VECCALC> scratch_;
  GlobalTensor<half> wsGm_, bGm_;
  GlobalTensor<float> cGm_;
};

template <variant V>
void kernel_entry(uint8_t* const* args) {
  // args: a, b, c, workspace, tiling
  KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_MIX_AIC_1_2);
  if ASCEND_IS_AIV {
    VectorPart<V> op;
    op.Init(args[0], GetUserWorkspace(args[3]));
    op.Process();
  }
  if ASCEND_IS_AIC {
    CubePart<V> op;
    op.Init(args[1], args[2], GetUserWorkspace(args[3]));
    op.Process();
  }
}

json spec() {
  const int64_t rows = groups * rows_per_group;
  return {
      {"op",
       {{"name", "mix_double_matmul"},
        {"inputs",
         {{{"name", "a"}, {"dtype", "float16"}, {"shape", {rows, k_dim}}, {"range", {-1, 1}}},
          {{"name", "b"}, {"dtype", "float16"}, {"shape", {k_dim, n_dim}}, {"range", {-1, 1}}}}},
        {"outputs", {{{"name", "c"}, {"dtype", "float32"}, {"shape", {rows, n_dim}}}}},
        {"seed", 5}}},
      {"hw", aopt::sim::hw_profile{}},
      {"input_sets", 3},
      {"detect_races", true},
      {"noise_stddev_fraction", 0},
      {"noise_seed", 0}};
}

template <variant V>
json run() {
  aopt::sim::candidate_entries e;
  e.tiling = &tiling_func;
  e.kernel = &kernel_entry<V>;
  e.reference = &reference;
  json result;
  REQUIRE(aopt::sim::run_driver(spec(), e, result) == 0);
  INFO(result.dump(2));
  return result;
}

std::string message(const json& r) {
  return r.value("message", std::string());
}

}  // namespace driver_mix_kernel_test

using namespace driver_mix_kernel_test;

TEST_SUITE("sim") {
  TEST_CASE("a MIX kernel: the AIC waits for both AIVs' flag and multiplies what they wrote") {
    const json r = run<variant::flags>();
    INFO(r.dump(2));
    CHECK(r["status"] == "ok");
    CHECK(r["latency_us"].get<double>() > 0);
  }

  TEST_CASE("a MIX kernel whose AIC does not wait reads the workspace before the AIVs wrote it") {
    const json r = run<variant::no_wait>();
    CHECK(r["status"] == "precision_error");
  }

  TEST_CASE("mode 2: the AIC's counter rises only once both AIVs set the flag, else deadlock") {
    const json r = run<variant::one_aiv_sets>();
    CHECK(r["status"] == "runtime_error");
    CHECK(r["error_kind"] == "deadlock");
    CHECK(message(r).find("CrossCoreWaitFlag") != std::string::npos);
    CHECK(message(r).find("AIC 0 (group 0) waits for flagId 0") != std::string::npos);
  }

  TEST_CASE("the AIC's wait is paid for: a slower AIV delays its group by its extra work") {
    const json even = run<variant::flags>();
    const json uneven = run<variant::unbalanced>();
    REQUIRE(even["status"] == "ok");
    REQUIRE(uneven["status"] == "ok");
    CHECK(uneven["latency_us"].get<double>() > even["latency_us"].get<double>());
  }

  TEST_CASE("vector work on the AIC of a MIX kernel is refused, naming the call") {
    const json r = run<variant::vector_on_aic>();
    CHECK(r["status"] == "runtime_error");
    CHECK(r["error_kind"] == "unsupported");
    CHECK(message(r).find("vector work on an AIC") != std::string::npos);
  }
}
