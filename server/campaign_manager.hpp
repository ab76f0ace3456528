// The campaigns of one `aopt serve` daemon: starts each as a campaign actor of the daemon's
// engine (runtime::spawn_campaign_run), so that all share its device pool and LLM service
// (endpoint, gateway, ledger); pauses and cancels them by message, learns of their end from the
// campaign actor's answer, resumes them, and on start resumes every campaign the daemon was
// running when it stopped.
//
// Campaign records written by the daemon carry "owner": "serve", so `aopt run` campaigns in the
// same database are never resumed behind their user's back. Status values in the record:
//   running      - a run is in progress (or was, when the daemon died: it resumes on start)
//   interrupted  - the daemon stopped it while shutting down; it resumes on start
//   paused       - stopped on request; resumes only on request
//   cancelled    - stopped for good; its results stay readable
//   done         - every episode finished
// ON-DISK FORMAT: do not rename these strings or the "owner" key; later daemons read them.
//
// Thread-safety: every method may be called from any thread.
#pragma once

#include <atomic>
#include <condition_variable>
#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "base/status.hpp"
#include "config/aopt_config.hpp"
#include "npu/cann/drift_board.hpp"
#include "runtime/campaign_runner.hpp"
#include "runtime/engine.hpp"
#include "server/event_hub.hpp"
#include "storage/store.hpp"

namespace aopt::server {

class campaign_manager {
 public:
  // `db` and `hub` must outlive the manager. `engine`: the actor system, device pool (local
  // slots and remote workers) and LLM service shared by all campaigns (a campaign whose roles
  // use the LLM calls the engine's [llm] endpoint, whatever its own record says).
  campaign_manager(storage::store& db, std::shared_ptr<event_hub> hub,
                   std::shared_ptr<runtime::engine> engine);
  // With an engine of its own: `device_slots` local slots, no workers.
  campaign_manager(storage::store& db, std::shared_ptr<event_hub> hub, uint32_t device_slots);
  // Waits for every campaign to end (call stop_all first for a bounded wait).
  ~campaign_manager();
  campaign_manager(const campaign_manager&) = delete;
  campaign_manager& operator=(const campaign_manager&) = delete;

  // Records and starts a new campaign over `operators` (already confined and discovered).
  // `id` "" = derived from the inputs. Errors: already_exists when the id is taken.
  result<std::string> create(const std::string& id,
                             const std::vector<std::filesystem::path>& operators,
                             const config::aopt_config& config);

  // Errors: not_found for an unknown campaign; failed_precondition when the campaign's status
  // does not allow it (e.g. resuming a finished one, pausing one being cancelled). Resuming a
  // campaign that is still stopping for a pause queues the resume: it starts again once its
  // evaluations in flight are persisted (a later pause or cancel withdraws the resume).
  status pause(const std::string& id);
  status resume(const std::string& id);
  status cancel(const std::string& id);

  // Starts every daemon campaign whose record says running or interrupted. Returns their ids.
  std::vector<std::string> resume_unfinished();

  bool is_running(const std::string& id) const;
  size_t running_count() const;
  // The shared device pool's counts, workers included.
  actors::pool_stats pool_stats() const { return engine_->pool_stats(); }
  // The latest baseline drift check of each (operator, NPU) of CANN-device campaigns.
  std::vector<npu::drift_reading> drift_readings() const { return drift_->readings(); }
  // The engine's LLM service's gateway counters and ledger; nullopt while no campaign made it.
  std::optional<llm::gateway_stats> llm_stats() const;
  std::optional<llm::token_ledger> llm_ledger() const;

  // Asks every running campaign to stop (status "interrupted") and refuses new starts.
  void stop_all();
  // True when every campaign ended within `timeout_s`.
  bool wait_idle(double timeout_s);

 private:
  struct running_campaign {
    runtime::campaign_run_actor actor;  // runtime::spawn_campaign_run's
    bool stop_requested = false;        // a stop message was sent to it
    std::string stop_as;  // status to record once stopped ("" = whatever the run decided)
    bool resume_after_stop = false;  // start again instead of recording stop_as
  };

  // Starts `request` (its operators, include folders and configuration) as campaign `id`.
  // REQUIRES: mutex_ held, id not running.
  void start_locked(const std::string& id, runtime::campaign_request request);
  void finish(const std::string& id, const status& outcome, bool interrupted);
  // Starts `id` again from its record. REQUIRES: mutex_ held.
  status restart_locked(const std::string& id);
  status request_stop(const std::string& id, const std::string& stop_as);
  // Writes the record's status; set_status also publishes it.
  status record_status(const std::string& id, const std::string& value, const std::string& why);
  status set_status(const std::string& id, const std::string& value, const std::string& why);

  storage::store& db_;
  std::shared_ptr<event_hub> hub_;
  std::shared_ptr<runtime::engine> engine_;
  std::shared_ptr<npu::drift_board> drift_ = std::make_shared<npu::drift_board>();

  mutable std::mutex mutex_;
  std::condition_variable idle_;
  // State below is guarded by mutex_.
  std::map<std::string, running_campaign> running_;
  size_t publishing_ = 0;  // finished campaigns whose final status is being published
  bool stopping_ = false;
};

}  // namespace aopt::server
