// Progress events of a running campaign, for the terminal view, the log, the daemon's
// server-sent events and tests that check concurrency from the event order.
#pragma once

#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

namespace aopt::agent {

struct campaign_event {
  enum class kind {
    campaign_started,
    episode_started,
    candidate_evaluated,
    episode_finished,
    campaign_finished
  };
  kind type = kind::candidate_evaluated;
  std::string campaign;
  std::string op;
  uint32_t round = 0;
  int stage = 0;
  uint32_t candidates = 0;  // budget used by the episode
  uint32_t budget = 0;
  double baseline_us = 0;
  double best_us = 0;
  std::string status;  // of the candidate, or of the finished episode
  std::string origin;  // of the candidate; episode_finished: why it ended (outcome_reason.hpp)
  bool accepted = false;
  uint32_t operators = 0;  // campaign_started: operators in the campaign
  double timestamp_s = 0;  // steady clock seconds since the process started
};

const char* to_string(campaign_event::kind k);
void to_json(nlohmann::json& j, const campaign_event& e);

// Receives events from many threads at once; implementations must be thread-safe and fast.
class event_sink {
 public:
  virtual ~event_sink() = default;
  virtual void publish(const campaign_event& event) = 0;
};

}  // namespace aopt::agent
