// One engine per process (issue 19): the actor system, the device pool (this process's slots
// plus those of the remote evaluation workers that join) and, when configured, the listener
// workers join through (CAF's io module). `aopt run`, `aopt serve` and `aopt bank build` run
// their actors in it; `aopt serve`'s concurrent campaigns share it.
//
// Thread-safety: system() and device_pool() may be used from any thread; pool_stats() blocks
// the calling thread (not an actor's) until the pool answers.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include <caf/all.hpp>

#include "actors/device_pool.hpp"
#include "actors/messages.hpp"
#include "base/status.hpp"
#include "config/aopt_config.hpp"

namespace aopt::runtime {

// The workers' shared secret: the variable named by workers.secret_env when set and non-empty,
// else workers.secret ("" = none).
std::string workers_secret(const config::workers_config& config);

class engine {
 public:
  // Starts an engine with device.slots local slots and, when workers.listen is set, a listener
  // for workers. Refused (invalid_argument, naming the key) for a listener on a non-loopback
  // address without a secret, and for device.slots = 0 without a listener (nothing could
  // evaluate). `on_worker_event` is told of workers joining, refused and dropped (may be null).
  static result<std::shared_ptr<engine>> start(
      const config::aopt_config& config,
      std::function<void(const std::string&)> on_worker_event = nullptr);

  // Stops the device pool and waits for every actor of the system to finish.
  ~engine();
  engine(const engine&) = delete;
  engine& operator=(const engine&) = delete;

  caf::actor_system& system() { return *system_; }
  const actors::device_pool_actor& device_pool() const { return pool_; }
  // The port workers join on (the one the OS chose for port 0); 0 without a listener.
  uint16_t workers_port() const { return workers_port_; }
  actors::pool_stats pool_stats();

 private:
  engine() = default;

  std::unique_ptr<caf::actor_system_config> caf_config_;
  std::unique_ptr<caf::actor_system> system_;
  actors::device_pool_actor pool_;
  uint16_t workers_port_ = 0;
};

}  // namespace aopt::runtime
