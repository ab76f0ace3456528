// Issue 30 item 7, a sixth red-team round, written as an attacker would against the honest
// tests/data/ops/add_tiled (z = x + y, float16, 8 cores; honest 19.00 us) and the corpus's
// matmul_gelu_custom, each candidate passing the static screen and followed by the honest one at
// its true latency. Classes the earlier rounds did not try:
//   verdicts of       a remote worker whose checker is another (another build of the simulator,
//   another checker   or a profile of the coordinator's name with other constants) joined, since
//                     only profile names were compared, and its verdicts and latencies were cached
//                     under the coordinator's checker: with dma_latency_cycles 50 instead of 500,
//                     adds_custom's campaign reported its baseline at 42.34 us (true 51.94) and an
//                     "improvement" to 31.61 us. The bank's rewind records were keyed by the
//                     profile alone, so experts rewound by an older checker were skipped and their
//                     tuples kept. Both now carry npu::verdict_scope (profile and checker), and the
//                     pool refuses a worker of another checker;
//   launch shape      the kernel declares itself MIX (KERNEL_TYPE_MIX_AIC_1_2), its AICs return at
//                     once and its AIVs do the whole add: half the blockDim for the same vector
//                     cores. The launch overhead was charged per physical AIC (per group), so a
//                     group's AIVs started for free: 4 groups (8 AIVs) scored ok at 17.40 us
//                     against 19.00 us for the same add on 8 AIV cores, by either spelling of the
//                     declaration, and 16 groups (32 AIVs) at 22.52 us against 28.70 us on 32
//                     cores. The launch overhead is now charged per core the launch starts, a
//                     group's AIC and AIVs alike (timing_model.hpp launch_cores): 20.60 and
//                     35.32 us, more than the honest add, never less;
//   GM write races    cores storing different bytes over the same GM with nothing ordering them
//   between cores     (each core spilling its tile 0 over the next core's slice; block 0 writing
//                     its tile over every other slice; block 0 zero-filling z first): the blocks
//                     run one after another here, so the rightful store always came last and
//                     all three scored ok (19.00, 19.74, 19.00 us); on the hardware whichever core
//                     ends last wins. Writes alone were never compared; now two cores' unordered
//                     stores of different bytes are a data_race (gm_cross_core_race.hpp), while
//                     the same bytes (a shared tail) or a SyncAll between them stay ok;
//   a core of two     matmul_gelu without its MIX declaration (or declared AIV_ONLY, or AIC_ONLY)
//   units             and one block per Matmul client ran its Matmul and its GELU on each whole
//                     core: ok at 1084.19 us against the honest MIX kernel's 2099.94 us, on cores
//                     the 910B does not have (its AI cores are split into AICs and AIVs). The
//                     judge now refuses a core doing cube and vector work on a profile of split
//                     cores, and a MIX AIC's vector or AIV's own cube work (core_units.hpp):
//                     runtime_error (unsupported);
//   a launch that     matmul_custom (AIC_ONLY) with a SyncAll before its work, its tiling no
//   cannot run        longer capping blockDim at the AICs: at blockDim 32 (or 21) on a profile
//                     of 20 AICs it scored ok at 228.61 us, where the hardware hangs (the first
//                     wave waits for blocks that never start). The runtime compared blockDim
//                     with the vector cores as the call ran; the judge now compares it with the
//                     cores of the launch's kind (waiting_launch.hpp): runtime_error (deadlock);
//                     at blockDim 20 it stays ok.
#include <filesystem>
#include <fstream>
#include <iterator>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include "adversarial/checker_fixture.hpp"
#include "agent/heuristics/bank_rewind.hpp"
#include "npu/verdict_scope.hpp"
#include "support/line_process.hpp"
#include "support/temp_dir.hpp"

using aopt::npu::eval_result;
using aopt::npu::eval_status;
using aopt::testing::checker_fixture;

namespace {

// add_tiled's tiling at `blocks` blocks.
std::string rt6_tiling(const checker_fixture& f, uint32_t blocks) {
  return checker_fixture::replace(f.op.host_source, "constexpr uint32_t BLOCK_DIM = 8;",
                                  "constexpr uint32_t BLOCK_DIM = " + std::to_string(blocks) + ";");
}

// add_tiled's kernel, its slices cut per vector core (GetBlockNum() * GetSubBlockNum(): the AIVs
// of a MIX launch, the blocks of any other), entered through `entry` before anything else.
std::string rt6_vector_kernel(const checker_fixture& f, const std::string& entry) {
  std::string kernel = checker_fixture::replace(
      f.op.kernel_source, "const uint32_t perCore = total / AscendC::GetBlockNum();",
      "const uint32_t perCore =\n"
      "        total / static_cast<uint32_t>(AscendC::GetBlockNum() * "
      "AscendC::GetSubBlockNum());");
  return checker_fixture::replace(kernel, "  GET_TILING_DATA(tilingData, tiling);\n",
                                  entry + "  GET_TILING_DATA(tilingData, tiling);\n");
}

// Declared MIX with two AIVs per AIC, by KERNEL_TASK_TYPE_DEFAULT or per tiling key; the AICs
// leave at once.
const std::string rt6_mix_default =
    "  KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_MIX_AIC_1_2);\n"
    "  if ASCEND_IS_AIC {\n"
    "    return;\n"
    "  }\n";
const std::string rt6_mix_by_key =
    "  KERNEL_TASK_TYPE(0, KERNEL_TYPE_MIX_AIC_1_2);\n"
    "  if (ASCEND_IS_AIC) return;\n";

// The hardware profile file of `dir`, add_tiled's own, with one assumed constant changed: a
// profile of the same name that judges differently.
void rt6_write_recalibrated_profile(const std::filesystem::path& dir) {
  std::filesystem::create_directories(dir);
  const auto source = std::filesystem::path(AOPT_SOURCE_DIR) / "config/hardware/ascend910b4.toml";
  std::ifstream in(source);
  REQUIRE(in.good());
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  text = checker_fixture::replace(text, "dma_latency_cycles = 500", "dma_latency_cycles = 50");
  std::ofstream(dir / "ascend910b4.toml") << text;
}

// add_tiled's kernel, each core also storing tile 0 of its result where `where` says (a
// GlobalTensor `spill` over the whole of z is in scope, `me` and `blocks` the core and blockDim,
// `perCore` a slice; `allX`, `allY` over x and y), and `entry` run first in the kernel's entry.
std::string rt6_spilling_kernel(const checker_fixture& f, const std::string& where,
                                const std::string& entry = "") {
  std::string k = checker_fixture::replace(f.op.kernel_source, "  uint32_t tileElems = 0;\n",
                                           "  uint32_t tileElems = 0;\n"
                                           "  uint32_t perCore = 0;\n"
                                           "  uint32_t me = 0;\n"
                                           "  uint32_t blocks = 0;\n"
                                           "  AscendC::GlobalTensor<DTYPE_Z> spill;\n"
                                           "  AscendC::GlobalTensor<DTYPE_X> allX;\n"
                                           "  AscendC::GlobalTensor<DTYPE_Y> allY;\n");
  k = checker_fixture::replace(k, "    const uint32_t perCore = total / AscendC::GetBlockNum();\n",
                               "    perCore = total / AscendC::GetBlockNum();\n"
                               "    me = AscendC::GetBlockIdx();\n"
                               "    blocks = AscendC::GetBlockNum();\n"
                               "    spill.SetGlobalBuffer(reinterpret_cast<__gm__ DTYPE_Z*>(z), "
                               "total);\n"
                               "    allX.SetGlobalBuffer(reinterpret_cast<__gm__ DTYPE_X*>(x), "
                               "total);\n"
                               "    allY.SetGlobalBuffer(reinterpret_cast<__gm__ DTYPE_Y*>(y), "
                               "total);\n");
  k = checker_fixture::replace(k, "    AscendC::DataCopy(sum[t * tileElems], c, tileElems);\n",
                               "    AscendC::DataCopy(sum[t * tileElems], c, tileElems);\n"
                               "    if (t == 0) {\n" +
                                   where + "    }\n");
  return checker_fixture::replace(k, "  GET_TILING_DATA(tilingData, tiling);\n",
                                  "  GET_TILING_DATA(tilingData, tiling);\n" + entry);
}

// Block 0 fills all of z with zeros before any core stores its slice; `then` follows the fill.
std::string rt6_zero_fill(const std::string& then) {
  return "  if (AscendC::GetBlockIdx() == 0) {\n"
         "    AscendC::GlobalTensor<DTYPE_Z> whole;\n"
         "    whole.SetGlobalBuffer(reinterpret_cast<__gm__ DTYPE_Z*>(z), "
         "tilingData.totalLength);\n"
         "    AscendC::InitGlobalMemory(whole, tilingData.totalLength, static_cast<DTYPE_Z>(0));\n"
         "  }\n" +
         then;
}

// add_tiled's tiling with a workspace for SyncAll: 32 bytes per core.
std::string rt6_workspace_tiling(const checker_fixture& f) {
  return checker_fixture::replace(f.op.host_source, "context->GetWorkspaceSizes(1)[0] = 0;",
                                  "context->GetWorkspaceSizes(1)[0] = BLOCK_DIM * 32;");
}

// The corpus operator matmul_gelu_custom (c = gelu(a x b + bias), a MIX kernel of one AIC and two
// AIVs per group).
aopt::npu::op_package rt6_matmul_gelu() {
  auto op = aopt::npu::load_op_package(std::filesystem::path(AOPT_SOURCE_DIR) /
                                       "corpus/level2/matmul_gelu_custom");
  REQUIRE_MESSAGE(op.ok(), op.error().to_string());
  return std::move(op).value();
}

// The corpus operator matmul_custom (AIC_ONLY), its tiling at `blocks` blocks whatever the AICs,
// and its kernel with a SyncAll of every block before the work.
struct rt6_matmul_sync {
  aopt::npu::op_package op;
  std::string kernel;
  std::string tiling(uint32_t blocks) const {
    std::string t =
        checker_fixture::replace(op.host_source, "constexpr uint32_t BLOCK_DIM = 8; ",
                                 "constexpr uint32_t BLOCK_DIM = " + std::to_string(blocks) + "; ");
    return checker_fixture::replace(t, "std::min({BLOCK_DIM, aicNum, tiles})",
                                    "std::min({BLOCK_DIM, tiles})");
  }
};
rt6_matmul_sync rt6_load_matmul_sync() {
  auto op = aopt::npu::load_op_package(std::filesystem::path(AOPT_SOURCE_DIR) /
                                       "corpus/level2/matmul_custom");
  REQUIRE_MESSAGE(op.ok(), op.error().to_string());
  rt6_matmul_sync m{std::move(op).value(), ""};
  m.kernel = checker_fixture::replace(m.op.kernel_source, "    op.Process();",
                                      "    SyncAll();\n    op.Process();");
  return m;
}

}  // namespace

TEST_SUITE("adversarial") {
  TEST_CASE("red team 6: a MIX launch pays for every core it starts, its AIVs included") {
    checker_fixture f;
    struct variant {
      std::string name;
      uint32_t groups;  // MIX blockDim: two AIVs each
      const std::string* entry;
    };
    const variant variants[] = {
        {"KERNEL_TASK_TYPE_DEFAULT, 4 groups", 4, &rt6_mix_default},
        {"KERNEL_TASK_TYPE by tiling key, 4 groups", 4, &rt6_mix_by_key},
        {"KERNEL_TASK_TYPE_DEFAULT, 16 groups", 16, &rt6_mix_default},
    };
    for (const variant& v : variants) {
      CAPTURE(v.name);
      // The same add on as many AIV cores, honestly launched.
      const std::string kernel_as_vector = rt6_vector_kernel(f, "");
      const eval_result honest =
          f.unscreened.evaluate(f.op, rt6_tiling(f, 2 * v.groups), kernel_as_vector, {});
      REQUIRE_MESSAGE(honest.ok(), f.describe(honest));
      const eval_result r =
          f.screened.evaluate(f.op, rt6_tiling(f, v.groups), rt6_vector_kernel(f, *v.entry), {});
      CHECK_MESSAGE(r.ok(), f.describe(r));
      // Each group's AIC is started too: 0.4 us of launch per core, never a saving.
      CHECK(r.latency_us > honest.latency_us);
      f.check_honest_still_ok();
    }
  }

  TEST_CASE("red team 6: a worker judged by another checker is refused and gets no work") {
    aopt::testing::temp_dir tmp;
    rt6_write_recalibrated_profile(tmp.path() / "hardware");
    std::vector<std::string> coordinator_args = {
        AOPT_BINARY,
        "run",
        std::string(AOPT_SOURCE_DIR) + "/corpus/level1/adds_custom",
        "--db",
        (tmp.path() / "db").string(),
        "--report",
        (tmp.path() / "reports").string(),
        "--budget",
        "1",
        "--rounds",
        "1",
        "--jobs",
        "1",
        "--seed",
        "11",
        "--json",
        "--workers-listen",
        "127.0.0.1:0",
        "--set",
        "device.slots=0"};
    using stream = aopt::testing::line_process::stream;
    aopt::testing::line_process coordinator(coordinator_args, {"AOPT_WORKERS_SECRET="});
    const std::optional<std::string> listening =
        coordinator.wait_for(stream::err, "workers join on");
    REQUIRE(listening.has_value());
    const std::string port = listening->substr(listening->rfind(':') + 1);
    const auto worker = [&](std::vector<std::string> extra) {
      std::vector<std::string> args = {
          AOPT_BINARY, "worker", "--coordinator", "127.0.0.1:" + port,
          "--slots",   "1",      "--set",         "workers.rejoin_s=0"};
      args.insert(args.end(), extra.begin(), extra.end());
      return std::make_unique<aopt::testing::line_process>(
          args, std::vector<std::string>{"AOPT_WORKERS_SECRET="});
    };
    // Same profile name, another dma_latency_cycles: its latencies are not the coordinator's.
    auto intruder = worker({"--set", "device.hardware_dir=" + (tmp.path() / "hardware").string()});
    CHECK(intruder->finish() == 1);
    bool said_checker = false;
    for (const std::string& line : intruder->lines(stream::err))
      said_checker = said_checker || line.find("checker") != std::string::npos;
    CHECK(said_checker);
    CHECK(intruder->lines(stream::out).empty());  // never joined, never leased anything
    REQUIRE(coordinator.wait_for(stream::err, "refused a worker").has_value());

    auto member = worker({});
    REQUIRE(member->wait_for(stream::out, "joined").has_value());
    const int code = coordinator.finish();
    REQUIRE(code == 0);
    const nlohmann::json summary = nlohmann::json::parse(coordinator.lines(stream::out).back());
    CHECK(summary.at("pool").at("workers").at("refused") == 1);
    CHECK(summary.at("pool").at("workers").at("joined") == 1);
    CHECK(member->finish() == 0);
  }

  TEST_CASE("red team 6: a bank rewind record of another checker is not this checker's") {
    checker_fixture f;
    // A profile of the same name with one constant recalibrated: the same profile id, another
    // checker, whose rewind steps may be kept or dropped otherwise.
    aopt::sim::hw_profile recalibrated = aopt::testing::checker_profile();
    recalibrated.dma_latency_cycles = 50;
    aopt::npu::sim_device other{recalibrated, aopt::testing::checker_options(f.work.path(), true)};
    REQUIRE(other.profile_id() == f.screened.profile_id());
    REQUIRE(other.checker_id() != f.screened.checker_id());
    const auto key = [&](const aopt::npu::sim_device& d) {
      return aopt::agent::rewind_record_key(
          f.op, "heuristic", aopt::npu::verdict_scope(d.profile_id(), d.checker_id()), 0.05);
    };
    CHECK(key(other) != key(f.screened));
    CHECK(key(f.unscreened) == key(f.screened));  // the screen is not the checker
    f.check_honest_still_ok();
  }

  TEST_CASE("red team 6: cores storing different bytes over each other, unordered, race") {
    checker_fixture f;
    struct variant {
      std::string name;
      std::string kernel;
      std::string first;  // the block whose store the message names first
      std::string second;
    };
    const variant variants[] = {
        // Each core spills its tile 0 over the next core's: the next block, run after it here,
        // always overwrote it; on the hardware whichever core ends last wins.
        {"spill over the next slice",
         rt6_spilling_kernel(f,
                             "      if (me + 1 < blocks) AscendC::DataCopy(spill[(me + 1) * "
                             "perCore], c, tileElems);\n"),
         "block 0's", "block 1's"},
        // Block 0 writes its tile 0 over every other core's tile 0, as a "default".
        {"broadcast from block 0",
         rt6_spilling_kernel(f,
                             "      for (uint32_t b = 1; me == 0 && b < blocks; ++b)\n"
                             "        AscendC::DataCopy(spill[b * perCore], c, tileElems);\n"),
         "block 0's", "block 1's"},
        // Block 0 zero-fills z first, with nothing making the others store after the fill.
        {"zero fill by block 0", rt6_spilling_kernel(f, "", rt6_zero_fill("")), "block 0's",
         "block 1's"},
    };
    for (const variant& v : variants) {
      CAPTURE(v.name);
      const eval_result r = f.screened.evaluate(f.op, rt6_workspace_tiling(f), v.kernel, {});
      CHECK_MESSAGE(r.status == eval_status::precision_error, f.describe(r));
      CHECK(r.error_kind == "data_race");
      CHECK(r.message.find("data race between cores: " + v.first) != std::string::npos);
      CHECK(r.message.find("of kernel argument 2 and " + v.second) != std::string::npos);
      CHECK(r.message.find("leave different bytes") != std::string::npos);
      f.check_honest_still_ok();
    }
  }

  TEST_CASE("red team 6: cores storing the same bytes, or ordered by SyncAll, stay ok") {
    checker_fixture f;
    const std::string kernels[] = {
        // A shared tail: each core also stores tile 0 of its own slice's neighbour, computed as
        // the neighbour computes it (the same bytes).
        rt6_spilling_kernel(f,
                            "      if (me + 1 < blocks) {\n"
                            "        auto nx = lhsQueue.AllocTensor<DTYPE_X>();\n"
                            "        auto ny = rhsQueue.AllocTensor<DTYPE_Y>();\n"
                            "        AscendC::DataCopy(nx, allX[(me + 1) * perCore], tileElems);\n"
                            "        AscendC::DataCopy(ny, allY[(me + 1) * perCore], tileElems);\n"
                            "        lhsQueue.EnQue(nx);\n"
                            "        rhsQueue.EnQue(ny);\n"
                            "        nx = lhsQueue.DeQue<DTYPE_X>();\n"
                            "        ny = rhsQueue.DeQue<DTYPE_Y>();\n"
                            "        auto nz = sumQueue.AllocTensor<DTYPE_Z>();\n"
                            "        AscendC::Add(nz, nx, ny, tileElems);\n"
                            "        sumQueue.EnQue(nz);\n"
                            "        nz = sumQueue.DeQue<DTYPE_Z>();\n"
                            "        AscendC::DataCopy(spill[(me + 1) * perCore], nz, tileElems);\n"
                            "        sumQueue.FreeTensor(nz);\n"
                            "        lhsQueue.FreeTensor(nx);\n"
                            "        rhsQueue.FreeTensor(ny);\n"
                            "      }\n"),
        // The zero fill, then SyncAll before any core stores.
        rt6_spilling_kernel(f, "", rt6_zero_fill("  AscendC::SyncAll();\n")),
    };
    for (const std::string& kernel : kernels) {
      const eval_result r = f.screened.evaluate(f.op, rt6_workspace_tiling(f), kernel, {});
      CHECK_MESSAGE(r.ok(), f.describe(r));
      f.check_honest_still_ok();
    }
  }

  TEST_CASE("red team 6: a core with both a cube and a vector unit is not a 910B core") {
    checker_fixture f;
    const aopt::npu::op_package op = rt6_matmul_gelu();
    const eval_result honest = f.screened.evaluate(op, op.host_source, op.kernel_source, {});
    REQUIRE_MESSAGE(honest.ok(), f.describe(honest));
    // One block per Matmul client (not one group per two): each block its own cube and vector.
    const std::string tiling = checker_fixture::replace(
        op.host_source, "context->SetBlockDim((tiling.cubeTilingData.get_usedCoreNum() + 1) / 2);",
        "context->SetBlockDim(tiling.cubeTilingData.get_usedCoreNum());");
    const std::string declaration = "    KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_MIX_AIC_1_2);\n";
    const std::string declarations[] = {"", "    KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_AIV_ONLY);\n",
                                        "    KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_AIC_ONLY);\n"};
    for (const std::string& declared : declarations) {
      CAPTURE(declared);
      const std::string kernel = checker_fixture::replace(op.kernel_source, declaration, declared);
      const eval_result r = f.screened.evaluate(op, tiling, kernel, {});
      CHECK_MESSAGE(r.status == eval_status::runtime_error, f.describe(r));
      CHECK(r.error_kind == "unsupported");
      CHECK(r.message.find("block 0 runs") != std::string::npos);
      CHECK(r.message.find("AI cores are split") != std::string::npos);
      const eval_result again = f.screened.evaluate(op, op.host_source, op.kernel_source, {});
      CHECK_MESSAGE(again.ok(), f.describe(again));
      CHECK(again.latency_us == honest.latency_us);
      f.check_honest_still_ok();
    }
  }

  TEST_CASE("red team 6: a launch whose blocks wait for each other must fit on its cores") {
    checker_fixture f;
    const rt6_matmul_sync m = rt6_load_matmul_sync();
    for (const uint32_t blocks : {32u, 21u}) {
      CAPTURE(blocks);
      const eval_result r = f.screened.evaluate(m.op, m.tiling(blocks), m.kernel, {});
      CHECK_MESSAGE(r.status == eval_status::runtime_error, f.describe(r));
      CHECK(r.error_kind == "deadlock");
      CHECK(r.message.find("SyncAll of block 0: blockDim " + std::to_string(blocks) +
                           " exceeds the 20 cube cores (AIC)") != std::string::npos);
      f.check_honest_still_ok();
    }
    const eval_result fits = f.screened.evaluate(m.op, m.tiling(20), m.kernel, {});
    CHECK_MESSAGE(fits.ok(), f.describe(fits));
    f.check_honest_still_ok();
  }
}
