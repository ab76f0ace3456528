// The policy interfaces behind the agent's roles (docs/design.md §3). A policy is plain code: the
// heuristic policies (offline, deterministic) and the LLM policies implement these, and the
// actors in actors/ call them. Requests and replies are value types; a policy keeps no
// per-episode state of its own: whatever it must remember between steps travels in
// `policy_state` and is persisted with the episode, so a resumed episode continues exactly.
//
// Thread-safety: a policy object may be called from several threads at once.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/status.hpp"
#include "npu/op_package.hpp"
#include "npu/protocol/eval_result.hpp"

namespace aopt::agent {

// One evaluated tiling program, as the mutator sees the search history.
struct tiling_trial {
  std::string tiling;
  std::optional<double> latency_us;  // nullopt: infeasible
  std::string summary;               // e.g. the tunable values or the failure kind
  // Why it failed, in a sentence, when more than its kind is known (a tiling probe rejection:
  // "rejected by tiling_probe before the device: tileLength 32768 x ...").
  std::string detail = {};
};

// A hooked role's statement (hooks.hpp) about the parent Stage II refines.
struct annotation {
  std::string role;  // who made it
  std::string text;  // one paragraph, read by the diagnoser and the refiner
  std::vector<std::string> tags;
};

// A candidate a gate vetoed, as the proposer hears of it.
struct veto_note {
  std::string gate;    // the role that vetoed
  std::string origin;  // the candidate's origin
  std::string reason;
};

struct mutation_request {
  std::string campaign;
  const npu::op_package* op = nullptr;  // must outlive the call
  std::string tiling;                   // T of the current best pair
  std::string kernel;                   // K of the current best pair
  double best_latency_us = 0;
  nlohmann::json policy_state;  // null on the first call of an episode
  std::vector<tiling_trial> history;
  uint64_t sample_index = 0;  // distinguishes repeated requests (LLM cache key)
  // Baseline repair: `tiling` failed (best_latency_us means nothing); any feasible T' will do.
  bool repairing = false;
  // The baseline's failure kind while repairing ("ub_overflow", "bad_block_dim", ...): the
  // quantity the repair must reduce.
  std::string repair_kind = {};
};

struct mutation_reply {
  std::string tiling;  // the candidate T'
  nlohmann::json policy_state;
  std::string origin;  // e.g. "heuristic-mutator: TILE_LENGTH 2048->4096"
  // Proposals the policy itself found infeasible before answering, by reason (no device cost).
  std::map<std::string, uint32_t> rejected;
};

struct diagnosis_request {
  std::string campaign;
  const npu::op_package* op = nullptr;
  std::string kernel;
  std::string tiling;
  npu::eval_result result;  // the profile of the current best pair
  uint64_t sample_index = 0;
  // What the annotating roles (hooks.hpp) said about this kernel, in pipeline order.
  std::vector<annotation> annotations = {};
};

struct diagnosis {
  std::string query;              // bottleneck text, the retrieval key
  std::vector<std::string> tags;  // mte2_bound, no_overlap, scalar_heavy, ...
};

struct tuple_ref {
  std::string id;
  double score = 0;
  nlohmann::json tuple;  // the experience tuple (title, description, bottleneck, code_diff, ...)
};

struct refinement_request {
  std::string campaign;
  const npu::op_package* op = nullptr;
  std::string kernel;
  std::string tiling;
  diagnosis diag;
  std::vector<tuple_ref> tuples;
  npu::eval_result result;
  uint64_t sample_index = 0;
  // Stage I searches the tiling in this episode (every strategy but stage2).
  bool tiling_searched = false;
  std::vector<annotation> annotations = {};
  // Rewrites of this kernel the gates (hooks.hpp) vetoed before the device, oldest first.
  std::vector<veto_note> vetoes = {};
};

// A candidate kernel and where it came from.
struct kernel_candidate {
  std::string kernel;
  std::string origin;                  // "tuple:<id>", "tuple:<id>+rule:<name>", "llm"
  std::vector<std::string> tuple_ids;  // tuples that guided it
};

class mutator_policy {
 public:
  virtual ~mutator_policy() = default;
  virtual std::string name() const = 0;
  virtual result<mutation_reply> mutate(const mutation_request& request) = 0;
};

class diagnoser_policy {
 public:
  virtual ~diagnoser_policy() = default;
  virtual std::string name() const = 0;
  virtual result<diagnosis> diagnose(const diagnosis_request& request) = 0;
};

class retriever_policy {
 public:
  virtual ~retriever_policy() = default;
  virtual std::string name() const = 0;
  virtual result<std::vector<tuple_ref>> retrieve(const diagnosis& query, uint32_t top_k) = 0;
};

class refiner_policy {
 public:
  virtual ~refiner_policy() = default;
  virtual std::string name() const = 0;
  // Candidates in the order they should be tried; an empty list is a valid answer.
  virtual result<std::vector<kernel_candidate>> refine(const refinement_request& request) = 0;
};

}  // namespace aopt::agent
