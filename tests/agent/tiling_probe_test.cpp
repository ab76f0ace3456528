// Feasibility before the device with a real compile (issue 16): the simulator device runs the
// tiling program of the corpus's add_custom alone (host unit only, sandboxed) and the trusted
// judge decides from what it delivered.
#include <doctest/doctest.h>

#include <filesystem>
#include <memory>

#include "agent/episode/tiling_feasibility.hpp"
#include "npu/hardware_profile.hpp"
#include "npu/sim/device/sim_device.hpp"
#include "support/temp_dir.hpp"

using namespace aopt;
using namespace aopt::agent;
namespace fs = std::filesystem;

namespace {

std::string replaced(std::string text, const std::string& from, const std::string& to) {
  const size_t at = text.find(from);
  REQUIRE_MESSAGE(at != std::string::npos, from);
  return text.replace(at, from.size(), to);
}

}  // namespace

TEST_SUITE("agent") {
  TEST_CASE("the tiling probe runs a candidate's tiling function alone and aopt judges it") {
    result<npu::op_package> op =
        npu::load_op_package(fs::path(AOPT_SOURCE_DIR) / "corpus/level1/add_custom");
    REQUIRE_MESSAGE(op.ok(), op.error().to_string());
    result<sim::hw_profile> hw =
        npu::find_hardware_profile("ascend910b4", fs::path(AOPT_SOURCE_DIR) / "config/hardware");
    REQUIRE(hw.ok());
    aopt::testing::temp_dir work;
    npu::sim_device_options options;
    options.work_dir = work.path();
    auto device = std::make_shared<npu::sim_device>(*hw, options);
    const tiling_screen screen = make_probe_screen(device, hw->ub_bytes);

    // The shipped tiling: its decision arrives as sent, and it is feasible.
    const npu::tiling_probe_result shipped = device->probe_tiling(*op, op->host_source);
    REQUIRE_MESSAGE(shipped.result == npu::tiling_probe_result::kind::ran, shipped.message);
    CHECK(shipped.status == 0);
    CHECK(shipped.block_dim == 8);
    CHECK(shipped.data_size == 16);  // four uint32_t fields
    const feasibility_facts facts = facts_of(*op, op->kernel_source, hw->ub_bytes);
    REQUIRE(facts.layout.has_value());
    const auto fields = read_integer_fields(*facts.layout, shipped.tiling_data);
    CHECK(fields.at("tileLength") == 2048);
    CHECK(fields.at("totalLength") == static_cast<int64_t>(op->spec.inputs[0].numel()));
    CHECK(judge_tiling(shipped, facts).feasible());
    // Probing costs a host compile once: the same tiling again (or its evaluation) is cached.
    const uint64_t misses = device->cache_stats().misses;
    device->probe_tiling(*op, op->host_source);
    CHECK(device->cache_stats().misses == misses);

    // The clamp to the UB removed and a huge double-buffered tile: an overflow the data shows.
    std::string overflow = replaced(op->host_source, "TILE_LENGTH = 2048", "TILE_LENGTH = 32768");
    overflow = replaced(overflow, "BUFFER_NUM = 1", "BUFFER_NUM = 2");
    overflow = replaced(overflow, "std::min(TILE_LENGTH, maxTile)", "TILE_LENGTH");
    feasibility_verdict v = screen(*op, overflow, op->kernel_source);
    CHECK(v.kind == "ub_overflow");
    CHECK(v.message.find("tileLength 32768 x bufferNum 2") != std::string::npos);

    // A tiling function that sets no block dim, one that fails, one that does not compile.
    v = screen(*op, replaced(op->host_source, "context->SetBlockDim(blockDim);", ""),
               op->kernel_source);
    CHECK(v.kind == "bad_block_dim");
    v = screen(*op,
               replaced(op->host_source, "size_t* workspace",
                        "return ge::GRAPH_FAILED;\n size_t* workspace"),
               op->kernel_source);
    CHECK(v.kind == "tiling_failed");
    v = screen(*op, replaced(op->host_source, "uint64_t ubSize = 0;", "uint64_t ubSize = ;"),
               op->kernel_source);
    CHECK(v.kind == "compile_error");
  }
}
