// Algorithm 1 of the paper for one operator, as a resumable state machine.
//
// The engine never calls a policy or a device itself: next() says what it needs (a mutation,
// a diagnosis, a retrieval, a refinement or an evaluation), the caller obtains it (an actor
// pipeline, or a plain loop in tests) and hands it back with the matching on_*() call. Only
// on_evaluation() changes the persisted state; it returns the candidate record that must be
// written together with state() in one atomic transition. Everything between two evaluations
// is recomputed deterministically after a restart.
//
//   best = (T0, K0)
//   for r in 1..R:
//     Stage I  (U steps): T' = Mutate(T*, K*); keep if ok and faster than best
//     Stage II (S steps): q = Diagnose(K*); M = Retrieve(q, k); K' = Refine(K*, M, T*); keep ...
//
// evolve (docs/design.md §9) is single-stage whole-operator evolution with a program database
// (program_database.hpp): each step draws a parent (T, K) from the database and varies one part
// of it, T by the mutator on even steps and K by diagnose/retrieve/refine on odd steps (the other
// part when the step's own has nothing to propose); feasible children join the database.
//
// Infeasible candidates (any status but ok) are discarded. A stage whose policy has nothing to
// propose ends early without spending budget; why stays in state().notes. A baseline failing
// with a status a tiling can fix (baseline_repair.hpp) is repaired: Stage I runs, without its
// step allowance, until a candidate is feasible; that one becomes the reference (baseline_us)
// and the episode continues as usual; no feasible candidate within the budget fails the
// operator. Every candidate but the baseline passes the gates first (need_gate, hooks.hpp), the
// tiling probe among them: a veto costs neither an evaluation nor budget. Every result passes the
// verifiers before the engine takes it (an improvement's cold confirmation among them), and when
// the search is over a best other than the reference passes them once more (need_verification,
// the validation shapes among them) before the episode finishes. Thread-compatible: one thread at
// a time.
#pragma once

#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "agent/episode/episode_state.hpp"
#include "agent/episode/hooks.hpp"
#include "agent/episode/kernel_frontier.hpp"
#include "agent/episode/program_database.hpp"
#include "agent/episode/roles.hpp"
#include "agent/episode/tiling_feasibility.hpp"
#include "npu/op_package.hpp"

namespace aopt::agent {

struct evaluation_request {
  std::string tiling;
  std::string kernel;
  std::string role;
  std::string origin;
  std::vector<std::string> tuple_ids;
};

struct need_mutation {
  mutation_request request;
};
struct need_diagnosis {
  diagnosis_request request;
};
struct need_retrieval {
  diagnosis query;
  uint32_t top_k = 3;
};
struct need_refinement {
  refinement_request request;
};
struct need_evaluation {
  evaluation_request request;
};
// The hooks (hooks.hpp). Each names its roles in pipeline order; the caller asks them one after
// another, each with its own state (episode_state::role_states), and hands every answer back.
struct need_annotation {
  annotation_request request;
  std::vector<std::string> roles;
};
// A gate need comes before the evaluation of every candidate but the baseline; the caller stops
// at the first veto.
struct need_gate {
  gate_request request;
  std::vector<std::string> roles;
};
// The episode's search is over: its verifiers check the best (moment final) before it is
// reported. A result's own verification (moment evaluation) is asked by the caller between the
// device and on_evaluation(): see verification_of().
struct need_verification {
  verification_request request;
  std::vector<std::string> roles;
};
struct episode_finished {};

using episode_action =
    std::variant<need_mutation, need_annotation, need_diagnosis, need_retrieval, need_refinement,
                 need_gate, need_evaluation, need_verification, episode_finished>;

// One hooked role's answer, by its name.
template <class T>
struct role_answer {
  std::string role;
  result<T> answer;
};

// Returns a fresh state for `op` under `config` (phase baseline).
episode_state initial_episode_state(const std::string& campaign, const npu::op_package& op,
                                    const episode_config& config);

// A baseline that failed transiently (npu::is_transient_failure) is evaluated again when its
// campaign resumes, instead of leaving the operator failed for good. `baseline` is the result
// of the failed state's last evaluation. Returns whether `state` went back to phase baseline.
bool reopen_transient_baseline_failure(episode_state& state, const npu::eval_result& baseline);

class episode_engine {
 public:
  // `op` must outlive the engine.
  episode_engine(const npu::op_package& op, episode_state state);

  episode_action next() const;

  // A policy that fails (an unreachable endpoint, a malformed answer) costs the step: the
  // on_*() call then returns the failed candidate's record, to persist like an evaluation's.
  // A policy answering failed_precondition has nothing to propose: the stage ends, free.
  std::optional<candidate_record> on_mutation(const result<mutation_reply>& reply,
                                              const std::string& policy);
  std::optional<candidate_record> on_diagnosis(const result<diagnosis>& diag);
  // A failed retrieval degrades to refinement without tuples.
  void on_retrieval(const result<std::vector<tuple_ref>>& tuples);
  std::optional<candidate_record> on_refinement(
      const result<std::vector<kernel_candidate>>& candidates, const std::string& policy);
  // A Stage I tiling whose program was evaluated already (Stage II evaluates its rewrites at the
  // tiling Stage I goes on from, where a mutator may come back to) is not evaluated again and
  // costs no budget: it is counted (state().rejected, "already evaluated"), the mutator's state,
  // which knows it made the proposal, is kept, and next() asks it again. After
  // max_repeated_proposals in one step Stage I has nothing new to propose and the stage ends.
  static constexpr uint32_t max_repeated_proposals = 4;
  // The verification of `result`, the device's outcome of the evaluation next() asked for:
  // nullopt when no verifier is configured. The caller asks the roles in turn, each with the
  // result the one before it left, and hands verified_result() their answers.
  std::optional<need_verification> verification_of(const npu::eval_result& result) const;
  // The result to hand on_evaluation(): the last verifier's. A verifier that failed cannot vouch
  // for the result: it becomes an infra_error naming the verifier (never cached, never accepted).
  // Keeps the verifiers' states.
  npu::eval_result verified_result(const npu::eval_result& result,
                                   const std::vector<role_answer<verification_reply>>& answers);
  // Records the outcome of the evaluation next() asked for and advances the algorithm.
  candidate_record on_evaluation(const npu::eval_result& result);
  // The verifiers' answers about the final best (need_verification). A best one of them fails, or
  // that one of them could not verify, is not reported: the reference point takes its place, and
  // the notes say why ("<verifier>_failed"); what each verifier established is noted under its
  // name.
  void on_final_verification(const std::vector<role_answer<verification_reply>>& answers);

  // The annotators' answers to need_annotation, in order. A failed annotator costs nothing: the
  // refinement goes on without its statement, and the notes say why ("annotate").
  void on_annotations(const std::vector<role_answer<annotation_reply>>& answers);
  // The gates' verdicts on need_gate's candidate, in order, up to the first heeded veto. A veto
  // costs neither an evaluation nor budget: the candidate counts as tried, is counted in
  // state().rejected ("vetoed by <gate>", a certain one "<kind> (<gate>)"), and its reason goes
  // to the proposer (the mutator's tiling history, the refiner's next request). A certain veto
  // of a tiling (the tiling probe's: the device would refuse it) enters the history under its
  // kind, from which the heuristic mutator learns the infeasible region, and the origin of the
  // step's next candidate names it. A gate that failed judges nothing. Returns whether the state
  // changed (a veto, a note, a role's state): an accepted candidate whose gates keep no state
  // need not be persisted.
  //
  // Two limits per step let a gate that vetoes everything still spend the budget and end the
  // episode: after max_gate_vetoes opinions only certain vetoes are heeded
  // (gate_request::heeds_opinions), and after max_tiling_rejections certain vetoes of tilings the
  // step's next tiling goes to the device ungated.
  bool on_gate(const std::vector<role_answer<gate_verdict>>& verdicts);
  static constexpr uint32_t max_gate_vetoes = 12;
  static constexpr uint32_t max_tiling_rejections = 12;
  // After on_evaluation(): the observers to tell, and what (nullopt: none configured).
  std::optional<observation> pending_observation() const;
  // The observers' answers (their new states), in order.
  void on_observed(const std::vector<role_answer<nlohmann::json>>& states);

  const episode_state& state() const { return state_; }
  bool finished() const;

 private:
  // Transient between two evaluations; derived again after a restart.
  struct pending {
    std::optional<evaluation_request> evaluation;
    std::string policy;
    std::optional<nlohmann::json> mutator_state;
    std::optional<std::string> mutated_tiling;  // best_of_n: T' waiting for its K'
    std::optional<diagnosis> diag;
    std::optional<std::vector<tuple_ref>> tuples;
    std::optional<std::vector<kernel_candidate>> kernels;  // untried, best first
    std::string refiner_policy;
    // Stage II explores: when every candidate from the top-k tuples was tried, it retrieves
    // again, twice as deep, while the last retrieval filled its page.
    uint32_t retrieval_depth = 1;
    size_t retrieved = 0;
    // evolve: the program this step varies; stage2: the frontier kernel Stage II refines.
    std::optional<program> parent;
    std::optional<std::vector<annotation>> annotations;  // Stage II, per parent
    bool gated = false;                                  // the pending evaluation passed the gates
  };

  void remember_trial(tiling_trial trial);
  void drop_tiling_proposal();
  void reject_repeated_proposal();
  bool gates_apply() const;
  void record_veto(const std::string& gate, const gate_verdict& verdict);
  void keep_role_state(const std::string& role, const nlohmann::json& state);

  bool would_accept(const npu::eval_result& result) const;
  bool verification_settled() const;
  void report_reference_instead();
  uint32_t stage_steps(int stage) const;
  uint32_t stage_allowance() const;
  uint32_t round_count() const;
  const std::string& source_tiling() const;
  const std::string& source_kernel() const;
  const npu::eval_result& source_result() const;
  void advance_after_step();
  void end_stage();
  void fail_repair(const std::string& why);
  std::string after_tiling_rejections() const;
  void reject_tiling(const std::string& gate, const gate_verdict& verdict);
  void drop_vetoed_tiling();
  void step_spent();
  void skip_empty_stages();
  void queue_next_kernel();
  bool retrieve_deeper();
  bool evolving() const { return state_.config.strat == strategy::evolve; }
  // Stage II alone (strategy stage2) walks its kernel frontier (kernel_frontier.hpp) instead of
  // ending when its parent's rewrites are all tried: no other stage can take the steps.
  bool walks_frontier() const { return state_.config.strat == strategy::stage2; }
  bool continue_from_frontier();
  void note_in_frontier(const evaluation_request& request, const npu::eval_result& outcome,
                        uint64_t seq, const std::optional<program>& previous_best);
  void start_evolve_step();
  void add_to_programs(const evaluation_request& request, const npu::eval_result& outcome,
                       uint64_t seq);
  void note_early_stop();
  void compose_best_of_n();
  candidate_record failed_step(const std::string& role, const std::string& policy,
                               const status& reason);
  candidate_record make_record(const evaluation_request& request, const npu::eval_result& result);
  candidate_record record_evaluation(const npu::eval_result& result);

  const npu::op_package& op_;
  episode_state state_;
  pending pending_;
  std::optional<observation> observed_;  // the last evaluation, until the observers saw it
};

}  // namespace aopt::agent
