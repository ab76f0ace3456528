#include "agent/heuristics/heuristic_policies.hpp"

#include <doctest/doctest.h>

#include <cmath>
#include <set>

#include "agent/kernel_text/code_diff.hpp"
#include "agent/motifs/rewind_rules.hpp"
#include "kernel_snippets.hpp"

using namespace aopt;
using namespace aopt::agent;
using aopt::agent::testing::kBarrierKernel;
using aopt::agent::testing::kQueueKernel;

namespace {

const char* kPolicyTiling = R"(namespace optiling {
constexpr uint32_t BLOCK_DIM = 8;
constexpr uint32_t TILE_LENGTH = 2048;
constexpr uint32_t ALIGN_NUM = 16;
}
)";

npu::op_package half_op() {
  npu::op_package op;
  op.spec.name = "add_custom";
  for (const char* n : {"x", "y"}) op.spec.inputs.push_back({n, npu::dtype::float16, {8, 2048}});
  op.spec.outputs.push_back({"z", npu::dtype::float16, {8, 2048}});
  return op;
}

double latency_of(const std::string& tiling) {
  result<std::vector<tunable>> t = parse_tunables(tiling);
  REQUIRE(t.ok());
  tunable_values v = current_values(*t);
  return 10 + std::abs(v.at("BLOCK_DIM") - 32) +
         2 * std::abs(std::log2(v.at("TILE_LENGTH") / 8192.0));
}

// The request for the baseline of `op`: kPolicyTiling with kQueueKernel at 100 us (the baseline has
// no EVOLVE-BLOCK, so latency_of cannot price it).
mutation_request baseline_request(const npu::op_package& op) {
  mutation_request request;
  request.op = &op;
  request.tiling = kPolicyTiling;
  request.kernel = kQueueKernel;
  request.best_latency_us = 100;
  return request;
}

// Plays Stage I: every proposal is evaluated with latency_of and enters the history.
std::vector<std::string> run_stage(heuristic_mutator_policy& policy, const npu::op_package& op,
                                   mutation_request& request, int steps) {
  std::vector<std::string> proposed;
  for (int i = 0; i < steps; ++i) {
    result<mutation_reply> reply = policy.mutate(request);
    REQUIRE(reply.ok());
    CHECK(reply->origin.rfind("heuristic-mutator: ", 0) == 0);
    proposed.push_back(reply->tiling);
    double l = latency_of(reply->tiling);
    request.history.push_back({reply->tiling, l, reply->origin});
    if (l < request.best_latency_us) {
      request.best_latency_us = l;
      request.tiling = reply->tiling;
    }
    request.policy_state = nlohmann::json::parse(reply->policy_state.dump());
    request.sample_index++;
  }
  (void)op;
  return proposed;
}

}  // namespace

TEST_SUITE("agent") {
  TEST_CASE("the heuristic mutator policy synthesizes a template and evolves it") {
    npu::op_package op = half_op();
    heuristic_mutator_policy policy;
    CHECK(policy.name() == "heuristic-mutator");
    mutation_request request = baseline_request(op);
    std::vector<std::string> proposed = run_stage(policy, op, request, 25);
    std::set<std::string> unique(proposed.begin(), proposed.end());
    CHECK(unique.size() == proposed.size());
    CHECK(proposed[0].find("// EVOLVE-BLOCK-START") != std::string::npos);
    CHECK(request.best_latency_us < 20);
    CHECK(request.policy_state.at("generation") == 0);
  }

  TEST_CASE("the heuristic mutator policy is deterministic and resumes from its state") {
    npu::op_package op = half_op();
    heuristic_mutator_policy a;
    heuristic_mutator_policy b;
    mutation_request ra = baseline_request(op);
    mutation_request rb = ra;
    std::vector<std::string> first = run_stage(a, op, ra, 6);
    CHECK(run_stage(b, op, rb, 6) == first);
    // A restart: a fresh policy object continues from the persisted request.
    heuristic_mutator_policy restarted;
    mutation_request rc = ra;
    CHECK(run_stage(restarted, op, rc, 5) == run_stage(a, op, ra, 5));
  }

  TEST_CASE("a new kernel starts a new generation of the heuristic mutator") {
    npu::op_package op = half_op();
    heuristic_mutator_policy policy;
    mutation_request request = baseline_request(op);
    run_stage(policy, op, request, 3);
    request.kernel = kBarrierKernel;
    run_stage(policy, op, request, 1);
    CHECK(request.policy_state.at("generation") == 1);
  }

  TEST_CASE("a later generation refines around the best tiling instead of sampling the space") {
    npu::op_package op = half_op();
    heuristic_mutator_policy policy;
    mutation_request request = baseline_request(op);
    // The first generation explores: its first proposals are space-filling samples.
    result<mutation_reply> first = policy.mutate(request);
    REQUIRE(first.ok());
    CHECK(first->origin.find("space-filling sample") != std::string::npos);
    run_stage(policy, op, request, 6);
    // Stage II changed the kernel: the next generation starts from the best tiling so far and
    // moves one or two tunables from it, never a space-filling sample.
    const std::string best = request.tiling;
    request.kernel = kBarrierKernel;
    for (int i = 0; i < 4; ++i) {
      result<mutation_reply> reply = policy.mutate(request);
      REQUIRE(reply.ok());
      CHECK(reply->origin.find("space-filling sample") == std::string::npos);
      request.history.push_back({reply->tiling, latency_of(reply->tiling), reply->origin});
      request.policy_state = nlohmann::json::parse(reply->policy_state.dump());
    }
    CHECK(request.policy_state.at("generation") == 1);
    CHECK(request.tiling == best);
  }

  TEST_CASE("the heuristic mutator policy has nothing to propose without tunables") {
    heuristic_mutator_policy policy;
    mutation_request request;
    request.tiling = "int TilingFunc() { return 0; }\n";
    result<mutation_reply> reply = policy.mutate(request);
    REQUIRE_FALSE(reply.ok());
    CHECK(reply.error().code() == status_code::failed_precondition);
  }

  TEST_CASE("the BM25 retriever reaches the tuples the diagnosis shares no term with, last") {
    std::vector<experience_tuple> bank;
    for (const char* name : {"add_full_barriers", "chunked_copies", "vector_to_scalar"}) {
      const kernel_rule* rule = find_rewind_rule(name);
      REQUIRE(rule != nullptr);
      experience_tuple t;
      t.title = rule->title;
      t.bottleneck = rule->bottleneck;
      t.tags = rule->tags;
      t.provenance.rule = rule->name;
      t.id = name;
      bank.push_back(t);
    }
    bm25_retriever_policy retriever(bank);
    diagnosis d;
    d.query = find_rewind_rule("vector_to_scalar")->bottleneck;
    auto page = retriever.retrieve(d, 1);
    REQUIRE(page.ok());
    REQUIRE(page->size() == 1);
    CHECK(page->front().id == "vector_to_scalar");
    auto whole = retriever.retrieve(d, 10);
    REQUIRE(whole.ok());
    REQUIRE(whole->size() == 3);
    CHECK(whole->front().id == "vector_to_scalar");
    // A query of words no tuple holds scores nothing, and still reaches the whole bank in id
    // order, so that deeper retrievals never come back empty while the bank has tuples.
    d.query = "zzz qqq";
    auto unscored = retriever.retrieve(d, 10);
    REQUIRE(unscored.ok());
    REQUIRE(unscored->size() == 3);
    CHECK((*unscored)[0].id == "add_full_barriers");
    CHECK((*unscored)[2].id == "vector_to_scalar");
    CHECK((*unscored)[1].score == 0);
  }

  TEST_CASE("diagnoser, retriever and refiner policies work together on a rewound kernel") {
    const kernel_rule* rule = find_rewind_rule("add_full_barriers");
    result<std::string> slow = rule->apply(kQueueKernel);
    REQUIRE(slow.ok());
    experience_tuple t;
    t.title = rule->title;
    t.bottleneck = rule->bottleneck;
    t.code_diff = make_unified_diff(*slow, kQueueKernel);
    t.tags = rule->tags;
    t.provenance.rule = rule->name;
    t.id = derive_tuple_id(t);
    experience_tuple other;
    other.bottleneck = find_rewind_rule("vector_to_scalar")->bottleneck;
    other.code_diff = "@@ -1,1 +1,1 @@\n-a\n+b\n";
    other.id = "other";

    diagnosis_request dreq;
    dreq.kernel = *slow;
    dreq.result.status = npu::eval_status::ok;
    dreq.result.latency_us = 50;
    dreq.result.profile.core_time_max_us = 45;
    dreq.result.profile.barrier_stall_us = 10;
    dreq.result.profile.mte2 = {20, 0.45};
    dreq.result.profile.vector = {10, 0.22};
    dreq.result.profile.mte3 = {10, 0.22};
    dreq.result.profile.block_dim = 40;
    heuristic_diagnoser_policy diagnoser;
    result<diagnosis> diag = diagnoser.diagnose(dreq);
    REQUIRE(diag.ok());
    REQUIRE_FALSE(diag->tags.empty());
    CHECK(diag->tags[0] == "barrier_stall");

    bm25_retriever_policy retriever({other});
    retriever.add(t);
    result<std::vector<tuple_ref>> refs = retriever.retrieve(*diag, 1);
    REQUIRE(refs.ok());
    REQUIRE(refs->size() == 1);
    CHECK((*refs)[0].id == t.id);
    CHECK((*refs)[0].tuple.at("bottleneck") == t.bottleneck);

    refinement_request rreq;
    rreq.kernel = *slow;
    rreq.diag = *diag;
    rreq.tuples = *refs;
    rreq.tuples.push_back({"broken", 0.1, nlohmann::json{{"id", 3}}});
    heuristic_refiner_policy refiner;
    result<std::vector<kernel_candidate>> candidates = refiner.refine(rreq);
    REQUIRE(candidates.ok());
    REQUIRE_FALSE(candidates->empty());
    CHECK((*candidates)[0].kernel == kQueueKernel);
    CHECK((*candidates)[0].tuple_ids == std::vector<std::string>{t.id});
  }

}  // TEST_SUITE
