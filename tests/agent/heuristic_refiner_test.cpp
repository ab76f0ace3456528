#include "agent/heuristics/heuristic_refiner.hpp"

#include <doctest/doctest.h>

#include <map>
#include <set>

#include "agent/kernel_text/code_diff.hpp"
#include "agent/motifs/optimization_rules.hpp"
#include "agent/motifs/rewind_rules.hpp"
#include "kernel_snippets.hpp"

using namespace aopt;
using namespace aopt::agent;
using aopt::agent::testing::kBarrierKernel;
using aopt::agent::testing::kQueueKernel;

namespace {

// The tuple a heuristic rewind of `rule` on the queue kernel would distill.
experience_tuple tuple_from(const std::string& rule) {
  const kernel_rule* r = find_rewind_rule(rule);
  REQUIRE(r != nullptr);
  result<std::string> slow = r->apply(kQueueKernel);
  REQUIRE(slow.ok());
  experience_tuple t;
  t.title = r->title;
  t.bottleneck = r->bottleneck;
  t.code_diff = make_unified_diff(*slow, kQueueKernel);
  t.tags = r->tags;
  t.provenance.rule = r->name;
  t.provenance.policy = "heuristic-rewind";
  t.id = derive_tuple_id(t);
  return t;
}

}  // namespace

TEST_SUITE("agent") {
  TEST_CASE("a tuple's diff transfers to the kernel it came from") {
    experience_tuple t = tuple_from("chunked_copies");
    result<std::string> slow = find_rewind_rule("chunked_copies")->apply(kQueueKernel);
    REQUIRE(slow.ok());
    heuristic_refiner refiner;
    std::vector<kernel_candidate> out = refiner.refine({*slow, "", {t}});
    REQUIRE_FALSE(out.empty());
    CHECK(out[0].origin == "tuple:" + t.id);
    CHECK(out[0].tuple_ids == std::vector<std::string>{t.id});
    CHECK(out[0].kernel == kQueueKernel);
    // The rule that would produce the same kernel is not offered a second time.
    for (size_t i = 1; i < out.size(); ++i) CHECK(out[i].kernel != kQueueKernel);
  }

  TEST_CASE("a tuple whose diff does not apply falls back to its rule's counterpart") {
    experience_tuple t = tuple_from("add_full_barriers");
    // Another kernel with a barrier after every stage, but different context lines.
    std::string other = std::string(kQueueKernel);
    auto swap = [&](const std::string& from, const std::string& to) {
      REQUIRE(other.find(from) != std::string::npos);
      other.replace(other.find(from), from.size(), to);
    };
    swap("KernelAxpy", "KernelOther");
    swap("            CopyIn(i);\n",
         "            CopyIn(i);\n            PipeBarrier<PIPE_ALL>();\n");
    swap("            Compute();\n",
         "            Compute();\n            PipeBarrier<PIPE_ALL>();\n");
    swap("for (uint32_t i = 0; i < tileNum; i++)", "for (uint32_t i = 0; i < this->tileNum; ++i)");
    t.code_diff = "@@ -1,3 +1,2 @@\n unrelated context\n-line that is not there\n more context\n";
    heuristic_refiner refiner;
    std::vector<kernel_candidate> out = refiner.refine({other, "", {t}});
    REQUIRE_FALSE(out.empty());
    CHECK(out[0].origin == "tuple:" + t.id + "+rule:remove_stage_barriers");
    CHECK(out[0].kernel.find("PIPE_ALL") == std::string::npos);
  }

  TEST_CASE("with an empty bank the refiner proposes nothing, even where a rule would apply") {
    heuristic_refiner refiner;
    CHECK(find_optimization_rule("full_barrier_to_flags")->applies(kBarrierKernel));
    CHECK(refiner.refine({kBarrierKernel, "", {}}).empty());
  }

  TEST_CASE("tuples that all transfer are first offered together, then one by one") {
    result<std::string> chunked = find_rewind_rule("chunked_copies")->apply(kQueueKernel);
    REQUIRE(chunked.ok());
    result<std::string> slow = find_rewind_rule("add_full_barriers")->apply(*chunked);
    REQUIRE(slow.ok());
    experience_tuple copies = tuple_from("chunked_copies");
    experience_tuple barriers = tuple_from("add_full_barriers");
    heuristic_refiner refiner;
    std::vector<kernel_candidate> out = refiner.refine({*slow, "", {barriers, copies}});
    REQUIRE(out.size() >= 3);
    CHECK(out[0].tuple_ids == std::vector<std::string>{barriers.id, copies.id});
    CHECK(out[0].origin.find(" & ") != std::string::npos);
    CHECK(out[0].kernel == kQueueKernel);
    CHECK(out[1].tuple_ids == std::vector<std::string>{barriers.id});
    CHECK(out[1].kernel == *chunked);
    CHECK(out[2].tuple_ids == std::vector<std::string>{copies.id});
  }

  TEST_CASE("a tuple that does not transfer gives nothing and candidates are capped") {
    heuristic_refiner refiner;
    experience_tuple a = tuple_from("chunked_copies");
    CHECK(refiner.refine({"int main() { return 0; }\n", "", {a}}).empty());
    heuristic_refiner one({1, 2});
    experience_tuple b = tuple_from("small_tile");
    result<std::string> slow = find_rewind_rule("chunked_copies")->apply(kQueueKernel);
    REQUIRE(slow.ok());
    slow = find_rewind_rule("small_tile")->apply(*slow);
    REQUIRE(slow.ok());
    CHECK(refiner.refine({*slow, "", {a, b}}).size() >= 3);
    CHECK(one.refine({*slow, "", {a, b}}).size() == 1);
  }

  TEST_CASE("the refiner proposes distinct candidates for distinct tuples and combinations") {
    // A kernel that lost three motifs, and the three tuples that teach them back.
    std::string slow = kQueueKernel;
    for (const char* rule : {"chunked_copies", "add_full_barriers", "double_to_single_buffer"}) {
      result<std::string> k = find_rewind_rule(rule)->apply(slow);
      REQUIRE(k.ok());
      slow = *k;
    }
    const experience_tuple copies = tuple_from("chunked_copies");
    const experience_tuple barriers = tuple_from("add_full_barriers");
    const experience_tuple buffers = tuple_from("double_to_single_buffer");
    heuristic_refiner refiner;
    std::vector<kernel_candidate> out = refiner.refine({slow, "", {barriers, copies, buffers}});
    std::set<std::string> kernels;
    std::set<std::vector<std::string>> used;
    bool varied = false;
    for (const kernel_candidate& c : out) {
      CHECK(c.kernel != slow);
      CHECK(kernels.insert(c.kernel).second);
      CHECK_FALSE(c.tuple_ids.empty());
      CHECK(c.origin.find("tuple:") == 0);
      used.insert(c.tuple_ids);
      varied = varied || c.origin.find("[depth 3]") != std::string::npos;
    }
    // All three together first, then each alone, then each pair.
    REQUIRE(out.size() > 7);
    CHECK(out[0].tuple_ids == std::vector<std::string>{barriers.id, copies.id, buffers.id});
    for (const auto& ids : std::vector<std::vector<std::string>>{{barriers.id},
                                                                 {copies.id},
                                                                 {buffers.id},
                                                                 {barriers.id, copies.id},
                                                                 {barriers.id, buffers.id},
                                                                 {copies.id, buffers.id}}) {
      CHECK(used.count(ids) == 1);
    }
    // A free parameter of a transfer varied: the queue depth of double buffering.
    CHECK(varied);
  }

}  // TEST_SUITE

namespace {

// A first version written the way the public samples are: queues double-buffered through a
// BUFFER_NUM constant, and a TBuf that must keep its one buffer.
constexpr const char* kSampleStyleKernel = R"(#include "kernel_operator.h"
using namespace AscendC;
constexpr int32_t BUFFER_NUM = 2;
class KernelLeakyRelu {
public:
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, uint32_t total, uint32_t tileLength)
    {
        this->tileLength = tileLength;
        this->tileNum = total / tileLength;
        xGm.SetGlobalBuffer((__gm__ half*)x, total);
        yGm.SetGlobalBuffer((__gm__ half*)y, total);
        pipe.InitBuffer(inQueueX, BUFFER_NUM, tileLength * sizeof(half));
        pipe.InitBuffer(outQueueY, 2, tileLength * sizeof(half));
        pipe.InitBuffer(tmpBuf, 2 * tileLength * sizeof(half));
    }
    __aicore__ inline void Process()
    {
        for (uint32_t i = 0; i < tileNum; i++) {
            LocalTensor<half> xLocal = inQueueX.AllocTensor<half>();
            DataCopy(xLocal, xGm[i * tileLength], tileLength);
            inQueueX.EnQue(xLocal);
            xLocal = inQueueX.DeQue<half>();
            LocalTensor<half> yLocal = outQueueY.AllocTensor<half>();
            LeakyRelu(yLocal, xLocal, (half)0.01, tileLength);
            outQueueY.EnQue<half>(yLocal);
            inQueueX.FreeTensor(xLocal);
            yLocal = outQueueY.DeQue<half>();
            DataCopy(yGm[i * tileLength], yLocal, tileLength);
            outQueueY.FreeTensor(yLocal);
        }
    }
private:
    TPipe pipe;
    TQue<QuePosition::VECIN, BUFFER_NUM> inQueueX;
    TQue<QuePosition::VECOUT, BUFFER_NUM> outQueueY;
    TBuf<TPosition::VECCALC> tmpBuf;
    GlobalTensor<half> xGm, yGm;
    uint32_t tileLength, tileNum;
};
)";

}  // namespace

TEST_SUITE("agent") {
  TEST_CASE("a double-buffering tuple deepens the queues of a kernel that double-buffers already") {
    const experience_tuple buffers = tuple_from("double_to_single_buffer");
    heuristic_refiner refiner;
    std::vector<kernel_candidate> out = refiner.refine({kSampleStyleKernel, "", {buffers}});
    std::map<std::string, std::string> by_label;
    for (const kernel_candidate& c : out) {
      CHECK(c.tuple_ids == std::vector<std::string>{buffers.id});
      for (const char* label : {"[depth 3]", "[depth 4]"}) {
        if (c.origin.find(label) != std::string::npos) by_label[label] = c.kernel;
      }
    }
    REQUIRE(by_label.size() == 2);
    const std::string& three = by_label["[depth 3]"];
    CHECK(three.find("constexpr int32_t BUFFER_NUM = 3;") != std::string::npos);
    CHECK(three.find("InitBuffer(outQueueY, 3, ") != std::string::npos);
    // The queue's named count follows its constant; the TBuf's size expression is no count.
    CHECK(three.find("InitBuffer(inQueueX, BUFFER_NUM, ") != std::string::npos);
    CHECK(three.find("InitBuffer(tmpBuf, 2 * tileLength") != std::string::npos);
    CHECK(by_label["[depth 4]"].find("BUFFER_NUM = 4;") != std::string::npos);
    // A tuple whose motif and symptoms have nothing to do with queues varies no depth.
    for (const kernel_candidate& c :
         refiner.refine({kSampleStyleKernel, "", {tuple_from("vector_to_scalar")}})) {
      CHECK(c.origin.find("[depth") == std::string::npos);
    }
  }
}

TEST_SUITE("agent") {
  TEST_CASE("the tile split is offered only where the episode never searches the tiling") {
    // The sample-style kernel counting its tiles in Process by a ceiling division of its member.
    std::string kernel = kSampleStyleKernel;
    const std::string host_count = "this->tileNum = total / tileLength;";
    REQUIRE(kernel.find(host_count) != std::string::npos);
    kernel.replace(kernel.find(host_count), host_count.size(), "this->total = total;");
    const std::string loop = "for (uint32_t i = 0; i < tileNum; i++) {";
    REQUIRE(kernel.find(loop) != std::string::npos);
    kernel.replace(kernel.find(loop), loop.size(),
                   "for (uint32_t i = 0; i < (total + tileLength - 1) / tileLength; i++) {");
    const std::vector<experience_tuple> tuples = {tuple_from("double_to_single_buffer"),
                                                  tuple_from("small_tile")};
    auto labels = [&](bool tiling_searched) {
      std::set<std::string> out;
      for (const kernel_candidate& c :
           heuristic_refiner().refine({kernel, "", tuples, tiling_searched})) {
        for (const char* label : {"[split in 2]", "[split in 4]", "[split in 8]", "[depth 3]"}) {
          if (c.origin.find(label) != std::string::npos) out.insert(label);
        }
      }
      return out;
    };
    CHECK(labels(false) ==
          std::set<std::string>{"[split in 2]", "[split in 4]", "[split in 8]", "[depth 3]"});
    // Stage I would find a smaller tile itself; a deeper queue it cannot set (a kernel constant).
    CHECK(labels(true) == std::set<std::string>{"[depth 3]"});
  }
}
