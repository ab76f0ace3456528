#include "agent/episode/episode_state.hpp"

#include <algorithm>

#include <fmt/format.h>

namespace aopt::agent {
namespace {

template <class Enum, size_t N>
const char* enum_name(Enum value, const std::pair<Enum, const char*> (&names)[N]) {
  for (const auto& [e, name] : names) {
    if (e == value) return name;
  }
  return "unknown";
}

template <class Enum, size_t N>
bool enum_parse(const std::string& text, Enum& out,
                const std::pair<Enum, const char*> (&names)[N]) {
  for (const auto& [e, name] : names) {
    if (text == name) {
      out = e;
      return true;
    }
  }
  return false;
}

// Persistent names: do not change.
const std::pair<strategy, const char*> strategy_names[] = {
    {strategy::alternating, "alternating"}, {strategy::stage1, "stage1"},
    {strategy::stage2, "stage2"},           {strategy::best_of_n, "best_of_n"},
    {strategy::evolve, "evolve"},
};
const std::pair<episode_phase, const char*> phase_names[] = {
    {episode_phase::baseline, "baseline"},
    {episode_phase::running, "running"},
    {episode_phase::done, "done"},
    {episode_phase::failed, "failed"},
};

}  // namespace

const char* to_string(strategy s) {
  return enum_name(s, strategy_names);
}
bool parse_strategy(const std::string& text, strategy& out) {
  return enum_parse(text, out, strategy_names);
}
const char* to_string(episode_phase p) {
  return enum_name(p, phase_names);
}

void to_json(nlohmann::json& j, const episode_state& s) {
  nlohmann::json history = nlohmann::json::array();
  for (const tiling_trial& t : s.tiling_history) {
    history.push_back(
        {{"tiling", t.tiling},
         {"latency_us", t.latency_us ? nlohmann::json(*t.latency_us) : nlohmann::json()},
         {"summary", t.summary},
         {"detail", t.detail}});
  }
  nlohmann::json trajectory = nlohmann::json::array();
  for (const trajectory_point& p : s.trajectory) {
    trajectory.push_back({p.evaluation, p.best_us, p.stage});
  }
  nlohmann::json vetoes = nlohmann::json::array();
  for (const veto_note& v : s.vetoes) {
    vetoes.push_back({{"gate", v.gate}, {"origin", v.origin}, {"reason", v.reason}});
  }
  j = {
      {"state_version", episode_state_version},
      {"campaign", s.campaign},
      {"op_name", s.op_name},
      {"op_dir", s.op_dir},
      {"level", s.level},
      {"config",
       {{"strategy", to_string(s.config.strat)},
        {"budget", s.config.budget},
        {"rounds", s.config.rounds},
        {"stage1_steps", s.config.stage1_steps},
        {"stage2_steps", s.config.stage2_steps},
        {"stage2_adaptive", s.config.stage2_adaptive},
        {"top_k", s.config.top_k},
        {"seed", s.config.seed},
        {"annotators", s.config.annotators},
        {"gates", s.config.gates},
        {"verifiers", s.config.verifiers},
        {"observers", s.config.observers}}},
      {"phase", to_string(s.phase)},
      {"failure", s.failure},
      {"round", s.round},
      {"stage", s.stage},
      {"step_in_stage", s.step_in_stage},
      {"carried_steps", s.carried_steps},
      {"idle_stages", s.idle_stages},
      {"stage2_share", s.stage2_share},
      {"stage2_improved", s.stage2_improved},
      {"candidates", s.candidates},
      {"next_seq", s.next_seq},
      {"baseline_tiling", s.baseline_tiling},
      {"baseline_kernel", s.baseline_kernel},
      {"baseline_us", s.baseline_us},
      {"best_tiling", s.best_tiling},
      {"best_kernel", s.best_kernel},
      {"best_us", s.best_us},
      {"best_seq", s.best_seq},
      {"best_result", s.best_result},
      {"mutator_state", s.mutator_state},
      {"programs", s.programs},
      {"kernel_frontier", s.kernel_frontier},
      {"tiling_history", history},
      {"tried", s.tried},
      {"failures", s.failures},
      {"trajectory", trajectory},
      {"accepted_by_origin", s.accepted_by_origin},
      {"stage2_by_origin", s.stage2_by_origin},
      {"notes", s.notes},
      {"best_verified", s.best_verified},
      {"repairing", s.repairing},
      {"repaired_from", s.repaired_from},
      {"repaired_tiling", s.repaired_tiling},
      {"rejected", s.rejected},
      {"probe_rejections", s.probe_rejections},
      {"probe_rejections_in_step", s.probe_rejections_in_step},
      {"repeated_proposals", s.repeated_proposals},
      {"repeated_in_step", s.repeated_in_step},
      {"last_probe_rejection", s.last_probe_rejection},
      {"baseline_bound_us", s.baseline_bound_us},
      {"baseline_roof_fraction", s.baseline_roof_fraction},
      {"baseline_seq", s.baseline_seq},
      {"baseline_result", s.baseline_result},
      {"role_states", s.role_states},
      {"vetoes", vetoes},
      {"vetoes_in_step", s.vetoes_in_step},
  };
}

result<episode_state> episode_state_from_json(const nlohmann::json& j) {
  try {
    episode_state s;
    s.campaign = j.at("campaign").get<std::string>();
    s.op_name = j.at("op_name").get<std::string>();
    s.op_dir = j.at("op_dir").get<std::string>();
    s.level = j.at("level").get<int>();
    const nlohmann::json& c = j.at("config");
    if (!parse_strategy(c.at("strategy").get<std::string>(), s.config.strat)) {
      return invalid_argument("episode state: unknown strategy " + c.at("strategy").dump());
    }
    s.config.budget = c.at("budget").get<uint32_t>();
    s.config.rounds = c.at("rounds").get<uint32_t>();
    s.config.stage1_steps = c.at("stage1_steps").get<uint32_t>();
    s.config.stage2_steps = c.at("stage2_steps").get<uint32_t>();
    // Older states ran the fixed schedule and go on with it.
    s.config.stage2_adaptive = c.value("stage2_adaptive", false);
    s.config.top_k = c.at("top_k").get<uint32_t>();
    s.config.seed = c.at("seed").get<uint64_t>();
    s.config.annotators = c.value("annotators", std::vector<std::string>{});
    s.config.gates = c.value("gates", std::vector<std::string>{});
    const int version = j.value("state_version", 1);
    if (version > episode_state_version) {
      return invalid_argument(fmt::format(
          "episode state: written in form {} by a newer aopt; this one reads form {} and older",
          version, episode_state_version));
    }
    if (version < 2 && std::find(s.config.gates.begin(), s.config.gates.end(), "depth_screen") ==
                           s.config.gates.end()) {
      s.config.gates.insert(s.config.gates.begin(), "depth_screen");
    }
    if (version < 3 && std::find(s.config.gates.begin(), s.config.gates.end(), "tiling_probe") ==
                           s.config.gates.end()) {
      s.config.gates.push_back("tiling_probe");
    }
    s.config.verifiers = c.value("verifiers", std::vector<std::string>{});
    if (version < 4) {
      for (const char* verifier : {"improvement_confirmation", "validation"}) {
        if (std::find(s.config.verifiers.begin(), s.config.verifiers.end(), verifier) ==
            s.config.verifiers.end()) {
          s.config.verifiers.push_back(verifier);
        }
      }
    }
    s.config.observers = c.value("observers", std::vector<std::string>{});
    const std::string phase = j.at("phase").get<std::string>();
    if (!enum_parse(phase, s.phase, phase_names)) {
      return invalid_argument("episode state: unknown phase '" + phase + "'");
    }
    s.failure = j.at("failure").get<std::string>();
    s.round = j.at("round").get<uint32_t>();
    s.stage = j.at("stage").get<int>();
    s.step_in_stage = j.at("step_in_stage").get<uint32_t>();
    // Absent from states written before unspent steps were carried over.
    s.carried_steps = j.value("carried_steps", 0u);
    s.idle_stages = j.value("idle_stages", 0u);
    s.stage2_share = j.value("stage2_share", s.config.stage2_steps);
    s.stage2_improved = j.value("stage2_improved", false);
    s.candidates = j.at("candidates").get<uint32_t>();
    s.next_seq = j.at("next_seq").get<uint64_t>();
    s.baseline_tiling = j.at("baseline_tiling").get<std::string>();
    s.baseline_kernel = j.at("baseline_kernel").get<std::string>();
    s.baseline_us = j.at("baseline_us").get<double>();
    s.best_tiling = j.at("best_tiling").get<std::string>();
    s.best_kernel = j.at("best_kernel").get<std::string>();
    s.best_us = j.at("best_us").get<double>();
    s.best_seq = j.at("best_seq").get<int64_t>();
    s.best_result = j.at("best_result").get<npu::eval_result>();
    s.mutator_state = j.at("mutator_state");
    s.programs = j.value("programs", nlohmann::json());
    s.kernel_frontier = j.value("kernel_frontier", nlohmann::json());
    for (const nlohmann::json& t : j.at("tiling_history")) {
      tiling_trial trial;
      trial.tiling = t.at("tiling").get<std::string>();
      if (!t.at("latency_us").is_null()) trial.latency_us = t.at("latency_us").get<double>();
      trial.summary = t.at("summary").get<std::string>();
      trial.detail = t.value("detail", std::string());
      s.tiling_history.push_back(std::move(trial));
    }
    s.tried = j.at("tried").get<std::set<std::string>>();
    s.failures = j.at("failures").get<std::map<std::string, uint32_t>>();
    for (const nlohmann::json& p : j.at("trajectory")) {
      s.trajectory.push_back({p.at(0).get<uint32_t>(), p.at(1).get<double>(), p.at(2).get<int>()});
    }
    s.accepted_by_origin = j.at("accepted_by_origin").get<std::map<std::string, uint32_t>>();
    s.stage2_by_origin = j.value("stage2_by_origin", std::map<std::string, uint32_t>{});
    s.notes = j.value("notes", std::map<std::string, std::string>{});
    s.repairing = j.value("repairing", false);
    s.repaired_from = j.value("repaired_from", std::string());
    s.repaired_tiling = j.value("repaired_tiling", std::string());
    s.rejected = j.value("rejected", std::map<std::string, uint32_t>{});
    s.probe_rejections = j.value("probe_rejections", uint32_t{0});
    s.probe_rejections_in_step = j.value("probe_rejections_in_step", uint32_t{0});
    // Absent from states saved before a repeated proposal cost no budget.
    s.repeated_proposals = j.value("repeated_proposals", uint32_t{0});
    s.repeated_in_step = j.value("repeated_in_step", uint32_t{0});
    s.last_probe_rejection = j.value("last_probe_rejection", std::string());
    s.baseline_bound_us = j.value("baseline_bound_us", 0.0);
    s.baseline_roof_fraction = j.value("baseline_roof_fraction", 0.0);
    s.baseline_seq = j.value("baseline_seq", int64_t{-1});
    if (auto it = j.find("baseline_result"); it != j.end()) {
      s.baseline_result = it->get<npu::eval_result>();
    }
    s.role_states = j.value("role_states", std::map<std::string, nlohmann::json>{});
    s.best_verified =
        version < 4 ? s.notes.count("validation") > 0 || s.notes.count("validation_failed") > 0
                    : j.value("best_verified", false);
    for (const nlohmann::json& v : j.value("vetoes", nlohmann::json::array())) {
      s.vetoes.push_back({v.at("gate").get<std::string>(), v.at("origin").get<std::string>(),
                          v.at("reason").get<std::string>()});
    }
    s.vetoes_in_step = j.value("vetoes_in_step", uint32_t{0});
    return s;
  } catch (const nlohmann::json::exception& e) {
    return data_loss(std::string("episode state: ") + e.what());
  }
}

void to_json(nlohmann::json& j, const candidate_record& c) {
  j = {{"seq", c.seq},
       {"round", c.round},
       {"stage", c.stage},
       {"role", c.role},
       {"policy", c.policy},
       {"origin", c.origin},
       {"tuple_ids", c.tuple_ids},
       {"parent_seq", c.parent_seq},
       {"tiling", c.tiling},
       {"kernel", c.kernel},
       {"result", c.result},
       {"accepted", c.accepted},
       {"best_after_us", c.best_after_us}};
}

result<candidate_record> candidate_record_from_json(const nlohmann::json& j) {
  try {
    candidate_record c;
    c.seq = j.at("seq").get<uint64_t>();
    c.round = j.at("round").get<uint32_t>();
    c.stage = j.at("stage").get<int>();
    c.role = j.at("role").get<std::string>();
    c.policy = j.at("policy").get<std::string>();
    c.origin = j.at("origin").get<std::string>();
    c.tuple_ids = j.at("tuple_ids").get<std::vector<std::string>>();
    c.parent_seq = j.at("parent_seq").get<int64_t>();
    c.tiling = j.at("tiling").get<std::string>();
    c.kernel = j.at("kernel").get<std::string>();
    c.result = j.at("result").get<npu::eval_result>();
    c.accepted = j.at("accepted").get<bool>();
    c.best_after_us = j.at("best_after_us").get<double>();
    return c;
  } catch (const nlohmann::json::exception& e) {
    return data_loss(std::string("candidate record: ") + e.what());
  }
}

}  // namespace aopt::agent
