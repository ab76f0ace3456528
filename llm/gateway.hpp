// gateway: the one way the agent calls the LLM (docs/design.md §3: "all LLM traffic goes through one
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
// Persisting the accounting is the caller's, in two parts, so that a campaign killed at any
// moment neither loses nor double counts usage (docs/design.md §4):
//   * billed tokens: a campaign's billing sink (set_billing_sink) gets each billed outcome when
//     it arrives, before its answer is cached or delivered. A process killed before the sink
//     wrote has no cached answer either, so the resumed run asks again and the endpoint bills
//     again: the persisted count still matches the endpoint's.
//   * consumption (calls, cache hits, failures, used tokens): take_unpersisted() hands over what
//     an operator's calls added since the last take, to be written with the episode transition
//     that consumed the answers. Answers an unpersisted step consumed are asked again by the
//     resumed run (replayed from the cache) and counted then, once.
// restore_usage() sets a campaign's ledger to its persisted usage when it (re)starts.
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
#include <functional>
#include <memory>
#include <string>

#include "base/status.hpp"
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

// Persists the tokens the endpoint billed for one call of `who`; ok when they are durable.
using billing_sink = std::function<status(const call_context& who, const token_usage& billed)>;

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

  // Makes `campaign`'s ledger its persisted usage (its entries in `persisted`) and forgets its
  // unpersisted consumption, so the budget and the totals cover the whole campaign, counted
  // once, however often it was stopped and resumed in this process or another.
  void restore_usage(const std::string& campaign, const token_ledger& persisted);
  // Sends the billed tokens of `campaign`'s calls to `sink` from now on; a null sink stops it
  // (billed tokens are then part of take_unpersisted()). A call already finishing may still use
  // the sink it found, so the sink must keep what it writes to alive (capture it by value).
  void set_billing_sink(const std::string& campaign, billing_sink sink);
  // Removes and returns what the calls of operator `op` in `campaign` consumed since the last
  // take (every role): calls, cache hits, failures, used tokens, and billed tokens when no
  // billing sink took them.
  token_ledger take_unpersisted(const std::string& campaign, const std::string& op);

  token_ledger ledger() const;  // a snapshot
  gateway_stats stats() const;
  bool budget_left(const std::string& campaign) const;
  const gateway_options& options() const;

 private:
  class core;
  std::unique_ptr<core> core_;
};

}  // namespace aopt::llm
