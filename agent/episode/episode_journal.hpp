// Where an episode persists its transitions. One call = one atomic write: the new episode
// state together with the candidate that led to it and, when the candidate was evaluated on
// the device, its evaluation-cache entry (agent::eval_cache_entry_for).
#pragma once

#include <optional>
#include <string>

#include "agent/episode/episode_state.hpp"
#include "agent/evaluation/evaluation_service.hpp"
#include "base/status.hpp"
#include "npu/protocol/eval_result.hpp"

namespace aopt::agent {

class episode_journal {
 public:
  virtual ~episode_journal() = default;
  virtual status record(const episode_state& state,
                        const std::optional<candidate_record>& candidate,
                        const std::optional<eval_cache_entry>& cache_entry) = 0;
};

}  // namespace aopt::agent
