#include "agent/episode/depth_rewrite_screen.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <memory>
#include <string>
#include <variant>
#include <vector>

#include "agent/episode/episode.hpp"
#include "agent/roles/role_table.hpp"

using namespace aopt;
using namespace aopt::agent;

namespace {

// A sigmoid kernel in the style of the public samples: two queues whose depth is a kernel
// constant, one TBuf, and the tile length from the tiling data.
std::string sigmoid_kernel(const std::string& buffer_num_line, const std::string& tile_line) {
  return R"(#include "kernel_operator.h"
using namespace AscendC;
)" + buffer_num_line +
         R"(
class KernelSigmoid {
public:
    __aicore__ inline KernelSigmoid() {}
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, uint32_t blockLength, uint32_t tileLength)
    {
        this->blockLength = blockLength;
)" + tile_line +
         R"(
        xGm.SetGlobalBuffer((__gm__ float *)x + this->blockLength * GetBlockIdx(), this->blockLength);
        yGm.SetGlobalBuffer((__gm__ float *)y + this->blockLength * GetBlockIdx(), this->blockLength);
        pipe.InitBuffer(inQueueX, BUFFER_NUM, this->tileLength * sizeof(float));
        pipe.InitBuffer(outQueueY, BUFFER_NUM, this->tileLength * sizeof(float));
        pipe.InitBuffer(tmpBuf, this->tileLength * sizeof(float));
    }
private:
    TPipe pipe;
    TQue<QuePosition::VECIN, BUFFER_NUM> inQueueX;
    TQue<QuePosition::VECOUT, BUFFER_NUM> outQueueY;
    TBuf<QuePosition::VECCALC> tmpBuf;
    GlobalTensor<float> xGm, yGm;
    uint32_t blockLength, tileLength;
};
)";
}

void replace_all(std::string& text, const std::string& from, const std::string& to) {
  for (size_t at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size())) {
    text.replace(at, from.size(), to);
  }
}

const std::string plain_tile = "        this->tileLength = tileLength;";

uint32_t line_of(const std::string& text, const std::string& needle) {
  const size_t at = text.find(needle);
  REQUIRE(at != std::string::npos);
  return static_cast<uint32_t>(1 + std::count(text.begin(), text.begin() + at, '\n'));
}

// What the simulator reports for `kernel` run with every queue `buffers` deep and tiles of
// `tile_bytes`.
npu::eval_profile profile_of(const std::string& kernel, uint32_t buffers, uint64_t tile_bytes) {
  npu::eval_profile p;
  p.ub_capacity_bytes = 196608;
  p.ub_allocations = {{line_of(kernel, "InitBuffer(inQueueX"), buffers, tile_bytes},
                      {line_of(kernel, "InitBuffer(outQueueY"), buffers, tile_bytes},
                      {line_of(kernel, "InitBuffer(tmpBuf"), 1, tile_bytes}};
  p.ub_high_water_bytes = (2 * uint64_t{buffers} + 1) * tile_bytes;
  return p;
}

}  // namespace

TEST_SUITE("agent") {
  TEST_CASE("double buffering a kernel whose tile fills the UB is rejected before the device") {
    const std::string parent = sigmoid_kernel("constexpr int32_t BUFFER_NUM = 1;", plain_tile);
    const std::string doubled = sigmoid_kernel("constexpr int32_t BUFFER_NUM = 2;", plain_tile);
    const npu::eval_profile full = profile_of(parent, 1, 65536);  // 3 x 64 KiB: the whole UB

    CHECK(predicted_ub_bytes(parent, full, doubled) == 5 * 65536);
    const feasibility_verdict v = screen_depth_rewrite(parent, full, doubled);
    CHECK(v.kind == "ub_overflow");
    INFO(v.message);
    CHECK(v.message.find("327680 bytes") != std::string::npos);
    CHECK(v.message.find("the UB holds 196608") != std::string::npos);
    const std::string line = std::to_string(line_of(parent, "InitBuffer(inQueueX"));
    CHECK(v.message.find("line " + line + ": 1 -> 2 buffer(s) of 65536 bytes") !=
          std::string::npos);

    // At a quarter of the tile the same rewrite fits, and the screen lets it through.
    const npu::eval_profile quarter = profile_of(parent, 1, 16384);
    CHECK(predicted_ub_bytes(parent, quarter, doubled) == 5 * 16384);
    CHECK(screen_depth_rewrite(parent, quarter, doubled).feasible());
  }

  TEST_CASE("a literal depth on one queue adds only that queue's buffers") {
    const std::string parent = sigmoid_kernel("constexpr int32_t BUFFER_NUM = 1;", plain_tile);
    std::string deeper = parent;
    const std::string call = "InitBuffer(outQueueY, BUFFER_NUM,";
    deeper.replace(deeper.find(call), call.size(), "InitBuffer(outQueueY, 3,");
    const npu::eval_profile p = profile_of(parent, 1, 40000);
    CHECK(predicted_ub_bytes(parent, p, deeper) == 5 * 40000);
    CHECK(screen_depth_rewrite(parent, p, deeper).kind == "ub_overflow");
  }

  TEST_CASE("a literal depth equal to the tiling data's is the same program: rejected unchanged") {
    // The queues take their depth from the tiling data, which says 2 at the parent's tiling.
    std::string parent = sigmoid_kernel("constexpr int32_t BUFFER_NUM = 2;", plain_tile);
    replace_all(parent, "InitBuffer(inQueueX, BUFFER_NUM,",
                "InitBuffer(inQueueX, this->bufferNum,");
    replace_all(parent, "InitBuffer(outQueueY, BUFFER_NUM,",
                "InitBuffer(outQueueY, this->bufferNum,");
    std::string literal = parent;
    replace_all(literal, "this->bufferNum,", "2,");
    const npu::eval_profile p = profile_of(parent, 2, 16384);
    const feasibility_verdict v = screen_depth_rewrite(parent, p, literal);
    CHECK(v.kind == "unchanged");
    INFO(v.message);
    CHECK(v.message.find("the same program") != std::string::npos);

    // A depth of 3 on one queue is a change, and it fits.
    std::string deeper = parent;
    replace_all(deeper, "InitBuffer(outQueueY, this->bufferNum,", "InitBuffer(outQueueY, 3,");
    CHECK(predicted_ub_bytes(parent, p, deeper) == 6 * 16384);
    CHECK(screen_depth_rewrite(parent, p, deeper).feasible());
  }

  TEST_CASE("the UB need is not predicted when a rewrite can change a buffer's length") {
    // The depth constant also divides the tile: doubling it halves every buffer.
    const std::string split_tile = "        this->tileLength = tileLength / BUFFER_NUM;";
    const std::string parent = sigmoid_kernel("constexpr int32_t BUFFER_NUM = 1;", split_tile);
    const std::string doubled = sigmoid_kernel("constexpr int32_t BUFFER_NUM = 2;", split_tile);
    const npu::eval_profile full = profile_of(parent, 1, 65536);
    CHECK_FALSE(predicted_ub_bytes(parent, full, doubled).has_value());
    CHECK(screen_depth_rewrite(parent, full, doubled).feasible());

    // Any other change of the text, here the tile assignment itself.
    const std::string base = sigmoid_kernel("constexpr int32_t BUFFER_NUM = 1;", plain_tile);
    const std::string retiled = sigmoid_kernel("constexpr int32_t BUFFER_NUM = 2;",
                                               "        this->tileLength = tileLength / 4;");
    CHECK_FALSE(predicted_ub_bytes(base, profile_of(base, 1, 65536), retiled).has_value());
  }

  TEST_CASE("a report that does not account for the parent's UB predicts nothing") {
    const std::string parent = sigmoid_kernel("constexpr int32_t BUFFER_NUM = 1;", plain_tile);
    const std::string doubled = sigmoid_kernel("constexpr int32_t BUFFER_NUM = 2;", plain_tile);

    npu::eval_profile none = profile_of(parent, 1, 65536);
    none.ub_allocations.clear();  // a profiler that reports no allocations (an NPU)
    CHECK_FALSE(predicted_ub_bytes(parent, none, doubled).has_value());

    npu::eval_profile moved = profile_of(parent, 1, 65536);
    moved.ub_allocations[1].line += 5;  // not the line of the second InitBuffer
    CHECK_FALSE(predicted_ub_bytes(parent, moved, doubled).has_value());

    npu::eval_profile more = profile_of(parent, 1, 65536);
    more.ub_high_water_bytes += 4096;  // something else took UB too
    CHECK_FALSE(predicted_ub_bytes(parent, more, doubled).has_value());

    CHECK_FALSE(predicted_ub_bytes(parent, profile_of(parent, 1, 65536), parent).has_value());
  }
}

namespace {

// The depth screen as the pipeline's gate: its policy from the role table.
std::shared_ptr<gate_policy> depth_screen_gate() {
  const std::vector<role_descriptor> table = role_descriptors();
  const role_descriptor* role = find_role(table, "depth_screen");
  REQUIRE(role != nullptr);
  CHECK(role->hook == hook_kind::gate);
  auto made = role->make(role_environment{});
  REQUIRE(made.ok());
  auto* gate = std::get_if<std::shared_ptr<gate_policy>>(&*made);
  REQUIRE(gate != nullptr);
  return *gate;
}

// An opinionated gate: vetoes every candidate, unless opinions are no longer heeded.
class vetoing_gate final : public gate_policy {
 public:
  std::string name() const override { return "scripted-naysayer"; }
  result<gate_verdict> judge(const gate_request&) override {
    gate_verdict v;
    v.veto = true;
    v.reason = "no";
    return v;
  }
};

struct screened_run {
  std::vector<std::string> evaluated;
  episode_state state;
};

// A Stage II episode of budget 1 over the sigmoid kernel whose refiner proposes `rewrites` once,
// and `more` distinct harmless rewrites after them; `gates` answer need_gate in order.
screened_run run_stage2(const std::vector<std::string>& gate_names,
                        const std::vector<std::shared_ptr<gate_policy>>& gates,
                        const std::vector<kernel_candidate>& rewrites, int more = 0) {
  const std::string parent = sigmoid_kernel("constexpr int32_t BUFFER_NUM = 1;", plain_tile);
  npu::op_package op;
  op.spec.name = "sigmoid_custom";
  op.host_source = "T0";
  op.kernel_source = parent;
  episode_config cfg;
  cfg.strat = strategy::stage2;
  cfg.budget = 1;
  cfg.gates = gate_names;
  episode_engine e(op, initial_episode_state("c", op, cfg));

  screened_run run;
  for (int i = 0; i < 200 && !e.finished(); ++i) {
    const episode_action a = e.next();
    if (std::holds_alternative<need_diagnosis>(a)) {
      (void)e.on_diagnosis(diagnosis{"mte2 bound", {"mte2_bound"}});
    } else if (std::holds_alternative<need_retrieval>(a)) {
      e.on_retrieval(std::vector<tuple_ref>{{"t0", 1.0, nlohmann::json::object()}});
    } else if (std::holds_alternative<need_refinement>(a)) {
      std::vector<kernel_candidate> proposed = rewrites;
      for (int k = 0; k < more; ++k) {
        proposed.push_back({parent + "// variant " + std::to_string(k) + "\n",
                            "rule:variant " + std::to_string(k),
                            {"t0"}});
      }
      (void)e.on_refinement(proposed, "scripted-refiner");
    } else if (const auto* g = std::get_if<need_gate>(&a)) {
      REQUIRE(g->roles == gate_names);
      std::vector<role_answer<gate_verdict>> verdicts;
      for (size_t k = 0; k < gates.size(); ++k) {
        verdicts.push_back({gate_names[k], gates[k]->judge(g->request)});
        const gate_verdict& v = *verdicts.back().answer;
        if (v.veto && (v.certain || g->request.heeds_opinions)) break;
      }
      (void)e.on_gate(verdicts);
    } else if (const auto* ev = std::get_if<need_evaluation>(&a)) {
      run.evaluated.push_back(ev->request.kernel);
      npu::eval_result r;
      r.status = npu::eval_status::ok;
      r.latency_us = ev->request.kernel == parent ? 100 : 101;
      r.profile = profile_of(ev->request.kernel, 1, 65536);
      (void)e.on_evaluation(r);
    } else {
      FAIL("unexpected action");
    }
  }
  REQUIRE(e.finished());
  run.state = e.state();
  return run;
}

}  // namespace

TEST_SUITE("agent") {
  TEST_CASE("the depth screen gate refuses rewrites before the device: no evaluation, no budget") {
    const std::string parent = sigmoid_kernel("constexpr int32_t BUFFER_NUM = 1;", plain_tile);
    const std::string doubled = sigmoid_kernel("constexpr int32_t BUFFER_NUM = 2;", plain_tile);
    std::string deeper = parent;
    const std::string call = "InitBuffer(outQueueY, BUFFER_NUM,";
    deeper.replace(deeper.find(call), call.size(), "InitBuffer(outQueueY, 3,");
    const std::string commented = parent + "// unrolled\n";
    const std::vector<kernel_candidate> rewrites = {{doubled, "rule:double", {"t0"}},
                                                    {deeper, "rule:depth 3", {"t0"}},
                                                    {commented, "rule:comment", {"t0"}}};

    // The default pipeline: the baseline, then the only rewrite whose buffers fit.
    const screened_run screened = run_stage2({"depth_screen"}, {depth_screen_gate()}, rewrites);
    REQUIRE(screened.evaluated.size() == 2);
    CHECK(screened.evaluated[1] == commented);
    CHECK(screened.state.candidates == 1);
    CHECK(screened.state.rejected.at("ub_overflow (depth_screen)") == 2);
    CHECK(screened.state.vetoes_in_step == 0);  // certain: not an opinion the limit counts
    REQUIRE(!screened.state.vetoes.empty());    // the refiner hears why
    CHECK(screened.state.vetoes.back().reason.find("bytes of UB") != std::string::npos);

    // The pipeline is configuration: without the gate the first rewrite goes to the device.
    const screened_run unscreened = run_stage2({}, {}, rewrites);
    REQUIRE(unscreened.evaluated.size() == 2);
    CHECK(unscreened.evaluated[1] == doubled);
    CHECK(unscreened.state.rejected.count("ub_overflow (depth_screen)") == 0);
  }

  TEST_CASE("past the step's limit of opinions, a certain veto is still heeded and not counted") {
    const std::string parent = sigmoid_kernel("constexpr int32_t BUFFER_NUM = 1;", plain_tile);
    const std::string doubled = sigmoid_kernel("constexpr int32_t BUFFER_NUM = 2;", plain_tile);
    // The naysayer vetoes the first max_gate_vetoes variants; then only certain vetoes count:
    // the overflowing rewrite proposed last is refused by the screen, the variant after it goes
    // to the device.
    std::vector<kernel_candidate> rewrites;
    for (uint32_t k = 0; k < episode_engine::max_gate_vetoes; ++k) {
      rewrites.push_back({parent + "// opinion " + std::to_string(k) + "\n", "rule:o", {"t0"}});
    }
    rewrites.push_back({doubled, "rule:double", {"t0"}});
    const screened_run run =
        run_stage2({"naysayer", "depth_screen"},
                   {std::make_shared<vetoing_gate>(), depth_screen_gate()}, rewrites, 1);
    REQUIRE(run.evaluated.size() == 2);
    CHECK(run.evaluated[1].find("// variant 0") != std::string::npos);
    CHECK(run.state.rejected.at("vetoed by naysayer") == episode_engine::max_gate_vetoes);
    CHECK(run.state.rejected.at("ub_overflow (depth_screen)") == 1);
  }

  TEST_CASE("a state written before the depth screen was a gate asks it first, once") {
    npu::op_package op;
    op.spec.name = "sigmoid_custom";
    op.host_source = "T0";
    op.kernel_source = "K0";
    episode_config cfg;
    cfg.gates = {"critic"};
    nlohmann::json old = initial_episode_state("c", op, cfg);
    old.erase("state_version");  // the form every state had before
    result<episode_state> migrated = episode_state_from_json(old);
    REQUIRE(migrated.ok());
    // Form 1 also predates the tiling probe's gate (form 3), which it gains last.
    const std::vector<std::string> gates = {"depth_screen", "critic", "tiling_probe"};
    CHECK(migrated->config.gates == gates);

    // Read again after it was written in today's form: unchanged.
    result<episode_state> again = episode_state_from_json(nlohmann::json(*migrated));
    REQUIRE(again.ok());
    CHECK(again->config.gates == gates);
    // Today's form with a list that leaves it out keeps leaving it out.
    result<episode_state> fresh =
        episode_state_from_json(nlohmann::json(initial_episode_state("c", op, cfg)));
    REQUIRE(fresh.ok());
    CHECK(fresh->config.gates == std::vector<std::string>{"critic"});

    nlohmann::json future = initial_episode_state("c", op, cfg);
    future["state_version"] = episode_state_version + 1;
    result<episode_state> refused = episode_state_from_json(future);
    REQUIRE_FALSE(refused.ok());
    CHECK(refused.error().message().find("newer aopt") != std::string::npos);
  }
}
