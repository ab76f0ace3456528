// SyncAll across blocks, through run_driver in-process: each block scales its row of x into the
// workspace, synchronises, then adds its neighbour's scaled row: z[r] = 2 x[r] + 2 x[(r+1) % R].
// Written like the SyncAll sample of the AscendC documentation (blocks exchanging data through
// GM), with the hardware and the software barrier, and the ways a launch can hang.
#include <doctest/doctest.h>

#include <cstdint>
#include <string>

#include "register/op_def_registry.h"
#include "register/tilingdata_base.h"

namespace optiling {
BEGIN_TILING_DATA_DEF(SyncAllTestTiling)
TILING_DATA_FIELD_DEF(uint32_t, rowLength);
END_TILING_DATA_DEF;
REGISTER_TILING_DATA_CLASS(SyncAllTestExchange, SyncAllTestTiling);
}  // namespace optiling

#include "kernel_operator.h"
#include "npu/sim/runtime/hw_profile.hpp"
#include "npu/sim/runtime/run_driver.hpp"

namespace driver_sync_all_test {

using json = nlohmann::json;
using namespace AscendC;

constexpr uint32_t row_length = 1024;
constexpr uint32_t sync_bytes_per_core = 32;

// One block per row; the workspace holds the scaled rows, then the software barrier's flags.
template <uint32_t BlockDim>
ge::graphStatus tiling_func(gert::TilingContext* context) {
  optiling::SyncAllTestTiling tiling;
  context->SetBlockDim(BlockDim);
  tiling.set_rowLength(row_length);
  tiling.SaveToBuffer(context->GetRawTilingData()->GetData(),
                      context->GetRawTilingData()->GetCapacity());
  context->GetRawTilingData()->SetDataSize(tiling.GetDataSize());
  context->GetWorkspaceSizes(1)[0] = BlockDim * (row_length * sizeof(float) + sync_bytes_per_core);
  return ge::GRAPH_SUCCESS;
}

void reference(const aopt_ref::tensors& in, aopt_ref::tensors& out, const aopt_ref::attrs&) {
  const int64_t rows = in[0].numel() / row_length;
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t c = 0; c < row_length; ++c) {
      out[0].data[r * row_length + c] =
          2 * in[0].data[r * row_length + c] + 2 * in[0].data[((r + 1) % rows) * row_length + c];
    }
  }
}

enum class variant {
  hard,       // SyncAll()
  soft,       // SyncAll(gmWorkspace, ubWorkspace)
  none,       // no SyncAll: reads a neighbour's row before it is written
  skips,      // the last block skips the SyncAll
  unbalanced  // block 0 scales its row eight times over before the SyncAll
};

template <variant V>
class KernelExchange {
 public:
  __aicore__ inline void Init(GM_ADDR x, GM_ADDR z, GM_ADDR workspace, uint32_t rowLength) {
    rowLength_ = rowLength;
    const uint32_t blocks = GetBlockNum();
    const uint32_t me = GetBlockIdx();
    xGm_.SetGlobalBuffer((__gm__ float*)x + rowLength * me, rowLength);
    zGm_.SetGlobalBuffer((__gm__ float*)z + rowLength * me, rowLength);
    mineGm_.SetGlobalBuffer((__gm__ float*)workspace + rowLength * me, rowLength);
    nextGm_.SetGlobalBuffer((__gm__ float*)workspace + rowLength * ((me + 1) % blocks), rowLength);
    syncGm_.SetGlobalBuffer((__gm__ int32_t*)((__gm__ float*)workspace + rowLength * blocks),
                            blocks * sync_bytes_per_core / sizeof(int32_t));
    pipe_.InitBuffer(inQueue_, 1, rowLength * sizeof(float));
    pipe_.InitBuffer(nextQueue_, 1, rowLength * sizeof(float));
    pipe_.InitBuffer(outQueue_, 1, rowLength * sizeof(float));
    pipe_.InitBuffer(syncBuf_, blocks * sync_bytes_per_core);
  }

  __aicore__ inline void Process() {
    LocalTensor<float> x = inQueue_.AllocTensor<float>();
    DataCopy(x, xGm_, rowLength_);
    inQueue_.EnQue(x);
    x = inQueue_.DeQue<float>();
    LocalTensor<float> scaled = outQueue_.AllocTensor<float>();
    Muls(scaled, x, 2.0f, rowLength_);
    if (V == variant::unbalanced && GetBlockIdx() == 0) {
      for (int i = 0; i < 8; ++i) Muls(scaled, x, 2.0f, rowLength_);
    }
    outQueue_.EnQue(scaled);
    scaled = outQueue_.DeQue<float>();
    DataCopy(mineGm_, scaled, rowLength_);
    outQueue_.FreeTensor(scaled);
    if (V == variant::soft) {
      LocalTensor<int32_t> flags = syncBuf_.Get<int32_t>();
      SyncAll(syncGm_, flags);
    } else if (V != variant::none && !(V == variant::skips && GetBlockIdx() + 1 == GetBlockNum())) {
      SyncAll();
    }
    LocalTensor<float> next = nextQueue_.AllocTensor<float>();
    DataCopy(next, nextGm_, rowLength_);
    nextQueue_.EnQue(next);
    next = nextQueue_.DeQue<float>();
    LocalTensor<float> z = outQueue_.AllocTensor<float>();
    Muls(x, x, 2.0f, rowLength_);
    Add(z, next, x, rowLength_);
    inQueue_.FreeTensor(x);
    nextQueue_.FreeTensor(next);
    outQueue_.EnQue(z);
    z = outQueue_.DeQue<float>();
    DataCopy(zGm_, z, rowLength_);
    outQueue_.FreeTensor(z);
  }

 private:
  TPipe pipe_;
  TQue<QuePosition::VECIN, 1> inQueue_, nextQueue_;
  TQue<QuePosition::VECOUT, 1> outQueue_;
  TBuf<TPosition::VECCALC> syncBuf_;
  GlobalTensor<float> xGm_, zGm_, mineGm_, nextGm_;
  GlobalTensor<int32_t> syncGm_;
  uint32_t rowLength_ = 0;
};

template <variant V>
void kernel_entry(uint8_t* const* args) {
  // args: x, z, workspace, tiling
  GET_TILING_DATA(tilingData, args[3]);
  KernelExchange<V> op;
  op.Init(args[0], args[1], GetUserWorkspace(args[2]), tilingData.rowLength);
  op.Process();
}

json spec(int64_t rows) {
  return {{"op",
           {{"name", "sync_all_exchange"},
            {"inputs",
             {{{"name", "x"},
               {"dtype", "float32"},
               {"shape", {rows, row_length}},
               {"range", {-2, 2}}}}},
            {"outputs", {{{"name", "z"}, {"dtype", "float32"}, {"shape", {rows, row_length}}}}},
            {"seed", 11}}},
          {"hw", aopt::sim::hw_profile{}},
          {"input_sets", 3},
          {"detect_races", true},
          {"noise_stddev_fraction", 0},
          {"noise_seed", 0}};
}

template <uint32_t BlockDim, variant V>
json run() {
  aopt::sim::candidate_entries e;
  e.tiling = &tiling_func<BlockDim>;
  e.kernel = &kernel_entry<V>;
  e.reference = &reference;
  json result;
  REQUIRE(aopt::sim::run_driver(spec(BlockDim), e, result) == 0);
  INFO(result.dump(2));
  return result;
}

std::string message(const json& r) {
  return r.value("message", std::string());
}

}  // namespace driver_sync_all_test

using namespace driver_sync_all_test;

TEST_SUITE("sim") {
  TEST_CASE("SyncAll synchronises the blocks: data exchanged through GM is right on 3 input sets") {
    const json hard = run<8, variant::hard>();
    INFO(hard.dump(2));
    CHECK(hard["status"] == "ok");
    const json soft = run<8, variant::soft>();
    INFO(soft.dump(2));
    CHECK(soft["status"] == "ok");
    // The software barrier polls every core's flag in GM: it costs more than the hardware one.
    CHECK(soft["latency_us"].get<double>() > hard["latency_us"].get<double>());
  }

  TEST_CASE("without SyncAll a block reads its neighbour's row before it is written") {
    const json r = run<8, variant::none>();
    CHECK(r["status"] == "precision_error");
    CHECK(r["error_kind"] == "mismatch");
  }

  TEST_CASE("a block waiting in SyncAll is paid for: the slowest block sets everyone's pace") {
    const json even = run<8, variant::hard>();
    const json uneven = run<8, variant::unbalanced>();
    REQUIRE(uneven["status"] == "ok");
    // Block 0's extra work before the barrier delays every block after it, so the mean block
    // time grows by about block 0's extra time, not an eighth of it.
    const double even_mean = even["profile"]["core_time_mean_us"].get<double>();
    const double uneven_mean = uneven["profile"]["core_time_mean_us"].get<double>();
    const double extra = uneven["profile"]["core_time_max_us"].get<double>() -
                         even["profile"]["core_time_max_us"].get<double>();
    REQUIRE(extra > 0);
    CHECK(uneven_mean - even_mean > 0.9 * extra);
  }

  TEST_CASE("SyncAll launches that would hang on hardware are refused, naming why") {
    const json skips = run<4, variant::skips>();
    CHECK(skips["status"] == "runtime_error");
    CHECK(skips["error_kind"] == "deadlock");
    CHECK(message(skips).find("block 3 returned without reaching it") != std::string::npos);
    const json waves = run<48, variant::hard>();  // the default profile has 40 vector cores
    CHECK(waves["status"] == "runtime_error");
    CHECK(waves["error_kind"] == "deadlock");
    CHECK(message(waves).find("blockDim 48 exceeds the 40 vector cores") != std::string::npos);
  }
}
