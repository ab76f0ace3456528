// Feasibility before the device (issue 16): the tiling data layout, the trusted judgement of a
// probe's delivery, and the episode engine with a scripted probe in front of the device (the
// heuristic mutator learning from the rejections). The probe with a real compile is in
// tiling_probe_test.cpp; through the episode actor with the LLM mutator in
// tests/actors/tiling_probe_episode_test.cpp.
#include "agent/episode/tiling_feasibility.hpp"

#include <doctest/doctest.h>

#include <cstring>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "agent/episode/episode.hpp"
#include "agent/heuristics/heuristic_policies.hpp"
#include "agent/roles/role_table.hpp"

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

// Two half inputs and a half output of 8 x 2048.
npu::op_package half_add_op() {
  npu::op_package op;
  op.spec.name = "add_custom";
  for (const char* n : {"x", "y"}) op.spec.inputs.push_back({n, npu::dtype::float16, {8, 2048}});
  op.spec.outputs.push_back({"z", npu::dtype::float16, {8, 2048}});
  op.tiling_header_source = kHeader;
  return op;
}

std::string half_add_kernel(bool pads_tails) {
  return std::string(R"(
class KernelAdd {
  void Init(uint32_t bufferNum, uint32_t tileLength) {
    this->bufferNum = bufferNum;
    pipe.InitBuffer(inQueueX, this->bufferNum, tileLength * sizeof(half));
  }
  void CopyIn() { )") +
         (pads_tails ? "DataCopyPad(x, xGm, p, q);" : "DataCopy(x, xGm, n);") + " }\n};\n";
}

// half_add_op() on a 192 KiB UB.
feasibility_facts half_add_facts(bool pads_tails) {
  return facts_of(half_add_op(), half_add_kernel(pads_tails), 196608);
}

// A tiling function that splits whatever it is given into 8 blocks of 2048 elements (its block
// length is a constant), as a probe would report it; records the shapes it was run on.
struct fixed_block_prober final : npu::tiling_prober {
  std::vector<std::vector<int64_t>> shapes;
  npu::tiling_probe_result probe_tiling(const npu::op_package& op, const std::string&) override {
    shapes.push_back(op.spec.inputs[0].shape);
    uint32_t total = 1;
    for (int64_t d : op.spec.inputs[0].shape) total *= static_cast<uint32_t>(d);
    return ran(8, tiling_bytes(total, 0, 2048, 2048, 1));
  }
};

const char* const kTileAndBlockDim = R"(// EVOLVE-BLOCK-START
constexpr uint32_t TILE_LENGTH = 2048;  // tunable: pow2 [256, 65536]
constexpr uint32_t BLOCK_DIM = 8;       // tunable: range [1, 40]
// EVOLVE-BLOCK-END
)";

// The heuristic mutator without its own UB screen: only the probe rejects.
heuristic_mutator_policy screened_by_the_probe_only() {
  heuristic_mutator_policy_options options;
  options.ub_bytes = 0;
  return heuristic_mutator_policy(options);
}

int64_t value_of(const std::string& tiling, const std::string& name) {
  result<std::vector<tunable>> t = parse_tunables(tiling);
  REQUIRE(t.ok());
  return current_values(*t).at(name);
}

npu::op_package toy_op(const std::string& tiling) {
  npu::op_package op;
  op.spec.name = "add_custom";
  for (const char* n : {"x", "y"}) op.spec.inputs.push_back({n, npu::dtype::float16, {8, 2048}});
  op.spec.outputs.push_back({"z", npu::dtype::float16, {8, 2048}});
  op.host_source = tiling;
  op.kernel_source = "K";
  return op;
}

episode_state stage1_episode(const npu::op_package& op, uint32_t budget) {
  episode_config config;
  config.strat = strategy::stage1;
  config.budget = budget;
  config.gates = {"tiling_probe"};
  return initial_episode_state("c", op, config);
}

// Drives an episode the way the episode actor does: every Stage I tiling goes through the gate
// "tiling_probe", here `screen` as agent/roles/tiling_probe_role.cpp applies it; a rejection goes
// back to the engine, the rest to a scripted device.
struct probe_world {
  std::function<feasibility_verdict(const std::string&)> screen;
  bool check_feasible = true;  // what reaches the device must have passed the screen
  std::vector<std::string> evaluated;
  uint32_t rejections = 0;
  uint32_t origins_after_rejection = 0;

  void run(episode_engine& e, mutator_policy& policy) {
    std::optional<std::string> passed;  // the tiling the gate accepted last
    for (int i = 0; i < 1000; ++i) {
      episode_action a = e.next();
      if (std::holds_alternative<episode_finished>(a)) return;
      if (auto* m = std::get_if<need_mutation>(&a)) {
        e.on_mutation(policy.mutate(m->request), policy.name());
      } else if (auto* g = std::get_if<need_gate>(&a)) {
        REQUIRE(g->roles == std::vector<std::string>{"tiling_probe"});
        CHECK(g->request.role == "mutator");
        const feasibility_verdict v = screen(g->request.tiling);
        gate_verdict verdict;
        if (v.feasible()) {
          passed = g->request.tiling;
        } else {
          ++rejections;
          verdict.veto = verdict.certain = true;
          verdict.kind = v.kind;
          verdict.reason = v.message;
        }
        const bool veto = verdict.veto;
        // A veto changes the state; an acceptance by a gate without state does not.
        CHECK(e.on_gate({{"tiling_probe", result<gate_verdict>(std::move(verdict))}}) == veto);
      } else if (auto* ev = std::get_if<need_evaluation>(&a)) {
        const evaluation_request& r = ev->request;
        if (r.role == "baseline") {
          e.on_evaluation(ok(100));
          continue;
        }
        if (check_feasible && passed != r.tiling) FAIL("a Stage I tiling skipped the probe");
        passed.reset();
        if (r.origin.find("rejected before the device, the last by tiling_probe for ") !=
            std::string::npos)
          ++origins_after_rejection;
        evaluated.push_back(r.tiling);
        e.on_evaluation(ok(50.0 + static_cast<double>(evaluated.size())));
      } else {
        FAIL("unexpected action in a Stage I episode");
      }
    }
    FAIL("episode did not finish");
  }

  static npu::eval_result ok(double latency) {
    npu::eval_result r;
    r.status = npu::eval_status::ok;
    r.latency_us = latency;
    return r;
  }
};

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

  TEST_CASE("a tiling that fits the operator's shapes but not a validation shape is rejected") {
    auto prober = std::make_shared<fixed_block_prober>();
    const tiling_screen screen = make_probe_screen(prober, 196608);
    npu::op_package op = half_add_op();
    CHECK(screen(op, "T", half_add_kernel(true)).feasible());
    CHECK(prober->shapes.size() == 1);

    op.spec.validation_shapes.push_back({{"x", {8, 2048}}, {"y", {8, 2048}}, {"z", {8, 2048}}});
    op.spec.validation_shapes.push_back({{"x", {16, 2048}}, {"y", {16, 2048}}, {"z", {16, 2048}}});
    prober->shapes.clear();
    const feasibility_verdict v = screen(op, "T", half_add_kernel(true));
    CHECK(v.kind == "uncovered");
    CHECK(v.message.find("on validation shape 1 (x [16, 2048], y [16, 2048], z [16, 2048]): ") ==
          0);
    CHECK(v.message.find("leaves 16384 of totalLength 32768") != std::string::npos);
    CHECK(prober->shapes == std::vector<std::vector<int64_t>>{{8, 2048}, {8, 2048}, {16, 2048}});
  }

  TEST_CASE("the episode sends no probe-rejected tiling to the device, and the mutator learns") {
    // A scripted probe: tiles of 8192 elements or more overflow the UB.
    const npu::op_package op = toy_op(kTileAndBlockDim);
    probe_world w;
    w.screen = [&](const std::string& tiling) {
      return value_of(tiling, "TILE_LENGTH") >= 8192
                 ? feasibility_verdict{"ub_overflow", "tile too large"}
                 : feasibility_verdict{};
    };
    heuristic_mutator_policy policy = screened_by_the_probe_only();
    episode_engine engine(op, stage1_episode(op, 12));
    w.run(engine, policy);

    // Every proposal was probed; what reached the device passed the probe.
    REQUIRE(w.evaluated.size() == 12);
    for (const std::string& tiling : w.evaluated) CHECK(value_of(tiling, "TILE_LENGTH") < 8192);
    // The space-filling sample reaches the large tiles; the probe stops them, and once a region
    // is known infeasible (every larger tile) it is not proposed again: few rejections in all.
    const episode_state& s = engine.state();
    CHECK(s.candidates == 12);
    REQUIRE(s.rejected.count("ub_overflow (tiling_probe)") == 1);
    CHECK(s.rejected.at("ub_overflow (tiling_probe)") == w.rejections);
    CHECK(w.rejections >= 1);
    CHECK(w.rejections <= 4);  // 8192, 16384, 32768, 65536 at most
    CHECK(s.probe_rejections == w.rejections);
    // The candidate after a rejection says so; the history keeps the rejection and its reason.
    CHECK(w.origins_after_rejection >= 1);
    bool in_history = false;
    for (const tiling_trial& t : s.tiling_history) {
      if (t.summary == "ub_overflow" &&
          t.detail == "rejected by tiling_probe before the device: tile too large")
        in_history = true;
    }
    CHECK(in_history);
  }

  TEST_CASE("a probe rejection on a tunable of unknown role does not rule out the whole space") {
    // SPAN is named for no role: the region learned from its UB overflow keeps SPAN at the
    // failed value, so BUFFER_NUM 1 stays open instead of "every BUFFER_NUM >= 1".
    const npu::op_package op = toy_op(R"(// EVOLVE-BLOCK-START
constexpr uint32_t SPAN = 2048;       // tunable: pow2 [256, 65536]
constexpr uint32_t BUFFER_NUM = 2;    // tunable: choice {2, 1}
// EVOLVE-BLOCK-END
)");
    probe_world w;
    w.screen = [](const std::string& tiling) {
      return value_of(tiling, "SPAN") * value_of(tiling, "BUFFER_NUM") >= 32768
                 ? feasibility_verdict{"ub_overflow", "span too large"}
                 : feasibility_verdict{};
    };
    heuristic_mutator_policy policy = screened_by_the_probe_only();
    // 13 value sets fit (SPAN < 16384 with 2 buffers, < 32768 with 1): 10 steps all find one.
    episode_engine engine(op, stage1_episode(op, 10));
    w.run(engine, policy);
    CHECK(engine.state().candidates == 10);
    CHECK(w.evaluated.size() == 10);
    CHECK(engine.state().notes.count("stage1") == 0);
  }

  TEST_CASE("after too many probe rejections in one step the next proposal goes ungated") {
    // A probe that rejects everything: each step ends with one unprobed evaluation, so that the
    // budget is spent and the episode ends.
    const npu::op_package op = toy_op(kTileAndBlockDim);
    probe_world w;
    w.screen = [](const std::string&) { return feasibility_verdict{"tiling_failed", "always"}; };
    w.check_feasible = false;
    heuristic_mutator_policy policy = screened_by_the_probe_only();
    episode_engine engine(op, stage1_episode(op, 2));
    w.run(engine, policy);
    CHECK(engine.state().candidates <= 2);
    CHECK(w.rejections <= 2 * episode_engine::max_tiling_rejections);
    CHECK(w.rejections >= episode_engine::max_tiling_rejections);
    CHECK(w.evaluated.size() == engine.state().candidates);
  }

  TEST_CASE("the tiling probe gate judges tilings with the campaign's screen, certainly") {
    const role_descriptor* role = find_role(role_descriptors(), "tiling_probe");
    REQUIRE(role != nullptr);
    CHECK(role->hook == hook_kind::gate);
    CHECK_FALSE(role->has_llm_policy);
    const npu::op_package op = toy_op(kTileAndBlockDim);
    std::vector<std::string> probed;
    role_environment env;
    env.tiling_probe = [&](const npu::op_package&, const std::string& tiling, const std::string&) {
      probed.push_back(tiling);
      return tiling == "T-big" ? feasibility_verdict{"ub_overflow", "tile too large"}
                               : feasibility_verdict{};
    };
    result<hook_policy> made = role->make(env);
    REQUIRE(made.ok());
    auto gate = std::get<std::shared_ptr<gate_policy>>(*made);
    gate_request request;
    request.op = &op;
    request.role = "mutator";
    request.tiling = "T-big";
    result<gate_verdict> big = gate->judge(request);
    REQUIRE(big.ok());
    CHECK(big->veto);
    CHECK(big->certain);
    CHECK(big->kind == "ub_overflow");
    CHECK(big->reason == "tile too large");
    request.role = "best_of_n";
    request.tiling = "T-small";
    CHECK_FALSE(gate->judge(request)->veto);
    // A kernel rewrite keeps its parent's tiling: nothing to probe.
    request.role = "refiner";
    request.tiling = "T-big";
    CHECK_FALSE(gate->judge(request)->veto);
    CHECK(probed == std::vector<std::string>{"T-big", "T-small"});

    // A campaign without a screen (stage1.probe_tilings = false) probes nothing.
    result<hook_policy> unprobed = role->make(role_environment{});
    REQUIRE(unprobed.ok());
    request.role = "mutator";
    CHECK_FALSE(std::get<std::shared_ptr<gate_policy>>(*unprobed)->judge(request)->veto);
  }

  TEST_CASE("a state written before the tiling probe was a gate asks it last, once") {
    const npu::op_package op = toy_op(kTileAndBlockDim);
    episode_config cfg;
    cfg.gates = {"depth_screen", "critic"};
    nlohmann::json old = initial_episode_state("c", op, cfg);
    old["state_version"] = 2;
    result<episode_state> migrated = episode_state_from_json(old);
    REQUIRE(migrated.ok());
    const std::vector<std::string> gates = {"depth_screen", "critic", "tiling_probe"};
    CHECK(migrated->config.gates == gates);
    result<episode_state> again = episode_state_from_json(nlohmann::json(*migrated));
    REQUIRE(again.ok());
    CHECK(again->config.gates == gates);
  }

  TEST_CASE("evolve keeps its step's parent after the probe rejects the step's tiling") {
    const npu::op_package op = toy_op(kTileAndBlockDim);
    episode_config config;
    config.strat = strategy::evolve;
    config.budget = 16;
    config.gates = {"tiling_probe"};
    episode_engine e(op, initial_episode_state("c", op, config));
    heuristic_mutator_policy policy = screened_by_the_probe_only();
    std::optional<std::string> vetoed_parent;
    bool checked = false;
    for (int i = 0; i < 200 && !checked; ++i) {
      episode_action a = e.next();
      if (std::holds_alternative<episode_finished>(a)) break;
      if (auto* m = std::get_if<need_mutation>(&a)) {
        if (vetoed_parent) {
          // The mutator is asked again from the same parent, not from the best.
          CHECK(m->request.tiling == *vetoed_parent);
          checked = true;
        }
        e.on_mutation(policy.mutate(m->request), policy.name());
      } else if (auto* g = std::get_if<need_gate>(&a)) {
        gate_verdict verdict;
        // The first tiling proposed from a parent that is not the best is vetoed.
        if (!vetoed_parent && g->request.role == "mutator" &&
            g->request.parent_tiling != e.state().best_tiling) {
          verdict.veto = verdict.certain = true;
          verdict.kind = "ub_overflow";
          verdict.reason = "tile too large";
          vetoed_parent = g->request.parent_tiling;
        }
        e.on_gate({{"tiling_probe", result<gate_verdict>(std::move(verdict))}});
      } else if (std::holds_alternative<need_evaluation>(a)) {
        // Each evaluated tiling is slower than the last: the best stays the baseline, and an
        // evolve parent other than the baseline shows.
        e.on_evaluation(probe_world::ok(100.0 + e.state().candidates));
      } else {
        // Stage II steps: nothing to propose.
        if (std::holds_alternative<need_diagnosis>(a)) {
          e.on_diagnosis(failed_precondition("no diagnosis in this test"));
        } else if (std::holds_alternative<need_retrieval>(a)) {
          e.on_retrieval(std::vector<tuple_ref>{});
        } else if (std::holds_alternative<need_refinement>(a)) {
          e.on_refinement(failed_precondition("no rewrites in this test"), "none");
        }
      }
    }
    CHECK(checked);
  }
}
