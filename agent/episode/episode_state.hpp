// The persisted state of one operator's episode (Algorithm 1) and of each candidate it tried.
//
// Both are stored as JSON in RocksDB (episodes and candidates column families): do not rename
// JSON keys or enum strings without a storage migration.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "agent/episode/roles.hpp"
#include "base/status.hpp"
#include "npu/protocol/eval_result.hpp"

namespace aopt::agent {

// How the evaluation budget is spent (docs/design.md §9). Every strategy counts one candidate as
// one unit of budget.
enum class strategy { alternating, stage1, stage2, best_of_n, evolve };
const char* to_string(strategy s);
bool parse_strategy(const std::string& text, strategy& out);

struct episode_config {
  strategy strat = strategy::alternating;
  uint32_t budget = 40;       // candidates per operator, the baseline evaluation excluded
  uint32_t rounds = 4;        // R
  uint32_t stage1_steps = 5;  // U per round
  uint32_t stage2_steps = 5;  // S per round
  // Alternating: Stage II's share of a round halves after a round in which it did not improve
  // the best and returns to S after one in which it did; Stage I takes the difference.
  bool stage2_adaptive = true;
  uint32_t top_k = 3;  // tuples retrieved per diagnosis
  uint64_t seed = 1;
  // The hooked roles (hooks.hpp) by hook, each list in pipeline order ([pipeline] annotators,
  // gates, verifiers, observers); empty lists ask nothing.
  std::vector<std::string> annotators = {};
  std::vector<std::string> gates = {};
  std::vector<std::string> verifiers = {};
  std::vector<std::string> observers = {};
};

enum class episode_phase { baseline, running, done, failed };
const char* to_string(episode_phase p);

// One point of the best-latency trajectory (the paper's Fig. 4).
struct trajectory_point {
  uint32_t evaluation = 0;  // candidates evaluated so far (0 = baseline)
  double best_us = 0;
  int stage = 0;  // stage of the candidate (0 = baseline)
};

struct episode_state {
  std::string campaign;
  std::string op_name;
  std::string op_dir;
  int level = 1;
  episode_config config;
  episode_phase phase = episode_phase::baseline;
  std::string failure;  // why the baseline failed

  uint32_t round = 0;  // 0-based
  int stage = 1;       // 1 = tiling, 2 = kernel
  uint32_t step_in_stage = 0;
  // Steps the previous stage left unspent because its policy had nothing more to propose;
  // the current stage may spend them on top of its own (alternating only).
  uint32_t carried_steps = 0;
  // Consecutive stages that ended without spending a step: two mean neither policy has
  // anything left, and the episode ends.
  uint32_t idle_stages = 0;
  // Alternating with stage2_adaptive: Stage II's planned steps in the current round (the
  // configured S at first), and whether Stage II improved the best in this round.
  uint32_t stage2_share = 0;
  bool stage2_improved = false;
  uint32_t candidates = 0;  // budget used
  uint64_t next_seq = 0;

  std::string baseline_tiling, baseline_kernel;
  double baseline_us = 0;
  std::string best_tiling, best_kernel;
  double best_us = 0;
  int64_t best_seq = -1;
  npu::eval_result best_result;

  nlohmann::json mutator_state;    // owned by the mutator policy
  nlohmann::json programs;         // evolve: its program database (program_database.hpp)
  nlohmann::json kernel_frontier;  // strategy stage2: its kernel frontier (kernel_frontier.hpp)
  std::vector<tiling_trial> tiling_history;  // most recent last, bounded
  std::set<std::string> tried;               // content hashes of (T, K) pairs tried
  std::map<std::string, uint32_t> failures;  // by status or error kind
  std::vector<trajectory_point> trajectory;
  std::map<std::string, uint32_t> accepted_by_origin;  // which roles/tuples produced speedups
  // Stage II candidates evaluated, by origin (the motifs or tuples the refiner applied), accepted
  // or not: what Stage II tried on the operator (issue 35; absent from older states).
  std::map<std::string, uint32_t> stage2_by_origin;

  // Why operators end as they do (issue 16; all absent from older states).
  // Why a stage ended without spending its steps: "stage1", "stage2"; "stage1_error": the
  // tiling's tunable annotations could not be read (file, line, what was expected);
  // "<verifier>": what a verifier established about the final best ("validation": it passed
  // op.json's validation shapes); "<verifier>_failed": the best failed it (which check, how) and
  // the reference point is reported instead.
  std::map<std::string, std::string> notes;
  // The verifiers (hooks.hpp) were asked about the final best: the episode can finish.
  bool best_verified = false;
  // Baseline repair: the baseline failed with a status a tiling can fix and Stage I searches a
  // feasible tiling; the first one becomes the reference (baseline_us). repaired_from keeps the
  // failure ("ub_overflow: ...") once repair started.
  bool repairing = false;
  std::string repaired_from;
  std::string repaired_tiling;  // the repaired reference's tiling (its kernel is the baseline's)
  // Candidates rejected before the device, by reason (they cost no evaluation).
  std::map<std::string, uint32_t> rejected;
  // Stage I tilings a gate vetoed with certainty, the tiling probe's infeasible ones (also
  // counted in `rejected` as "<kind> (<gate>)"): in the whole episode, since the last step was
  // spent, and the last one's kind, gate and reason.
  uint32_t probe_rejections = 0;
  uint32_t probe_rejections_in_step = 0;
  std::string last_probe_rejection;
  // Stage I tilings whose program was evaluated already (counted in `rejected` as "already
  // evaluated"): in the whole episode and since the last step was spent.
  uint32_t repeated_proposals = 0;
  uint32_t repeated_in_step = 0;
  // The baseline's (or repaired reference's) roofline: bound and achieved fraction.
  double baseline_bound_us = 0;
  double baseline_roof_fraction = 0;
  // The reference point's candidate and result (the baseline, or the repaired tiling): what is
  // reported when the best fails a validation shape (issue 17; absent from older states).
  int64_t baseline_seq = -1;
  npu::eval_result baseline_result;
  // What each hooked role (hooks.hpp) remembers between its calls, by role name.
  std::map<std::string, nlohmann::json> role_states;
  // The latest rewrites the gates vetoed (bounded, oldest first): the refiner hears of them.
  std::vector<veto_note> vetoes;
  // Opinions the gates vetoed with since the last step was spent (certain vetoes not counted).
  uint32_t vetoes_in_step = 0;
};

// The form of episode_state's JSON, written as "state_version" (absent: 1). Reading an older
// form brings it to this one:
//   2  the depth screen, which the engine ran ahead of the gates, is the gate "depth_screen"
//      (agent/roles/depth_screen_role.cpp): a state of version 1 gains it first in its gates.
//   3  the tiling probe, which the episode actor ran after the gates, is the gate "tiling_probe"
//      (agent/roles/tiling_probe_role.cpp): a state of version 2 or older gains it last.
//   4  the confirmation of an improvement and the validation of the final best, which the episode
//      actor ran, are the verifiers "improvement_confirmation" and "validation"
//      (agent/roles/improvement_confirmation_role.cpp, validation_role.cpp): a state of version 3
//      or older gains both, and its best counts as verified when its notes hold the validation's.
inline constexpr int episode_state_version = 4;

void to_json(nlohmann::json& j, const episode_state& s);
result<episode_state> episode_state_from_json(const nlohmann::json& j);

// What the episode tried, persisted with the episode transition that followed it.
struct candidate_record {
  uint64_t seq = 0;
  uint32_t round = 0;
  int stage = 0;       // 0 = baseline
  std::string role;    // "baseline", "mutator", "refiner", "best_of_n"
  std::string policy;  // e.g. "heuristic-mutator", "llm"
  std::string origin;
  std::vector<std::string> tuple_ids;
  int64_t parent_seq = -1;  // the best candidate it was derived from
  std::string tiling;
  std::string kernel;
  npu::eval_result result;
  bool accepted = false;
  double best_after_us = 0;
};

void to_json(nlohmann::json& j, const candidate_record& c);
result<candidate_record> candidate_record_from_json(const nlohmann::json& j);

}  // namespace aopt::agent
