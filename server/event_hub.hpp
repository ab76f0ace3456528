// Fans the progress events of every campaign out to the daemon's server-sent-event clients, and
// counts them for /metrics. Campaign episodes publish from many actor threads; the manager
// publishes a "campaign_status" event whenever a campaign changes state.
//
// Every event gets an id, increasing by one; the last `history` events are kept so a client
// that reconnects with Last-Event-ID (or ?since=) misses nothing that is still retained. A hub
// made with_log() also keeps them in the database's events column family and starts from
// there, so ids keep increasing across daemon restarts and a client reconnecting to the new
// daemon catches up on what the old one published.
// A subscriber's deliver() is called with the hub's lock held, in id order, and must only hand
// the event over (post it to its own executor), never block.
//
// Thread-safety: every method may be called from any thread.
#pragma once

#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "agent/episode/campaign_events.hpp"
#include "base/status.hpp"
#include "storage/store.hpp"

namespace aopt::server {

struct hub_event {
  uint64_t id = 0;
  std::string campaign;
  std::string type;
  std::string json;  // the event as one line of JSON, with "id" and "type"
};

class event_subscriber {
 public:
  virtual ~event_subscriber() = default;
  virtual void deliver(std::shared_ptr<const hub_event> event) = 0;
  // The hub is closing: flush what is queued, then end the stream.
  virtual void close() = 0;
};

struct hub_counters {
  uint64_t events = 0;
  std::map<std::string, uint64_t> evaluations_by_status;
  uint64_t accepted = 0;
  uint64_t episodes_started = 0;
  uint64_t episodes_finished = 0;
  uint64_t subscribers = 0;
  uint64_t log_errors = 0;  // events the database did not take (they still went out live)
};

class event_hub final : public agent::event_sink {
 public:
  explicit event_hub(size_t history = 10000);
  // A hub that writes every event to `db` (which must outlive it) and starts with the newest
  // `history` events stored there. Errors: the store's, when the stored events are unreadable.
  static result<std::shared_ptr<event_hub>> with_log(storage::store& db, size_t history = 10000);

  void publish(const agent::campaign_event& event) override;
  // {"type":"campaign_status","campaign":...,"status":...,"message":...}
  void publish_status(const std::string& campaign, const std::string& status,
                      const std::string& message = {});

  // Registers `s` (held weakly: it unregisters by going away) and returns the retained events
  // with an id above `since`, atomically with the registration, so nothing falls in between.
  std::vector<std::shared_ptr<const hub_event>> subscribe(
      const std::shared_ptr<event_subscriber>& s, uint64_t since);
  // Calls close() on every subscriber; later subscribers are closed at once.
  void close_all();

  uint64_t last_id() const;
  // Changes whenever an event of `campaign` is published (a cache key for derived views).
  uint64_t campaign_version(const std::string& campaign) const;
  hub_counters counters() const;

 private:
  void append(const std::string& campaign, const std::string& type, nlohmann::json j);

  const size_t history_;
  storage::store* log_ = nullptr;
  mutable std::mutex mutex_;
  // State below is guarded by mutex_.
  uint64_t last_id_ = 0;
  std::deque<std::shared_ptr<const hub_event>> retained_;
  std::vector<std::weak_ptr<event_subscriber>> subscribers_;
  std::map<std::string, uint64_t> campaign_versions_;
  hub_counters counters_;
  bool closed_ = false;
};

}  // namespace aopt::server
