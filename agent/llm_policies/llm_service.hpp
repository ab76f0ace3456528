// llm_service: the connection to one LLM endpoint and everything that must be shared by all its
// users for limits to mean anything - the HTTP runtime, the OpenAI-compatible client, the
// response cache and the gateway (admission, rate limit, per-campaign budget and ledger).
//
// The process's engine (runtime/engine.hpp) owns one, made from its [llm] section, and every
// campaign of `aopt run` and `aopt serve` and `aopt bank build` calls through it, so
// llm.max_concurrency and llm.requests_per_minute bound the whole process and /metrics sees
// every call (docs/design.md §3: "all LLM traffic goes through one gateway"). What differs per campaign
// (prompts, seed, hardware text) is in llm_backend; runtime/llm_factory.hpp turns the [llm] section
// into the options below.
//
// Lifetime: members are destroyed gateway first, runtime last. Must not be destroyed on one of
// its own runtime threads.
//
// Thread-safety: every method may be called from several threads at once.
#pragma once

#include <memory>

#include "base/status.hpp"
#include "llm/gateway.hpp"
#include "llm/openai_client.hpp"
#include "storage/store.hpp"

namespace aopt::agent {

class llm_service {
 public:
  // `client`'s endpoint through a gateway with `limits`; the response cache is `db`'s llm_cache
  // column family, or memory when `db` is null (`db` must then outlive the service). Errors:
  // invalid_argument for a bad base URL.
  static result<std::shared_ptr<llm_service>> make(const llm::client_options& client,
                                                   const llm::gateway_options& limits,
                                                   storage::store* db);

  ~llm_service();
  llm_service(const llm_service&) = delete;
  llm_service& operator=(const llm_service&) = delete;

  llm::gateway& gateway() { return *gateway_; }
  const llm::client_options& client_options() const { return client_->options(); }

 private:
  llm_service() = default;

  std::unique_ptr<llm::http_runtime> runtime_;
  std::unique_ptr<llm::openai_client> client_;
  std::unique_ptr<llm::response_cache> cache_;
  std::unique_ptr<llm::gateway> gateway_;
};

}  // namespace aopt::agent
