// An episode journal for actor tests: keeps every candidate record the episode persists, in
// order, and nothing else.
#pragma once

#include <mutex>
#include <optional>
#include <vector>

#include "agent/episode/episode_journal.hpp"

namespace aopt::testing {

class recording_journal final : public agent::episode_journal {
 public:
  status record(const agent::episode_state&, const std::optional<agent::candidate_record>& c,
                const std::optional<agent::eval_cache_entry>&) override {
    std::lock_guard<std::mutex> lock(mutex_);
    if (c) candidates_.push_back(*c);
    return status::ok_status();
  }
  std::vector<agent::candidate_record> candidates() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return candidates_;
  }

 private:
  mutable std::mutex mutex_;
  std::vector<agent::candidate_record> candidates_;
};

}  // namespace aopt::testing
