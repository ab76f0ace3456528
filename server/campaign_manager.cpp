#include "server/campaign_manager.hpp"

#include <chrono>
#include <ctime>
#include <stdexcept>

#include "actors/actor_error.hpp"
#include "runtime/campaign_identity.hpp"
#include "runtime/campaign_runner.hpp"

namespace aopt::server {
namespace fs = std::filesystem;

namespace {

constexpr const char* owner_key = "owner";
constexpr const char* owner_serve = "serve";

std::string utc_now() {
  std::time_t t = std::time(nullptr);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&t));
  return buf;
}

}  // namespace

campaign_manager::campaign_manager(storage::store& db, std::shared_ptr<event_hub> hub,
                                   std::shared_ptr<runtime::engine> engine)
    : db_(db), hub_(std::move(hub)), engine_(std::move(engine)) {}

namespace {

std::shared_ptr<runtime::engine> local_engine(uint32_t device_slots) {
  config::aopt_config config;
  config.device.slots = std::max<uint32_t>(1, device_slots);
  result<std::shared_ptr<runtime::engine>> e = runtime::engine::start(config);
  // Without a listener only device.slots = 0 is refused, which the line above rules out.
  if (!e.ok()) throw std::logic_error(e.error().to_string());
  return *e;
}

}  // namespace

campaign_manager::campaign_manager(storage::store& db, std::shared_ptr<event_hub> hub,
                                   uint32_t device_slots)
    : campaign_manager(db, std::move(hub), local_engine(device_slots)) {}

std::optional<llm::gateway_stats> campaign_manager::llm_stats() const {
  std::shared_ptr<agent::llm_service> llm = engine_->llm_service_if_made();
  if (!llm) return std::nullopt;
  return llm->gateway().stats();
}

std::optional<llm::token_ledger> campaign_manager::llm_ledger() const {
  std::shared_ptr<agent::llm_service> llm = engine_->llm_service_if_made();
  if (!llm) return std::nullopt;
  return llm->gateway().ledger();
}

campaign_manager::~campaign_manager() {
  stop_all();
  std::unique_lock<std::mutex> lock(mutex_);
  idle_.wait(lock, [&] { return running_.empty() && publishing_ == 0; });
}

result<std::string> campaign_manager::create(const std::string& id,
                                             const std::vector<fs::path>& operators,
                                             const config::aopt_config& config) {
  const std::string cid = id.empty() ? runtime::resolve_campaign_id(db_, operators, config) : id;
  std::lock_guard<std::mutex> lock(mutex_);
  if (stopping_) return unavailable("the daemon is shutting down");
  if (db_.get_campaign(cid).ok()) {
    return status(status_code::already_exists,
                  "campaign " + cid + " already exists (resume it, or pick another id)");
  }
  // The full record goes in before the run starts, so a daemon killed at any moment after this
  // reply finds what it needs to resume the campaign.
  nlohmann::json record = {{"id", cid},
                           {"created", utc_now()},
                           {"updated", utc_now()},
                           {owner_key, owner_serve},
                           {"status", "running"},
                           {"strategy", config::to_string(config.campaign.strategy)},
                           {"config", config::to_json(config)},
                           {"operators", nlohmann::json::array()}};
  for (const fs::path& p : operators) record["operators"].push_back(p.string());
  AOPT_RETURN_IF_ERROR(db_.put_campaign(cid, record));
  runtime::campaign_request request;
  request.operators = operators;
  request.config = config;
  start_locked(cid, std::move(request));
  return cid;
}

void campaign_manager::start_locked(const std::string& id, runtime::campaign_request request) {
  request.campaign = id;
  request.drift = drift_;
  const runtime::campaign_run_handle run =
      runtime::spawn_campaign_run(*engine_, std::move(request), db_, hub_);
  running_campaign rc;
  rc.actor = run.actor;
  running_[id] = rc;
  hub_->publish_status(id, "running");
  // The campaign's end arrives as its actor's answer, to a watcher actor of the engine. The
  // destructor waits for every campaign through running_, so `this` outlives the watcher's use.
  engine_->system().spawn([this, id, run](caf::event_based_actor* self) {
    self->request(run.actor, caf::infinite, actors::run_atom_v)
        .then(
            [=](actors::done_atom) {
              const result<runtime::campaign_outcome>& outcome = *run.outcome;
              if (!outcome.ok()) {
                finish(id, outcome.error(), false);
                return;
              }
              status errors;
              if (!outcome->errors.empty()) errors = internal_error(outcome->errors.front());
              finish(id, errors, outcome->interrupted);
            },
            [=](caf::error& e) {
              finish(id, internal_error("campaign actor: " + actors::to_status(e).message()),
                     false);
            });
  });
}

void campaign_manager::finish(const std::string& id, const status& outcome, bool interrupted) {
  std::string final_status;
  std::string why;
  status written;
  // The hub is a local copy: what holds the daemon together is torn down right after the last
  // campaign leaves running_ and publishing_.
  std::shared_ptr<event_hub> hub = hub_;
  {
    // Held throughout, so a pause, resume or cancel arriving while the run ends is either seen
    // here or finds the campaign no longer running.
    std::lock_guard<std::mutex> lock(mutex_);
    const running_campaign& rc = running_[id];
    status ended = outcome;
    // A resume queued while the run was stopping; a run that finished or failed meanwhile has
    // nothing left to resume, and a stopping daemon resumes it on its next start.
    if (rc.resume_after_stop && interrupted && outcome.ok() && !stopping_) {
      ended = restart_locked(id);
      if (ended.ok()) return;
    }
    // A queued resume that could not start leaves the campaign interrupted (resumed on the next
    // start) or failed, never paused.
    const std::string stop_as = rc.resume_after_stop ? "" : rc.stop_as;
    final_status = interrupted ? "interrupted" : "done";
    if (!ended.ok()) final_status = "failed";
    if (!stop_as.empty() && (interrupted || !ended.ok())) final_status = stop_as;
    why = ended.ok() ? "" : ended.to_string();
    written = record_status(id, final_status, why);
    // The campaign leaves running_ before its final status is published, so a client that sees
    // the status and asks finds it no longer running; publishing_ keeps the manager (and the
    // store the hub writes its events to) alive until the status is out.
    running_.erase(id);
    ++publishing_;
  }
  if (written.ok()) {
    hub->publish_status(id, final_status, why);
  } else {
    hub->publish_status(id, "failed", written.to_string());
  }
  std::lock_guard<std::mutex> lock(mutex_);
  --publishing_;
  idle_.notify_all();
}

status campaign_manager::restart_locked(const std::string& id) {
  result<runtime::campaign_request> request = runtime::load_campaign_request(db_, id);
  if (!request.ok()) return request.error();
  start_locked(id, std::move(*request));
  return status{};
}

status campaign_manager::record_status(const std::string& id, const std::string& value,
                                       const std::string& why) {
  result<nlohmann::json> record = db_.get_campaign(id);
  if (!record.ok()) return record.error();
  (*record)["status"] = value;
  (*record)["updated"] = utc_now();
  if (!why.empty()) (*record)["error"] = why;
  return db_.put_campaign(id, *record);
}

status campaign_manager::set_status(const std::string& id, const std::string& value,
                                    const std::string& why) {
  AOPT_RETURN_IF_ERROR(record_status(id, value, why));
  hub_->publish_status(id, value, why);
  return status{};
}

status campaign_manager::request_stop(const std::string& id, const std::string& stop_as) {
  auto it = running_.find(id);
  it->second.stop_as = stop_as;
  it->second.resume_after_stop = false;
  it->second.stop_requested = true;
  caf::anon_send(it->second.actor, actors::stop_atom_v);
  hub_->publish_status(id, "stopping", "will be " + stop_as);
  return status{};
}

status campaign_manager::pause(const std::string& id) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (auto it = running_.find(id); it != running_.end()) {
    if (it->second.stop_as == "cancelled") {
      return failed_precondition("campaign " + id + " is being cancelled");
    }
    return request_stop(id, "paused");
  }
  result<nlohmann::json> record = db_.get_campaign(id);
  if (!record.ok()) return not_found("no campaign " + id);
  const std::string st = record->value("status", "");
  if (st == "paused") return status{};
  return failed_precondition("campaign " + id + " is " + st + ", not running");
}

status campaign_manager::cancel(const std::string& id) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (running_.count(id)) return request_stop(id, "cancelled");
  result<nlohmann::json> record = db_.get_campaign(id);
  if (!record.ok()) return not_found("no campaign " + id);
  const std::string st = record->value("status", "");
  if (st == "cancelled") return status{};
  if (st == "done") return failed_precondition("campaign " + id + " has finished");
  return set_status(id, "cancelled", "");
}

status campaign_manager::resume(const std::string& id) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (stopping_) return unavailable("the daemon is shutting down");
  if (auto it = running_.find(id); it != running_.end()) {
    running_campaign& rc = it->second;
    if (!rc.stop_requested) return status{};
    if (rc.stop_as == "cancelled") {
      return failed_precondition("campaign " + id + " is being cancelled and cannot be resumed");
    }
    // Still stopping for a pause: its actors are busy persisting, so the new run
    // starts from finish() once they are done.
    rc.resume_after_stop = true;
    hub_->publish_status(id, "stopping", "will resume");
    return status{};
  }
  result<nlohmann::json> record = db_.get_campaign(id);
  if (!record.ok()) return not_found("no campaign " + id);
  const std::string st = record->value("status", "");
  if (st == "done" || st == "cancelled") {
    return failed_precondition("campaign " + id + " is " + st + " and cannot be resumed");
  }
  result<runtime::campaign_request> request = runtime::load_campaign_request(db_, id);
  if (!request.ok()) return request.error();
  start_locked(id, std::move(*request));
  return status{};
}

std::vector<std::string> campaign_manager::resume_unfinished() {
  std::vector<std::string> resumed;
  result<std::vector<storage::keyed_value>> all = db_.list_campaigns();
  if (!all.ok()) return resumed;
  for (const storage::keyed_value& kv : *all) {
    const std::string st = kv.value.value("status", "");
    if (kv.value.value(owner_key, "") != owner_serve) continue;
    if (st != "running" && st != "interrupted") continue;
    if (resume(kv.key).ok()) resumed.push_back(kv.key);
  }
  return resumed;
}

bool campaign_manager::is_running(const std::string& id) const {
  std::lock_guard<std::mutex> lock(mutex_);
  return running_.count(id) > 0;
}

size_t campaign_manager::running_count() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return running_.size();
}

void campaign_manager::stop_all() {
  std::lock_guard<std::mutex> lock(mutex_);
  stopping_ = true;
  for (auto& [id, rc] : running_) {
    rc.stop_requested = true;
    caf::anon_send(rc.actor, actors::stop_atom_v);
  }
}

bool campaign_manager::wait_idle(double timeout_s) {
  std::unique_lock<std::mutex> lock(mutex_);
  return idle_.wait_for(lock, std::chrono::duration<double>(timeout_s),
                        [&] { return running_.empty() && publishing_ == 0; });
}

}  // namespace aopt::server
