// `aopt serve`: the daemon. Starts the HTTP API and dashboard, resumes the campaigns it was
// running when it last stopped, and on SIGINT/SIGTERM stops in order: stop accepting
// connections, ask every campaign to stop after its evaluations in flight, wait at most
// server.shutdown_timeout_s for them to persist, close the event streams, exit.
//
// Prints "aopt serve: listening on http://HOST:PORT" on stdout once it accepts connections (the
// port the OS chose when --listen names port 0), so scripts and tests can wait for that line.
//
// Exit status: 0 stopped cleanly; 1 could not start (database, address); 2 bad configuration;
// 3 campaigns did not stop within the timeout (their persisted state resumes on the next start).
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <filesystem>

#include <fmt/format.h>

#include "actors/role_registry.hpp"
#include "app/cli_commands.hpp"
#include "app/cli_config.hpp"
#include "app/exit_codes.hpp"
#include "base/listen_address.hpp"
#include "runtime/campaign_runner.hpp"
#include "runtime/engine.hpp"
#include "runtime/hooked_roles.hpp"
#include "runtime/llm_factory.hpp"
#include "server/api_router.hpp"
#include "server/bearer_token.hpp"
#include "server/campaign_manager.hpp"
#include "server/event_hub.hpp"
#include "server/http_server.hpp"
#include "server/path_roots.hpp"
#include "server/stop_signals.hpp"

#ifndef AOPT_WEB_DIR
#error "AOPT_WEB_DIR must name the dashboard's folder (server/web)"
#endif

namespace aopt::runtime {
namespace {

constexpr int exit_stop_timeout = 3;

struct serve_args {
  std::string listen;
  std::string workers_listen;
  std::string db;
  std::string web_dir;
  config_options config;
};

int serve(const serve_args& args) {
  // Before any thread starts, so that every thread inherits the blocked signals.
  server::stop_signals signals;
  std::vector<std::string> extra;
  if (!args.db.empty()) extra.push_back("storage.db=" + args.db);
  if (!args.listen.empty()) extra.push_back("server.listen=" + args.listen);
  if (!args.workers_listen.empty()) extra.push_back("workers.listen=" + args.workers_listen);
  result<config::aopt_config> cfg = load_config(args.config, extra);
  if (!cfg.ok()) {
    fmt::print(stderr, "aopt serve: {}\n", cfg.error().to_string());
    return exit_bad_input;
  }
  // Every campaign of the daemon runs this pipeline: a wrong one is refused before any starts.
  if (result<agent::pipeline_roles> roles = actors::role_registry::with_builtin_roles().resolve(
          cfg->pipeline.stage1, cfg->pipeline.stage2);
      !roles.ok()) {
    fmt::print(stderr, "aopt serve: {}\n", roles.error().to_string());
    return exit_bad_input;
  }
  if (status hooked = runtime::check_hooked_roles(*cfg); !hooked.ok()) {
    fmt::print(stderr, "aopt serve: {}\n", hooked.to_string());
    return exit_bad_input;
  }
  result<listen_address> address = parse_listen_address(cfg->server.listen);
  if (!address.ok()) {
    fmt::print(stderr, "aopt serve: {}\n", address.error().to_string());
    return exit_bad_input;
  }
  // Only the token's origin is ever printed, never its value.
  const server::bearer_token token =
      server::resolve_bearer_token(cfg->server, std::getenv(cfg->server.token_env.c_str()));
  if (!is_loopback(address->host) && token.value.empty()) {
    fmt::print(stderr,
               "aopt serve: listening on {} (not loopback) requires a bearer token: set the "
               "environment variable {} (server.token_env) or server.token\n",
               address->to_string(), cfg->server.token_env);
    return exit_bad_input;
  }
  result<std::unique_ptr<storage::store>> db = storage::store::open(cfg->storage.db);
  if (!db.ok()) {
    fmt::print(stderr, "aopt serve: {}\n", db.error().to_string());
    return exit_failed;
  }

  result<std::shared_ptr<server::event_hub>> made_hub = server::event_hub::with_log(**db);
  if (!made_hub.ok()) {
    fmt::print(stderr, "aopt serve: {}\n", made_hub.error().to_string());
    return exit_failed;
  }
  std::shared_ptr<server::event_hub> hub = *made_hub;
  // The daemon's one engine: every campaign's actors, the device pool and the LLM service (its
  // concurrency, rate limit and ledger span every campaign; a bad [llm] section fails here) its
  // campaigns share, and the listener evaluation workers join through. After the database: it
  // stops first.
  result<std::shared_ptr<runtime::engine>> engine = runtime::engine::start(
      *cfg, db->get(),
      [](const std::string& line) { fmt::print(stderr, "aopt serve: {}\n", line); });
  if (!engine.ok()) {
    fmt::print(stderr, "aopt serve: {}\n", engine.error().to_string());
    return engine.error().code() == status_code::invalid_argument ? exit_bad_input : exit_failed;
  }
  server::campaign_manager campaigns(**db, hub, *engine);
  server::api_context ctx;
  ctx.db = db->get();
  ctx.campaigns = &campaigns;
  ctx.hub = hub.get();
  ctx.access = server::access_policy(token.value);
  const bool router_requires_token = ctx.access.token_required();
  ctx.roots = server::path_roots({cfg->server.roots.begin(), cfg->server.roots.end()});
  // Inside the database folder, so uploaded packages live and move with the campaigns using them.
  ctx.uploads = server::operator_uploads(std::filesystem::absolute(cfg->storage.db) / "uploads");
  const config_options config_source = args.config;
  const config::storage_config storage = cfg->storage;
  ctx.load_config = [config_source, storage](
                        const std::vector<std::string>& overrides) -> result<config::aopt_config> {
    result<config::aopt_config> c = load_config(config_source, overrides);
    if (c.ok()) c->storage = storage;
    return c;
  };
  ctx.web_dir = std::filesystem::path(args.web_dir.empty() ? AOPT_WEB_DIR : args.web_dir);
  const server::api_router router(std::move(ctx));
  server::session_limits limits;
  limits.max_body_bytes = cfg->server.max_body_bytes;
  limits.max_header_bytes = static_cast<uint32_t>(cfg->server.max_header_bytes);
  limits.max_connections = cfg->server.max_connections;
  server::http_server http(router, *hub, limits);
  result<uint16_t> port = http.start(*address);
  if (!port.ok()) {
    fmt::print(stderr, "aopt serve: {}\n", port.error().to_string());
    return exit_failed;
  }
  listen_address bound = *address;
  bound.port = *port;
  if (router_requires_token) {
    fmt::print("aopt serve: API requests need \"Authorization: Bearer\" with the token from {}\n",
               token.origin);
  }
  std::vector<std::string> resumed = campaigns.resume_unfinished();
  for (const std::string& id : resumed) fmt::print("aopt serve: resumed campaign {}\n", id);
  fmt::print(
      "aopt serve: serving at most {} connections at once (server.max_connections and the "
      "file descriptor limit)\n",
      http.connections().max());
  if ((*engine)->workers_port() != 0) {
    listen_address workers = *parse_listen_address(cfg->workers.listen);
    workers.port = (*engine)->workers_port();
    fmt::print("aopt serve: workers join on {}\n", workers.to_string());
  }
  fmt::print("aopt serve: listening on http://{}\n", bound.to_string());
  std::fflush(stdout);

  const int sig = signals.wait();
  signals.arm_hard_stop();
  fmt::print(stderr, "aopt serve: {} received, stopping after the evaluations in flight\n",
             sig == SIGINT ? "SIGINT" : "SIGTERM");
  http.stop_accepting();
  campaigns.stop_all();
  const bool stopped = campaigns.wait_idle(cfg->server.shutdown_timeout_s);
  hub->close_all();
  http.stop();
  if (!stopped) {
    fmt::print(stderr,
               "aopt serve: campaigns still running after {} s (server.shutdown_timeout_s); "
               "exiting, they resume on the next start\n",
               cfg->server.shutdown_timeout_s);
    std::fflush(stderr);
    // Their threads still use the store and the hub; leaving without destructors is safe
    // because every acknowledged transition is already in RocksDB's write-ahead log.
    std::_Exit(exit_stop_timeout);
  }
  fmt::print(stderr, "aopt serve: stopped\n");
  return 0;
}

}  // namespace

void add_serve_command(CLI::App& app, cli_context& ctx) {
  auto args = std::make_shared<serve_args>();
  CLI::App* cmd =
      app.add_subcommand("serve", "run the daemon: HTTP API, live dashboard, concurrent campaigns");
  cmd->add_option("--listen", args->listen, "host:port to listen on (server.listen; port 0 = any)");
  cmd->add_option("--db", args->db, "database folder (storage.db)");
  cmd->add_option("--workers-listen", args->workers_listen,
                  "host:port evaluation workers join on (workers.listen; port 0 = any)");
  cmd->add_option("--web-dir", args->web_dir, "serve the dashboard from this folder instead");
  add_config_options(cmd, args->config);
  cmd->callback([args, &ctx] { ctx.exit_code = serve(*args); });
}

}  // namespace aopt::runtime
