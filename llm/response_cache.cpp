#include "llm/response_cache.hpp"

#include "base/content_hash.hpp"
#include "llm/openai_protocol.hpp"

namespace aopt::llm {

const char* to_string(cache_mode mode) {
  switch (mode) {
    case cache_mode::off:
      return "off";
    case cache_mode::read:
      return "read";
    case cache_mode::readwrite:
      return "readwrite";
  }
  return "unknown";
}

std::string chat_cache_key(const endpoint_url& endpoint, const chat_request& request) {
  return content_hash({"llm-chat-v1", endpoint.to_string(), chat_request_body(request).dump(),
                       std::to_string(request.sample_index)});
}

std::string embedding_cache_key(const endpoint_url& endpoint, const embedding_request& request) {
  return content_hash(
      {"llm-embedding-v1", endpoint.to_string(), embedding_request_body(request).dump()});
}

result<std::optional<nlohmann::json>> memory_response_cache::get(const std::string& key) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = entries_.find(key);
  if (it == entries_.end()) return std::optional<nlohmann::json>();
  return std::optional<nlohmann::json>(it->second);
}

status memory_response_cache::put(const std::string& key, const nlohmann::json& value) {
  std::lock_guard<std::mutex> lock(mutex_);
  entries_[key] = value;
  return {};
}

size_t memory_response_cache::size() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return entries_.size();
}

}  // namespace aopt::llm
