#include "server/campaign_views.hpp"

#include <algorithm>
#include <cctype>
#include <set>
#include <sstream>

#include "agent/episode/campaign_metrics.hpp"
#include "agent/episode/episode_state.hpp"
#include "agent/kernel_text/code_diff.hpp"

namespace aopt::server {

namespace {

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

nlohmann::json operator_summary(const agent::episode_state& s) {
  const agent::operator_outcome o = agent::outcome_of(s);
  return {{"name", s.op_name},         {"level", s.level},
          {"phase", o.phase},          {"round", s.round},
          {"stage", s.stage},          {"evaluations", s.candidates},
          {"budget", s.config.budget}, {"baseline_us", s.baseline_us},
          {"best_us", s.best_us},      {"speedup", o.speedup},
          {"failures", s.failures},    {"failure", s.failure}};
}

// The record's campaign.budget, or 0 where the record has none (one written by hand or by
// another version), so that one odd record does not break the whole list.
uint64_t budget_of(const nlohmann::json& record) {
  const auto config = record.find("config");
  if (config == record.end() || !config->is_object()) return 0;
  const auto campaign = config->find("campaign");
  if (campaign == config->end() || !campaign->is_object()) return 0;
  const auto budget = campaign->find("budget");
  if (budget == campaign->end() || !budget->is_number_unsigned()) return 0;
  return budget->get<uint64_t>();
}

nlohmann::json summarize(const std::string& id, const nlohmann::json& record,
                         const std::vector<agent::episode_state>& episodes, bool with_operators) {
  std::vector<agent::operator_outcome> outcomes;
  uint64_t used = 0;
  uint64_t finished = 0;
  for (const agent::episode_state& s : episodes) {
    outcomes.push_back(agent::outcome_of(s));
    used += s.candidates;
    if (s.phase == agent::episode_phase::done || s.phase == agent::episode_phase::failed) {
      finished++;
    }
  }
  const agent::campaign_metrics m = agent::compute_metrics(outcomes);
  const auto listed = record.find("operators");
  const size_t operators = listed != record.end() && listed->is_array() ? listed->size() : 0;
  const uint64_t budget = budget_of(record);
  // An operator that failed its baseline spends none of its budget; it counts as complete.
  uint64_t total = budget * operators;
  uint64_t effective_used = used;
  for (const agent::episode_state& s : episodes) {
    if (s.phase == agent::episode_phase::failed || s.phase == agent::episode_phase::done) {
      effective_used += budget - std::min<uint64_t>(budget, s.candidates);
    }
  }
  nlohmann::json j = {{"id", id},
                      {"status", record.value("status", "")},
                      {"strategy", record.value("strategy", "")},
                      {"created", record.value("created", "")},
                      {"updated", record.value("updated", "")},
                      {"owner", record.value("owner", "")},
                      {"budget", budget},
                      {"operators", operators},
                      {"episodes_started", episodes.size()},
                      {"episodes_finished", finished},
                      {"evaluations", used},
                      {"total_budget", total},
                      {"progress", total == 0 ? 0.0
                                              : std::min(1.0, static_cast<double>(effective_used) /
                                                                  static_cast<double>(total))},
                      {"geomean_speedup", m.geomean_speedup},
                      {"fast_p", m.fast_p},
                      {"failed_baselines", m.failed_baselines}};
  if (record.contains("error")) j["error"] = record["error"];
  if (with_operators) {
    j["operator_results"] = nlohmann::json::array();
    for (const agent::episode_state& s : episodes) {
      j["operator_results"].push_back(operator_summary(s));
    }
  }
  return j;
}

}  // namespace

result<nlohmann::json> campaign_view(const storage::store& db, const std::string& id,
                                     episode_summary_cache& cache) {
  result<nlohmann::json> record = db.get_campaign(id);
  if (!record.ok()) return record.error();
  result<std::vector<agent::episode_state>> episodes = cache.load(db, id);
  if (!episodes.ok()) return episodes.error();
  return summarize(id, *record, *episodes, true);
}

result<nlohmann::json> campaign_list_view(const storage::store& db, episode_summary_cache& cache) {
  result<std::vector<storage::keyed_value>> all = db.list_campaigns();
  if (!all.ok()) return all.error();
  nlohmann::json out = nlohmann::json::array();
  for (const storage::keyed_value& kv : *all) {
    result<std::vector<agent::episode_state>> episodes = cache.load(db, kv.key);
    if (!episodes.ok()) return episodes.error();
    out.push_back(summarize(kv.key, kv.value, *episodes, false));
  }
  return out;
}

result<nlohmann::json> operator_view(const storage::store& db, const std::string& campaign,
                                     const std::string& op) {
  if (!db.get_campaign(campaign).ok()) return not_found("no campaign " + campaign);
  result<nlohmann::json> stored = db.get_episode(campaign, op);
  if (!stored.ok()) return not_found("campaign " + campaign + " has no operator " + op);
  result<agent::episode_state> s = agent::episode_state_from_json(*stored);
  if (!s.ok()) return s.error();
  nlohmann::json j = operator_summary(*s);
  j["campaign"] = campaign;
  j["trajectory"] = nlohmann::json::array();
  for (const agent::trajectory_point& p : s->trajectory) {
    j["trajectory"].push_back(
        {{"evaluation", p.evaluation}, {"best_us", p.best_us}, {"stage", p.stage}});
  }
  result<std::vector<storage::candidate_record>> records = db.list_candidates(campaign, op);
  if (!records.ok()) return records.error();
  j["candidates"] = nlohmann::json::array();
  std::set<std::string> tuples_used;
  for (const storage::candidate_record& r : *records) {
    result<agent::candidate_record> c = agent::candidate_record_from_json(r.value);
    if (!c.ok()) return c.error().with_context("candidate " + std::to_string(r.seq));
    tuples_used.insert(c->tuple_ids.begin(), c->tuple_ids.end());
    j["candidates"].push_back({{"seq", c->seq},
                               {"round", c->round},
                               {"stage", c->stage},
                               {"role", c->role},
                               {"policy", c->policy},
                               {"origin", c->origin},
                               {"tuple_ids", c->tuple_ids},
                               {"status", npu::to_string(c->result.status)},
                               {"error_kind", c->result.error_kind},
                               {"message", c->result.message},
                               {"latency_us", c->result.latency_us},
                               {"accepted", c->accepted},
                               {"best_after_us", c->best_after_us},
                               {"from_cache", c->result.from_cache}});
  }
  j["tuples_used"] = tuples_used;
  j["baseline_tiling"] = s->baseline_tiling;
  j["baseline_kernel"] = s->baseline_kernel;
  j["best_tiling"] = s->best_tiling.empty() ? s->baseline_tiling : s->best_tiling;
  j["best_kernel"] = s->best_kernel.empty() ? s->baseline_kernel : s->best_kernel;
  agent::diff_options kernel_labels;
  kernel_labels.old_label = "baseline/kernel.cpp";
  kernel_labels.new_label = "best/kernel.cpp";
  j["kernel_diff"] =
      agent::make_unified_diff(j["baseline_kernel"], j["best_kernel"], kernel_labels);
  agent::diff_options tiling_labels;
  tiling_labels.old_label = "baseline/tiling.cpp";
  tiling_labels.new_label = "best/tiling.cpp";
  j["tiling_diff"] =
      agent::make_unified_diff(j["baseline_tiling"], j["best_tiling"], tiling_labels);
  return j;
}

result<nlohmann::json> bank_view(const storage::store& db, const std::string& query, size_t limit) {
  result<std::vector<storage::keyed_value>> all = db.list_tuples();
  if (!all.ok()) return all.error();
  std::vector<std::string> words;
  std::istringstream in(lower(query));
  for (std::string w; in >> w;) words.push_back(w);
  std::vector<std::pair<size_t, nlohmann::json>> hits;
  for (const storage::keyed_value& kv : *all) {
    const nlohmann::json& t = kv.value;
    size_t score = 0;
    if (!words.empty()) {
      std::string text = lower(t.value("title", "") + "\n" + t.value("description", "") + "\n" +
                               t.value("bottleneck", "") + "\n" + t.value("category", ""));
      if (t.contains("tags")) text += "\n" + lower(t["tags"].dump());
      for (const std::string& w : words) score += text.find(w) != std::string::npos ? 1 : 0;
      if (score == 0) continue;
    }
    nlohmann::json item = {{"id", kv.key},
                           {"title", t.value("title", "")},
                           {"category", t.value("category", "")},
                           {"bottleneck", t.value("bottleneck", "")}};
    if (!words.empty()) item["score"] = score;
    hits.emplace_back(score, std::move(item));
  }
  // Best matches first; ids (the store's order) break ties.
  std::stable_sort(hits.begin(), hits.end(),
                   [](const auto& a, const auto& b) { return a.first > b.first; });
  nlohmann::json out = {{"total", hits.size()}, {"tuples", nlohmann::json::array()}};
  for (size_t i = 0; i < hits.size() && i < limit; ++i) out["tuples"].push_back(hits[i].second);
  return out;
}

result<nlohmann::json> tuple_view(const storage::store& db, const std::string& id) {
  result<nlohmann::json> t = db.get_tuple(id);
  if (!t.ok()) return not_found("no tuple " + id + " in the experience bank");
  nlohmann::json j = *t;
  j.erase("embedding");  // large and of no use to a reader
  j["id"] = id;
  return j;
}

}  // namespace aopt::server
