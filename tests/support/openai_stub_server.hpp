// openai_stub_server: an OpenAI-compatible endpoint on 127.0.0.1 for tests (Beast, its own
// thread). It serves scripted answers in order and injects faults, and counts what it saw.
//
//   aopt::test::openai_stub_server server;                 // or server(tls identity)
//   server.script({aopt::test::fault_429(1), aopt::test::reply("```cpp\n...\n```")});
//   options.base_url = server.base_url();                   // "http://127.0.0.1:<port>/v1"
//   ... run the code under test ...
//   CHECK(server.chat_requests() == 2);
//
// POST /v1/chat/completions takes the next action of the chat script; when the script is used
// up it answers the fallback action if one is set, else 400 "no scripted answer left".
// POST /v1/embeddings takes the next action of the embedding script; when it is empty it
// answers deterministic bag-of-words vectors (64 dimensions, L2-normalised), so lexically
// similar texts get similar vectors. Anything else is 404.
//
// Usage reported by a reply defaults to: prompt tokens = words in all messages, completion
// tokens = words in the content (at least 1); reported_usage() sums what it reported.
//
// Thread-safety: all methods may be called from any thread while the server runs. The
// destructor stops the server, closing every connection (stalled ones included).
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace aopt::test {

struct stub_usage {
  uint64_t prompt_tokens = 0;
  uint64_t completion_tokens = 0;
};

struct stub_action {
  enum class kind {
    reply,       // 200 with a chat answer (content, finish_reason) or embeddings (vectors)
    http_error,  // `status` with `body`, and Retry-After when retry_after_s is set
    stall,       // read the request, never answer, keep the connection open
    drop,        // read the request, close the connection without answering
    raw_body,    // 200 with `body` verbatim as application/json
    held,        // like reply, but answered only when the test calls release_held()
  };
  kind what = kind::reply;
  std::string content;
  std::string finish_reason = "stop";
  std::optional<stub_usage> usage;  // nullopt: the word-count default
  std::vector<std::vector<float>> vectors;
  unsigned status = 200;
  std::optional<unsigned> retry_after_s;
  std::string body;
};

// A chat answer with `content` (finish_reason "stop").
stub_action reply(std::string content);
stub_action reply(std::string content, uint64_t prompt_tokens, uint64_t completion_tokens);
// A chat answer cut off at max_tokens (finish_reason "length").
stub_action truncated(std::string partial, uint64_t prompt_tokens = 10,
                      uint64_t completion_tokens = 20);
// An embeddings answer.
stub_action embeddings(std::vector<std::vector<float>> vectors, uint64_t prompt_tokens = 4);
stub_action fault_429(unsigned retry_after_s);
stub_action fault_500();
// Any status, e.g. fault_status(400, R"({"error":{"message":"bad model"}})").
stub_action fault_status(unsigned status, std::string body = "");
stub_action stall();
// A chat answer with `content` that waits until release_held().
stub_action held_reply(std::string content);
stub_action drop_connection();
stub_action malformed_body();  // 200 with a body that is not JSON
stub_action empty_choices();   // 200 with "choices": []

struct stub_tls_identity {
  std::string certificate_pem;
  std::string private_key_pem;
};

struct stub_request {
  std::string method;
  std::string target;
  std::map<std::string, std::string> headers;  // names lower-cased
  nlohmann::json body;                         // null when the body was not JSON
  std::chrono::steady_clock::time_point received_at;
};

class openai_stub_server {
 public:
  openai_stub_server();                                // plain HTTP
  explicit openai_stub_server(stub_tls_identity tls);  // HTTPS
  ~openai_stub_server();

  openai_stub_server(const openai_stub_server&) = delete;
  openai_stub_server& operator=(const openai_stub_server&) = delete;

  // Appends to the chat script.
  void script(std::vector<stub_action> actions);
  void script_embeddings(std::vector<stub_action> actions);
  // The chat answer once the script is used up (instead of the 400).
  void fallback(stub_action action);

  // "http://127.0.0.1:<port>/v1" (https:// with TLS).
  std::string base_url() const;
  uint16_t port() const;

  size_t requests() const;  // every HTTP request read, faults included
  size_t chat_requests() const;
  size_t embedding_requests() const;
  size_t scripted_left() const;  // chat actions not yet used
  stub_usage reported_usage() const;
  std::vector<stub_request> received() const;

  // Answers every request waiting on a held_reply, now and from then on.
  void release_held();
  // Requests read and waiting on a held_reply.
  size_t held() const;

  // Waits until at least `n` requests were read; false on timeout.
  bool wait_for_requests(size_t n, std::chrono::milliseconds timeout) const;

  struct impl;  // public for the session code in the .cpp; not part of the API

 private:
  std::unique_ptr<impl> impl_;
};

}  // namespace aopt::test
