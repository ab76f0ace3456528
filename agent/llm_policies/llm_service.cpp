#include "agent/llm_policies/llm_service.hpp"

#include <cmath>

#include "agent/llm_policies/llm_store_cache.hpp"

namespace aopt::agent {
namespace {

std::chrono::milliseconds to_ms(double seconds) {
  return std::chrono::milliseconds(std::llround(seconds * 1000.0));
}

llm::cache_mode to_llm(config::cache_mode mode) {
  switch (mode) {
    case config::cache_mode::off:
      return llm::cache_mode::off;
    case config::cache_mode::read:
      return llm::cache_mode::read;
    case config::cache_mode::readwrite:
      return llm::cache_mode::readwrite;
  }
  return llm::cache_mode::readwrite;
}

}  // namespace

llm::client_options client_options_from(const config::llm_config& c) {
  llm::client_options o;
  o.base_url = c.base_url;
  o.model = c.model;
  o.embedding_model = c.embedding_model;
  o.api_key_env = c.api_key_env;
  o.extra_headers = c.extra_headers;
  o.verify_tls = c.verify_tls;
  o.temperature = c.temperature;
  o.max_tokens = c.max_tokens;
  o.connect_timeout = to_ms(c.connect_timeout_s);
  o.timeout = to_ms(c.timeout_s);
  o.max_retries = c.max_retries;
  o.backoff_initial = std::chrono::milliseconds(c.backoff_initial_ms);
  o.backoff_max = std::chrono::milliseconds(c.backoff_max_ms);
  return o;
}

llm::gateway_options gateway_options_from(const config::llm_config& c) {
  llm::gateway_options o;
  o.max_concurrency = c.max_concurrency;
  o.requests_per_minute = c.requests_per_minute;
  o.budget_tokens = c.budget_tokens;
  o.cache = to_llm(c.cache);
  o.prices.per_1k_prompt = c.price_per_1k_prompt;
  o.prices.per_1k_completion = c.price_per_1k_completion;
  return o;
}

llm_service::~llm_service() = default;

result<std::shared_ptr<llm_service>> llm_service::make(const config::llm_config& c,
                                                       storage::store* db) {
  if (c.model.empty())
    return invalid_argument("llm.model is empty: an LLM policy needs the chat model to ask");
  std::shared_ptr<llm_service> service(new llm_service());
  service->runtime_ = std::make_unique<llm::http_runtime>(1);
  result<std::unique_ptr<llm::openai_client>> client =
      llm::openai_client::make(*service->runtime_, client_options_from(c));
  if (!client.ok()) return client.error().with_context("llm");
  service->client_ = std::move(*client);
  if (db != nullptr) {
    service->cache_ = std::make_unique<store_response_cache>(*db);
  } else {
    service->cache_ = std::make_unique<llm::memory_response_cache>();
  }
  service->gateway_ = std::make_unique<llm::gateway>(
      *service->runtime_, *service->client_, service->cache_.get(), gateway_options_from(c));
  return service;
}

}  // namespace aopt::agent
