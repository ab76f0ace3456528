// Feasibility before the device (issue 16): the tiling data layout, the trusted judgement of a
// probe's delivery, and the heuristic mutator policy with a scripted probe. The probe with a real
// compile is in tiling_probe_test.cpp.
#include "agent/tiling_feasibility.hpp"

#include <doctest/doctest.h>

#include <cstring>

#include "agent/heuristic_policies.hpp"

using namespace aopt;
using namespace aopt::agent;

namespace {

const char* kHeader = R"(#include "register/tilingdata_base.h"
namespace optiling {
BEGIN_TILING_DATA_DEF(InnerTiling)
TILING_DATA_FIELD_DEF(uint64_t, unused);
END_TILING_DATA_DEF;
BEGIN_TILING_DATA_DEF(AddCustomTilingData)
TILING_DATA_FIELD_DEF(uint32_t, totalLength);
TILING_DATA_FIELD_DEF(uint16_t, flags);      // offset 4
TILING_DATA_FIELD_DEF(int64_t, offsetBias);  // offset 8 (aligned)
TILING_DATA_FIELD_DEF(uint32_t, blockLength);
TILING_DATA_FIELD_DEF(uint32_t, tileLength);
TILING_DATA_FIELD_DEF_ARR(uint32_t, 2, pair);
TILING_DATA_FIELD_DEF(uint32_t, bufferNum);
TILING_DATA_FIELD_DEF(float, scale);
TILING_DATA_FIELD_DEF_STRUCT(InnerTiling, inner);
TILING_DATA_FIELD_DEF(uint32_t, afterStruct);
END_TILING_DATA_DEF;
REGISTER_TILING_DATA_CLASS(AddCustom, AddCustomTilingData)
}
)";

// The bytes the simulator's tiling class would save for these values (layout as above).
std::vector<uint8_t> tiling_bytes(uint32_t total, int64_t bias, uint32_t block, uint32_t tile,
                                  uint32_t buffers) {
  std::vector<uint8_t> b(40, 0);
  auto put = [&](size_t offset, const void* v, size_t n) { std::memcpy(&b[offset], v, n); };
  put(0, &total, 4);
  put(8, &bias, 8);
  put(16, &block, 4);
  put(20, &tile, 4);
  put(32, &buffers, 4);
  return b;
}

npu::tiling_probe_result ran(uint32_t block_dim, std::vector<uint8_t> data) {
  npu::tiling_probe_result r;
  r.result = npu::tiling_probe_result::kind::ran;
  r.block_dim = block_dim;
  r.data_size = data.size();
  r.tiling_data = std::move(data);
  return r;
}

// Two half inputs and a half output of 8 x 2048, on a 192 KiB UB.
feasibility_facts half_add_facts(bool pads_tails) {
  npu::op_package op;
  op.spec.name = "add_custom";
  for (const char* n : {"x", "y"}) op.spec.inputs.push_back({n, npu::dtype::float16, {8, 2048}});
  op.spec.outputs.push_back({"z", npu::dtype::float16, {8, 2048}});
  op.tiling_header_source = kHeader;
  const std::string kernel = std::string(R"(
class KernelAdd {
  void Init(uint32_t bufferNum, uint32_t tileLength) {
    this->bufferNum = bufferNum;
    pipe.InitBuffer(inQueueX, this->bufferNum, tileLength * sizeof(half));
  }
  void CopyIn() { )") + (pads_tails ? "DataCopyPad(x, xGm, p, q);" : "DataCopy(x, xGm, n);") +
                             " }\n};\n";
  return facts_of(op, kernel, 196608);
}

}  // namespace

TEST_SUITE("agent") {
  TEST_CASE("the tiling data layout follows the registered class's members in order") {
    result<tiling_data_layout> layout = parse_tiling_layout(kHeader);
    REQUIRE(layout.ok());
    CHECK(layout->class_name == "AddCustomTilingData");
    std::vector<std::string> names;
    for (const tiling_field& f : layout->fields) names.push_back(f.name);
    // The struct field and what follows it are left out: their offsets need InnerTiling's layout.
    CHECK(names == std::vector<std::string>{"totalLength", "flags", "offsetBias", "blockLength",
                                            "tileLength", "pair", "bufferNum", "scale"});
    CHECK(layout->fields[2].offset == 8);
    CHECK(layout->fields[5].count == 2);
    CHECK(layout->fields[6].offset == 32);
    CHECK_FALSE(layout->fields[7].is_integer);

    const auto values = read_integer_fields(*layout, tiling_bytes(16384, -3, 2048, 512, 2));
    CHECK(values.at("totalLength") == 16384);
    CHECK(values.at("offsetBias") == -3);
    CHECK(values.at("tileLength") == 512);
    CHECK(values.at("bufferNum") == 2);
    CHECK(values.count("pair") == 0);
    CHECK(values.count("scale") == 0);
    // A field beyond the bytes saved is not read.
    CHECK(read_integer_fields(*layout, std::vector<uint8_t>(20, 0)).count("tileLength") == 0);

    CHECK(parse_tiling_layout("struct Plain { int x; };").error().code() == status_code::not_found);
  }

  TEST_CASE("the judge accepts a tiling that fits and says why it rejects the others") {
    const feasibility_facts padded = half_add_facts(true);
    CHECK(padded.buffer_depth_names.count("bufferNum") == 1);
    CHECK(padded.tile_bytes_per_element == 4);  // the two half inputs
    CHECK(judge_tiling(ran(8, tiling_bytes(16384, 0, 2048, 2048, 2)), padded).feasible());

    // UB: 32768 x 2 buffers x 4 bytes = 256 KiB > 192 KiB; the same tile single-buffered fits.
    feasibility_verdict ub = judge_tiling(ran(8, tiling_bytes(16384, 0, 2048, 32768, 2)), padded);
    CHECK(ub.kind == "ub_overflow");
    CHECK(ub.message.find("tileLength 32768 x bufferNum 2 x 4 bytes") != std::string::npos);
    CHECK(judge_tiling(ran(8, tiling_bytes(16384, 0, 2048, 32768, 1)), padded).feasible());

    CHECK(judge_tiling(ran(0, tiling_bytes(16384, 0, 2048, 2048, 1)), padded).kind ==
          "bad_block_dim");
    CHECK(judge_tiling(ran(70000, tiling_bytes(16384, 0, 2048, 2048, 1)), padded).kind ==
          "bad_block_dim");
    CHECK(judge_tiling(ran(8, tiling_bytes(16384, 0, 2048, 0, 1)), padded).kind == "uncovered");
    // 4 blocks of 2048 elements leave half of the 16384 uncovered.
    feasibility_verdict short_blocks =
        judge_tiling(ran(4, tiling_bytes(16384, 0, 2048, 2048, 1)), padded);
    CHECK(short_blocks.kind == "uncovered");
    CHECK(short_blocks.message.find("leaves 8192 of totalLength 16384") != std::string::npos);

    // 100 half elements are 200 bytes: fine with DataCopyPad for the tail, misaligned without.
    CHECK(judge_tiling(ran(8, tiling_bytes(16384, 0, 2048, 100, 1)), padded).feasible());
    CHECK(judge_tiling(ran(8, tiling_bytes(16384, 0, 2048, 100, 1)), half_add_facts(false)).kind ==
          "misaligned");

    npu::tiling_probe_result failed = ran(8, {});
    failed.status = 1;
    CHECK(judge_tiling(failed, padded).kind == "tiling_failed");
    failed.status = 0;
    failed.exception = ": bad shape";
    CHECK(judge_tiling(failed, padded).message == "TilingFunc threw: bad shape");
    npu::tiling_probe_result other;
    other.result = npu::tiling_probe_result::kind::compile_error;
    other.message = "op_host/add_custom.cpp:3: error: expected ';'";
    CHECK(judge_tiling(other, padded).kind == "compile_error");
    other.result = npu::tiling_probe_result::kind::crashed;
    CHECK(judge_tiling(other, padded).kind == "tiling_crash");
    // A probe the machine could not run judges nothing.
    other.result = npu::tiling_probe_result::kind::unavailable;
    CHECK(judge_tiling(other, padded).feasible());
  }

  TEST_CASE("the mutator policy sends no probe-rejected candidate to the device, and learns") {
    // A scripted probe: tiles of 8192 elements or more overflow the UB.
    npu::op_package op;
    op.spec.name = "add_custom";
    for (const char* n : {"x", "y"}) op.spec.inputs.push_back({n, npu::dtype::float16, {8, 2048}});
    op.spec.outputs.push_back({"z", npu::dtype::float16, {8, 2048}});
    int probes = 0;
    heuristic_mutator_policy_options options;
    options.ub_bytes = 0;  // only the probe screens
    options.probe = [&](const npu::op_package&, const std::string& tiling, const std::string&) {
      ++probes;
      result<std::vector<tunable>> t = parse_tunables(tiling);
      REQUIRE(t.ok());
      const int64_t tile = current_values(*t).at("TILE_LENGTH");
      return tile >= 8192 ? feasibility_verdict{"ub_overflow", "tile too large"}
                          : feasibility_verdict{};
    };
    heuristic_mutator_policy policy(options);
    mutation_request request;
    request.op = &op;
    request.tiling = R"(// EVOLVE-BLOCK-START
constexpr uint32_t TILE_LENGTH = 2048;  // tunable: pow2 [256, 65536]
constexpr uint32_t BLOCK_DIM = 8;       // tunable: range [1, 40]
// EVOLVE-BLOCK-END
)";
    request.kernel = "K";
    request.best_latency_us = 100;
    std::map<std::string, uint32_t> rejected;
    std::set<int64_t> rejected_tiles;
    for (int step = 0; step < 12; ++step) {
      const int before = probes;
      result<mutation_reply> reply = policy.mutate(request);
      REQUIRE(reply.ok());
      result<std::vector<tunable>> t = parse_tunables(reply->tiling);
      REQUIRE(t.ok());
      // What reaches the device passed the probe.
      CHECK(current_values(*t).at("TILE_LENGTH") < 8192);
      const uint32_t probe_rejections = reply->rejected.count("ub_overflow (probe)")
                                            ? reply->rejected.at("ub_overflow (probe)")
                                            : 0;
      CHECK(probes - before == static_cast<int>(probe_rejections) + 1);
      CHECK((reply->origin.find("rejected by the tiling probe, the last for ub_overflow: tile "
                                "too large") != std::string::npos) == (probe_rejections > 0));
      for (const auto& [reason, n] : reply->rejected) rejected[reason] += n;
      request.history.push_back({reply->tiling, 50.0 + step, reply->origin});
      request.policy_state = nlohmann::json::parse(reply->policy_state.dump());
      request.sample_index++;
    }
    // The space-filling sample reaches the large tiles; the probe stops them, and once a region
    // is known infeasible (every larger tile) it is not proposed again: few rejections in all.
    REQUIRE(rejected.count("ub_overflow (probe)") == 1);
    CHECK(rejected.at("ub_overflow (probe)") >= 1);
    CHECK(rejected.at("ub_overflow (probe)") <= 4);  // 8192, 16384, 32768, 65536 at most
  }

  TEST_CASE("a probe rejection on a tunable of unknown role does not rule out the whole space") {
    // SPAN is named for no role: the region learned from its UB overflow keeps SPAN at the
    // failed value, so BUFFER_NUM 1 stays open instead of "every BUFFER_NUM >= 1".
    npu::op_package op;
    op.spec.name = "add_custom";
    heuristic_mutator_policy_options options;
    options.ub_bytes = 0;
    options.probe = [](const npu::op_package&, const std::string& tiling, const std::string&) {
      result<std::vector<tunable>> t = parse_tunables(tiling);
      REQUIRE(t.ok());
      const tunable_values v = current_values(*t);
      return v.at("SPAN") * v.at("BUFFER_NUM") >= 32768
                 ? feasibility_verdict{"ub_overflow", "span too large"}
                 : feasibility_verdict{};
    };
    heuristic_mutator_policy policy(options);
    mutation_request request;
    request.op = &op;
    request.tiling = R"(// EVOLVE-BLOCK-START
constexpr uint32_t SPAN = 2048;       // tunable: pow2 [256, 65536]
constexpr uint32_t BUFFER_NUM = 2;    // tunable: choice {2, 1}
// EVOLVE-BLOCK-END
)";
    request.kernel = "K";
    request.best_latency_us = 100;
    // 13 value sets fit (SPAN < 16384 with 2 buffers, < 32768 with 1): 10 steps all find one.
    for (int step = 0; step < 10; ++step) {
      result<mutation_reply> reply = policy.mutate(request);
      REQUIRE_MESSAGE(reply.ok(), reply.error().to_string());
      request.history.push_back({reply->tiling, 50.0 + step, reply->origin});
      request.policy_state = nlohmann::json::parse(reply->policy_state.dump());
      request.sample_index++;
    }
  }
}
