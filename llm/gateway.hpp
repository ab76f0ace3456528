// gateway: the one way the agent calls the LLM (DESIGN §3: "all LLM traffic goes through one
// gateway"). On top of openai_client it adds, in this order for each call:
//
//   1. budget    - a campaign whose used tokens reached budget_tokens gets budget_exhausted,
//                  without a request (checked on submission and again when a queued call
//                  would start);
//   2. cache     - per cache_mode, a stored answer is replayed (from_cache = true) without a
//                  request; new answers are stored in readwrite mode;
//   3. admission - at most max_concurrency calls in flight and requests_per_minute started
//                  (token bucket); the rest wait in FIFO order;
//   4. accounting- every outcome lands in the token ledger under (campaign, operator, role).
//
// A cache that fails (get, put, or an entry that does not decode) does not fail the call: the
// call goes on without it and stats().cache_errors counts it.
//
// The gateway actor (actors/llm_gateway.hpp) forwards results from the callbacks into actors;
// policies in detached workers reach it through a call_port (this class, or that actor).
//
// Lifetime: runtime, client and cache must outlive the gateway. The destructor fails queued
// calls with error_kind::cancelled, cancels the calls in flight and waits until their
// callbacks have run; it must not run on a runtime thread.
//
// Thread-safety: all methods may be called from any thread; callbacks run on runtime threads,
// never inside the async_* call.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>

#include "llm/call_port.hpp"
#include "llm/call_result.hpp"
#include "llm/http_runtime.hpp"
#include "llm/openai_client.hpp"
#include "llm/response_cache.hpp"
#include "llm/token_bucket.hpp"
#include "llm/token_ledger.hpp"

namespace aopt::llm {

struct gateway_options {
  // Calls in flight at once, over all campaigns. >= 1.
  uint32_t max_concurrency = 4;
  // Requests started per minute (burst: a full minute's worth); 0 = unlimited.
  uint32_t requests_per_minute = 0;
  // Per campaign, on used tokens (see token_ledger); 0 = unlimited.
  uint64_t budget_tokens = 0;
  cache_mode cache = cache_mode::readwrite;
  price_table prices;
  // The rate limiter's clock; null = steady_clock::now. Injected by tests.
  steady_clock_fn clock;
  // The longest the gateway sleeps before asking the rate limiter again. With the real clock
  // it wakes when a token is due anyway; this bounds the wait when the clock is injected.
  std::chrono::milliseconds rate_recheck{1000};
};

struct gateway_stats {
  uint32_t in_flight = 0;  // calls handed to the client and not yet finished
  uint32_t queued = 0;     // calls waiting for a slot or for the rate limiter
  uint64_t sent = 0;       // calls handed to the client so far
  uint64_t cache_hits = 0;
  uint64_t refused_budget = 0;
  uint64_t cache_errors = 0;
  std::string last_cache_error;  // the newest cache failure, for the log
};

class gateway final : public call_port {
 public:
  gateway(http_runtime& runtime, openai_client& client, response_cache* cache,
          gateway_options options);
  ~gateway();

  gateway(const gateway&) = delete;
  gateway& operator=(const gateway&) = delete;

  void async_chat(call_context who, chat_request request, chat_callback done);
  void async_embed(call_context who, embedding_request request, embedding_callback done);

  // Blocking forms. REQUIRES: not on a runtime thread (such a call fails with invalid_request).
  call_result<chat_response> chat(call_context who, chat_request request) override;
  call_result<embedding_response> embed(call_context who, embedding_request request) override;

  // Adds `earlier` (a resumed campaign's persisted usage) to the ledger, so the budget and the
  // totals cover the whole campaign, not only this process's part of it.
  void restore_usage(const token_ledger& earlier);

  token_ledger ledger() const;  // a snapshot
  gateway_stats stats() const;
  bool budget_left(const std::string& campaign) const;
  const gateway_options& options() const;

 private:
  class core;
  std::unique_ptr<core> core_;
};

}  // namespace aopt::llm
