// /metrics: the daemon's counters in the Prometheus text exposition format (version 0.0.4).
//
// Thread-safety: pure functions.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>

#include "actors/messages.hpp"
#include "llm/gateway.hpp"
#include "npu/cann/drift_board.hpp"
#include "server/event_hub.hpp"

namespace aopt::server {

struct metrics_snapshot {
  double uptime_s = 0;
  hub_counters events;
  actors::pool_stats pool;  // the device pool: local slots and remote workers
  size_t campaigns_running = 0;
  std::map<std::string, uint64_t> campaigns_by_status;
  // LLM usage of every stored campaign, as its record holds it (written as answers arrive and
  // with each episode step).
  uint64_t llm_prompt_tokens = 0;
  uint64_t llm_completion_tokens = 0;
  uint64_t llm_calls = 0;
  // The daemon's shared LLM gateway; unset when its roles use no LLM.
  std::optional<llm::gateway_stats> llm_gateway;
  // Tokens billed to the campaigns that gateway served (over all their runs: a resumed
  // campaign's ledger starts from its persisted usage).
  uint64_t llm_billed_prompt_tokens = 0;
  uint64_t llm_billed_completion_tokens = 0;
  // CANN devices' latest baseline re-measurement per (operator, NPU).
  std::vector<npu::drift_reading> drift;
};

std::string prometheus_text(const metrics_snapshot& m);

}  // namespace aopt::server
