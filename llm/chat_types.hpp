// The values exchanged with an OpenAI-compatible endpoint: chat and embedding requests and
// answers, and the token usage the endpoint reports.
//
// Thread-safety: value types.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace aopt::llm {

struct chat_message {
  std::string role;  // "system", "user" or "assistant"
  std::string content;
};

inline chat_message system_message(std::string content) {
  return {"system", std::move(content)};
}
inline chat_message user_message(std::string content) {
  return {"user", std::move(content)};
}
inline chat_message assistant_message(std::string content) {
  return {"assistant", std::move(content)};
}

inline bool operator==(const chat_message& a, const chat_message& b) {
  return a.role == b.role && a.content == b.content;
}

// Tokens as the endpoint counts them.
struct token_usage {
  uint64_t prompt_tokens = 0;
  uint64_t completion_tokens = 0;

  uint64_t total() const { return prompt_tokens + completion_tokens; }
  token_usage& operator+=(const token_usage& other) {
    prompt_tokens += other.prompt_tokens;
    completion_tokens += other.completion_tokens;
    return *this;
  }
};

inline bool operator==(const token_usage& a, const token_usage& b) {
  return a.prompt_tokens == b.prompt_tokens && a.completion_tokens == b.completion_tokens;
}
inline bool operator!=(const token_usage& a, const token_usage& b) {
  return !(a == b);
}

// An unset optional takes the client's default (client_options).
struct chat_request {
  std::vector<chat_message> messages;
  std::optional<std::string> model;
  std::optional<double> temperature;
  std::optional<uint32_t> max_tokens;
  std::optional<int64_t> seed;  // sent only when set; endpoints may ignore it
  // Not sent. Distinguishes repeated samples of the same prompt in the response cache, so that
  // N samples are N cache entries and a resumed run replays each one.
  uint64_t sample_index = 0;
};

struct chat_response {
  std::string content;        // the first choice's message content
  std::string finish_reason;  // "stop" (or whatever the endpoint said, never "length")
  std::string model;          // the model that answered, as the endpoint names it
  token_usage usage;
  uint32_t attempts = 0;  // HTTP requests it took (0 when served from the cache)
  bool from_cache = false;
};

struct embedding_request {
  std::vector<std::string> inputs;
  std::optional<std::string> model;  // default: client_options::embedding_model
};

struct embedding_response {
  std::vector<std::vector<float>> vectors;  // one per input, in input order
  std::string model;
  token_usage usage;  // completion_tokens is 0
  uint32_t attempts = 0;
  bool from_cache = false;
};

}  // namespace aopt::llm
