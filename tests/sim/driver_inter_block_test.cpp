// IBSet/IBWait across blocks, through run_driver in-process: each block scales its row of x into
// the workspace and sets its flag; then it waits for the flag of the next block (block 0 for a
// later one) and adds that block's scaled row: z[r] = 2 x[r] + 2 x[(r+1) % R]. Written like the
// IBSet sample of the AscendC documentation (one core waits for another's GM result), with the
// misuses the documentation rules out.
#include <doctest/doctest.h>

#include <cstdint>
#include <string>

#include "register/op_def_registry.h"
#include "register/tilingdata_base.h"

namespace optiling {
BEGIN_TILING_DATA_DEF(InterBlockTestTiling)
TILING_DATA_FIELD_DEF(uint32_t, rowLength);
END_TILING_DATA_DEF;
REGISTER_TILING_DATA_CLASS(InterBlockTestExchange, InterBlockTestTiling);
}  // namespace optiling

#include "kernel_operator.h"
#include "npu/sim/runtime/hw_profile.hpp"
#include "npu/sim/runtime/run_driver.hpp"

namespace driver_inter_block_test {

using json = nlohmann::json;
using namespace AscendC;

constexpr uint32_t row_length = 1024;
constexpr uint32_t flag_bytes_per_core = 32;

// One block per row; the workspace holds the scaled rows, then 32 bytes of flags per core and
// event for eventIDs 0 and 1 (the documented minimum for eventID 1 and every blockIdx).
constexpr uint32_t events = 2;
template <uint32_t BlockDim>
ge::graphStatus tiling_func(gert::TilingContext* context) {
  optiling::InterBlockTestTiling tiling;
  context->SetBlockDim(BlockDim);
  tiling.set_rowLength(row_length);
  tiling.SaveToBuffer(context->GetRawTilingData()->GetData(),
                      context->GetRawTilingData()->GetCapacity());
  context->GetRawTilingData()->SetDataSize(tiling.GetDataSize());
  context->GetWorkspaceSizes(1)[0] =
      BlockDim * (row_length * sizeof(float) + events * flag_bytes_per_core);
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
  flags,        // IBSet(own, 0), then IBWait(next, 0)
  none,         // no flags: block 0 reads block 1's row before it is written
  wrong_event,  // waits for eventID 1, which no block sets
  small_gm,     // the flags' GlobalTensor covers eventID 0 only, but eventID 1 is used
  own_flag,     // waits for its own flag
  unbalanced    // as flags, block 1 scales its row eight times over first
};

template <variant V>
class KernelExchange {
 public:
  __aicore__ inline void Init(GM_ADDR x, GM_ADDR z, GM_ADDR workspace, uint32_t rowLength) {
    rowLength_ = rowLength;
    const uint32_t blocks = GetBlockNum();
    const uint32_t me = GetBlockIdx();
    next_ = (me + 1) % blocks;
    xGm_.SetGlobalBuffer((__gm__ float*)x + rowLength * me, rowLength);
    zGm_.SetGlobalBuffer((__gm__ float*)z + rowLength * me, rowLength);
    mineGm_.SetGlobalBuffer((__gm__ float*)workspace + rowLength * me, rowLength);
    nextGm_.SetGlobalBuffer((__gm__ float*)workspace + rowLength * next_, rowLength);
    syncGm_.SetGlobalBuffer(
        (__gm__ int32_t*)((__gm__ float*)workspace + rowLength * blocks),
        (V == variant::small_gm ? 1 : events) * blocks * flag_bytes_per_core / sizeof(int32_t));
    pipe_.InitBuffer(inQueue_, 1, rowLength * sizeof(float));
    pipe_.InitBuffer(nextQueue_, 1, rowLength * sizeof(float));
    pipe_.InitBuffer(outQueue_, 1, rowLength * sizeof(float));
    pipe_.InitBuffer(syncBuf_, flag_bytes_per_core);
  }

  __aicore__ inline void Process() {
    LocalTensor<float> x = inQueue_.AllocTensor<float>();
    DataCopy(x, xGm_, rowLength_);
    inQueue_.EnQue(x);
    x = inQueue_.DeQue<float>();
    LocalTensor<float> scaled = outQueue_.AllocTensor<float>();
    Muls(scaled, x, 2.0f, rowLength_);
    if (V == variant::unbalanced && GetBlockIdx() == 1) {
      for (int i = 0; i < 8; ++i) Muls(scaled, x, 2.0f, rowLength_);
    }
    outQueue_.EnQue(scaled);
    scaled = outQueue_.DeQue<float>();
    DataCopy(mineGm_, scaled, rowLength_);
    outQueue_.FreeTensor(scaled);
    LocalTensor<int32_t> flag = syncBuf_.Get<int32_t>();
    const int32_t me = static_cast<int32_t>(GetBlockIdx());
    if (V != variant::none) {
      IBSet(syncGm_, flag, me, V == variant::small_gm ? 1 : 0);
      const int32_t event = V == variant::wrong_event || V == variant::small_gm ? 1 : 0;
      IBWait(syncGm_, flag, V == variant::own_flag ? me : static_cast<int32_t>(next_), event);
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
  uint32_t next_ = 0;
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
           {{"name", "inter_block_exchange"},
            {"inputs",
             {{{"name", "x"},
               {"dtype", "float32"},
               {"shape", {rows, row_length}},
               {"range", {-2, 2}}}}},
            {"outputs", {{{"name", "z"}, {"dtype", "float32"}, {"shape", {rows, row_length}}}}},
            {"seed", 13}}},
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

}  // namespace driver_inter_block_test

using namespace driver_inter_block_test;

TEST_SUITE("sim") {
  TEST_CASE("IBSet/IBWait order the blocks: a block waits for a later one's GM result") {
    const json r = run<8, variant::flags>();
    INFO(r.dump(2));
    CHECK(r["status"] == "ok");
  }

  TEST_CASE("without IBSet/IBWait block 0 reads block 1's row before it is written") {
    const json r = run<8, variant::none>();
    CHECK(r["status"] == "precision_error");
    CHECK(r["error_kind"] == "mismatch");
  }

  TEST_CASE("a block waiting in IBWait is paid for: it starts no earlier than the flag is set") {
    const json even = run<8, variant::flags>();
    const json uneven = run<8, variant::unbalanced>();
    REQUIRE(uneven["status"] == "ok");
    // Block 1's extra work delays block 0, which waits for its flag: the two slowest blocks
    // both grow by about that work, so the mean grows by more than one block's share.
    const double extra = uneven["profile"]["core_time_max_us"].get<double>() -
                         even["profile"]["core_time_max_us"].get<double>();
    REQUIRE(extra > 0);
    const double mean_growth = uneven["profile"]["core_time_mean_us"].get<double>() -
                               even["profile"]["core_time_mean_us"].get<double>();
    CHECK(mean_growth > 1.8 * extra / 8);
  }

  TEST_CASE("IBWait misuse is refused, naming the wait and the documented rule") {
    const json never = run<4, variant::wrong_event>();
    CHECK(never["status"] == "runtime_error");
    CHECK(never["error_kind"] == "deadlock");
    CHECK(message(never).find("block 0 waits for the flag of block 1, eventID 1, which no block "
                              "sets") != std::string::npos);
    const json small = run<4, variant::small_gm>();
    CHECK(small["status"] == "runtime_error");
    CHECK(small["error_kind"] == "bad_argument");
    CHECK(message(small).find("gmWorkspace holds 128 bytes; blockIdx 0 and eventID 1 need at "
                              "least 160") != std::string::npos);
    const json own = run<4, variant::own_flag>();
    CHECK(own["status"] == "runtime_error");
    CHECK(own["error_kind"] == "bad_argument");
    CHECK(message(own).find("waits for its own flag") != std::string::npos);
    const json waves = run<48, variant::flags>();  // the default profile has 40 vector cores
    CHECK(waves["status"] == "runtime_error");
    CHECK(waves["error_kind"] == "deadlock");
    CHECK(message(waves).find("blockDim 48 exceeds the 40 vector cores") != std::string::npos);
  }
}
