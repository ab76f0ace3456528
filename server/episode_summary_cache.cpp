#include "server/episode_summary_cache.hpp"

#include "base/content_hash.hpp"

namespace aopt::server {
namespace {

agent::episode_state without_bulk(agent::episode_state s) {
  s.baseline_tiling.clear();
  s.baseline_kernel.clear();
  s.best_tiling.clear();
  s.best_kernel.clear();
  s.mutator_state = nullptr;
  s.tiling_history.clear();
  s.tried.clear();
  return s;
}

}  // namespace

result<std::vector<agent::episode_state>> episode_summary_cache::load(const storage::store& db,
                                                                      const std::string& campaign) {
  result<std::vector<std::pair<std::string, std::string>>> stored = db.list_episode_texts(campaign);
  if (!stored.ok()) return stored.error();
  std::vector<agent::episode_state> out;
  for (const auto& [op, text] : *stored) {
    const std::string key = campaign + "/" + op;
    const std::string hash = content_hash({text});
    {
      std::lock_guard<std::mutex> lock(mutex_);
      auto it = entries_.find(key);
      if (it != entries_.end() && it->second.text_hash == hash) {
        out.push_back(*it->second.state);
        continue;
      }
    }
    const nlohmann::json j = nlohmann::json::parse(text, nullptr, false);
    if (j.is_discarded())
      return data_loss("campaign " + campaign + ", episode " + op + ": stored state is no JSON");
    result<agent::episode_state> state = agent::episode_state_from_json(j);
    if (!state.ok()) return state.error().with_context("campaign " + campaign + ", episode " + op);
    auto slim = std::make_shared<const agent::episode_state>(without_bulk(std::move(*state)));
    out.push_back(*slim);
    std::lock_guard<std::mutex> lock(mutex_);
    entries_[key] = entry{hash, std::move(slim)};
  }
  return out;
}

}  // namespace aopt::server
