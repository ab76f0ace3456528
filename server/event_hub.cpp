#include "server/event_hub.hpp"

#include <algorithm>
#include <chrono>

#include "base/utf8.hpp"

namespace aopt::server {

namespace {

double unix_seconds() {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

}  // namespace

event_hub::event_hub(size_t history) : history_(std::max<size_t>(history, 1)) {}

result<std::shared_ptr<event_hub>> event_hub::with_log(storage::store& db, size_t history) {
  auto hub = std::make_shared<event_hub>(history);
  result<std::vector<std::pair<uint64_t, nlohmann::json>>> stored = db.recent_events(hub->history_);
  if (!stored.ok()) return stored.error().with_context("event log");
  for (auto& [id, j] : *stored) {
    auto e = std::make_shared<hub_event>();
    e->id = id;
    e->campaign = j.value("campaign", "");
    e->type = j.value("type", "");
    e->json = dump_json(j);
    hub->campaign_versions_[e->campaign] = id;
    hub->last_id_ = id;
    hub->retained_.push_back(std::move(e));
  }
  hub->log_ = &db;
  return hub;
}

void event_hub::publish(const agent::campaign_event& event) {
  nlohmann::json j = event;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    using kind = agent::campaign_event::kind;
    switch (event.type) {
      case kind::candidate_evaluated:
        counters_.evaluations_by_status[event.status.empty() ? "unknown" : event.status]++;
        if (event.accepted) counters_.accepted++;
        break;
      case kind::episode_started:
        counters_.episodes_started++;
        break;
      case kind::episode_finished:
        counters_.episodes_finished++;
        break;
      default:
        break;
    }
  }
  append(event.campaign, agent::to_string(event.type), std::move(j));
}

void event_hub::publish_status(const std::string& campaign, const std::string& status,
                               const std::string& message) {
  append(campaign, "campaign_status",
         {{"type", "campaign_status"},
          {"campaign", campaign},
          {"status", status},
          {"message", message}});
}

void event_hub::append(const std::string& campaign, const std::string& type, nlohmann::json j) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto e = std::make_shared<hub_event>();
  e->id = ++last_id_;
  e->campaign = campaign;
  e->type = type;
  j["id"] = e->id;
  j["time"] = unix_seconds();
  e->json = dump_json(j);
  if (log_ != nullptr && !log_->append_event(e->id, j, history_).ok()) counters_.log_errors++;
  std::shared_ptr<const hub_event> shared = std::move(e);
  retained_.push_back(shared);
  if (retained_.size() > history_) retained_.pop_front();
  campaign_versions_[campaign] = last_id_;
  counters_.events++;
  auto alive = subscribers_.begin();
  for (auto it = subscribers_.begin(); it != subscribers_.end(); ++it) {
    if (std::shared_ptr<event_subscriber> s = it->lock()) {
      s->deliver(shared);
      *alive++ = *it;
    }
  }
  subscribers_.erase(alive, subscribers_.end());
}

std::vector<std::shared_ptr<const hub_event>> event_hub::subscribe(
    const std::shared_ptr<event_subscriber>& s, uint64_t since) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (closed_) {
    s->close();
    return {};
  }
  subscribers_.push_back(s);
  std::vector<std::shared_ptr<const hub_event>> backlog;
  for (const auto& e : retained_) {
    if (e->id > since) backlog.push_back(e);
  }
  return backlog;
}

void event_hub::close_all() {
  std::vector<std::weak_ptr<event_subscriber>> subscribers;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    closed_ = true;
    subscribers.swap(subscribers_);
  }
  for (const auto& weak : subscribers) {
    if (std::shared_ptr<event_subscriber> s = weak.lock()) s->close();
  }
}

uint64_t event_hub::last_id() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return last_id_;
}

uint64_t event_hub::campaign_version(const std::string& campaign) const {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = campaign_versions_.find(campaign);
  return it == campaign_versions_.end() ? 0 : it->second;
}

hub_counters event_hub::counters() const {
  std::lock_guard<std::mutex> lock(mutex_);
  hub_counters c = counters_;
  c.subscribers = 0;
  for (const auto& weak : subscribers_) c.subscribers += weak.expired() ? 0 : 1;
  return c;
}

}  // namespace aopt::server
