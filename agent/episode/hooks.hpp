// The open hooks of the episode loop (docs/roles.md). Besides the four roles Algorithm 1 names
// (mutator, diagnoser, retriever, refiner: roles.hpp), any number of roles may hook into an
// episode at four points, each with its own pipeline in [pipeline]:
//
//   annotate  before Stage II diagnoses its parent: a role adds a statement about the parent
//             (its bottleneck, what a change would gain) that the diagnoser and the refiner read;
//   gate      before a candidate goes to the device: a role accepts it or vetoes it, with a
//             reason; a veto costs neither an evaluation nor budget, and the reason goes back to
//             the role that proposed the candidate (the mutator's history, the refiner's request);
//   verify    after the device, before the engine takes a result: a role may amend it with a fact
//             it establishes itself, with the evaluation service of its role environment (a cold
//             second run that must agree, a check on shapes the tuning never saw). Asked for every
//             candidate's evaluation (moment `evaluation`), and once for the best when the search
//             is over (moment `final`); a best the verifiers fail is not reported, the reference
//             point is;
//   observe   after an evaluation: a role sees the candidate and its result.
//
// A hooked role keeps whatever it must remember between calls in `role_state`: the engine
// persists it with the episode under the role's name and hands it back on the next call, so a
// resumed episode continues exactly. Like the policies in roles.hpp, a hook policy keeps no
// per-episode state of its own and may be called from several threads at once.
#pragma once

#include <memory>
#include <string>
#include <variant>
#include <vector>

#include <nlohmann/json.hpp>

#include "agent/episode/roles.hpp"
#include "agent/evaluation/evaluation_service.hpp"
#include "base/status.hpp"
#include "npu/op_package.hpp"
#include "npu/protocol/eval_result.hpp"

namespace aopt::agent {

enum class hook_kind { annotate, gate, verify, observe };
const char* to_string(hook_kind k);
// The [pipeline] list that names the roles of a hook: "annotators", "gates", "verifiers",
// "observers".
const char* pipeline_list(hook_kind k);

struct annotation_request {
  std::string campaign;
  const npu::op_package* op = nullptr;  // must outlive the call
  std::string tiling;
  std::string kernel;
  npu::eval_result result;    // the parent's evaluation, with its profile and roofline
  nlohmann::json role_state;  // this role's, null on its first call in the episode
};

struct annotation_reply {
  annotation note;
  nlohmann::json role_state;
};

// A candidate about to go to the device, with what it was derived from.
struct gate_request {
  std::string campaign;
  const npu::op_package* op = nullptr;
  std::string role;    // who proposed it: "mutator", "refiner", "best_of_n"
  std::string origin;  // how ("tuple:<id>+rule:<name>", "heuristic-mutator: ...")
  std::string tiling;
  std::string kernel;
  std::string parent_tiling;
  std::string parent_kernel;
  npu::eval_result parent_result;
  diagnosis diag;  // Stage II: the diagnosis the rewrite answers; empty otherwise
  std::vector<annotation> annotations;
  nlohmann::json role_state;
  // False once the step's gates have vetoed max_gate_vetoes candidates: only a certain veto
  // (gate_verdict::certain) is heeded from then on, so a gate whose vetoes are opinions (an LLM
  // critic) accepts without spending a call.
  bool heeds_opinions = true;
};

struct gate_verdict {
  bool veto = false;
  std::string reason;  // why (a veto's reason is shown to the proposer and in the outcome)
  nlohmann::json role_state;
  // A certain veto states a fact about the candidate, not an opinion of it: the device would
  // refuse it, or run its parent's program again. It is always heeded, and it does not count
  // toward the step's max_gate_vetoes. `kind` names the fact in the outcome ("ub_overflow"
  // counts as "ub_overflow (<gate>)"); an opinion counts as "vetoed by <gate>".
  bool certain = false;
  std::string kind;
};

enum class verification_moment { evaluation, final };
const char* to_string(verification_moment m);

// A result the device (or the evaluation cache) gave, before the engine takes it.
struct verification_request {
  std::string campaign;
  const npu::op_package* op = nullptr;  // must outlive the call
  verification_moment moment = verification_moment::evaluation;
  std::string role;  // who proposed the candidate ("baseline", "mutator", ...; "best" when final)
  std::string origin;
  std::string tiling;
  std::string kernel;
  // As the verifiers before this one in the pipeline left it.
  npu::eval_result result;
  // Moment evaluation: whether `result` would become the best. Moment final: true.
  bool would_accept = false;
  nlohmann::json role_state;
};

// The verifier's answer. What the engine takes is the last verifier's `result`; at moment
// evaluation the evaluation cache keeps it under the evaluation's key, so a verifier amends with
// facts about the candidate (a second run, a check), never opinions (a gate vetoes those).
struct verification_reply {
  npu::eval_result result;  // the request's, unless amended
  // Moment final: what the check established, recorded in the episode's notes under the role's
  // name ("validation": "the best passed 2 validation shape(s) ...").
  std::string note;
  // Results of the role's own evaluations the evaluation cache may keep (eval_cache_entry_for),
  // so that a resumed or repeated campaign does not run them again.
  std::vector<eval_cache_entry> cache_entries;
  nlohmann::json role_state;
};

struct observation {
  std::string campaign;
  const npu::op_package* op = nullptr;
  std::string role;
  std::string origin;
  std::string tiling;
  std::string kernel;
  npu::eval_result result;
  bool accepted = false;  // it became the best
  double best_us = 0;     // the best after it
  nlohmann::json role_state;
};

class annotator_policy {
 public:
  virtual ~annotator_policy() = default;
  virtual std::string name() const = 0;
  virtual result<annotation_reply> annotate(const annotation_request& request) = 0;
};

class gate_policy {
 public:
  virtual ~gate_policy() = default;
  virtual std::string name() const = 0;
  virtual result<gate_verdict> judge(const gate_request& request) = 0;
};

class verifier_policy {
 public:
  virtual ~verifier_policy() = default;
  virtual std::string name() const = 0;
  virtual result<verification_reply> verify(const verification_request& request) = 0;
};

class observer_policy {
 public:
  virtual ~observer_policy() = default;
  virtual std::string name() const = 0;
  // Returns the role's new state.
  virtual result<nlohmann::json> observe(const observation& event) = 0;
};

// What a hooked role's factory makes: the policy of its hook.
using hook_policy =
    std::variant<std::shared_ptr<annotator_policy>, std::shared_ptr<gate_policy>,
                 std::shared_ptr<verifier_policy>, std::shared_ptr<observer_policy>>;

hook_kind kind_of(const hook_policy& policy);
std::string name_of(const hook_policy& policy);

}  // namespace aopt::agent
