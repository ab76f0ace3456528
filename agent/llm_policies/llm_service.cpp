#include "agent/llm_policies/llm_service.hpp"

#include "agent/llm_policies/llm_store_cache.hpp"

namespace aopt::agent {

llm_service::~llm_service() = default;

result<std::shared_ptr<llm_service>> llm_service::make(const llm::client_options& client,
                                                       const llm::gateway_options& limits,
                                                       storage::store* db) {
  std::shared_ptr<llm_service> service(new llm_service());
  service->runtime_ = std::make_unique<llm::http_runtime>(1);
  result<std::unique_ptr<llm::openai_client>> made =
      llm::openai_client::make(*service->runtime_, client);
  if (!made.ok()) return made.error();
  service->client_ = std::move(*made);
  if (db != nullptr) {
    service->cache_ = std::make_unique<store_response_cache>(*db);
  } else {
    service->cache_ = std::make_unique<llm::memory_response_cache>();
  }
  service->gateway_ = std::make_unique<llm::gateway>(*service->runtime_, *service->client_,
                                                     service->cache_.get(), limits);
  return service;
}

}  // namespace aopt::agent
