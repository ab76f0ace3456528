// The RocksDB-backed episode journal and evaluation cache.
#pragma once

#include "agent/episode/episode_journal.hpp"
#include "agent/evaluation/evaluation_service.hpp"
#include "storage/store.hpp"

namespace aopt::agent {

// The store transition that records one episode step: the new state, the candidate and the
// evaluation it caused.
storage::transition episode_transition(const episode_state& state,
                                       const std::optional<candidate_record>& candidate,
                                       const std::optional<eval_cache_entry>& cache_entry);

class store_journal : public episode_journal, public eval_cache {
 public:
  // `db` must outlive the journal.
  explicit store_journal(storage::store& db) : db_(db) {}

  status record(const episode_state& state, const std::optional<candidate_record>& candidate,
                const std::optional<eval_cache_entry>& cache_entry) override;
  std::optional<npu::eval_result> lookup(const std::string& key) override;

 private:
  storage::store& db_;
};

}  // namespace aopt::agent
