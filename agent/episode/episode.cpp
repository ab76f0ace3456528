#include "agent/episode/episode.hpp"

#include <algorithm>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "agent/episode/baseline_repair.hpp"
#include "agent/motifs/motif_absence.hpp"
#include "base/content_hash.hpp"
#include "npu/kernel_unit.hpp"
#include "npu/speedup_check.hpp"
#include "npu/validation_shapes.hpp"

namespace aopt::agent {
namespace {

constexpr size_t max_tiling_history = 50;

// The optimizations Stage II tried, by the titles of the tuples retrieved (each once, in
// retrieval order, at most 6 named): its reason says what was tried, not only how many.
std::string tried_optimizations(const std::optional<std::vector<tuple_ref>>& tuples) {
  if (!tuples) return {};
  std::vector<std::string> titles;
  for (const tuple_ref& t : *tuples) {
    if (!t.tuple.is_object()) continue;
    const auto it = t.tuple.find("title");
    if (it == t.tuple.end() || !it->is_string() || it->get<std::string>().empty()) continue;
    const std::string title = it->get<std::string>();
    if (std::find(titles.begin(), titles.end(), title) == titles.end()) titles.push_back(title);
  }
  if (titles.empty()) return {};
  std::string out;
  for (size_t i = 0; i < titles.size() && i < 6; ++i) out += (i == 0 ? "" : "; ") + titles[i];
  if (titles.size() > 6) out += fmt::format("; and {} more", titles.size() - 6);
  return " (optimizations tried: " + out + ")";
}

// Which of the retrieved tuples' motifs the kernel lacks, and the structure each looked for
// (motif_absence.hpp), from the rewind rule each tuple records in its provenance.
std::string absent_motifs(const std::string& kernel,
                          const std::optional<std::vector<tuple_ref>>& tuples) {
  if (!tuples) return {};
  std::vector<std::string> rules;
  for (const tuple_ref& t : *tuples) {
    if (!t.tuple.is_object()) continue;
    const auto provenance = t.tuple.find("provenance");
    if (provenance == t.tuple.end() || !provenance->is_object()) continue;
    const auto rule = provenance->find("rule");
    if (rule != provenance->end() && rule->is_string()) rules.push_back(rule->get<std::string>());
  }
  return motif_absence(kernel, rules);
}

std::string hash_pair(const std::string& tiling, const std::string& kernel) {
  return content_hash({tiling, kernel});
}

// The stage2 kernel frontier persisted in `s`; an empty one when none was saved or the saved one
// cannot be read (the walk then starts afresh rather than failing the episode).
kernel_frontier frontier_of(const episode_state& s) {
  result<kernel_frontier> loaded = kernel_frontier::load(s.kernel_frontier);
  return loaded.ok() ? std::move(*loaded) : kernel_frontier{};
}

std::string failure_key(const npu::eval_result& r) {
  return r.error_kind.empty() ? npu::to_string(r.status) : r.error_kind;
}

}  // namespace

episode_state initial_episode_state(const std::string& campaign, const npu::op_package& op,
                                    const episode_config& config) {
  episode_state s;
  s.campaign = campaign;
  s.op_name = op.spec.name;
  s.op_dir = op.dir.string();
  s.level = op.spec.level;
  s.config = config;
  s.stage2_share = config.stage2_steps;
  s.baseline_tiling = op.host_source;
  // Stage II rewrites the kernel's code where it is: in the operator's own kernel headers too.
  s.baseline_kernel = npu::kernel_with_own_headers(op);
  return s;
}

bool reopen_transient_baseline_failure(episode_state& state, const npu::eval_result& baseline) {
  if (state.phase != episode_phase::failed || !npu::is_transient_failure(baseline)) return false;
  state.phase = episode_phase::baseline;
  state.failure.clear();
  return true;
}

episode_engine::episode_engine(const npu::op_package& op, episode_state state)
    : op_(op), state_(std::move(state)) {
  if (evolving() && state_.phase == episode_phase::running) start_evolve_step();
  if (walks_frontier() && state_.phase == episode_phase::running) {
    pending_.parent = frontier_of(state_).current();
  }
}

// The step's parent, drawn again from the database after a restart (the draw depends only on
// the seed and the step).
void episode_engine::start_evolve_step() {
  result<program_database> db = program_database::load(state_.programs);
  if (!db.ok()) {
    pending_.parent =
        program{state_.best_tiling, state_.best_kernel, state_.best_us,
                static_cast<uint64_t>(std::max<int64_t>(state_.best_seq, 0)), state_.best_result};
    return;
  }
  pending_.parent = db->select(state_.candidates, state_.config.seed);
}

// Stage II's parent has no untried rewrite left: it is refined, and the stage goes on from the
// fastest frontier kernel not yet refined (with the best's tiling). Returns whether it does.
bool episode_engine::continue_from_frontier() {
  if (!walks_frontier()) return false;
  kernel_frontier frontier = frontier_of(state_);
  frontier.mark_refined(source_tiling(), source_kernel());
  std::optional<program> next = frontier.take_next(state_.best_tiling);
  state_.kernel_frontier = frontier.save();
  if (!next) {
    state_.notes["stage2"] += fmt::format(
        "; no kernel of the frontier is left to refine ({} refined)", frontier.refined_count());
    return false;
  }
  pending_ = pending{};
  pending_.parent = std::move(next);
  return true;
}

// A correct Stage II kernel that was not faster joins the frontier; a new best sends the old
// best there (its untried rewrites remain) and Stage II back to refining the best.
void episode_engine::note_in_frontier(const evaluation_request& request,
                                      const npu::eval_result& outcome, uint64_t seq,
                                      const std::optional<program>& previous_best) {
  kernel_frontier frontier = frontier_of(state_);
  if (previous_best) {
    frontier.add(*previous_best);
    frontier.clear_current();
  } else if (outcome.ok()) {
    frontier.add(program{request.tiling, request.kernel, outcome.latency_us, seq, outcome});
  }
  state_.kernel_frontier = frontier.save();
}

void episode_engine::add_to_programs(const evaluation_request& request,
                                     const npu::eval_result& outcome, uint64_t seq) {
  program p{request.tiling, request.kernel, outcome.latency_us, seq, outcome};
  result<program_database> db = program_database::load(state_.programs);
  if (!db.ok()) {
    program_database fresh;
    fresh.seed(p);
    state_.programs = fresh.save();
    return;
  }
  db->add(db->island_of(state_.candidates), p);
  state_.programs = db->save();
}

bool episode_engine::finished() const {
  return state_.phase == episode_phase::failed ||
         (state_.phase == episode_phase::done && verification_settled());
}

// Nothing to verify: no verifiers, the best is the reference point itself, or they were asked.
bool episode_engine::verification_settled() const {
  return state_.config.verifiers.empty() || state_.best_seq == state_.baseline_seq ||
         state_.best_verified;
}

uint32_t episode_engine::round_count() const {
  return state_.config.strat == strategy::alternating ? state_.config.rounds : 1;
}

uint32_t episode_engine::stage_steps(int stage) const {
  const episode_config& c = state_.config;
  switch (c.strat) {
    case strategy::alternating: {
      // With stage2_adaptive, Stage I takes the steps Stage II's share gave up this round.
      const uint32_t share =
          c.stage2_adaptive ? std::min(state_.stage2_share, c.stage2_steps) : c.stage2_steps;
      return stage == 1 ? c.stage1_steps + (c.stage2_steps - share) : share;
    }
    case strategy::stage1:
      return stage == 1 ? c.budget : 0;
    case strategy::stage2:
      return stage == 2 ? c.budget : 0;
    case strategy::best_of_n:
    case strategy::evolve:
      return c.budget;
  }
  return 0;
}

// The current stage's planned share of its round (none after the last round) plus the steps
// the previous stage left unspent.
uint32_t episode_engine::stage_allowance() const {
  const uint32_t planned = state_.round < round_count() ? stage_steps(state_.stage) : 0;
  return planned + state_.carried_steps;
}

// best_of_n samples rewrite the baseline independently; evolve varies the step's parent; the
// other strategies refine the best.
const std::string& episode_engine::source_tiling() const {
  if (pending_.parent) return pending_.parent->tiling;
  return state_.config.strat == strategy::best_of_n ? state_.baseline_tiling : state_.best_tiling;
}
const std::string& episode_engine::source_kernel() const {
  if (pending_.parent) return pending_.parent->kernel;
  return state_.config.strat == strategy::best_of_n ? state_.baseline_kernel : state_.best_kernel;
}
const npu::eval_result& episode_engine::source_result() const {
  return pending_.parent ? pending_.parent->result : state_.best_result;
}

episode_action episode_engine::next() const {
  if (finished()) return episode_finished{};
  if (state_.phase == episode_phase::done) {
    verification_request v;
    v.campaign = state_.campaign;
    v.op = &op_;
    v.moment = verification_moment::final;
    v.role = "best";
    v.origin = fmt::format("candidate #{}", state_.best_seq);
    v.tiling = state_.best_tiling;
    v.kernel = state_.best_kernel;
    v.result = state_.best_result;
    v.would_accept = true;
    return need_verification{std::move(v), state_.config.verifiers};
  }
  if (state_.phase == episode_phase::baseline) {
    return need_evaluation{
        {state_.baseline_tiling, state_.baseline_kernel, "baseline", "baseline", {}}};
  }
  if (pending_.evaluation) {
    if (!gates_apply()) return need_evaluation{*pending_.evaluation};
    gate_request g;
    g.campaign = state_.campaign;
    g.op = &op_;
    g.role = pending_.evaluation->role;
    g.origin = pending_.evaluation->origin;
    g.tiling = pending_.evaluation->tiling;
    g.kernel = pending_.evaluation->kernel;
    g.parent_tiling = source_tiling();
    g.parent_kernel = source_kernel();
    g.parent_result = source_result();
    if (pending_.diag) g.diag = *pending_.diag;
    if (pending_.annotations) g.annotations = *pending_.annotations;
    g.heeds_opinions = state_.vetoes_in_step < max_gate_vetoes;
    return need_gate{std::move(g), state_.config.gates};
  }

  const bool best_of_n = state_.config.strat == strategy::best_of_n;
  if ((best_of_n && !pending_.mutated_tiling) || (!best_of_n && state_.stage == 1)) {
    mutation_request m;
    m.campaign = state_.campaign;
    m.op = &op_;
    m.tiling = source_tiling();
    m.kernel = source_kernel();
    m.best_latency_us = best_of_n         ? state_.baseline_us
                        : pending_.parent ? pending_.parent->latency_us
                                          : state_.best_us;
    m.repairing = state_.repairing;
    if (m.repairing) m.repair_kind = state_.repaired_from.substr(0, state_.repaired_from.find(':'));
    if (!best_of_n) m.policy_state = state_.mutator_state;
    m.history = state_.tiling_history;
    // Each proposal of the episode has its own index, also one that follows a certain rejection
    // or a repeated proposal in the same step (an LLM cache key, a seed without policy state).
    m.sample_index = state_.candidates + state_.probe_rejections + state_.repeated_proposals;
    return need_mutation{std::move(m)};
  }
  if (!state_.config.annotators.empty() && !pending_.annotations) {
    annotation_request a;
    a.campaign = state_.campaign;
    a.op = &op_;
    a.tiling = source_tiling();
    a.kernel = source_kernel();
    a.result = source_result();
    return need_annotation{std::move(a), state_.config.annotators};
  }
  if (!pending_.diag) {
    diagnosis_request d;
    d.campaign = state_.campaign;
    d.op = &op_;
    d.kernel = source_kernel();
    d.tiling = source_tiling();
    d.result = source_result();
    d.sample_index = state_.candidates;
    if (pending_.annotations) d.annotations = *pending_.annotations;
    return need_diagnosis{std::move(d)};
  }
  if (!pending_.tuples) {
    return need_retrieval{*pending_.diag, state_.config.top_k * pending_.retrieval_depth};
  }
  refinement_request r;
  r.campaign = state_.campaign;
  r.op = &op_;
  r.kernel = source_kernel();
  r.tiling = source_tiling();
  r.diag = *pending_.diag;
  r.tuples = *pending_.tuples;
  r.result = source_result();
  r.sample_index = state_.candidates;
  r.tiling_searched = stage_steps(1) > 0;
  if (pending_.annotations) r.annotations = *pending_.annotations;
  r.vetoes = state_.vetoes;
  return need_refinement{std::move(r)};
}

std::optional<candidate_record> episode_engine::on_mutation(const result<mutation_reply>& reply,
                                                            const std::string& policy) {
  if (!reply.ok()) {
    // Nothing to propose, or tunable annotations that cannot be read (the operator's fault, not
    // the policy's): the stage ends without spending budget, and the reason stays on the
    // operator. Any other error (an unusable LLM answer, an unreachable endpoint) is a failed
    // step (docs/design.md §5).
    const status_code code = reply.error().code();
    if (code == status_code::failed_precondition || code == status_code::unreadable_input) {
      state_.notes[code == status_code::unreadable_input ? "stage1_error" : "stage1"] =
          reply.error().message() +
          (state_.probe_rejections_in_step == 0
               ? std::string()
               : fmt::format(" ({} rejected before the device in the last step, the last {})",
                             state_.probe_rejections_in_step, state_.last_probe_rejection));
      end_stage();
      return std::nullopt;
    }
    return failed_step("mutator", policy, reply.error());
  }
  for (const auto& [reason, n] : reply->rejected) state_.rejected[reason] += n;
  pending_.policy = policy;
  pending_.mutator_state = reply->policy_state;
  if (state_.config.strat == strategy::best_of_n) {
    pending_.mutated_tiling = reply->tiling;
    if (pending_.kernels) compose_best_of_n();
    return std::nullopt;
  }
  if (state_.tried.count(hash_pair(reply->tiling, source_kernel())) != 0) {
    reject_repeated_proposal();
    return std::nullopt;
  }
  pending_.evaluation = evaluation_request{
      reply->tiling, source_kernel(), "mutator", reply->origin + after_tiling_rejections(), {}};
  return std::nullopt;
}

std::optional<candidate_record> episode_engine::on_diagnosis(const result<diagnosis>& diag) {
  if (!diag.ok()) {
    // Without a diagnosis there is nothing to refine: ends the stage like a refiner with nothing
    // to propose (best_of_n keeps sampling tilings with the baseline kernel).
    if (diag.error().code() == status_code::failed_precondition) {
      state_.notes["stage2"] = diag.error().message();
      pending_.kernels = std::vector<kernel_candidate>{};
      if (state_.config.strat == strategy::best_of_n) {
        if (pending_.mutated_tiling) compose_best_of_n();
      } else if (!continue_from_frontier()) {
        end_stage();
      }
      return std::nullopt;
    }
    return failed_step("diagnoser", "diagnoser", diag.error());
  }
  pending_.diag = *diag;
  return std::nullopt;
}

void episode_engine::on_retrieval(const result<std::vector<tuple_ref>>& tuples) {
  pending_.tuples = tuples.ok() ? *tuples : std::vector<tuple_ref>{};
  pending_.retrieved = pending_.tuples->size();
}

// Every candidate from the tuples retrieved so far was tried: when the last retrieval filled
// its page the bank may hold more that apply, so Stage II asks again, twice as deep (free: the
// diagnosis stays). Returns whether it did.
bool episode_engine::retrieve_deeper() {
  constexpr uint32_t max_tuples = 64;
  const uint32_t asked = state_.config.top_k * pending_.retrieval_depth;
  if (state_.config.strat == strategy::best_of_n || !pending_.diag || pending_.retrieved < asked ||
      asked * 2 > max_tuples) {
    return false;
  }
  pending_.retrieval_depth *= 2;
  pending_.tuples.reset();
  pending_.kernels.reset();
  return true;
}

std::optional<candidate_record> episode_engine::on_refinement(
    const result<std::vector<kernel_candidate>>& candidates, const std::string& policy) {
  if (!candidates.ok()) {
    if (candidates.error().code() == status_code::failed_precondition) {
      state_.notes["stage2"] = candidates.error().message();
      pending_.kernels = std::vector<kernel_candidate>{};
      if (state_.config.strat == strategy::best_of_n) {
        compose_best_of_n();
      } else if (!continue_from_frontier()) {
        end_stage();
      }
      return std::nullopt;
    }
    return failed_step("refiner", policy, candidates.error());
  }
  pending_.refiner_policy = policy;
  std::vector<kernel_candidate> untried;
  for (const kernel_candidate& c : *candidates) {
    if (state_.config.strat == strategy::best_of_n ||
        state_.tried.count(hash_pair(source_tiling(), c.kernel)) == 0) {
      untried.push_back(c);
    }
  }
  pending_.kernels = std::move(untried);
  if (pending_.kernels->empty() && state_.config.strat != strategy::best_of_n) {
    if (retrieve_deeper()) return std::nullopt;
    state_.notes["stage2"] =
        fmt::format("{} from the {} tuple(s) retrieved{}{}",
                    candidates->empty() ? "the refiner had no kernel rewrite for the diagnosis"
                                        : "every kernel rewrite of the refiner was already tried",
                    pending_.retrieved, tried_optimizations(pending_.tuples),
                    absent_motifs(source_kernel(), pending_.tuples));
    // Nothing to queue: the stage goes on from the frontier or ends with this reason (not with
    // queue_next_kernel's "every rewrite was tried", which would hide that there was none).
    if (!continue_from_frontier()) end_stage();
    return std::nullopt;
  }
  if (state_.config.strat == strategy::best_of_n) {
    if (pending_.mutated_tiling) compose_best_of_n();
    return std::nullopt;
  }
  queue_next_kernel();
  return std::nullopt;
}

// best_of_n pairs sample n's mutated tiling with the n-th refinement of the baseline kernel (the
// baseline kernel itself when the refiner has nothing).
void episode_engine::compose_best_of_n() {
  const std::vector<kernel_candidate>& kernels = *pending_.kernels;
  evaluation_request e{*pending_.mutated_tiling, state_.baseline_kernel, "best_of_n", "sample", {}};
  if (!kernels.empty()) {
    const kernel_candidate& k = kernels[state_.candidates % kernels.size()];
    e.kernel = k.kernel;
    e.origin = "sample+" + k.origin;
    e.tuple_ids = k.tuple_ids;
  }
  e.origin += after_tiling_rejections();
  pending_.evaluation = std::move(e);
}

void episode_engine::queue_next_kernel() {
  std::vector<kernel_candidate>& kernels = *pending_.kernels;
  if (kernels.empty()) {
    if (retrieve_deeper()) return;
    if (state_.config.strat != strategy::best_of_n) {
      state_.notes["stage2"] = fmt::format(
          "every kernel rewrite the refiner proposed from the {} tuple(s) retrieved was tried{}{}",
          pending_.retrieved, tried_optimizations(pending_.tuples),
          absent_motifs(source_kernel(), pending_.tuples));
    }
    if (continue_from_frontier()) return;
    end_stage();
    return;
  }
  kernel_candidate next = std::move(kernels.front());
  kernels.erase(kernels.begin());
  pending_.policy = pending_.refiner_policy;
  pending_.evaluation = evaluation_request{source_tiling(), std::move(next.kernel), "refiner",
                                           std::move(next.origin), std::move(next.tuple_ids)};
}

candidate_record episode_engine::make_record(const evaluation_request& request,
                                             const npu::eval_result& result) {
  candidate_record c;
  c.seq = state_.next_seq++;
  c.round = state_.round;
  c.stage = request.role == "baseline" ? 0 : state_.stage;
  c.role = request.role;
  c.policy = pending_.policy;
  c.origin = request.origin;
  c.tuple_ids = request.tuple_ids;
  c.parent_seq = pending_.parent ? static_cast<int64_t>(pending_.parent->seq) : state_.best_seq;
  c.tiling = request.tiling;
  c.kernel = request.kernel;
  c.result = result;
  return c;
}

candidate_record episode_engine::failed_step(const std::string& role, const std::string& policy,
                                             const status& reason) {
  npu::eval_result r;
  r.status = npu::eval_status::infra_error;
  r.error_kind = "policy_failure";
  r.message = role + " (" + policy + "): " + reason.to_string();
  pending_.policy = policy;
  candidate_record c = make_record({source_tiling(), source_kernel(), role, "failed", {}}, r);
  state_.failures["policy_failure"]++;
  state_.trajectory.push_back({state_.candidates + 1, state_.best_us, state_.stage});
  c.best_after_us = state_.best_us;
  pending_ = pending{};
  step_spent();
  advance_after_step();
  return c;
}

bool episode_engine::would_accept(const npu::eval_result& result) const {
  if (state_.phase != episode_phase::running || !pending_.evaluation || !result.ok()) return false;
  return state_.repairing || npu::improves_on(result, state_.best_us);
}

std::optional<need_verification> episode_engine::verification_of(
    const npu::eval_result& result) const {
  if (state_.config.verifiers.empty()) return std::nullopt;
  verification_request v;
  v.campaign = state_.campaign;
  v.op = &op_;
  v.moment = verification_moment::evaluation;
  if (state_.phase == episode_phase::baseline) {
    v.role = v.origin = "baseline";
    v.tiling = state_.baseline_tiling;
    v.kernel = state_.baseline_kernel;
  } else if (pending_.evaluation) {
    v.role = pending_.evaluation->role;
    v.origin = pending_.evaluation->origin;
    v.tiling = pending_.evaluation->tiling;
    v.kernel = pending_.evaluation->kernel;
  }
  v.result = result;
  v.would_accept = would_accept(result);
  return need_verification{std::move(v), state_.config.verifiers};
}

npu::eval_result episode_engine::verified_result(
    const npu::eval_result& result, const std::vector<role_answer<verification_reply>>& answers) {
  npu::eval_result out = result;
  for (const role_answer<verification_reply>& a : answers) {
    if (!a.answer.ok()) {
      npu::eval_result failed;
      failed.status = npu::eval_status::infra_error;
      failed.error_kind = "verifier_failure";
      failed.message = fmt::format("{} could not verify the result ({}): {}", a.role,
                                   npu::describe_outcome(out), a.answer.error().to_string());
      return failed;
    }
    keep_role_state(a.role, a.answer->role_state);
    out = a.answer->result;
  }
  return out;
}

void episode_engine::on_final_verification(
    const std::vector<role_answer<verification_reply>>& answers) {
  state_.best_verified = true;
  for (const role_answer<verification_reply>& a : answers) {
    if (!a.answer.ok()) {
      state_.notes[a.role + "_failed"] = fmt::format(
          "the best (candidate #{}, {:g} us) could not be verified by {}: {}; the reference "
          "({:g} us) is reported instead",
          state_.best_seq, state_.best_us, a.role, a.answer.error().to_string(),
          state_.baseline_us);
      report_reference_instead();
      return;
    }
    keep_role_state(a.role, a.answer->role_state);
    if (!a.answer->result.ok()) {
      state_.notes[a.role + "_failed"] = fmt::format(
          "the best (candidate #{}, {:g} us) failed {}; the reference ({:g} us) is "
          "reported instead",
          state_.best_seq, state_.best_us, a.answer->result.message, state_.baseline_us);
      report_reference_instead();
      return;
    }
    if (!a.answer->note.empty()) state_.notes[a.role] = a.answer->note;
  }
}

// The best failed a verifier (the notes say which, and why): the reference point is reported.
void episode_engine::report_reference_instead() {
  state_.best_tiling =
      state_.repaired_tiling.empty() ? state_.baseline_tiling : state_.repaired_tiling;
  state_.best_kernel = state_.baseline_kernel;
  state_.best_us = state_.baseline_us;
  state_.best_seq = state_.baseline_seq;
  state_.best_result = state_.baseline_result;
  state_.trajectory.push_back({state_.candidates, state_.best_us, 0});
}

candidate_record episode_engine::on_evaluation(const npu::eval_result& result) {
  candidate_record c = record_evaluation(result);
  if (!state_.config.observers.empty()) {
    observation o;
    o.campaign = state_.campaign;
    o.op = &op_;
    o.role = c.role;
    o.origin = c.origin;
    o.tiling = c.tiling;
    o.kernel = c.kernel;
    o.result = c.result;
    o.accepted = c.accepted;
    o.best_us = state_.best_us;
    observed_ = std::move(o);
  }
  return c;
}

candidate_record episode_engine::record_evaluation(const npu::eval_result& result) {
  if (state_.phase == episode_phase::baseline) {
    evaluation_request baseline{
        state_.baseline_tiling, state_.baseline_kernel, "baseline", "baseline", {}};
    pending_.policy = "baseline";
    candidate_record c = make_record(baseline, result);
    state_.tried.insert(hash_pair(state_.baseline_tiling, state_.baseline_kernel));
    if (!result.ok()) {
      state_.failure =
          "baseline " + std::string(npu::to_string(result.status)) + ": " + result.message;
      const bool stage1_runs = state_.config.strat == strategy::alternating
                                   ? state_.config.stage1_steps > 0
                                   : state_.config.strat == strategy::stage1;
      if (tiling_may_fix(result) && stage1_runs && state_.config.budget > 0) {
        // Stage I searches a feasible tiling first; the first one becomes the reference.
        state_.repairing = true;
        state_.repaired_from = result.error_kind + ": " + result.message;
        state_.phase = episode_phase::running;
        state_.stage = 1;
        state_.best_tiling = state_.baseline_tiling;
        state_.best_kernel = state_.baseline_kernel;
        state_.best_result = result;
        return c;
      }
      state_.phase = episode_phase::failed;
      return c;
    }
    c.accepted = true;
    state_.baseline_seq = static_cast<int64_t>(c.seq);
    state_.baseline_result = result;
    state_.baseline_bound_us = result.roof.bound_us;
    state_.baseline_roof_fraction = result.roof.achieved_fraction;
    state_.baseline_us = state_.best_us = c.best_after_us = result.latency_us;
    state_.best_tiling = state_.baseline_tiling;
    state_.best_kernel = state_.baseline_kernel;
    state_.best_seq = static_cast<int64_t>(c.seq);
    state_.best_result = result;
    state_.trajectory.push_back({0, result.latency_us, 0});
    state_.phase = episode_phase::running;
    if (state_.config.budget == 0) {
      state_.phase = episode_phase::done;
    } else if (evolving()) {
      add_to_programs(baseline, result, c.seq);
      start_evolve_step();
    } else {
      skip_empty_stages();
    }
    return c;
  }

  const evaluation_request request = *pending_.evaluation;
  candidate_record c = make_record(request, result);
  state_.tried.insert(hash_pair(request.tiling, request.kernel));
  step_spent();
  const bool repaired = state_.repairing && result.ok();
  const bool faster = result.ok() && (repaired || npu::improves_on(result, state_.best_us));
  if (!result.ok()) state_.failures[failure_key(result)]++;
  if (request.role == "refiner") state_.stage2_by_origin[request.origin]++;
  std::optional<program> previous_best;
  if (walks_frontier() && faster) {
    previous_best =
        program{state_.best_tiling, state_.best_kernel, state_.best_us,
                static_cast<uint64_t>(std::max<int64_t>(state_.best_seq, 0)), state_.best_result};
  }
  if (repaired) {
    // The first feasible tiling is the reference point the rest of the episode improves on.
    state_.repairing = false;
    state_.failure.clear();
    state_.baseline_us = result.latency_us;
    state_.repaired_tiling = request.tiling;
    state_.baseline_seq = static_cast<int64_t>(c.seq);
    state_.baseline_result = result;
    state_.baseline_bound_us = result.roof.bound_us;
    state_.baseline_roof_fraction = result.roof.achieved_fraction;
    state_.step_in_stage = 0;
    state_.trajectory.push_back({state_.candidates, result.latency_us, 0});
  }
  if (faster) {
    c.accepted = true;
    // Only alternating reads it, when its round ends (end_stage).
    if (state_.stage == 2 && state_.config.strat == strategy::alternating) {
      state_.stage2_improved = true;
    }
    // Issue 17: a speedup the profile does not explain is kept but flagged in the record.
    if (auto why = npu::unexplained_speedup(state_.best_result, result)) {
      c.result.diagnostics.push_back("suspicious speedup: " + *why);
    }
    state_.best_tiling = request.tiling;
    state_.best_kernel = request.kernel;
    state_.best_us = result.latency_us;
    state_.best_seq = static_cast<int64_t>(c.seq);
    state_.best_result = result;
    if (!repaired) {
      state_.accepted_by_origin[request.role == "mutator" ? "mutator" : request.origin]++;
    }
  }
  c.best_after_us = state_.best_us;
  if (pending_.mutator_state) state_.mutator_state = *pending_.mutator_state;
  if (request.role != "refiner") {
    remember_trial({request.tiling,
                    result.ok() ? std::optional<double>(result.latency_us) : std::nullopt,
                    result.ok() ? request.origin : failure_key(result)});
  }
  state_.trajectory.push_back({state_.candidates + 1, state_.best_us, state_.stage});

  if (evolving()) {
    if (result.ok()) add_to_programs(request, result, c.seq);
    pending_ = pending{};
    advance_after_step();
    return c;
  }
  pending_.evaluation.reset();
  pending_.mutator_state.reset();
  pending_.mutated_tiling.reset();
  if (state_.config.strat == strategy::stage1 || state_.stage == 1 ||
      state_.config.strat == strategy::best_of_n) {
    if (state_.config.strat != strategy::best_of_n) pending_ = pending{};
    advance_after_step();
    return c;
  }
  if (walks_frontier()) note_in_frontier(request, result, c.seq, previous_best);
  // Stage II: a new best needs a new diagnosis; otherwise try the next candidate of the list.
  const int stage_before = state_.stage;
  const uint32_t round_before = state_.round;
  if (faster) pending_ = pending{};
  advance_after_step();
  if (!finished() && state_.stage == stage_before && state_.round == round_before &&
      pending_.kernels) {
    queue_next_kernel();
  }
  return c;
}

void episode_engine::advance_after_step() {
  state_.candidates++;
  state_.step_in_stage++;
  if (state_.candidates >= state_.config.budget) {
    state_.phase = episode_phase::done;
    if (state_.repairing) fail_repair("the budget ran out");
    return;
  }
  if (evolving()) {
    // Even steps vary T, odd steps K, each from a parent drawn afresh.
    state_.idle_stages = 0;
    state_.stage = state_.candidates % 2 == 0 ? 1 : 2;
    start_evolve_step();
    return;
  }
  // A repair keeps Stage I going until a tiling is feasible (or the budget is spent).
  if (state_.step_in_stage >= stage_allowance() && !state_.repairing) end_stage();
}

// What the origin of a candidate proposed after certain rejections of tilings in its step says
// about them.
std::string episode_engine::after_tiling_rejections() const {
  if (state_.probe_rejections_in_step == 0) return "";
  return fmt::format(" (after {} rejected before the device, the last {})",
                     state_.probe_rejections_in_step, state_.last_probe_rejection);
}

void episode_engine::step_spent() {
  state_.vetoes_in_step = 0;
  state_.probe_rejections_in_step = 0;
  state_.last_probe_rejection.clear();
  state_.repeated_in_step = 0;
}

void episode_engine::reject_repeated_proposal() {
  state_.rejected["already evaluated"]++;
  state_.repeated_proposals++;
  drop_tiling_proposal();
  if (++state_.repeated_in_step < max_repeated_proposals) return;
  state_.notes["stage1"] = fmt::format(
      "the mutator proposed only tilings already evaluated with this kernel ({} in a row)",
      state_.repeated_in_step);
  end_stage();
}

void episode_engine::remember_trial(tiling_trial trial) {
  state_.tiling_history.push_back(std::move(trial));
  if (state_.tiling_history.size() > max_tiling_history) {
    state_.tiling_history.erase(state_.tiling_history.begin());
  }
}

// A tiling the gates vetoed with certainty: counted with its kind, and its kind is the mutator's
// feedback (the heuristic mutator learns the infeasible region from it, the LLM reads why).
void episode_engine::reject_tiling(const std::string& gate, const gate_verdict& verdict) {
  const std::string kind = verdict.kind.empty() ? "vetoed" : verdict.kind;
  state_.rejected[kind + " (" + gate + ")"]++;
  state_.probe_rejections++;
  state_.probe_rejections_in_step++;
  state_.last_probe_rejection = "by " + gate + " for " + kind + ": " + verdict.reason;
  remember_trial({pending_.evaluation->tiling, std::nullopt, kind,
                  "rejected by " + gate + " before the device: " + verdict.reason});
  drop_vetoed_tiling();
}

// A tiling the gates vetoed leaves what drop_tiling_proposal() keeps; evolve also keeps the step's
// parent, so that the step goes on from it, as a resumed episode, which draws it again, does.
void episode_engine::drop_vetoed_tiling() {
  pending_.gated = false;
  std::optional<program> parent = pending_.parent;
  drop_tiling_proposal();
  if (evolving()) pending_.parent = std::move(parent);
}

// A tiling rejected before the device (by a gate or as a repeated proposal) leaves nothing pending
// but what best_of_n keeps: its refined kernels, for the next sample.
void episode_engine::drop_tiling_proposal() {
  // The policy state that produced the proposal is kept: it knows the proposal was made.
  if (pending_.mutator_state) state_.mutator_state = *pending_.mutator_state;
  pending_.evaluation.reset();
  pending_.mutator_state.reset();
  pending_.mutated_tiling.reset();
  if (state_.config.strat != strategy::best_of_n) pending_ = pending{};
}

void episode_engine::fail_repair(const std::string& why) {
  state_.repairing = false;
  state_.phase = episode_phase::failed;
  state_.failure += "; repair found no feasible tiling in " + std::to_string(state_.candidates) +
                    " candidates (" + why + ")";
}

// A stage ends when it spent its allowance or when its policy has nothing more to propose. In
// the second case, alternating hands the unspent steps to the other stage (after the last
// round, to one more stage), so that the budget is spent on evaluations as long as either
// stage can propose something.
void episode_engine::end_stage() {
  step_spent();
  if (state_.repairing) {
    pending_ = pending{};
    fail_repair("Stage I had nothing more to propose");
    return;
  }
  if (evolving()) {
    pending_ = pending{};
    state_.step_in_stage = 0;
    // The step's own part had nothing to propose: the other part of the same parent is varied
    // instead; when neither has anything the evolution is over.
    if (++state_.idle_stages >= 2) {
      state_.phase = episode_phase::done;
      note_early_stop();
      return;
    }
    state_.stage = state_.stage == 1 ? 2 : 1;
    start_evolve_step();
    return;
  }
  const bool best_of_n = state_.config.strat == strategy::best_of_n;
  const uint32_t allowance = stage_allowance();
  const uint32_t unspent = allowance > state_.step_in_stage ? allowance - state_.step_in_stage : 0;
  state_.idle_stages = state_.step_in_stage == 0 ? state_.idle_stages + 1 : 0;
  pending_ = pending{};
  state_.step_in_stage = 0;
  if (best_of_n) {
    state_.phase = episode_phase::done;
    note_early_stop();
    return;
  }
  const bool both_stages = state_.config.strat == strategy::alternating &&
                           state_.config.stage1_steps > 0 && state_.config.stage2_steps > 0;
  state_.carried_steps = both_stages ? unspent : 0;
  if (state_.stage == 1) {
    state_.stage = 2;
  } else {
    state_.stage = 1;
    state_.round++;
    if (both_stages && state_.config.stage2_adaptive) {
      // A round in which Stage II found nothing faster halves its next share (one step stays, so
      // a kernel rewrite a new tiling made worthwhile is still found); a round in which it
      // improved the best restores S.
      const uint32_t before = state_.stage2_share;
      state_.stage2_share = state_.stage2_improved ? state_.config.stage2_steps
                                                   : std::max(1u, state_.stage2_share / 2);
      if (state_.stage2_share != before && state_.round < round_count()) {
        state_.notes["stage2_share"] = fmt::format(
            "Stage II {} in round {}, so round {} gives it {} of {} steps",
            state_.stage2_improved ? "improved the best" : "found nothing faster", state_.round,
            state_.round + 1, state_.stage2_share, state_.config.stage2_steps);
      }
    }
    state_.stage2_improved = false;
  }
  if (state_.idle_stages >= 2 || (state_.round >= round_count() && state_.carried_steps == 0)) {
    state_.phase = episode_phase::done;
    note_early_stop();
    return;
  }
  skip_empty_stages();
}

// A strategy that ends before its budget says so, with the stages' reasons.
void episode_engine::note_early_stop() {
  if (state_.candidates >= state_.config.budget) return;
  std::string why;
  for (const char* key : {"stage1", "stage1_error", "stage2"}) {
    auto it = state_.notes.find(key);
    if (it != state_.notes.end())
      why += fmt::format("{}{}: {}", why.empty() ? "" : "; ", key, it->second);
  }
  state_.notes["early_stop"] =
      fmt::format("{} stopped after {} of {} evaluations: nothing untried remained{}",
                  to_string(state_.config.strat), state_.candidates, state_.config.budget,
                  why.empty() ? std::string() : " (" + why + ")");
}

void episode_engine::skip_empty_stages() {
  if (state_.config.strat == strategy::best_of_n || evolving()) return;
  if (stage_steps(1) == 0 && stage_steps(2) == 0) {
    state_.phase = episode_phase::done;
    return;
  }
  while (state_.phase == episode_phase::running && stage_steps(state_.stage) == 0) {
    if (state_.stage == 1) {
      state_.stage = 2;
    } else {
      state_.stage = 1;
      if (++state_.round >= round_count()) state_.phase = episode_phase::done;
    }
  }
}

bool episode_engine::gates_apply() const {
  if (state_.config.gates.empty() || !pending_.evaluation || pending_.gated) return false;
  return pending_.evaluation->role == "refiner" ||
         state_.probe_rejections_in_step < max_tiling_rejections;
}

void episode_engine::keep_role_state(const std::string& role, const nlohmann::json& state) {
  if (state.is_null()) return;
  state_.role_states[role] = state;
}

void episode_engine::on_annotations(const std::vector<role_answer<annotation_reply>>& answers) {
  std::vector<annotation> notes;
  for (const role_answer<annotation_reply>& a : answers) {
    if (!a.answer.ok()) {
      state_.notes["annotate"] = fmt::format("{} failed, its statement is missing: {}", a.role,
                                             a.answer.error().to_string());
      continue;
    }
    keep_role_state(a.role, a.answer->role_state);
    annotation note = a.answer->note;
    note.role = a.role;
    if (!note.text.empty()) notes.push_back(std::move(note));
  }
  pending_.annotations = std::move(notes);
}

bool episode_engine::on_gate(const std::vector<role_answer<gate_verdict>>& verdicts) {
  if (!gates_apply()) return false;
  const bool heeds_opinions = state_.vetoes_in_step < max_gate_vetoes;
  bool changed = false;
  for (const role_answer<gate_verdict>& v : verdicts) {
    if (!v.answer.ok()) {
      state_.notes["gate_error"] =
          fmt::format("{} failed and judged nothing: {}", v.role, v.answer.error().to_string());
      changed = true;
      continue;
    }
    if (!v.answer->role_state.is_null()) {
      keep_role_state(v.role, v.answer->role_state);
      changed = true;
    }
    if (v.answer->veto && (v.answer->certain || heeds_opinions)) {
      record_veto(v.role, *v.answer);
      return true;
    }
  }
  pending_.gated = true;
  return changed;
}

void episode_engine::record_veto(const std::string& gate, const gate_verdict& verdict) {
  constexpr size_t max_vetoes_kept = 16;
  const evaluation_request request = *pending_.evaluation;
  const std::string& reason = verdict.reason;
  const bool rewrite = request.role == "refiner";
  if (!rewrite && verdict.certain) return reject_tiling(gate, verdict);
  if (verdict.certain) {
    state_.rejected[(verdict.kind.empty() ? "vetoed" : verdict.kind) + " (" + gate + ")"]++;
  } else {
    state_.rejected["vetoed by " + gate]++;
    state_.vetoes_in_step++;
    state_.notes["gates"] =
        fmt::format("{} vetoed {} before the device, the last ({}): {}", gate,
                    rewrite ? "kernel rewrites" : "tilings", request.origin, reason);
  }
  pending_.evaluation.reset();
  pending_.gated = false;
  if (rewrite) {
    // The refiner hears of it in its next request; the rewrite is not proposed again.
    state_.tried.insert(hash_pair(request.tiling, request.kernel));
    state_.vetoes.push_back({gate, request.origin, reason});
    if (state_.vetoes.size() > max_vetoes_kept) state_.vetoes.erase(state_.vetoes.begin());
    queue_next_kernel();
    return;
  }
  // A tiling vetoed by an opinion: the mutator hears of it.
  remember_trial({request.tiling, std::nullopt, "vetoed",
                  "vetoed by " + gate + " before the device: " + reason});
  drop_vetoed_tiling();
}

std::optional<observation> episode_engine::pending_observation() const {
  return observed_;
}

void episode_engine::on_observed(const std::vector<role_answer<nlohmann::json>>& states) {
  for (const role_answer<nlohmann::json>& s : states) {
    if (!s.answer.ok()) {
      state_.notes["observe"] =
          fmt::format("{} failed to observe: {}", s.role, s.answer.error().to_string());
      continue;
    }
    keep_role_state(s.role, *s.answer);
  }
  observed_.reset();
}

}  // namespace aopt::agent
