// llm_backend: what every LLM policy of a process shares - the HTTP runtime, the
// OpenAI-compatible client, the gateway (budget, cache, admission, token ledger), the response
// cache (the database's llm_cache column family, or memory without a database), the prompt
// templates and the hardware profile text the prompts quote.
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
// Lifetime: members are destroyed gateway first, runtime last. Must not be destroyed on one of
// its own runtime threads.
//
// Thread-safety: every method may be called from several threads at once.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "base/status.hpp"
#include "config/aopt_config.hpp"
#include "llm/call_port.hpp"
#include "llm/gateway.hpp"
#include "llm/prompt_library.hpp"
#include "storage/store.hpp"

namespace aopt::agent {

// The client and gateway settings of an [llm] section.
llm::client_options client_options_from(const config::llm_config& c);
llm::gateway_options gateway_options_from(const config::llm_config& c);

class llm_backend {
 public:
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
  llm::gateway& gateway() { return *gateway_; }
  llm::token_ledger ledger() const { return gateway_->ledger(); }

  // Sends ask()/embed() through `port` from now on; null sends them to gateway() directly. A
  // call already started finishes on the port it started with.
  void route_through(std::shared_ptr<llm::call_port> port);

  // One line per (campaign, operator, role): calls, cache hits, failures, tokens used and
  // billed, and cost when a price table is configured.
  std::string usage_report() const;

 private:
  friend result<std::shared_ptr<llm_backend>> make_llm_backend(const config::aopt_config&,
                                                               storage::store*);
  llm_backend() = default;
  std::shared_ptr<llm::call_port> route() const;

  std::unique_ptr<llm::http_runtime> runtime_;
  std::unique_ptr<llm::openai_client> client_;
  std::unique_ptr<llm::response_cache> cache_;
  std::unique_ptr<llm::gateway> gateway_;
  llm::prompt_library prompts_;
  std::string hardware_text_;
  int64_t seed_ = 0;  // campaign.seed, sent with every chat request
  bool latency_is_simulated_ = true;

  mutable std::mutex route_mutex_;
  std::shared_ptr<llm::call_port> route_;  // guarded by route_mutex_; null = gateway_ directly
};

// Builds the backend of `config`: [llm] for the endpoint, llm.cache over `db`'s llm_cache
// (a memory cache when `db` is null), the built-in prompts then llm.prompts_dir over them, and
// device.profile for the hardware text. Errors: invalid_argument for an empty llm.model or a bad
// base URL, the prompt library's and the hardware profile's errors.
result<std::shared_ptr<llm_backend>> make_llm_backend(const config::aopt_config& config,
                                                      storage::store* db);

}  // namespace aopt::agent
