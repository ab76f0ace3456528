// The `aopt` commands that talk to a running daemon: submit, pause, cancel, watch, and
// `status` / `resume` with --server (without it they keep working on the local database).
// The daemon's URL comes from --server, else $AOPT_SERVER, else http://127.0.0.1:8742; the
// bearer token from $AOPT_TOKEN.
//
// `submit` names operators two ways: positional paths, which the daemon reads itself (inside
// its server.roots), and `--upload DIR`, whose packages this client reads and uploads, for a
// daemon that cannot see this machine's files.
//
// Exit status: 0 done; 1 the daemon could not be reached or refused (its reason is printed);
// 2 bad arguments.
#include <unistd.h>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <map>

#include <fmt/format.h>

#include "app/cli_commands.hpp"
#include "app/cli_numbers.hpp"
#include "app/exit_codes.hpp"
#include "base/file_beneath.hpp"
#include "base/utf8.hpp"
#include "npu/protocol/op_spec.hpp"
#include "runtime/campaign_runner.hpp"
#include "runtime/progress_view.hpp"
#include "server/http_client.hpp"
#include "server/operator_uploads.hpp"

namespace aopt::runtime {
namespace {
namespace fs = std::filesystem;

constexpr const char* default_server = "http://127.0.0.1:8742";

struct client_args {
  std::string server;
  std::string campaign;
  std::vector<std::string> paths;
  std::vector<std::string> uploads;
  std::vector<std::string> sets;
  std::string strategy;
  int64_t budget = -1, rounds = -1, jobs = -1, seed = -1;
  bool json = false;
  bool watch = false;
};

std::string env_or(const char* name, const std::string& fallback) {
  const char* v = std::getenv(name);
  return v && *v ? v : fallback;
}

void add_server_option(CLI::App* cmd, client_args& args) {
  cmd->add_option("--server", args.server,
                  "daemon URL (default: $AOPT_SERVER or http://127.0.0.1:8742)");
}

// A request to the daemon; prints the reason (after `context`, when given) and returns nullopt
// when it failed.
std::optional<nlohmann::json> call(const client_args& args, const std::string& method,
                                   const std::string& target, const std::string& body = "",
                                   const std::string& context = "") {
  const std::string prefix = context.empty() ? "aopt: " : "aopt: " + context + ": ";
  result<server::server_url> url = server::parse_server_url(
      args.server.empty() ? env_or("AOPT_SERVER", default_server) : args.server);
  if (!url.ok()) {
    fmt::print(stderr, "{}{}\n", prefix, url.error().message());
    return std::nullopt;
  }
  result<server::client_response> res =
      server::http_call(*url, method, target, body, env_or("AOPT_TOKEN", ""));
  if (!res.ok()) {
    fmt::print(stderr, "{}{}\n", prefix, res.error().message());
    return std::nullopt;
  }
  if (res->status >= 300) {
    fmt::print(stderr, "{}the daemon answered {}: {}\n", prefix, res->status, res->error_text());
    return std::nullopt;
  }
  return res->json();
}

agent::campaign_event event_of(const nlohmann::json& j) {
  static const std::map<std::string, agent::campaign_event::kind> kinds = {
      {"campaign_started", agent::campaign_event::kind::campaign_started},
      {"episode_started", agent::campaign_event::kind::episode_started},
      {"candidate_evaluated", agent::campaign_event::kind::candidate_evaluated},
      {"episode_finished", agent::campaign_event::kind::episode_finished},
      {"campaign_finished", agent::campaign_event::kind::campaign_finished}};
  agent::campaign_event e;
  e.type = kinds.at(j.value("type", ""));
  e.campaign = j.value("campaign", "");
  e.op = j.value("op", "");
  e.round = j.value("round", 0u);
  e.stage = j.value("stage", 0);
  e.candidates = j.value("candidates", 0u);
  e.budget = j.value("budget", 0u);
  e.baseline_us = j.value("baseline_us", 0.0);
  e.best_us = j.value("best_us", 0.0);
  e.status = j.value("status", "");
  e.origin = j.value("origin", "");
  e.accepted = j.value("accepted", false);
  e.operators = j.value("operators", 0u);
  e.timestamp_s = j.value("timestamp_s", 0.0);
  return e;
}

bool is_final(const std::string& campaign_status) {
  return campaign_status == "done" || campaign_status == "paused" ||
         campaign_status == "cancelled" || campaign_status == "failed" ||
         campaign_status == "interrupted";
}

void print_operator_results(const nlohmann::json& view) {
  for (const auto& op : view["operator_results"]) {
    fmt::print("  {:<32} {:<8} {:>3}/{:<3} evals  speedup {:.3f}x\n", op["name"].get<std::string>(),
               op["phase"].get<std::string>(), op["evaluations"].get<int>(),
               op["budget"].get<int>(), op["speedup"].get<double>());
  }
}

// The result of a campaign that is no longer running (or where it stands, when it never was).
void print_outcome(const std::string& id, const nlohmann::json& view) {
  fmt::print("campaign {} {}: GM speedup {:.3f}x, fast_1.0 {:.1f}%, {} evaluations\n", id,
             view["status"].get<std::string>(), view["geomean_speedup"].get<double>(),
             100 * view["fast_p"]["1.0"].get<double>(), view["evaluations"].get<uint64_t>());
  print_operator_results(view);
}

// Live progress bars of one campaign from the daemon's event stream, as `aopt run` draws them,
// then its outcome. A campaign that is not running has no progress to show: only its outcome.
int watch(const client_args& args, const std::string& id) {
  std::optional<nlohmann::json> view = call(args, "GET", "/api/v1/campaigns/" + id);
  if (!view) return exit_failed;
  if (!(*view)["running"].get<bool>()) {
    print_outcome(id, *view);
    return 0;
  }
  result<server::server_url> url = server::parse_server_url(
      args.server.empty() ? env_or("AOPT_SERVER", default_server) : args.server);
  if (!url.ok()) return exit_bad_input;
  auto progress = std::make_shared<progress_view>(stderr, isatty(STDERR_FILENO) != 0,
                                                  (*view)["total_budget"].get<uint64_t>(),
                                                  (*view)["operators"].get<size_t>());
  // Progress already made shows through the campaign's replayed events (since=0). Replayed
  // final statuses of earlier runs are followed by a "running"; a final status ends the watch
  // once the daemon confirms the campaign is no longer running.
  bool ended = false;
  status streamed = server::read_event_stream(
      *url, "/api/v1/events?since=0&campaign=" + id, env_or("AOPT_TOKEN", ""),
      [&](const server::sse_message& m) {
        nlohmann::json j = nlohmann::json::parse(m.data, nullptr, false);
        if (!j.is_object()) return true;
        if (m.type != "campaign_status") {
          progress->publish(event_of(j));
          return true;
        }
        if (!is_final(j.value("status", ""))) return true;
        std::optional<nlohmann::json> now = call(args, "GET", "/api/v1/campaigns/" + id);
        ended = !now || !(*now)["running"].get<bool>();
        return !ended;
      });
  progress->close();
  if (!streamed.ok()) {
    fmt::print(stderr, "aopt: {}\n", streamed.message());
    return exit_failed;
  }
  view = call(args, "GET", "/api/v1/campaigns/" + id);
  if (!view) return exit_failed;
  print_outcome(id, *view);
  return 0;
}

// One file of a package to upload, read without following links (a link out of the package
// would send the target's contents to the daemon). Errors name the path and the reason.
result<std::string> read_package_file(const fs::path& dir, const std::string& name) {
  // The daemon refuses larger files; the limit spares reading and sending them.
  result<std::string> text = read_file_beneath(dir, name, server::operator_uploads::max_file_bytes);
  if (!text.ok()) return text.error();
  // The upload carries each file as a JSON string, which must be UTF-8.
  if (!is_valid_utf8(*text)) return invalid_argument((dir / name).string() + ": not UTF-8 text");
  return text;
}

// The body of POST /api/v1/operators for the package in `dir`: op.json and the four files it
// names, which are all the daemon compiles and runs.
result<nlohmann::json> read_package(const fs::path& dir) {
  result<std::string> spec_text = read_package_file(dir, "op.json");
  if (!spec_text.ok()) return spec_text.error();
  const nlohmann::json spec_json = nlohmann::json::parse(*spec_text, nullptr, false);
  if (spec_json.is_discarded()) return invalid_argument((dir / "op.json").string() + ": not JSON");
  result<npu::op_spec> spec = npu::parse_op_spec(spec_json);
  if (!spec.ok()) return spec.error().with_context(dir.string());
  nlohmann::json files = {{"op.json", *spec_text}};
  for (const std::string& name :
       {spec->files.tiling_header, spec->files.host, spec->files.kernel, spec->files.reference}) {
    if (!server::valid_package_file_name(name)) {
      return invalid_argument((dir / "op.json").string() + ": names '" + name +
                              "', which an uploaded package cannot hold (op.json, reference.cpp, "
                              "op_host/<file>, op_kernel/<file> with .h, .hpp, .cpp or .cc)");
    }
    result<std::string> text = read_package_file(dir, name);
    if (!text.ok()) return text.error();
    files[name] = std::move(*text);
  }
  return nlohmann::json{{"files", std::move(files)}};
}

struct package_upload {
  fs::path dir;
  nlohmann::json body;
};

// The upload bodies of every package under the --upload folders, found the way the daemon finds
// them in its own paths (a folder with op.json, else the packages below it). All are read before
// any is sent, so a bad one leaves nothing behind on the daemon.
result<std::vector<package_upload>> read_uploads(const std::vector<std::string>& dirs) {
  std::vector<package_upload> uploads;
  for (const std::string& d : dirs) {
    const fs::path dir = fs::absolute(d).lexically_normal();
    std::error_code ec;
    if (!fs::is_directory(dir, ec)) return not_found(d + ": no such directory");
    result<std::vector<fs::path>> packages = discover_operators({dir});
    if (!packages.ok() && packages.error().code() == status_code::not_found) {
      return not_found(d + ": no operator package (a folder with op.json) in it or below it");
    }
    if (!packages.ok()) return packages.error();
    for (const fs::path& package : *packages) {
      result<nlohmann::json> body = read_package(package);
      if (!body.ok()) return body.error();
      uploads.push_back({package, std::move(*body)});
    }
  }
  return uploads;
}

int submit(const client_args& args) {
  if (args.paths.empty() && args.uploads.empty()) {
    fmt::print(stderr, "aopt: submit needs operator paths or --upload DIR\n");
    return exit_bad_input;
  }
  result<std::vector<package_upload>> packages = read_uploads(args.uploads);
  if (!packages.ok()) {
    fmt::print(stderr, "aopt: upload {}\n", packages.error().message());
    return exit_bad_input;
  }
  nlohmann::json body = nlohmann::json::object();
  for (const package_upload& package : *packages) {
    std::optional<nlohmann::json> stored = call(
        args, "POST", "/api/v1/operators", package.body.dump(), "upload " + package.dir.string());
    if (!stored) return exit_failed;
    body["uploads"].push_back((*stored)["id"]);
  }
  // The daemon resolves paths itself; absolute paths mean what they meant in this shell.
  for (const std::string& p : args.paths) {
    body["operators"].push_back(fs::absolute(p).lexically_normal().string());
  }
  if (!args.campaign.empty()) body["campaign"] = args.campaign;
  if (!args.strategy.empty()) body["strategy"] = args.strategy;
  if (args.budget >= 0) body["budget"] = args.budget;
  if (args.rounds >= 0) body["rounds"] = args.rounds;
  if (args.jobs >= 0) body["jobs"] = args.jobs;
  if (args.seed >= 0) body["seed"] = args.seed;
  if (!args.sets.empty()) body["set"] = args.sets;
  std::optional<nlohmann::json> created = call(args, "POST", "/api/v1/campaigns", body.dump());
  if (!created) return exit_failed;
  const std::string id = (*created)["id"];
  if (args.json) {
    std::cout << created->dump() << std::endl;
  } else {
    fmt::print("campaign {} submitted ({} operators)\n", id, (*created)["operators"].get<int>());
  }
  return args.watch ? watch(args, id) : 0;
}

// The daemon's device pool (GET /api/v1/workers): its slots, and each slot owner ("local" or a
// remote evaluation worker) with what it evaluated.
void print_device_pool(const nlohmann::json& pool) {
  fmt::print(
      "device pool: {} slots, {} in flight, {} queued; {} workers joined, {} evaluations "
      "re-queued, {} late duplicates, {} workers refused\n",
      pool["slots"].get<uint32_t>(), pool["in_flight"].get<uint32_t>(),
      pool["queued"].get<uint32_t>(), pool["joined"].get<uint32_t>(),
      pool["requeued"].get<uint64_t>(), pool["duplicates"].get<uint64_t>(),
      pool["refused"].get<uint64_t>());
  for (const auto& o : pool["owners"]) {
    fmt::print("  {:<40} {:>3} slots  {:>3} busy  {:>6} evaluated\n", o["name"].get<std::string>(),
               o["slots"].get<uint32_t>(), o["busy"].get<uint32_t>(),
               o["evaluated"].get<uint64_t>());
  }
}

int print_status(const client_args& args) {
  if (!args.campaign.empty()) {
    std::optional<nlohmann::json> view = call(args, "GET", "/api/v1/campaigns/" + args.campaign);
    if (!view) return exit_failed;
    if (args.json) {
      std::cout << view->dump() << std::endl;
      return 0;
    }
    fmt::print("campaign {}  {}  {:.0f}%  GM {:.3f}x  fast_1.0 {:.1f}%\n", args.campaign,
               (*view)["status"].get<std::string>(), 100 * (*view)["progress"].get<double>(),
               (*view)["geomean_speedup"].get<double>(),
               100 * (*view)["fast_p"]["1.0"].get<double>());
    print_operator_results(*view);
    return 0;
  }
  std::optional<nlohmann::json> list = call(args, "GET", "/api/v1/campaigns");
  if (!list) return exit_failed;
  if (args.json) {
    std::cout << dump_json((*list)["campaigns"]) << std::endl;
    return 0;
  }
  if ((*list)["campaigns"].empty()) fmt::print("no campaigns\n");
  for (const auto& c : (*list)["campaigns"]) {
    fmt::print("{:<20} {:<12} {:>4.0f}%  {} operators  GM {:.3f}x  updated {}\n",
               c["id"].get<std::string>(), c["status"].get<std::string>(),
               100 * c["progress"].get<double>(), c["operators"].get<int>(),
               c["geomean_speedup"].get<double>(), c["updated"].get<std::string>());
  }
  std::optional<nlohmann::json> pool = call(args, "GET", "/api/v1/workers");
  if (!pool) return exit_failed;
  print_device_pool(*pool);
  return 0;
}

int act(const client_args& args, const std::string& id, const std::string& action) {
  std::optional<nlohmann::json> res = call(args, "POST", "/api/v1/campaigns/" + id + "/" + action);
  if (!res) return exit_failed;
  fmt::print("campaign {}: {} requested\n", id, action);
  return 0;
}

// `status` and `resume` already work on the local database (app/cli_run.cpp); with --server
// they ask the daemon instead. CLI11 runs the parse-complete callback before the command's own
// one, and a RuntimeError carrying the exit status ends the run there without an error message.
void divert_to_daemon(CLI::App* cmd, std::shared_ptr<client_args> args,
                      std::function<int(const client_args&)> action) {
  add_server_option(cmd, *args);
  cmd->parse_complete_callback([cmd, args, action] {
    if (cmd->get_option("--server")->count() == 0) return;
    if (const CLI::Option* json = cmd->get_option_no_throw("--json"))
      args->json = json->count() > 0;
    throw CLI::RuntimeError(action(*args));
  });
}

}  // namespace

void add_client_commands(CLI::App& app, cli_context& ctx) {
  auto sub = std::make_shared<client_args>();
  CLI::App* submit_cmd = app.add_subcommand("submit", "start a campaign on a running daemon");
  submit_cmd->add_option("paths", sub->paths,
                         "operator packages or corpus folders the daemon reads (server.roots)");
  submit_cmd
      ->add_option("--upload", sub->uploads,
                   "an operator package or corpus folder on this machine, uploaded to the daemon "
                   "(repeatable)")
      ->allow_extra_args(false);
  submit_cmd->add_option("--campaign", sub->campaign, "campaign id (default: derived)");
  submit_cmd->add_option("--strategy", sub->strategy,
                         "alternating, stage1, stage2, best_of_n or evolve");
  submit_cmd->add_option("--budget", sub->budget, "candidate evaluations per operator")
      ->check(whole_number_at_least(0));
  submit_cmd->add_option("--rounds", sub->rounds, "rounds R of Stage I + Stage II")
      ->check(whole_number_at_least(0));
  submit_cmd->add_option("--jobs", sub->jobs, "episodes in flight")
      ->check(whole_number_at_least(0));
  submit_cmd->add_option("--seed", sub->seed, "seed of the heuristic policies")
      ->check(whole_number_at_least(0));
  submit_cmd->add_option("--set", sub->sets, "campaign.key=value (repeatable)");
  submit_cmd->add_flag("--watch", sub->watch, "then show live progress until it ends");
  submit_cmd->add_flag("--json", sub->json, "print the daemon's answer as JSON");
  add_server_option(submit_cmd, *sub);
  submit_cmd->callback([sub, &ctx] { ctx.exit_code = submit(*sub); });

  for (const char* action : {"pause", "cancel"}) {
    auto a = std::make_shared<client_args>();
    CLI::App* cmd = app.add_subcommand(action, std::string(action) + " a campaign of a daemon");
    cmd->add_option("campaign", a->campaign, "campaign id")->required();
    add_server_option(cmd, *a);
    const std::string name = action;
    cmd->callback([a, name, &ctx] { ctx.exit_code = act(*a, a->campaign, name); });
  }

  auto w = std::make_shared<client_args>();
  CLI::App* watch_cmd = app.add_subcommand("watch", "live progress of a daemon's campaign");
  watch_cmd->add_option("campaign", w->campaign, "campaign id")->required();
  add_server_option(watch_cmd, *w);
  watch_cmd->callback([w, &ctx] { ctx.exit_code = watch(*w, w->campaign); });

  if (CLI::App* status_cmd = app.get_subcommand("status")) {
    auto s = std::make_shared<client_args>();
    status_cmd->add_option("--campaign", s->campaign, "with --server: one campaign in detail");
    divert_to_daemon(status_cmd, s, print_status);
  }
  if (CLI::App* resume_cmd = app.get_subcommand("resume")) {
    auto r = std::make_shared<client_args>();
    divert_to_daemon(resume_cmd, r, [resume_cmd](const client_args& a) {
      const std::string id = resume_cmd->get_option("campaign")->as<std::string>();
      if (id.empty()) {
        fmt::print(stderr, "aopt: resume --server needs a campaign id\n");
        return exit_bad_input;
      }
      return act(a, id, "resume");
    });
  }
}

}  // namespace aopt::runtime
