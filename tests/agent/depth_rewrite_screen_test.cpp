#include "agent/episode/depth_rewrite_screen.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <string>
#include <variant>
#include <vector>

#include "agent/episode/episode.hpp"

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

TEST_SUITE("agent") {
  TEST_CASE("Stage II skips rewrites the screen rejects: no evaluation, no budget, counted") {
    const std::string parent = sigmoid_kernel("constexpr int32_t BUFFER_NUM = 1;", plain_tile);
    const std::string doubled = sigmoid_kernel("constexpr int32_t BUFFER_NUM = 2;", plain_tile);
    std::string deeper = parent;
    const std::string call = "InitBuffer(outQueueY, BUFFER_NUM,";
    deeper.replace(deeper.find(call), call.size(), "InitBuffer(outQueueY, 3,");
    const std::string commented = parent + "// unrolled\n";

    npu::op_package op;
    op.spec.name = "sigmoid_custom";
    op.host_source = "T0";
    op.kernel_source = parent;
    episode_config cfg;
    cfg.strat = strategy::stage2;
    cfg.budget = 1;
    episode_engine e(op, initial_episode_state("c", op, cfg));

    std::vector<std::string> evaluated;
    for (int i = 0; i < 50 && !e.finished(); ++i) {
      const episode_action a = e.next();
      if (std::holds_alternative<need_diagnosis>(a)) {
        (void)e.on_diagnosis(diagnosis{"mte2 bound", {"mte2_bound"}});
      } else if (std::holds_alternative<need_retrieval>(a)) {
        e.on_retrieval(std::vector<tuple_ref>{{"t0", 1.0, nlohmann::json::object()}});
      } else if (std::holds_alternative<need_refinement>(a)) {
        (void)e.on_refinement(std::vector<kernel_candidate>{{doubled, "rule:double", {"t0"}},
                                                            {deeper, "rule:depth 3", {"t0"}},
                                                            {commented, "rule:comment", {"t0"}}},
                              "scripted-refiner");
      } else if (const auto* ev = std::get_if<need_evaluation>(&a)) {
        evaluated.push_back(ev->request.kernel);
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
    // The baseline, then the only rewrite whose buffers fit: the budget of 1 went to it.
    REQUIRE(evaluated.size() == 2);
    CHECK(evaluated[1] == commented);
    CHECK(e.state().candidates == 1);
    CHECK(e.state().rejected.at("ub_overflow (screen)") == 2);
  }
}
