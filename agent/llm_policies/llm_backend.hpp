// llm_backend: what every LLM policy of a campaign shares - the llm_service (endpoint, response
// cache and gateway: budget, admission, token ledger; possibly shared with other campaigns), the
// prompt templates and the hardware profile text the prompts quote.
//
// ask() is the one call the policies make: it renders a prompt template and sends it through
// the gateway, blocking (policies run in detached workers, never on a runtime thread). In a
// campaign the runtime routes these calls through its gateway actor (route_through), so every
// LLM call of the campaign goes by message to that one actor; without a route (tests, the bank
// builder) they go to the gateway directly. A failed call is a status whose message starts with
// the llm::error_kind word ("http_429: ...", "truncated: ..."), so the episode records the step
// as a failed candidate with that reason; a spent token budget is failed_precondition, so a
// stage whose LLM policy can no longer call ends without spending evaluations.
//
// Lifetime: must not be destroyed on one of its service's runtime threads.
//
// Thread-safety: every method may be called from several threads at once.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "agent/llm_policies/llm_service.hpp"
#include "base/status.hpp"
#include "llm/call_port.hpp"
#include "llm/prompt_library.hpp"

namespace aopt::agent {

// What a campaign's LLM policies share besides the service (runtime/llm_factory.hpp fills it
// from the configuration).
struct llm_backend_options {
  llm::prompt_library prompts;  // complete (prompt_library::check_complete)
  std::string hardware_text;    // the hardware profile as the prompts quote it (JSON text)
  int64_t seed = 0;             // campaign.seed, sent with every chat request
  bool latency_is_simulated = true;
};

class llm_backend {
 public:
  // A backend calling through `service` (non-null).
  static std::shared_ptr<llm_backend> make(std::shared_ptr<llm_service> service,
                                           llm_backend_options options);

  ~llm_backend();
  llm_backend(const llm_backend&) = delete;
  llm_backend& operator=(const llm_backend&) = delete;

  // Renders the template `action` (prompt_library::standard_names()) with `values` and sends it
  // as sample `sample_index` of that prompt.
  result<llm::chat_response> ask(const llm::call_context& who, const std::string& action,
                                 const llm::prompt_variables& values, uint64_t sample_index);
  result<llm::embedding_response> embed(const llm::call_context& who,
                                        std::vector<std::string> inputs);

  const std::string& model() const;
  const std::string& embedding_model() const;
  // The hardware profile as the prompts quote it (JSON text).
  const std::string& hardware_text() const { return hardware_text_; }
  // Whether the device's latencies are simulated (device.kind = "sim"); prompts say so.
  bool latency_is_simulated() const { return latency_is_simulated_; }
  const llm::prompt_library& prompts() const { return prompts_; }
  llm::gateway& gateway() { return service_->gateway(); }
  llm::token_ledger ledger() const { return service_->gateway().ledger(); }

  // Sends ask()/embed() through `port` from now on; null sends them to gateway() directly. A
  // call already started finishes on the port it started with.
  void route_through(std::shared_ptr<llm::call_port> port);

  // One line per (campaign, operator, role): calls, cache hits, failures, tokens used and
  // billed, and cost when a price table is configured.
  std::string usage_report() const;

 private:
  llm_backend() = default;
  std::shared_ptr<llm::call_port> route() const;

  std::shared_ptr<llm_service> service_;
  llm::prompt_library prompts_;
  std::string hardware_text_;
  int64_t seed_ = 0;  // campaign.seed, sent with every chat request
  bool latency_is_simulated_ = true;

  mutable std::mutex route_mutex_;
  std::shared_ptr<llm::call_port> route_;  // guarded by route_mutex_; null = gateway_ directly
};

}  // namespace aopt::agent
