// response_cache: where the gateway keeps answers, so that a resumed or repeated campaign
// replays them instead of calling the endpoint. The actors layer implements it over the
// database's llm_cache column family; memory_response_cache serves tests and one-shot runs.
//
// Keys are content hashes (chat_cache_key, embedding_cache_key) of everything that shapes the
// answer: endpoint, the request body as sent (model, messages, temperature, max_tokens, seed)
// and the sample index. Values are the JSON answer forms of openai_protocol.hpp.
//
// Persistent: the key recipe and the cache_mode strings are on disk / in configs; do not
// change them without a migration (old entries would silently miss).
//
// Thread-safety: implementations must allow concurrent calls from several threads.
#pragma once

#include <map>
#include <mutex>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "base/status.hpp"
#include "llm/chat_types.hpp"
#include "llm/endpoint_url.hpp"

namespace aopt::llm {

// off: neither read nor write; read: replay hits, store nothing; readwrite: replay and store.
enum class cache_mode { off, read, readwrite };

const char* to_string(cache_mode mode);

class response_cache {
 public:
  virtual ~response_cache() = default;
  // nullopt when the key is absent; an error only when the store failed.
  virtual result<std::optional<nlohmann::json>> get(const std::string& key) = 0;
  virtual status put(const std::string& key, const nlohmann::json& value) = 0;
};

// REQUIRES: the request has its defaults filled in (openai_client::with_defaults).
std::string chat_cache_key(const endpoint_url& endpoint, const chat_request& request);
std::string embedding_cache_key(const endpoint_url& endpoint, const embedding_request& request);

// A map behind a mutex.
class memory_response_cache final : public response_cache {
 public:
  result<std::optional<nlohmann::json>> get(const std::string& key) override;
  status put(const std::string& key, const nlohmann::json& value) override;
  size_t size() const;

 private:
  mutable std::mutex mutex_;
  std::map<std::string, nlohmann::json> entries_;  // guarded by mutex_
};

}  // namespace aopt::llm
