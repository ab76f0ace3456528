#include "agent/heuristic_refiner.hpp"

#include <doctest/doctest.h>

#include "agent/code_diff.hpp"
#include "agent/rewind_rules.hpp"
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
  std::vector<kernel_candidate> out = refiner.refine({*slow, "", {t}, {"small_bursts"}});
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
  swap("            CopyIn(i);\n", "            CopyIn(i);\n            PipeBarrier<PIPE_ALL>();\n");
  swap("            Compute();\n", "            Compute();\n            PipeBarrier<PIPE_ALL>();\n");
  swap("for (uint32_t i = 0; i < tileNum; i++)", "for (uint32_t i = 0; i < this->tileNum; ++i)");
  t.code_diff = "@@ -1,3 +1,2 @@\n unrelated context\n-line that is not there\n more context\n";
  heuristic_refiner refiner;
  std::vector<kernel_candidate> out = refiner.refine({other, "", {t}, {}});
  REQUIRE_FALSE(out.empty());
  CHECK(out[0].origin == "tuple:" + t.id + "+rule:remove_stage_barriers");
  CHECK(out[0].kernel.find("PIPE_ALL") == std::string::npos);
}

TEST_CASE("with an empty bank the rules matching the diagnosis come first") {
  heuristic_refiner refiner;
  std::vector<kernel_candidate> out = refiner.refine({kBarrierKernel, "", {}, {"barrier_stall"}});
  REQUIRE_FALSE(out.empty());
  CHECK(out[0].origin == "rule:full_barrier_to_flags");
  CHECK(out[0].tuple_ids.empty());

  heuristic_refiner tuples_only({8, false, 2});
  CHECK(tuples_only.refine({kBarrierKernel, "", {}, {"barrier_stall"}}).empty());
}

TEST_CASE("nothing to improve gives an empty list and candidates are capped") {
  heuristic_refiner refiner;
  CHECK(refiner.refine({"int main() { return 0; }\n", "", {}, {}}).empty());
  heuristic_refiner one({1, true, 2});
  experience_tuple a = tuple_from("chunked_copies");
  experience_tuple b = tuple_from("small_tile");
  result<std::string> slow = find_rewind_rule("chunked_copies")->apply(kQueueKernel);
  REQUIRE(slow.ok());
  CHECK(one.refine({*slow, "", {a, b}, {}}).size() == 1);
}

}  // TEST_SUITE
