#include "server/metrics.hpp"

#include <fmt/format.h>

namespace aopt::server {

namespace {

void family(std::string& out, const char* name, const char* type, const char* help) {
  out += fmt::format("# HELP {} {}\n# TYPE {} {}\n", name, help, name, type);
}

// A family with one unlabelled sample.
template <class Number>
void sample(std::string& out, const char* name, const char* type, const char* help, Number value) {
  family(out, name, type, help);
  out += fmt::format("{} {}\n", name, value);
}

// Label values are campaign statuses and evaluation statuses written by aopt itself, but a
// quote or backslash would still break the format, so they are escaped.
std::string label(const std::string& v) {
  std::string out;
  for (char c : v) {
    if (c == '"' || c == '\\') out += '\\';
    if (c == '\n') {
      out += "\\n";
      continue;
    }
    out += c;
  }
  return out;
}

}  // namespace

std::string prometheus_text(const metrics_snapshot& m) {
  std::string out;
  family(out, "aopt_uptime_seconds", "gauge", "Seconds since the daemon started.");
  out += fmt::format("aopt_uptime_seconds {:.3f}\n", m.uptime_s);

  family(out, "aopt_evaluations_total", "counter",
         "Candidate evaluations reported since the daemon started, by result status.");
  for (const auto& [st, n] : m.events.evaluations_by_status) {
    out += fmt::format("aopt_evaluations_total{{status=\"{}\"}} {}\n", label(st), n);
  }
  sample(out, "aopt_candidates_accepted_total", "counter",
         "Evaluated candidates that improved their operator's best latency.", m.events.accepted);
  sample(out, "aopt_episodes_started_total", "counter", "Episodes started or resumed.",
         m.events.episodes_started);
  sample(out, "aopt_episodes_finished_total", "counter", "Episodes finished.",
         m.events.episodes_finished);

  sample(out, "aopt_device_slots", "gauge",
         "Size of the shared device pool: local slots and those of joined workers.", m.pool.slots);
  sample(out, "aopt_device_in_flight", "gauge", "Evaluations holding a device slot now.",
         m.pool.in_flight);
  sample(out, "aopt_device_queue_depth", "gauge", "Evaluations waiting for a device slot.",
         m.pool.queued);
  sample(out, "aopt_device_evaluations_total", "counter",
         "Candidate evaluations the device pool ran.", m.pool.evaluated);
  sample(out, "aopt_device_confirmations_total", "counter",
         "Cold re-evaluations of accepted improvements the device pool ran.",
         m.pool.confirmations);
  sample(out, "aopt_device_validations_total", "counter",
         "Final bests checked on validation shapes by the device pool.", m.pool.validations);
  family(out, "aopt_device_busy_seconds_total", "counter", "Slot-seconds the devices were busy.");
  out += fmt::format("aopt_device_busy_seconds_total {:.3f}\n", m.pool.busy_seconds);
  family(out, "aopt_device_busy_ratio", "gauge",
         "Busy slot-seconds over available slot-seconds since the daemon started.");
  const double capacity = m.uptime_s * m.pool.slots;
  out += fmt::format("aopt_device_busy_ratio {:.6f}\n",
                     capacity > 0 ? m.pool.busy_seconds / capacity : 0.0);

  // Remote evaluation workers (issue 19).
  sample(out, "aopt_workers", "gauge", "Evaluation workers joined now.", m.pool.workers);
  sample(out, "aopt_leases_requeued_total", "counter",
         "Evaluations queued again because the worker holding them disappeared.", m.pool.requeued);
  sample(out, "aopt_lease_duplicates_total", "counter",
         "Late results of evaluations already completed elsewhere (not counted again).",
         m.pool.duplicates);
  sample(out, "aopt_workers_refused_total", "counter",
         "Workers refused (wrong secret or another hardware profile).", m.pool.refused);
  sample(out, "aopt_worker_packages_sent_total", "counter",
         "Operator packages sent to workers that lacked them.", m.pool.packages_sent);
  family(out, "aopt_slot_owner_slots", "gauge",
         "Slots of each owner of the device pool (\"local\" or a worker; 0 once it left).");
  for (const auto& o : m.pool.owners) {
    out += fmt::format("aopt_slot_owner_slots{{owner=\"{}\"}} {}\n", label(o.name), o.slots);
  }
  family(out, "aopt_slot_owner_in_flight", "gauge", "Evaluations each owner holds now.");
  for (const auto& o : m.pool.owners) {
    out += fmt::format("aopt_slot_owner_in_flight{{owner=\"{}\"}} {}\n", label(o.name), o.busy);
  }
  family(out, "aopt_slot_owner_evaluations_total", "counter",
         "Evaluations each owner completed (first results only).");
  for (const auto& o : m.pool.owners) {
    out += fmt::format("aopt_slot_owner_evaluations_total{{owner=\"{}\"}} {}\n", label(o.name),
                       o.evaluated);
  }

  sample(out, "aopt_campaigns_running", "gauge", "Campaigns with a run in progress.",
         m.campaigns_running);
  family(out, "aopt_campaigns", "gauge", "Stored campaigns by recorded status.");
  for (const auto& [st, n] : m.campaigns_by_status) {
    out += fmt::format("aopt_campaigns{{status=\"{}\"}} {}\n", label(st), n);
  }

  family(out, "aopt_llm_tokens_total", "counter",
         "LLM tokens used by stored campaigns, as their records hold them, by kind.");
  out += fmt::format("aopt_llm_tokens_total{{kind=\"prompt\"}} {}\n", m.llm_prompt_tokens);
  out += fmt::format("aopt_llm_tokens_total{{kind=\"completion\"}} {}\n", m.llm_completion_tokens);
  sample(out, "aopt_llm_calls_total", "counter", "LLM answers delivered to stored campaigns.",
         m.llm_calls);
  if (m.llm_gateway) {
    const llm::gateway_stats& g = *m.llm_gateway;
    sample(out, "aopt_llm_in_flight", "gauge",
           "LLM requests in flight through the daemon's gateway.", g.in_flight);
    sample(out, "aopt_llm_queue_depth", "gauge",
           "LLM calls waiting for a concurrency slot or the rate limiter.", g.queued);
    sample(out, "aopt_llm_requests_sent_total", "counter",
           "LLM requests sent to the endpoint since the daemon started.", g.sent);
    sample(out, "aopt_llm_cache_hits_total", "counter",
           "LLM calls answered from llm_cache since the daemon started.", g.cache_hits);
    sample(out, "aopt_llm_budget_refusals_total", "counter",
           "LLM calls refused because their campaign's token budget was spent.", g.refused_budget);
    family(
        out, "aopt_llm_billed_tokens_total", "counter",
        "LLM tokens billed to the campaigns this daemon has run (over all their runs), by kind.");
    out += fmt::format("aopt_llm_billed_tokens_total{{kind=\"prompt\"}} {}\n",
                       m.llm_billed_prompt_tokens);
    out += fmt::format("aopt_llm_billed_tokens_total{{kind=\"completion\"}} {}\n",
                       m.llm_billed_completion_tokens);
  }

  sample(out, "aopt_events_total", "counter", "Progress events published.", m.events.events);
  sample(out, "aopt_event_log_errors_total", "counter",
         "Progress events the database did not store (they were still sent live).",
         m.events.log_errors);
  sample(out, "aopt_event_subscribers", "gauge", "Connected server-sent-event clients.",
         m.events.subscribers);

  // CANN devices: the baseline re-measured every cann.baseline_every comparisons.
  family(out, "aopt_baseline_drift_ratio", "gauge",
         "Latest baseline median on an NPU over its first median (1 = no drift).");
  for (const auto& d : m.drift) {
    out += fmt::format("aopt_baseline_drift_ratio{{operator=\"{}\",device=\"{}\"}} {}\n",
                       label(d.op), label(d.device_id), d.ratio);
  }
  family(out, "aopt_baseline_drift_alarm", "gauge",
         "1 when the latest baseline drifted beyond cann.drift_threshold: timings are suspect.");
  for (const auto& d : m.drift) {
    out += fmt::format("aopt_baseline_drift_alarm{{operator=\"{}\",device=\"{}\"}} {}\n",
                       label(d.op), label(d.device_id), d.alarm ? 1 : 0);
  }
  return out;
}

}  // namespace aopt::server
