// `aopt worker --coordinator HOST:PORT`: offers this host's device slots to a coordinator
// (`aopt serve --workers-listen` or `aopt run --workers-listen`) over CAF's io module, and
// evaluates the leases it sends until SIGINT/SIGTERM arrives. A worker that loses its coordinator
// (the connection dropped, the coordinator stopped or dropped it), or cannot reach it yet, tries
// to join again with backoff (0.25 s doubling up to 5 s) for workers.rejoin_s seconds.
//
// Prints "aopt worker: joined HOST:PORT as NAME with N slot(s)" on stdout each time it is
// accepted, so scripts and tests can wait for it.
//
// Exit status: 0 stopped by a signal, or gave up rejoining a coordinator it had joined; 1 the
// coordinator refused the worker (wrong secret, another hardware profile) or could never be
// reached; 2 bad input (options, configuration).
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <thread>

#include <fmt/format.h>
#include <caf/io/all.hpp>

#include "actors/actor_system_setup.hpp"
#include "actors/evaluation_worker.hpp"
#include "actors/messages.hpp"
#include "app/cli_commands.hpp"
#include "app/cli_config.hpp"
#include "app/cli_numbers.hpp"
#include "app/exit_codes.hpp"
#include "base/challenge_response.hpp"
#include "base/listen_address.hpp"
#include "npu/package_cache.hpp"
#include "runtime/device_factory.hpp"
#include "runtime/engine.hpp"
#include "runtime/signal_watcher.hpp"

namespace aopt::runtime {
namespace {

constexpr std::chrono::milliseconds first_backoff{250};
constexpr std::chrono::milliseconds max_backoff{5000};

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

// What a worker brings to every join.
struct worker_setup {
  listen_address coordinator;
  std::shared_ptr<npu::device> device;
  std::shared_ptr<npu::package_cache> packages;
  std::string secret;
  uint32_t slots = 1;
};

enum class session_end {
  stopped,      // a signal asked the worker to stop
  refused,      // the coordinator refused the join: trying again would not help
  unreachable,  // no coordinator answered at the address
  lost,         // joined, then the connection or the coordinator's pool went away
};

void print_line(const std::string& line) {
  fmt::print("aopt worker: {}\n", line);
  std::fflush(stdout);
}

// One stay with the coordinator: reach it, answer its challenge, join, and evaluate the leases
// it sends until the worker's actor ends (the connection or the pool went away, or the pool
// dropped the worker) or a stop is asked.
session_end serve_coordinator(caf::actor_system& sys, const worker_setup& w,
                              const std::atomic<bool>& stop) {
  const std::string where = w.coordinator.to_string();
  auto pool = sys.middleman().remote_actor<actors::device_pool_actor>(w.coordinator.host,
                                                                      w.coordinator.port);
  if (!pool) {
    fmt::print(stderr, "aopt worker: cannot reach the coordinator at {}: {}\n", where,
               sys.render(pool.error()));
    return session_end::unreachable;
  }
  caf::scoped_actor self{sys};
  actors::worker_hello hello;
  hello.host = host_label();
  hello.slots = w.slots;
  hello.profile = w.device->profile_id();
  hello.checker = w.device->checker_id();
  std::string refusal;
  self->request(*pool, std::chrono::seconds(30), actors::challenge_atom_v)
      .receive([&](const std::string& nonce) { hello.nonce = nonce; },
               [&](caf::error& e) { refusal = sys.render(e); });
  if (!refusal.empty()) {
    fmt::print(stderr, "aopt worker: {} sent no challenge: {}\n", where, refusal);
    return session_end::unreachable;
  }
  if (!w.secret.empty()) hello.answer = challenge_answer(w.secret, hello.nonce, hello.host);
  actors::evaluation_worker_actor worker =
      actors::spawn_evaluation_worker(sys, {w.device, *pool, w.packages, print_line});
  std::optional<actors::worker_welcome> welcome;
  self->request(*pool, std::chrono::seconds(30), actors::join_atom_v, hello,
                caf::actor_cast<caf::actor>(worker))
      .receive([&](const actors::worker_welcome& accepted) { welcome = accepted; },
               [&](caf::error& e) { refusal = sys.render(e); });
  if (!welcome) {
    fmt::print(stderr, "aopt worker: {} refused this worker: {}\n", where, refusal);
    caf::anon_send_exit(worker, caf::exit_reason::user_shutdown);
    return session_end::refused;
  }
  print_line(fmt::format("joined {} as {} with {} slot(s)", where, welcome->worker, w.slots));
  caf::anon_send(worker, *welcome);

  self->monitor(worker);
  bool stopping = false;
  for (;;) {
    std::optional<session_end> end;
    self->receive(
        [&](caf::down_msg& down) {
          if (stopping) {
            end = session_end::stopped;
            return;
          }
          // The connection to the coordinator was lost, or its pool ended or dropped this worker.
          fmt::print(stderr, "aopt worker: left the coordinator: {}\n", sys.render(down.reason));
          end = session_end::lost;
        },
        caf::after(std::chrono::milliseconds(200)) >>
            [&] {
              if (stopping || !stop.load()) return;
              stopping = true;
              fmt::print(stderr, "aopt worker: stopping after the evaluations in flight\n");
              caf::anon_send_exit(worker, caf::exit_reason::user_shutdown);
            });
    if (end) return *end;
  }
}

// Waits `d`, or less when a stop is asked; false when it was.
bool wait_unless_stopped(std::chrono::milliseconds d, const std::atomic<bool>& stop) {
  const auto until = std::chrono::steady_clock::now() + d;
  while (std::chrono::steady_clock::now() < until) {
    if (stop.load()) return false;
    std::this_thread::sleep_for(std::min<std::chrono::steady_clock::duration>(
        std::chrono::milliseconds(100), until - std::chrono::steady_clock::now()));
  }
  return !stop.load();
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
  const worker_setup setup{*coordinator, *device,
                           std::make_shared<npu::package_cache>(cfg->workers.package_cache),
                           workers_secret(cfg->workers), cfg->device.slots};

  caf::actor_system_config caf_cfg;
  actors::configure_actor_system(caf_cfg);
  caf_cfg.load<caf::io::middleman>();
  caf::actor_system sys{caf_cfg};
  const auto window = std::chrono::duration_cast<std::chrono::steady_clock::duration>(
      std::chrono::duration<double>(cfg->workers.rejoin_s));
  const std::atomic<bool>& stop = *signals.stop_flag();
  bool joined_once = false;
  auto give_up_at = std::chrono::steady_clock::now() + window;
  std::chrono::milliseconds backoff = first_backoff;
  for (;;) {
    const session_end end = serve_coordinator(sys, setup, stop);
    if (end == session_end::stopped) return exit_ok;
    if (end == session_end::refused) return exit_failed;
    if (end == session_end::lost) {
      // A fresh window and backoff after every stay.
      joined_once = true;
      give_up_at = std::chrono::steady_clock::now() + window;
      backoff = first_backoff;
    }
    if (stop.load()) return exit_ok;
    if (std::chrono::steady_clock::now() + backoff > give_up_at) {
      if (cfg->workers.rejoin_s > 0) {
        fmt::print(stderr, "aopt worker: gave up joining {} after {} s (workers.rejoin_s)\n",
                   coordinator->to_string(), cfg->workers.rejoin_s);
      }
      return joined_once ? exit_ok : exit_failed;
    }
    fmt::print(stderr, "aopt worker: joining {} again in {} ms\n", coordinator->to_string(),
               backoff.count());
    if (!wait_unless_stopped(backoff, stop)) return exit_ok;
    backoff = std::min(2 * backoff, max_backoff);
  }
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
      ->check(whole_number_at_least(1));
  cmd->add_option("--profile", args->profile, "hardware profile (device.profile)");
  add_config_options(cmd, args->config);
  cmd->callback([args, &ctx] { ctx.exit_code = run_worker(*args); });
}

}  // namespace aopt::runtime
