#include "agent/episode/campaign_events.hpp"

namespace aopt::agent {

const char* to_string(campaign_event::kind k) {
  switch (k) {
    case campaign_event::kind::campaign_started:
      return "campaign_started";
    case campaign_event::kind::episode_started:
      return "episode_started";
    case campaign_event::kind::candidate_evaluated:
      return "candidate_evaluated";
    case campaign_event::kind::episode_finished:
      return "episode_finished";
    case campaign_event::kind::campaign_finished:
      return "campaign_finished";
  }
  return "unknown";
}

void to_json(nlohmann::json& j, const campaign_event& e) {
  j = {{"type", to_string(e.type)},
       {"campaign", e.campaign},
       {"op", e.op},
       {"round", e.round},
       {"stage", e.stage},
       {"candidates", e.candidates},
       {"budget", e.budget},
       {"baseline_us", e.baseline_us},
       {"best_us", e.best_us},
       {"status", e.status},
       {"origin", e.origin},
       {"accepted", e.accepted},
       {"operators", e.operators},
       {"timestamp_s", e.timestamp_s}};
}

}  // namespace aopt::agent
