// /metrics: the daemon's counters in the Prometheus text exposition format (version 0.0.4).
//
// Thread-safety: pure functions.
#pragma once

#include <cstdint>
#include <map>
#include <string>

#include "agent/device_slots.hpp"
#include "server/event_hub.hpp"

namespace aopt::server {

struct metrics_snapshot {
  double uptime_s = 0;
  hub_counters events;
  agent::slot_stats pool;
  size_t campaigns_running = 0;
  std::map<std::string, uint64_t> campaigns_by_status;
  // LLM tokens of every stored campaign, as persisted when its runs ended.
  uint64_t llm_prompt_tokens = 0;
  uint64_t llm_completion_tokens = 0;
  uint64_t llm_calls = 0;
};

std::string prometheus_text(const metrics_snapshot& m);

}  // namespace aopt::server
