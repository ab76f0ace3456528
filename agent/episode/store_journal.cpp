#include "agent/episode/store_journal.hpp"

namespace aopt::agent {

storage::transition episode_transition(const episode_state& state,
                                       const std::optional<candidate_record>& candidate,
                                       const std::optional<eval_cache_entry>& cache_entry) {
  storage::transition t;
  t.campaign = state.campaign;
  t.op = state.op_name;
  t.episode_state = state;
  if (candidate) t.candidate = storage::candidate_record{candidate->seq, *candidate};
  if (cache_entry) t.eval_cache.push_back({cache_entry->key, cache_entry->result});
  return t;
}

status store_journal::record(const episode_state& state,
                             const std::optional<candidate_record>& candidate,
                             const std::optional<eval_cache_entry>& cache_entry) {
  return db_.commit_transition(episode_transition(state, candidate, cache_entry));
}

std::optional<npu::eval_result> store_journal::lookup(const std::string& key) {
  result<nlohmann::json> hit = db_.get_eval_cache(key);
  if (!hit.ok()) return std::nullopt;
  npu::eval_result cached;
  try {
    cached = hit->get<npu::eval_result>();
  } catch (const nlohmann::json::exception&) {
    return std::nullopt;  // an unreadable entry is a miss: the candidate is evaluated again
  }
  // Versions before is_cacheable() stored transient failures too; they are not answers.
  if (npu::is_transient_failure(cached)) return std::nullopt;
  return cached;
}

}  // namespace aopt::agent
