// `aopt worker --coordinator HOST:PORT`: offers this host's device slots to a coordinator
// (`aopt serve --workers-listen` or `aopt run --workers-listen`) over CAF's io module, and
// evaluates the leases it sends until the coordinator goes away or SIGINT/SIGTERM arrives.
//
// Prints "aopt worker: joined HOST:PORT as NAME with N slot(s)" on stdout once accepted, so
// scripts and tests can wait for it.
//
// Exit status: 0 the coordinator closed the connection or dropped the worker, or stopped by a
// signal; 1 the coordinator cannot be reached or refused the worker (wrong secret, another
// hardware profile); 2 bad input (options, configuration).
#include <unistd.h>

#include <chrono>
#include <cstdio>

#include <fmt/format.h>
#include <caf/io/all.hpp>

#include "actors/evaluation_worker.hpp"
#include "actors/messages.hpp"
#include "app/cli_commands.hpp"
#include "app/cli_config.hpp"
#include "base/listen_address.hpp"
#include "runtime/device_factory.hpp"
#include "runtime/engine.hpp"
#include "runtime/signal_watcher.hpp"

namespace aopt::runtime {
namespace {

constexpr int exit_failed = 1;
constexpr int exit_bad_input = 2;

struct worker_args {
  std::string coordinator;
  int64_t slots = -1;
  std::string profile;
  config_options config;
};

std::string host_label() {
  char host[256] = {};
  if (gethostname(host, sizeof host - 1) != 0) host[0] = '\0';
  return fmt::format("{}:{}", host, getpid());
}

int run_worker(const worker_args& args) {
  signal_watcher signals;
  std::vector<std::string> extra;
  if (args.slots >= 0) extra.push_back("device.slots=" + std::to_string(args.slots));
  if (!args.profile.empty()) extra.push_back("device.profile=" + args.profile);
  result<config::aopt_config> cfg = load_config(args.config, extra);
  if (!cfg.ok()) {
    fmt::print(stderr, "aopt worker: {}\n", cfg.error().to_string());
    return exit_bad_input;
  }
  if (cfg->device.slots == 0) {
    fmt::print(stderr, "aopt worker: --slots (device.slots) must be at least 1\n");
    return exit_bad_input;
  }
  result<listen_address> coordinator = parse_listen_address(args.coordinator);
  if (!coordinator.ok() || coordinator->port == 0) {
    fmt::print(stderr, "aopt worker: --coordinator: {}\n",
               coordinator.ok() ? "port 0 names no coordinator" : coordinator.error().to_string());
    return exit_bad_input;
  }
  result<std::shared_ptr<npu::device>> device = make_device(*cfg, secrets_to_redact(*cfg));
  if (!device.ok()) {
    fmt::print(stderr, "aopt worker: {}\n", device.error().to_string());
    return exit_bad_input;
  }

  caf::actor_system_config caf_cfg;
  caf_cfg.add_message_types<caf::id_block::aopt>();
  caf_cfg.load<caf::io::middleman>();
  caf::actor_system sys{caf_cfg};
  auto pool = sys.middleman().remote_actor(coordinator->host, coordinator->port);
  if (!pool) {
    fmt::print(stderr, "aopt worker: cannot reach the coordinator at {}: {}\n",
               coordinator->to_string(), sys.render(pool.error()));
    return exit_failed;
  }
  caf::actor worker =
      actors::spawn_evaluation_worker(sys, {*device, *pool, [](const std::string& line) {
                                              fmt::print("aopt worker: {}\n", line);
                                              std::fflush(stdout);
                                            }});
  caf::scoped_actor self{sys};
  actors::worker_hello hello{host_label(), workers_secret(cfg->workers), cfg->device.slots,
                             (*device)->profile_id()};
  std::optional<actors::worker_welcome> welcome;
  self->request(*pool, std::chrono::seconds(30), actors::join_atom_v, hello, worker)
      .receive([&](const actors::worker_welcome& w) { welcome = w; },
               [&](caf::error& e) {
                 fmt::print(stderr, "aopt worker: {} refused this worker: {}\n",
                            coordinator->to_string(), sys.render(e));
               });
  if (!welcome) {
    caf::anon_send_exit(worker, caf::exit_reason::user_shutdown);
    return exit_failed;
  }
  fmt::print("aopt worker: joined {} as {} with {} slot(s)\n", coordinator->to_string(),
             welcome->worker, cfg->device.slots);
  std::fflush(stdout);
  caf::anon_send(worker, *welcome);

  self->monitor(worker);
  bool running = true;
  bool stopping = false;
  while (running) {
    self->receive(
        [&](caf::down_msg& down) {
          // The connection to the coordinator was lost, or the coordinator dropped this worker.
          if (!stopping)
            fmt::print(stderr, "aopt worker: left the coordinator: {}\n", sys.render(down.reason));
          running = false;
        },
        caf::after(std::chrono::milliseconds(200)) >>
            [&] {
              if (stopping || !signals.stop_flag()->load()) return;
              stopping = true;
              fmt::print(stderr, "aopt worker: stopping after the evaluations in flight\n");
              caf::anon_send_exit(worker, caf::exit_reason::user_shutdown);
            });
  }
  return 0;
}

}  // namespace

void add_worker_command(CLI::App& app, cli_context& ctx) {
  auto args = std::make_shared<worker_args>();
  CLI::App* cmd = app.add_subcommand(
      "worker",
      "offer this host's device slots to a coordinator (aopt serve/run --workers-listen)");
  cmd->add_option("--coordinator", args->coordinator,
                  "the coordinator's workers address, host:port")
      ->required();
  cmd->add_option("--slots", args->slots, "device slots to offer (device.slots)")
      ->check(CLI::PositiveNumber);
  cmd->add_option("--profile", args->profile, "hardware profile (device.profile)");
  add_config_options(cmd, args->config);
  cmd->callback([args, &ctx] { ctx.exit_code = run_worker(*args); });
}

}  // namespace aopt::runtime
