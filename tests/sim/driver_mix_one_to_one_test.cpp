// A MIX kernel of type KERNEL_TYPE_MIX_AIC_1_1 through run_driver in-process, checked against
// plain C++: each group's one AIV doubles its 32 rows of a into a GM workspace and signals its
// AIC (CrossCoreSetFlag mode 2); the AIC multiplies them by b on the cube into a second
// workspace and signals back; the AIV applies ReLU and writes c = relu((2a) x b). What differs
// from 1:2 is asserted too: one AIV per group (GetSubBlockIdx 0, GetSubBlockNum 1, GetBlockIdx
// the group), so one set raises the AIC's counter, and a split written for two AIVs leaves half
// the rows undone.
#include <doctest/doctest.h>

#include <cstdint>
#include <string>

#include "register/op_def_registry.h"
#include "register/tilingdata_base.h"

namespace optiling {
BEGIN_TILING_DATA_DEF(MixOneToOneTiling)
TILING_DATA_FIELD_DEF(uint32_t, rows);
END_TILING_DATA_DEF;
REGISTER_TILING_DATA_CLASS(MixOneToOneReluMatmul, MixOneToOneTiling);
}  // namespace optiling

#include "kernel_operator.h"
#include "npu/sim/runtime/hw_profile.hpp"
#include "npu/sim/runtime/run_driver.hpp"

namespace driver_mix_one_to_one_test {

using json = nlohmann::json;
using namespace AscendC;

constexpr uint32_t k_dim = 32;
constexpr uint32_t n_dim = 32;
constexpr uint32_t rows_per_group = 32;
constexpr uint32_t groups = 2;
constexpr uint32_t rows = groups * rows_per_group;
// The workspace: the doubled a (half, rows x k), then the product (float, rows x n).
constexpr uint32_t product_offset_bytes = rows * k_dim * sizeof(half);

ge::graphStatus tiling_func(gert::TilingContext* context) {
  optiling::MixOneToOneTiling tiling;
  context->SetBlockDim(groups);
  tiling.set_rows(rows);
  tiling.SaveToBuffer(context->GetRawTilingData()->GetData(),
                      context->GetRawTilingData()->GetCapacity());
  context->GetRawTilingData()->SetDataSize(tiling.GetDataSize());
  context->GetWorkspaceSizes(1)[0] = product_offset_bytes + rows * n_dim * sizeof(float);
  return ge::GRAPH_SUCCESS;
}

void reference(const aopt_ref::tensors& in, aopt_ref::tensors& out, const aopt_ref::attrs&) {
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t c = 0; c < n_dim; ++c) {
      double sum = 0;
      for (int64_t k = 0; k < k_dim; ++k)
        sum += 2.0 * in[0].data[r * k_dim + k] * in[1].data[k * n_dim + c];
      out[0].data[r * n_dim + c] = static_cast<float>(sum > 0 ? sum : 0);
    }
  }
}

enum class variant {
  honest,            // as described above
  split_for_1_2,     // the AIV doubles only the rows GetSubBlockIdx() owns in a 1:2 split
  aic_never_signals  // the AIC does not set flag 1: its AIV waits forever
};

template <variant V>
class VectorPart {
 public:
  __aicore__ inline void Init(GM_ADDR a, GM_ADDR c, GM_ADDR workspace) {
    // 1:1: the AIV's block index is its group's; it is the group's only sub-block.
    ok_ = GetSubBlockIdx() == 0 && GetSubBlockNum() == 1 && GetBlockNum() == groups;
    uint32_t first = GetBlockIdx() * rows_per_group;
    count_ = rows_per_group * k_dim;
    if (V == variant::split_for_1_2) {  // written for two AIVs: each takes half of the group
      first += GetSubBlockIdx() * rows_per_group / 2;
      count_ /= 2;
    }
    aGm_.SetGlobalBuffer((__gm__ half*)a + first * k_dim, count_);
    wsGm_.SetGlobalBuffer((__gm__ half*)workspace + first * k_dim, count_);
    const uint32_t group_first = GetBlockIdx() * rows_per_group;
    productGm_.SetGlobalBuffer(
        (__gm__ float*)(workspace + product_offset_bytes) + group_first * n_dim,
        rows_per_group * n_dim);
    cGm_.SetGlobalBuffer((__gm__ float*)c + group_first * n_dim, rows_per_group * n_dim);
    pipe_.InitBuffer(inQueue_, 1, rows_per_group * n_dim * sizeof(float));
    pipe_.InitBuffer(outQueue_, 1, rows_per_group * n_dim * sizeof(float));
  }

  __aicore__ inline void Process() {
    if (!ok_) return;  // leaves c zero: the run fails its precision check
    LocalTensor<half> a = inQueue_.AllocTensor<half>();
    DataCopy(a, aGm_, count_);
    inQueue_.EnQue(a);
    a = inQueue_.DeQue<half>();
    LocalTensor<half> twice = outQueue_.AllocTensor<half>();
    Muls(twice, a, static_cast<half>(2.0f), count_);
    outQueue_.EnQue(twice);
    twice = outQueue_.DeQue<half>();
    DataCopy(wsGm_, twice, count_);
    outQueue_.FreeTensor(twice);
    inQueue_.FreeTensor(a);
    CrossCoreSetFlag<0x2, PIPE_MTE3>(0);

    CrossCoreWaitFlag(1);  // the AIC's product is in the workspace
    const uint32_t out_count = rows_per_group * n_dim;
    LocalTensor<float> p = inQueue_.AllocTensor<float>();
    DataCopy(p, productGm_, out_count);
    inQueue_.EnQue(p);
    p = inQueue_.DeQue<float>();
    LocalTensor<float> r = outQueue_.AllocTensor<float>();
    Relu(r, p, out_count);
    outQueue_.EnQue(r);
    r = outQueue_.DeQue<float>();
    DataCopy(cGm_, r, out_count);
    outQueue_.FreeTensor(r);
    inQueue_.FreeTensor(p);
  }

 private:
  TPipe pipe_;
  TQue<QuePosition::VECIN, 1> inQueue_;
  TQue<QuePosition::VECOUT, 1> outQueue_;
  GlobalTensor<half> aGm_, wsGm_;
  GlobalTensor<float> productGm_, cGm_;
  uint32_t count_ = 0;
  bool ok_ = false;
};

template <variant V>
class CubePart {
 public:
  __aicore__ inline void Init(GM_ADDR b, GM_ADDR workspace) {
    const uint32_t first = GetBlockIdx() * rows_per_group;
    wsGm_.SetGlobalBuffer((__gm__ half*)workspace + first * k_dim, rows_per_group * k_dim);
    bGm_.SetGlobalBuffer((__gm__ half*)b, k_dim * n_dim);
    productGm_.SetGlobalBuffer((__gm__ float*)(workspace + product_offset_bytes) + first * n_dim,
                               rows_per_group * n_dim);
    pipe_.InitBuffer(a1_, 1, rows_per_group * k_dim * sizeof(half));
    pipe_.InitBuffer(b1_, 1, k_dim * n_dim * sizeof(half));
    pipe_.InitBuffer(a2_, 1, rows_per_group * k_dim * sizeof(half));
    pipe_.InitBuffer(b2_, 1, k_dim * n_dim * sizeof(half));
    pipe_.InitBuffer(c1_, 1, rows_per_group * n_dim * sizeof(float));
  }

  __aicore__ inline void Process() {
    CrossCoreWaitFlag(0);  // one AIV per group: its one set is enough
    LocalTensor<half> a1 = a1_.AllocTensor<half>();
    LocalTensor<half> b1 = b1_.AllocTensor<half>();
    DataCopy(a1, wsGm_, Nd2NzParams(1, rows_per_group, k_dim, 0, k_dim, rows_per_group, 1, 0));
    DataCopy(b1, bGm_, Nd2NzParams(1, k_dim, n_dim, 0, n_dim, k_dim, 1, 0));
    a1_.EnQue(a1);
    b1_.EnQue(b1);
    a1 = a1_.DeQue<half>();
    LocalTensor<half> a2 = a2_.AllocTensor<half>();
    for (uint32_t i = 0; i < rows_per_group / 16; i++)
      LoadData(a2[i * 16 * k_dim], a1[i * 16 * 16],
               LoadData2DParams(0, k_dim / 16, rows_per_group / 16, 0, 0, false, 0));
    a2_.EnQue(a2);
    a1_.FreeTensor(a1);
    b1 = b1_.DeQue<half>();
    LocalTensor<half> b2 = b2_.AllocTensor<half>();
    for (uint32_t i = 0; i < k_dim / 16; i++)
      LoadData(b2[i * 16 * n_dim], b1[i * 16 * 16],
               LoadData2DParams(0, n_dim / 16, k_dim / 16, 0, 0, true, 0));
    b2_.EnQue(b2);
    b1_.FreeTensor(b1);
    a2 = a2_.DeQue<half>();
    b2 = b2_.DeQue<half>();
    LocalTensor<float> c1 = c1_.AllocTensor<float>();
    Mmad(c1, a2, b2, MmadParams(rows_per_group, n_dim, k_dim, false, 0, false, false, false));
    a2_.FreeTensor(a2);
    b2_.FreeTensor(b2);
    c1_.EnQue(c1);
    c1 = c1_.DeQue<float>();
    Fixpipe(productGm_, c1, FixpipeParamsV220(n_dim, rows_per_group, rows_per_group, n_dim, false));
    c1_.FreeTensor(c1);
    if (V != variant::aic_never_signals) CrossCoreSetFlag<0x2, PIPE_FIX>(1);
  }

 private:
  TPipe pipe_;
  TQue<TPosition::A1, 1> a1_;
  TQue<TPosition::B1, 1> b1_;
  TQue<TPosition::A2, 1> a2_;
  TQue<TPosition::B2, 1> b2_;
  TQue<TPosition::CO1, 1> c1_;
  GlobalTensor<half> wsGm_, bGm_;
  GlobalTensor<float> productGm_;
};

template <variant V>
void kernel_entry(uint8_t* const* args) {
  // args: a, b, c, workspace, tiling
  KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_MIX_AIC_1_1);
  if ASCEND_IS_AIV {
    VectorPart<V> op;
    op.Init(args[0], args[2], GetUserWorkspace(args[3]));
    op.Process();
  }
  if ASCEND_IS_AIC {
    CubePart<V> op;
    op.Init(args[1], GetUserWorkspace(args[3]));
    op.Process();
  }
}

json spec() {
  return {
      {"op",
       {{"name", "mix_one_to_one_relu_matmul"},
        {"inputs",
         {{{"name", "a"}, {"dtype", "float16"}, {"shape", {rows, k_dim}}, {"range", {-1, 1}}},
          {{"name", "b"}, {"dtype", "float16"}, {"shape", {k_dim, n_dim}}, {"range", {-1, 1}}}}},
        {"outputs", {{{"name", "c"}, {"dtype", "float32"}, {"shape", {rows, n_dim}}}}},
        {"seed", 7}}},
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

}  // namespace driver_mix_one_to_one_test

using namespace driver_mix_one_to_one_test;

TEST_SUITE("sim") {
  TEST_CASE("MIX 1:1: one AIV per AIC, flags both ways, equals plain C++ on 3 input sets") {
    const json r = run<variant::honest>();
    INFO(r.dump(2));
    CHECK(r["status"] == "ok");
    CHECK(r["latency_us"].get<double>() > 0);
  }

  TEST_CASE("MIX 1:1: a split written for two AIVs per AIC leaves half of each group undone") {
    const json r = run<variant::split_for_1_2>();
    CHECK(r["status"] == "precision_error");
  }

  TEST_CASE("MIX 1:1: an AIV waiting for a flag its AIC never sets is a deadlock") {
    const json r = run<variant::aic_never_signals>();
    CHECK(r["status"] == "runtime_error");
    CHECK(r["error_kind"] == "deadlock");
    CHECK(message(r).find("CrossCoreWaitFlag") != std::string::npos);
    CHECK(message(r).find("waits for flagId 1") != std::string::npos);
    CHECK(message(r).find("AIV") != std::string::npos);
  }
}
