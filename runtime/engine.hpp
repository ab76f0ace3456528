// One engine per process (issue 19): the actor system, the device pool (this process's slots
// plus those of the remote evaluation workers that join), the LLM service (endpoint, response
// cache and the gateway: admission, rate limit, retries, token accounting) and, when
// configured, the listener workers join through (CAF's io module). `aopt run`, `aopt serve` and
// `aopt bank build` run their actors in it; `aopt serve`'s concurrent campaigns share it, so the
// device slots and the LLM limits span the whole process.
//
// Thread-safety: every method may be called from any thread; pool_stats() blocks the calling
// thread (not an actor's) until the pool answers.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>

#include <caf/all.hpp>

#include "actors/device_pool.hpp"
#include "actors/messages.hpp"
#include "agent/llm_policies/llm_service.hpp"
#include "base/status.hpp"
#include "config/aopt_config.hpp"
#include "storage/store.hpp"

namespace aopt::runtime {

// The workers' shared secret: the variable named by workers.secret_env when set and non-empty,
// else workers.secret ("" = none).
std::string workers_secret(const config::workers_config& config);

class engine {
 public:
  // Starts an engine with device.slots local slots and, when workers.listen is set, a listener
  // for workers. Refused (invalid_argument, naming the key) for a listener on a non-loopback
  // address without a secret, and for device.slots = 0 without a listener (nothing could
  // evaluate). The LLM service is made from config.llm at once when an episode role uses the LLM
  // (a bad [llm] section is refused here), else on first use. Its response cache is `db`'s
  // llm_cache (memory when null; `db` must outlive the engine). `on_worker_event` is told of
  // workers joining, refused and dropped (may be null).
  static result<std::shared_ptr<engine>> start(
      const config::aopt_config& config, storage::store* db = nullptr,
      std::function<void(const std::string&)> on_worker_event = nullptr);

  // Stops the device pool, waits for every actor of the system to finish, then closes the LLM
  // service.
  ~engine();
  engine(const engine&) = delete;
  engine& operator=(const engine&) = delete;

  caf::actor_system& system() { return *system_; }
  const actors::device_pool_actor& device_pool() const { return pool_; }
  // The port workers join on (the one the OS chose for port 0); 0 without a listener.
  uint16_t workers_port() const { return workers_port_; }
  actors::pool_stats pool_stats();

  // The process's one LLM service, made from the engine's [llm] section on first use (errors:
  // llm_service::make's, e.g. an empty llm.model).
  result<std::shared_ptr<agent::llm_service>> llm_service();
  // The LLM service when it was made; null otherwise (for views: made by no one, used by no one).
  std::shared_ptr<agent::llm_service> llm_service_if_made() const;

 private:
  engine() = default;

  config::llm_config llm_config_;
  storage::store* db_ = nullptr;
  mutable std::mutex llm_mutex_;
  // Declared before the actor system: destroyed after every actor that calls through it.
  std::shared_ptr<agent::llm_service> llm_;  // guarded by llm_mutex_
  std::unique_ptr<caf::actor_system_config> caf_config_;
  std::unique_ptr<caf::actor_system> system_;
  actors::device_pool_actor pool_;
  uint16_t workers_port_ = 0;
};

}  // namespace aopt::runtime
