// The two built-in verifiers (agent/episode/hooks.hpp), built from the role table over an
// evaluation service on a scripted device: the confirmation of an improvement
// (agent/roles/improvement_confirmation_role.cpp) and the validation of the final best
// (agent/roles/validation_role.cpp). What the engine does with their answers is tested in
// episode_test.cpp; the validation on the real simulator in tests/adversarial.
#include <doctest/doctest.h>

#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "agent/roles/role_table.hpp"
#include "npu/local_device_slots.hpp"
#include "npu/validation_shapes.hpp"
#include "support/map_eval_cache.hpp"

using namespace aopt;

namespace {

// Answers each call with the next scripted result (the last one again once they run out) and
// remembers what it was asked.
class verifier_test_device final : public npu::device {
 public:
  explicit verifier_test_device(std::vector<npu::eval_result> answers)
      : answers_(std::move(answers)) {}
  npu::eval_result evaluate(const npu::op_package& op, const std::string&, const std::string&,
                            const npu::eval_options& options) override {
    std::lock_guard<std::mutex> lock(mutex_);
    calls.push_back({op.spec.inputs.at(0).shape.at(0), options.cold});
    return answers_[std::min(calls.size(), answers_.size()) - 1];
  }
  std::string profile_id() const override { return "verifier-test"; }

  struct call {
    int64_t rows = 0;  // the first dimension of the first input: which shape was evaluated
    bool cold = false;
  };
  std::vector<call> calls;

 private:
  std::mutex mutex_;
  std::vector<npu::eval_result> answers_;
};

npu::eval_result verifier_ok(double us) {
  npu::eval_result r;
  r.status = npu::eval_status::ok;
  r.latency_us = us;
  return r;
}

npu::eval_result out_of_bounds() {
  npu::eval_result r;
  r.status = npu::eval_status::runtime_error;
  r.error_kind = "gm_out_of_bounds";
  r.message = "DataCopy past z";
  return r;
}

npu::op_package verified_op() {
  npu::op_package op;
  op.spec.name = "add_verified";
  npu::tensor_spec x;
  x.name = "x";
  x.shape = {8, 16};
  op.spec.inputs.push_back(x);
  op.spec.validation_shapes = {{{"x", {4, 16}}}, {{"x", {2, 16}}}, {{"x", {1, 16}}}};
  op.host_source = "T0";
  op.kernel_source = "K0";
  return op;
}

struct verifier_bench {
  std::shared_ptr<verifier_test_device> device;
  std::shared_ptr<aopt::testing::map_eval_cache> cache =
      std::make_shared<aopt::testing::map_eval_cache>();
  std::shared_ptr<agent::verifier_policy> policy;
};

verifier_bench make_verifier(const std::string& name, std::vector<npu::eval_result> answers) {
  verifier_bench b;
  b.device = std::make_shared<verifier_test_device>(std::move(answers));
  const std::vector<agent::role_descriptor> table = agent::role_descriptors();
  const agent::role_descriptor* role = agent::find_role(table, name);
  REQUIRE(role != nullptr);
  CHECK(role->hook == agent::hook_kind::verify);
  CHECK_FALSE(role->has_llm_policy);
  agent::role_environment env;
  env.evaluation = std::make_shared<agent::evaluation_service>(
      std::make_shared<npu::local_device_slots>(b.device, 1), b.cache, npu::eval_options{});
  result<agent::hook_policy> made = role->make(env);
  REQUIRE_MESSAGE(made.ok(), made.error().to_string());
  b.policy = std::get<std::shared_ptr<agent::verifier_policy>>(*made);

  // Without the evaluation service the role cannot be built, and says why.
  result<agent::hook_policy> without = role->make(agent::role_environment{});
  REQUIRE_FALSE(without.ok());
  CHECK(without.error().message().find("evaluation service") != std::string::npos);
  return b;
}

agent::verification_request fresh_result(const npu::op_package& op, npu::eval_result r,
                                         bool would_accept) {
  agent::verification_request v;
  v.campaign = "c";
  v.op = &op;
  v.moment = agent::verification_moment::evaluation;
  v.role = "mutator";
  v.tiling = "T1";
  v.kernel = "K0";
  v.result = std::move(r);
  v.would_accept = would_accept;
  return v;
}

agent::verification_request final_best(const npu::op_package& op) {
  agent::verification_request v = fresh_result(op, verifier_ok(5), true);
  v.moment = agent::verification_moment::final;
  v.role = "best";
  return v;
}

}  // namespace

TEST_CASE("the confirmation runs cold only what would become the best, and the slower run counts") {
  const npu::op_package op = verified_op();
  verifier_bench b = make_verifier("improvement_confirmation", {verifier_ok(6)});

  // Not an improvement, the final best, a result confirmed before: left as they are, no run.
  for (const agent::verification_request& untouched :
       {fresh_result(op, verifier_ok(5), false), final_best(op)}) {
    result<agent::verification_reply> reply = b.policy->verify(untouched);
    REQUIRE(reply.ok());
    CHECK(reply->result.latency_us == 5);
    CHECK_FALSE(reply->result.confirmed);
  }
  npu::eval_result confirmed_before = verifier_ok(5);
  confirmed_before.from_cache = true;
  confirmed_before.confirmed = true;
  CHECK(b.policy->verify(fresh_result(op, confirmed_before, true))->result.latency_us == 5);
  CHECK(b.device->calls.empty());

  result<agent::verification_reply> reply =
      b.policy->verify(fresh_result(op, verifier_ok(5), true));
  REQUIRE(reply.ok());
  REQUIRE(b.device->calls.size() == 1);
  CHECK(b.device->calls[0].cold);
  CHECK(reply->result.ok());
  CHECK(reply->result.confirmed);
  CHECK(reply->result.latency_us == 6);
  CHECK(reply->cache_entries.empty());  // the combined result is cached under the first key
}

TEST_CASE("an improvement whose cold run fails is that failure, unconfirmed") {
  const npu::op_package op = verified_op();
  verifier_bench b = make_verifier("improvement_confirmation", {out_of_bounds()});
  result<agent::verification_reply> reply =
      b.policy->verify(fresh_result(op, verifier_ok(5), true));
  REQUIRE(reply.ok());
  CHECK(reply->result.status == npu::eval_status::runtime_error);
  CHECK(reply->result.error_kind == "unconfirmed");
  CHECK(reply->result.message.find("the first evaluation: ok, 5 us") != std::string::npos);
}

TEST_CASE("the validation checks the final best shape by shape and stops at the first failure") {
  const npu::op_package op = verified_op();
  verifier_bench b = make_verifier("validation", {verifier_ok(3), out_of_bounds()});

  // A fresh result is not its business.
  CHECK(b.policy->verify(fresh_result(op, verifier_ok(5), true))->result.ok());
  CHECK(b.device->calls.empty());

  result<agent::verification_reply> reply = b.policy->verify(final_best(op));
  REQUIRE(reply.ok());
  REQUIRE(b.device->calls.size() == 2);  // shape 2 is never run
  CHECK(b.device->calls[0].rows == 4);
  CHECK(b.device->calls[1].rows == 2);
  CHECK(reply->result.status == npu::eval_status::runtime_error);
  CHECK(reply->result.message ==
        "validation shape 1 (x [2, 16]): runtime_error/gm_out_of_bounds: DataCopy past z");
  CHECK(reply->note.empty());
  // Both checks the device gave may be cached, the failure too (it is the candidate's own).
  CHECK(reply->cache_entries.size() == 2);
}

TEST_CASE("a best that passes every validation shape is noted, and a cached check is not rerun") {
  const npu::op_package op = verified_op();
  verifier_bench b = make_verifier("validation", {verifier_ok(3)});
  result<agent::verification_reply> reply = b.policy->verify(final_best(op));
  REQUIRE(reply.ok());
  CHECK(b.device->calls.size() == 3);
  CHECK(reply->result.ok());
  CHECK(reply->result.latency_us == 5);  // the tuning shape's latency stays the best's
  CHECK(reply->note == "the best passed 3 validation shape(s) the tuning never saw");
  REQUIRE(reply->cache_entries.size() == 3);

  for (const agent::eval_cache_entry& e : reply->cache_entries) b.cache->entries[e.key] = e.result;
  result<agent::verification_reply> again = b.policy->verify(final_best(op));
  REQUIRE(again.ok());
  CHECK(b.device->calls.size() == 3);
  CHECK(again->note == reply->note);
  CHECK(again->cache_entries.empty());

  // An operator without validation shapes passes as it is, with no note.
  npu::op_package plain = verified_op();
  plain.spec.validation_shapes.clear();
  result<agent::verification_reply> nothing = b.policy->verify(final_best(plain));
  REQUIRE(nothing.ok());
  CHECK(nothing->result.ok());
  CHECK(nothing->note.empty());
  CHECK(b.device->calls.size() == 3);
}
