#include <doctest/doctest.h>

#include "server/metrics.hpp"

TEST_CASE("prometheus_text writes every family with HELP and TYPE and labelled samples") {
  aopt::server::metrics_snapshot m;
  m.uptime_s = 10;
  m.events.evaluations_by_status = {{"ok", 7}, {"compile_error", 2}};
  m.pool.slots = 2;
  m.pool.busy_seconds = 5;
  m.pool.queued = 3;
  m.pool.workers = 1;
  m.pool.requeued = 2;
  m.pool.owners = {{"local", 2, 1, 5}, {"w1@host:7", 0, 0, 4}};
  m.campaigns_by_status = {{"running", 1}};
  m.llm_prompt_tokens = 100;
  const std::string text = aopt::server::prometheus_text(m);
  CHECK(text.find("# TYPE aopt_evaluations_total counter\n") != std::string::npos);
  CHECK(text.find("aopt_evaluations_total{status=\"ok\"} 7\n") != std::string::npos);
  CHECK(text.find("aopt_evaluations_total{status=\"compile_error\"} 2\n") != std::string::npos);
  CHECK(text.find("aopt_device_busy_ratio 0.250000\n") != std::string::npos);
  CHECK(text.find("aopt_device_queue_depth 3\n") != std::string::npos);
  CHECK(text.find("aopt_workers 1\n") != std::string::npos);
  CHECK(text.find("aopt_leases_requeued_total 2\n") != std::string::npos);
  CHECK(text.find("aopt_slot_owner_evaluations_total{owner=\"w1@host:7\"} 4\n") !=
        std::string::npos);
  CHECK(text.find("aopt_slot_owner_in_flight{owner=\"local\"} 1\n") != std::string::npos);
  CHECK(text.find("aopt_campaigns{status=\"running\"} 1\n") != std::string::npos);
  CHECK(text.find("aopt_llm_tokens_total{kind=\"prompt\"} 100\n") != std::string::npos);
  // Without a shared LLM gateway there are no gateway families.
  CHECK(text.find("aopt_llm_queue_depth") == std::string::npos);

  aopt::llm::gateway_stats gateway;
  gateway.queued = 2;
  gateway.in_flight = 1;
  gateway.sent = 9;
  m.llm_gateway = gateway;
  m.llm_billed_completion_tokens = 40;
  const std::string with_gateway = aopt::server::prometheus_text(m);
  CHECK(with_gateway.find("# TYPE aopt_llm_queue_depth gauge\naopt_llm_queue_depth 2\n") !=
        std::string::npos);
  CHECK(with_gateway.find("aopt_llm_in_flight 1\n") != std::string::npos);
  CHECK(with_gateway.find("aopt_llm_requests_sent_total 9\n") != std::string::npos);
  CHECK(with_gateway.find("aopt_llm_billed_tokens_total{kind=\"completion\"} 40\n") !=
        std::string::npos);
  // Every sample line belongs to a family declared before it.
  size_t declared = 0;
  for (size_t at = 0; (at = text.find("# TYPE ", at)) != std::string::npos; ++at) declared++;
  CHECK(declared >= 15);
}
