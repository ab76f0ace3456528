#include "llm/gateway.hpp"

#include <algorithm>
#include <condition_variable>
#include <deque>
#include <map>
#include <mutex>
#include <optional>

#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>

#include "llm/blocking_call.hpp"
#include "llm/openai_protocol.hpp"

namespace aopt::llm {

namespace asio = boost::asio;

namespace {

std::string cache_key(const endpoint_url& url, const chat_request& r) {
  return chat_cache_key(url, r);
}
std::string cache_key(const endpoint_url& url, const embedding_request& r) {
  return embedding_cache_key(url, r);
}

result<chat_response> decode(const nlohmann::json& j, const chat_response*) {
  return chat_response_from_json(j);
}
result<embedding_response> decode(const nlohmann::json& j, const embedding_response*) {
  return embedding_response_from_json(j);
}

call_handle start_call(openai_client& client, chat_request request, chat_callback done) {
  return client.async_chat(std::move(request), std::move(done));
}
call_handle start_call(openai_client& client, embedding_request request, embedding_callback done) {
  return client.async_embed(std::move(request), std::move(done));
}

}  // namespace

class gateway::core {
 public:
  core(http_runtime& runtime, openai_client& client, response_cache* cache, gateway_options options)
      : runtime_(runtime),
        client_(client),
        cache_(options.cache == cache_mode::off ? nullptr : cache),
        options_(std::move(options)),
        ledger_(options_.prices),
        timer_(runtime.context()) {
    options_.max_concurrency = std::max(options_.max_concurrency, 1u);
    if (options_.requests_per_minute > 0)
      bucket_.emplace(options_.requests_per_minute, options_.requests_per_minute, options_.clock);
  }

  ~core() {
    std::deque<queued_call> queued;
    std::vector<call_handle> in_flight;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      stopping_ = true;
      queued.swap(queue_);
      for (auto& [id, handle] : in_flight_) in_flight.push_back(handle);
      timer_.cancel();
    }
    for (queued_call& call : queued)
      call.fail(error_kind::cancelled, "gateway shut down before the call started");
    for (const call_handle& handle : in_flight) handle.cancel();
    std::unique_lock<std::mutex> lock(mutex_);
    idle_.wait(lock, [this] { return in_flight_.empty() && busy_ == 0 && !timer_armed_; });
  }

  template <class Response, class Request>
  void submit(call_context who, Request request, std::function<void(call_result<Response>)> done) {
    request = client_.with_defaults(std::move(request));
    const std::string key = cache_key(client_.url(), request);
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (stopping_) return deliver(done, cancelled_result<Response>());
      if (!budget_left_locked(who.campaign)) return refuse_locked(who, done);
    }
    if (cache_) {
      if (std::optional<Response> hit = lookup<Response>(key)) {
        {
          std::lock_guard<std::mutex> lock(mutex_);
          record_locked(who, ledger_entry::answer(hit->usage, true), false);
          ++stats_.cache_hits;
        }
        return deliver(done, call_result<Response>(std::move(*hit)));
      }
    }
    queued_call call;
    call.who = who;
    call.start = [this, who, request, key, done](uint64_t id) {
      return start_call(client_, request, [this, id, who, key, done](call_result<Response> r) {
        finish<Response>(id, who, key, std::move(r), done);
      });
    };
    call.fail = [this, done](error_kind kind, const std::string& detail) {
      deliver(done, call_result<Response>(call_failure(kind, detail)));
    };
    {
      std::lock_guard<std::mutex> lock(mutex_);
      queue_.push_back(std::move(call));
    }
    pump();
  }

  token_ledger ledger() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return ledger_;
  }

  void restore_usage(const std::string& campaign, const token_ledger& persisted) {
    std::lock_guard<std::mutex> lock(mutex_);
    ledger_.replace_campaign(campaign, persisted);
    unpersisted_.replace_campaign(campaign, token_ledger());
  }

  void set_billing_sink(const std::string& campaign, billing_sink sink) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (sink)
      billing_sinks_[campaign] = std::move(sink);
    else
      billing_sinks_.erase(campaign);
  }

  token_ledger take_unpersisted(const std::string& campaign, const std::string& op) {
    std::lock_guard<std::mutex> lock(mutex_);
    return unpersisted_.take(campaign, op);
  }

  gateway_stats stats() const {
    std::lock_guard<std::mutex> lock(mutex_);
    gateway_stats s = stats_;
    s.in_flight = static_cast<uint32_t>(in_flight_.size());
    s.queued = static_cast<uint32_t>(queue_.size());
    return s;
  }

  bool budget_left(const std::string& campaign) const {
    std::lock_guard<std::mutex> lock(mutex_);
    return budget_left_locked(campaign);
  }

  const gateway_options& options() const { return options_; }
  http_runtime& runtime() { return runtime_; }

 private:
  struct queued_call {
    call_context who;
    std::function<call_handle(uint64_t id)> start;
    std::function<void(error_kind, const std::string&)> fail;  // never touches the gateway
  };

  template <class Response>
  static call_result<Response> cancelled_result() {
    return call_failure(error_kind::cancelled, "gateway shut down before the call started");
  }

  // Delivers on the runtime, so that callbacks never run inside async_* or under our lock.
  template <class Response>
  void deliver(const std::function<void(call_result<Response>)>& done, call_result<Response> r) {
    asio::post(runtime_.context(), [done, r = std::move(r)]() mutable { done(std::move(r)); });
  }

  bool budget_left_locked(const std::string& campaign) const {
    return options_.budget_tokens == 0 ||
           ledger_.campaign_total(campaign).used.total() < options_.budget_tokens;
  }

  std::string budget_message_locked(const std::string& campaign) const {
    return "campaign '" + campaign + "' used " +
           std::to_string(ledger_.campaign_total(campaign).used.total()) + " of its " +
           std::to_string(options_.budget_tokens) + " LLM tokens; no new LLM calls start";
  }

  // `billing_persisted`: a billing sink has already written the entry's billed tokens.
  void record_locked(const call_context& who, ledger_entry entry, bool billing_persisted) {
    ledger_.add(who, entry);
    if (billing_persisted) entry.billed = {};
    unpersisted_.add(who, entry);
  }

  // Gives the billed tokens of a finished call to its campaign's sink; true when they are
  // persisted. Runs outside the lock: the sink writes to the database.
  bool persist_billing(const call_context& who, const token_usage& billed) {
    if (billed.total() == 0) return false;
    billing_sink sink;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      auto it = billing_sinks_.find(who.campaign);
      if (it == billing_sinks_.end()) return false;
      sink = it->second;
    }
    return sink(who, billed).ok();
  }

  template <class Response>
  void refuse_locked(const call_context& who,
                     const std::function<void(call_result<Response>)>& done) {
    const std::string message = budget_message_locked(who.campaign);
    ++stats_.refused_budget;
    record_locked(who, ledger_entry::failure({}), false);
    deliver(done, call_result<Response>(call_failure(error_kind::budget_exhausted, message)));
  }

  template <class Response>
  std::optional<Response> lookup(const std::string& key) {
    result<std::optional<nlohmann::json>> stored = cache_->get(key);
    if (!stored.ok()) {
      note_cache_error(stored.error().to_string());
      return std::nullopt;
    }
    if (!stored->has_value()) return std::nullopt;
    result<Response> decoded = decode(**stored, static_cast<const Response*>(nullptr));
    if (!decoded.ok()) {
      note_cache_error(decoded.error().to_string());
      return std::nullopt;
    }
    decoded->from_cache = true;
    decoded->attempts = 0;
    return std::move(*decoded);
  }

  void note_cache_error(std::string message) {
    std::lock_guard<std::mutex> lock(mutex_);
    ++stats_.cache_errors;
    stats_.last_cache_error = std::move(message);
  }

  // Starts what may start now. Threads running here count in busy_, so the destructor waits
  // for them before the members go away.
  void pump() {
    std::vector<std::pair<uint64_t, queued_call>> starting;
    std::vector<std::pair<queued_call, std::string>> refused;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      while (!stopping_ && !queue_.empty() && in_flight_.size() < options_.max_concurrency) {
        queued_call& front = queue_.front();
        if (!budget_left_locked(front.who.campaign)) {
          std::string message = budget_message_locked(front.who.campaign);
          ++stats_.refused_budget;
          record_locked(front.who, ledger_entry::failure({}), false);
          refused.emplace_back(std::move(front), std::move(message));
          queue_.pop_front();
          continue;
        }
        if (bucket_ && !bucket_->try_acquire()) {
          arm_rate_timer_locked();
          break;
        }
        const uint64_t id = next_id_++;
        in_flight_.emplace(id, call_handle());
        ++stats_.sent;
        starting.emplace_back(id, std::move(front));
        queue_.pop_front();
      }
      ++busy_;
    }
    for (auto& [call, message] : refused) call.fail(error_kind::budget_exhausted, message);
    for (auto& [id, call] : starting) {
      call_handle handle = call.start(id);
      std::lock_guard<std::mutex> lock(mutex_);
      auto it = in_flight_.find(id);
      if (it != in_flight_.end()) {
        it->second = handle;
        if (stopping_) handle.cancel();
      }
    }
    std::lock_guard<std::mutex> lock(mutex_);
    --busy_;
    idle_.notify_all();
  }

  void arm_rate_timer_locked() {
    if (timer_armed_) return;
    timer_armed_ = true;
    timer_.expires_after(std::min<std::chrono::steady_clock::duration>(
        bucket_->time_until_available(), options_.rate_recheck));
    timer_.async_wait([this](boost::system::error_code) {
      {
        std::lock_guard<std::mutex> lock(mutex_);
        timer_armed_ = false;
        if (stopping_) {
          idle_.notify_all();
          return;
        }
        ++busy_;
      }
      pump();
      std::lock_guard<std::mutex> lock(mutex_);
      --busy_;
      idle_.notify_all();
    });
  }

  template <class Response>
  void finish(uint64_t id, const call_context& who, const std::string& key, call_result<Response> r,
              const std::function<void(call_result<Response>)>& done) {
    const ledger_entry entry =
        r.ok() ? ledger_entry::answer(r->usage, false) : ledger_entry::failure(r.error().billed());
    // Before the answer is cached, so that a process killed in between asks (and pays) again.
    const bool billing_persisted = persist_billing(who, entry.billed);
    bool store = false;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      record_locked(who, entry, billing_persisted);
      store = r.ok() && cache_ && options_.cache == cache_mode::readwrite;
      in_flight_.erase(id);
      ++busy_;
    }
    if (store) {
      status stored = cache_->put(key, to_json(*r));
      if (!stored.ok()) note_cache_error(stored.to_string());
    }
    done(std::move(r));
    pump();
    std::lock_guard<std::mutex> lock(mutex_);
    --busy_;
    idle_.notify_all();
  }

  http_runtime& runtime_;
  openai_client& client_;
  response_cache* cache_;  // null when the mode is off or there is no cache
  gateway_options options_;

  // State below is protected by mutex_.
  mutable std::mutex mutex_;
  std::condition_variable idle_;  // signalled when in_flight_, busy_ or timer_armed_ drop
  token_ledger ledger_;
  // What was recorded in ledger_ and not yet taken for persistence, by take_unpersisted().
  token_ledger unpersisted_;
  std::map<std::string, billing_sink> billing_sinks_;  // by campaign
  gateway_stats stats_;
  std::optional<token_bucket> bucket_;  // set iff requests_per_minute > 0
  std::deque<queued_call> queue_;
  std::map<uint64_t, call_handle> in_flight_;
  uint64_t next_id_ = 0;
  uint32_t busy_ = 0;         // threads inside pump()/finish() outside the lock
  asio::steady_timer timer_;  // wakes pump() when the rate limiter has a token again
  bool timer_armed_ = false;
  bool stopping_ = false;
};

gateway::gateway(http_runtime& runtime, openai_client& client, response_cache* cache,
                 gateway_options options)
    : core_(std::make_unique<core>(runtime, client, cache, std::move(options))) {}

gateway::~gateway() = default;

void gateway::async_chat(call_context who, chat_request request, chat_callback done) {
  core_->submit<chat_response>(std::move(who), std::move(request), std::move(done));
}

void gateway::async_embed(call_context who, embedding_request request, embedding_callback done) {
  core_->submit<embedding_response>(std::move(who), std::move(request), std::move(done));
}

call_result<chat_response> gateway::chat(call_context who, chat_request request) {
  return wait_for_call<chat_response>(core_->runtime(), [&](chat_callback done) {
    async_chat(std::move(who), std::move(request), std::move(done));
  });
}

call_result<embedding_response> gateway::embed(call_context who, embedding_request request) {
  return wait_for_call<embedding_response>(core_->runtime(), [&](embedding_callback done) {
    async_embed(std::move(who), std::move(request), std::move(done));
  });
}

void gateway::restore_usage(const std::string& campaign, const token_ledger& persisted) {
  core_->restore_usage(campaign, persisted);
}

void gateway::set_billing_sink(const std::string& campaign, billing_sink sink) {
  core_->set_billing_sink(campaign, std::move(sink));
}

token_ledger gateway::take_unpersisted(const std::string& campaign, const std::string& op) {
  return core_->take_unpersisted(campaign, op);
}

token_ledger gateway::ledger() const {
  return core_->ledger();
}
gateway_stats gateway::stats() const {
  return core_->stats();
}
bool gateway::budget_left(const std::string& campaign) const {
  return core_->budget_left(campaign);
}
const gateway_options& gateway::options() const {
  return core_->options();
}

}  // namespace aopt::llm
