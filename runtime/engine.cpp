#include "runtime/engine.hpp"

#include <cstdlib>
#include <thread>

#include <fmt/format.h>
#include <caf/io/all.hpp>

#include "actors/actor_system_setup.hpp"
#include "actors/device_pool.hpp"
#include "base/listen_address.hpp"
#include "runtime/campaign_runner.hpp"
#include "runtime/device_factory.hpp"
#include "runtime/llm_factory.hpp"

namespace aopt::runtime {

std::string workers_secret(const config::workers_config& config) {
  const char* env = std::getenv(config.secret_env.c_str());
  return env != nullptr && *env != '\0' ? std::string(env) : config.secret;
}

result<std::shared_ptr<engine>> engine::start(
    const config::aopt_config& config, storage::store* db,
    std::function<void(const std::string&)> on_worker_event) {
  const config::workers_config& w = config.workers;
  actors::device_pool_config pool;
  pool.local_slots = config.device.slots;
  pool.secret = workers_secret(w);
  pool.heartbeat_s = w.heartbeat_s;
  pool.heartbeat_timeout_s = w.heartbeat_timeout_s;
  pool.on_worker_event = std::move(on_worker_event);
  std::optional<listen_address> listen;
  if (!w.listen.empty()) {
    result<listen_address> address = parse_listen_address(w.listen);
    if (!address.ok()) return address.error().with_context("workers.listen");
    if (!is_loopback(address->host) && pool.secret.empty()) {
      return invalid_argument(fmt::format(
          "workers.listen: listening for workers on {} (not loopback) requires a shared secret: "
          "set the environment variable {} (workers.secret_env) or workers.secret",
          address->to_string(), w.secret_env));
    }
    // Workers must evaluate on the hardware profile this coordinator's campaigns use, judged by
    // the same checker.
    result<std::shared_ptr<npu::device>> device = make_device(config);
    if (!device.ok()) return device.error();
    pool.profile_id = (*device)->profile_id();
    pool.checker_id = (*device)->checker_id();
    listen = *address;
  } else if (config.device.slots == 0) {
    return invalid_argument(
        "device.slots = 0 makes a pure coordinator, which evaluates on workers only: set "
        "workers.listen (--workers-listen HOST:PORT) so that workers can join");
  }

  std::shared_ptr<engine> e(new engine());
  e->llm_config_ = config.llm;
  e->db_ = db;
  if (roles_use_llm(config)) {
    result<std::shared_ptr<agent::llm_service>> made = e->llm_service();
    if (!made.ok()) return made.error();
  }
  e->caf_config_ = std::make_unique<caf::actor_system_config>();
  actors::configure_actor_system(*e->caf_config_);
  e->caf_config_->set("scheduler.max-threads", std::max(2u, std::thread::hardware_concurrency()));
  if (listen) e->caf_config_->load<caf::io::middleman>();
  e->system_ = std::make_unique<caf::actor_system>(*e->caf_config_);
  e->pool_ = actors::spawn_device_pool(*e->system_, std::move(pool));
  if (listen) {
    const std::string host = listen->host == "localhost" ? "127.0.0.1" : listen->host;
    caf::expected<uint16_t> port =
        e->system_->middleman().publish(e->pool_, listen->port, host.c_str(), true);
    if (!port) {
      return unavailable(fmt::format("workers.listen: cannot listen on {}: {}", listen->to_string(),
                                     e->system_->render(port.error())));
    }
    e->workers_port_ = *port;
  }
  return e;
}

engine::~engine() {
  if (pool_) caf::anon_send_exit(pool_, caf::exit_reason::user_shutdown);
}

result<std::shared_ptr<agent::llm_service>> engine::llm_service() {
  std::lock_guard<std::mutex> lock(llm_mutex_);
  if (!llm_) {
    result<std::shared_ptr<agent::llm_service>> made = make_llm_service(llm_config_, db_);
    if (!made.ok()) return made.error();
    llm_ = std::move(*made);
  }
  return llm_;
}

std::shared_ptr<agent::llm_service> engine::llm_service_if_made() const {
  std::lock_guard<std::mutex> lock(llm_mutex_);
  return llm_;
}

actors::pool_stats engine::pool_stats() {
  actors::pool_stats stats;
  caf::scoped_actor self{*system_};
  self->request(pool_, caf::infinite, actors::stats_atom_v)
      .receive([&](actors::pool_stats& s) { stats = std::move(s); }, [](caf::error&) {});
  return stats;
}

}  // namespace aopt::runtime
