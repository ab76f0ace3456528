// Settings of an openai_client. The wiring layer fills this from the [llm] config section; the
// llm layer knows nothing of config files.
//
// Thread-safety: value type.
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <string>

namespace aopt::llm {

struct client_options {
  // --- the endpoint -------------------------------------------------------------------------
  // Up to and including the version segment; the client appends "/chat/completions" and
  // "/embeddings". http:// or https://, optional port, no query, no credentials.
  std::string base_url = "http://127.0.0.1:8080/v1";
  // Default chat model; a request may name another. Empty: every request must name one.
  std::string model;
  // Default embedding model; a request may name another.
  std::string embedding_model;
  // Name of the environment variable holding the API key, read once when the client is made.
  // Empty, or a variable that is unset: no Authorization header. The key is sent as
  // "Authorization: Bearer <key>" and is redacted from every error message.
  std::string api_key_env = "OPENAI_API_KEY";
  // Sent with every request (e.g. X-Title for routers). Not logged.
  std::map<std::string, std::string> extra_headers;

  // --- TLS (https only) ---------------------------------------------------------------------
  // Verify the endpoint's certificate chain and host name. Turn off only for a test endpoint.
  bool verify_tls = true;
  // A PEM file of extra trusted CA certificates, added to the system's (for a private CA or a
  // self-signed endpoint). Empty: system CAs only.
  std::string ca_file;

  // --- defaults of every chat request --------------------------------------------------------
  double temperature = 0.7;
  uint32_t max_tokens = 8192;

  // --- timeouts and retries ------------------------------------------------------------------
  // Resolve + TCP connect + TLS handshake of one attempt.
  std::chrono::milliseconds connect_timeout{10000};
  // One attempt, from the start of the connect to the last byte of the answer. A timeout is
  // not retried: LLM answers are slow by nature, and repeating a long wait rarely helps.
  std::chrono::milliseconds timeout{300000};
  // Retries after a connection error, a 429 or a 5xx (so at most max_retries + 1 attempts).
  uint32_t max_retries = 5;
  // Backoff before retry n is min(backoff_max, backoff_initial * 2^(n-1)), jittered into
  // [d/2, d]; a 429's Retry-After (seconds or HTTP-date) replaces it.
  std::chrono::milliseconds backoff_initial{1000};
  std::chrono::milliseconds backoff_max{60000};
  // Seed of the jitter generator, so that test runs are repeatable.
  uint64_t jitter_seed = 1;

  // --- limits --------------------------------------------------------------------------------
  // Larger answers are a malformed_body error rather than unbounded memory.
  uint64_t max_response_bytes = 64ull * 1024 * 1024;
  std::string user_agent = "aopt/0.1";
};

}  // namespace aopt::llm
