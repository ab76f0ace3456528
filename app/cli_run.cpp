// `aopt run`, `aopt resume`, `aopt status`, `aopt report`: campaigns in this process.
//
// Exit status: 0 every episode finished; 1 a campaign could not run; 2 bad input (no operators,
// invalid configuration); 130 stopped by a signal (the campaign resumes with the same command).
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>

#include <fmt/format.h>

#include "app/cli_commands.hpp"
#include "app/cli_config.hpp"
#include "app/cli_include_folder.hpp"
#include "app/cli_numbers.hpp"
#include "app/exit_codes.hpp"
#include "base/listen_address.hpp"
#include "base/utf8.hpp"
#include "npu/op_package.hpp"
#include "runtime/campaign_runner.hpp"
#include "runtime/engine.hpp"
#include "runtime/progress_view.hpp"
#include "runtime/report.hpp"
#include "runtime/signal_watcher.hpp"
#include "runtime/strategy_comparison.hpp"
#include "runtime/workers_json.hpp"

namespace aopt::runtime {
namespace {

constexpr int exit_interrupted = 130;

struct run_args {
  std::vector<std::string> inputs;
  std::vector<std::string> include_dirs;
  std::string campaign;
  std::string db;
  std::string strategy;
  int64_t budget = -1, rounds = -1, jobs = -1, seed = -1;
  std::string report_dir;
  std::string llm_cache;
  std::string workers_listen;
  bool json = false;
  config_options config;
};

std::vector<std::string> flag_overrides(const run_args& a) {
  std::vector<std::string> o;
  if (!a.db.empty()) o.push_back("storage.db=" + a.db);
  if (!a.strategy.empty()) o.push_back("campaign.strategy=" + a.strategy);
  if (a.budget >= 0) o.push_back("campaign.budget=" + std::to_string(a.budget));
  if (a.rounds >= 0) o.push_back("campaign.rounds=" + std::to_string(a.rounds));
  if (a.jobs >= 0) o.push_back("campaign.jobs=" + std::to_string(a.jobs));
  if (a.seed >= 0) o.push_back("campaign.seed=" + std::to_string(a.seed));
  if (!a.report_dir.empty()) o.push_back("report.dir=" + a.report_dir);
  if (!a.llm_cache.empty()) o.push_back("llm.cache=" + a.llm_cache);
  if (!a.workers_listen.empty()) o.push_back("workers.listen=" + a.workers_listen);
  return o;
}

std::string policy_names(const config::aopt_config& c) {
  std::string out;
  for (const auto& [role, rc] : c.roles) {
    out += fmt::format("{}{}={}", out.empty() ? "" : ", ", role, config::to_string(rc.policy));
  }
  return out;
}

report_data make_report_data(const campaign_outcome& o, const config::aopt_config& c) {
  report_data d;
  d.campaign = o.campaign;
  d.strategy = config::to_string(c.campaign.strategy);
  d.policies = policy_names(c);
  d.device = fmt::format("{}:{}", config::to_string(c.device.kind), c.device.profile);
  d.simulated = c.device.kind == config::device_kind::sim;  // cascade results are measured
  d.wall_seconds = o.wall_seconds;
  d.episodes = o.episodes;
  d.llm_usage = o.llm_usage;
  d.cascade = o.cascade;
  d.finalists = o.finalists;
  return d;
}

std::vector<std::string> format_names(const config::report_config& r) {
  std::vector<std::string> out;
  for (config::report_format f : r.formats) out.push_back(config::to_string(f));
  return out;
}

// The device pool's counts of this process only (a resumed campaign's earlier runs are not in
// them), so that a resume can be checked not to redo completed evaluations. `evaluated` counts
// device evaluations of candidates; jobs answered from the evaluation cache take no device slot;
// `confirmations` counts the cold re-evaluations of accepted improvements, `validations` the
// checks of final bests on validation shapes.
nlohmann::json pool_json(const actors::pool_stats& pool) {
  return {{"evaluated", pool.evaluated},
          {"cache_hits", pool.cache_hits},
          {"confirmations", pool.confirmations},
          {"validations", pool.validations},
          {"slots", pool.slots},
          {"max_in_flight", pool.max_in_flight},
          {"workers", workers_json(pool)}};
}

void print_table(const report_data& d, const campaign_outcome& o) {
  nlohmann::json j = report_json(d);
  fmt::print("\ncampaign {}  ({} strategy, {} latencies)\n", d.campaign, d.strategy,
             d.simulated ? "simulated" : "measured");
  if (!o.tiling_probe.empty())
    fmt::print("tiling probe of Stage I candidates: {}\n", o.tiling_probe);
  if (j.contains("final_numbers")) {
    fmt::print("baseline, best and speedup: the {} of the finalists\n",
               j["final_numbers"].get<std::string>());
  }
  fmt::print("{:<32} {:>5} {:>12} {:>12} {:>9} {:>6}  {}\n", "operator", "level", "baseline us",
             "best us", "speedup", "evals", "failures");
  for (const auto& op : j["operators"]) {
    std::string failures;
    for (const auto& [kind, n] : op["failures"].items()) {
      failures += fmt::format("{}{} {}", failures.empty() ? "" : ", ", kind, n.get<int>());
    }
    if (op["phase"] == "failed") failures = "baseline failed: " + op["failure"].get<std::string>();
    fmt::print("{:<32} {:>5} {:>12.2f} {:>12.2f} {:>8.3f}x {:>6}  {}\n",
               op["name"].get<std::string>(), op["level"].get<int>(),
               op["baseline_us"].get<double>(), op["best_us"].get<double>(),
               op["speedup"].get<double>(), op["evaluations"].get<int>(), failures);
    // Why it ended so (never silent), and how far from the roofline.
    const nlohmann::json& roof = op["roofline"];
    std::string limit = roof["bound_us"].get<double>() > 0
                            ? fmt::format("roofline {:.0f}% -> {:.0f}%; ",
                                          100 * roof["baseline_fraction"].get<double>(),
                                          100 * roof["best_fraction"].get<double>())
                            : std::string();
    if (op["phase"] != "failed")
      fmt::print("{:<32} {}{}\n", "", limit, op["reason"].get<std::string>());
  }
  fmt::print(
      "\nGM speedup {:.3f}x  fast_1.0 {:.1f}%  fast_1.2 {:.1f}%  fast_1.4 {:.1f}%  "
      "fast_2.0 {:.1f}%  evaluations {}  wall {:.0f} s  device slots max used {}/{}\n",
      j["geomean_speedup"].get<double>(), 100 * j["fast_p"]["1.0"].get<double>(),
      100 * j["fast_p"]["1.2"].get<double>(), 100 * j["fast_p"]["1.4"].get<double>(),
      100 * j["fast_p"]["2.0"].get<double>(), j["evaluations"].get<int>(), o.wall_seconds,
      o.pool.max_in_flight, o.pool.slots);
  std::string roofs;
  for (const auto& [level, m] : j["by_level"].items()) {
    if (!m.contains("median_roofline_fraction")) continue;
    const nlohmann::json& r = m["median_roofline_fraction"];
    roofs += fmt::format("{}level {} {:.0f}% -> {:.0f}%", roofs.empty() ? "" : ", ", level,
                         100 * r["baseline"].get<double>(), 100 * r["best"].get<double>());
  }
  if (!roofs.empty()) fmt::print("median roofline fraction (baseline -> best): {}\n", roofs);
  if (d.llm_usage) fmt::print("{}", llm_usage_text(*d.llm_usage));
  for (const std::string& e : o.errors) fmt::print(stderr, "error: {}\n", e);
}

int execute(campaign_request request, const config::aopt_config& cfg, bool json) {
  signal_watcher signals;
  result<std::unique_ptr<storage::store>> db = storage::store::open(cfg.storage.db);
  if (!db.ok()) {
    fmt::print(stderr, "aopt: {}\n", db.error().to_string());
    return exit_failed;
  }
  // The process's engine: its device pool, LLM service and the listener workers join through.
  // Declared after the database: it stops (waiting for its actors) before the database closes.
  result<std::shared_ptr<engine>> started = engine::start(
      cfg, db->get(), [](const std::string& line) { fmt::print(stderr, "aopt: {}\n", line); });
  if (!started.ok()) {
    fmt::print(stderr, "aopt: {}\n", started.error().to_string());
    return started.error().code() == status_code::invalid_argument ? exit_bad_input : exit_failed;
  }
  if ((*started)->workers_port() != 0) {
    listen_address workers = *parse_listen_address(cfg.workers.listen);
    workers.port = (*started)->workers_port();
    fmt::print(stderr, "aopt: workers join on {}\n", workers.to_string());
  }
  request.shared_engine = *started;
  uint64_t total_budget =
      static_cast<uint64_t>(request.config.campaign.budget) * request.operators.size();
  auto view = std::make_shared<progress_view>(stderr, isatty(STDERR_FILENO) != 0, total_budget,
                                              request.operators.size());
  result<campaign_outcome> outcome = run_campaign(request, **db, view, signals.stop_flag());
  request.shared_engine.reset();
  view->close();
  if (!outcome.ok()) {
    fmt::print(stderr, "aopt: {}\n", outcome.error().to_string());
    return outcome.error().code() == status_code::invalid_argument ? exit_bad_input : exit_failed;
  }
  report_data data = make_report_data(*outcome, request.config);
  status written =
      write_reports(data, cfg.report.dir + "/" + outcome->campaign, format_names(cfg.report));
  if (!written.ok()) fmt::print(stderr, "aopt: reports: {}\n", written.to_string());
  if (json) {
    nlohmann::json summary = report_json(data);
    summary["pool"] = pool_json(outcome->pool);
    std::cout << dump_json(summary) << std::endl;
  } else {
    print_table(data, *outcome);
    fmt::print("reports in {}/{}\n", cfg.report.dir, outcome->campaign);
  }
  if (outcome->interrupted) {
    fmt::print(stderr, "aopt: campaign {} interrupted; run the same command or `aopt resume {}`\n",
               outcome->campaign, outcome->campaign);
    return exit_interrupted;
  }
  return outcome->errors.empty() ? 0 : exit_failed;
}

result<report_data> load_stored_report(storage::store& db, const std::string& id) {
  result<campaign_request> request = load_campaign_request(db, id);
  if (!request.ok()) return request.error();
  campaign_outcome outcome;
  outcome.campaign = id;
  result<nlohmann::json> record = db.get_campaign(id);
  if (!record.ok()) return record.error();
  result<std::optional<llm::token_ledger>> usage = llm_usage_of(*record);
  if (!usage.ok()) return usage.error().with_context("campaign " + id);
  outcome.llm_usage = std::move(*usage);
  result<std::vector<storage::keyed_value>> episodes = db.list_episodes(id);
  if (!episodes.ok()) return episodes.error().with_context("campaign " + id);
  for (const storage::keyed_value& kv : *episodes) {
    result<agent::episode_state> state = agent::episode_state_from_json(kv.value);
    if (!state.ok()) return state.error().with_context("campaign " + id + ", episode " + kv.key);
    outcome.episodes.push_back(std::move(*state));
  }
  return make_report_data(outcome, request->config);
}

status write_comparison(const nlohmann::json& comparison, const std::string& markdown,
                        const std::string& dir) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) return internal_error("creating " + dir + ": " + ec.message());
  for (const auto& [name, text] :
       {std::pair<std::string, std::string>{"comparison.json", comparison.dump(2)},
        {"comparison.md", markdown}}) {
    std::ofstream out(dir + "/" + name);
    out << text;
    if (!out) return internal_error("writing " + dir + "/" + name);
  }
  return status{};
}

}  // namespace

void add_run_commands(CLI::App& app, cli_context& ctx) {
  auto args = std::make_shared<run_args>();
  CLI::App* run = app.add_subcommand("run", "optimize operators: one episode per operator");
  run->add_option("inputs", args->inputs, "operator packages or corpus folders")->required();
  run->add_option("--campaign", args->campaign, "campaign id (default: derived from the inputs)");
  run->add_option("--include-dir", args->include_dirs,
                  "A folder of the operators' repository holding helper headers they include but "
                  "do not carry, or a pattern of such folders (kernels/*/op_kernel: every match, "
                  "sorted); searched after op.json's include_dirs; repeatable")
      ->check(include_folder());
  run->add_option("--db", args->db, "database folder (storage.db)");
  run->add_option("--strategy", args->strategy, "alternating, stage1, stage2, best_of_n or evolve");
  run->add_option("--budget", args->budget, "candidate evaluations per operator")
      ->check(whole_number_at_least(0));
  run->add_option("--rounds", args->rounds, "rounds R of Stage I + Stage II")
      ->check(whole_number_at_least(0));
  run->add_option("--jobs", args->jobs, "episodes in flight")->check(whole_number_at_least(0));
  run->add_option("--seed", args->seed, "seed of the heuristic policies")
      ->check(whole_number_at_least(0));
  run->add_option("--report", args->report_dir, "report folder (report.dir)");
  run->add_option("--llm-cache", args->llm_cache,
                  "LLM response cache: off, read (replay only) or readwrite (llm.cache)");
  run->add_option("--workers-listen", args->workers_listen,
                  "host:port evaluation workers join on (workers.listen; port 0 = any)");
  run->add_flag("--json", args->json, "print one JSON summary object at the end");
  add_config_options(run, args->config);
  run->callback([args, &ctx] {
    result<config::aopt_config> cfg = load_config(args->config, flag_overrides(*args));
    if (!cfg.ok()) {
      fmt::print(stderr, "aopt: {}\n", cfg.error().to_string());
      ctx.exit_code = exit_bad_input;
      return;
    }
    std::vector<std::filesystem::path> inputs(args->inputs.begin(), args->inputs.end());
    result<std::vector<std::filesystem::path>> ops = discover_operators(inputs);
    if (!ops.ok()) {
      fmt::print(stderr, "aopt: {}\n", ops.error().to_string());
      ctx.exit_code = exit_bad_input;
      return;
    }
    // A package that does not load (a broken op.json, a file linking out of it) is bad input,
    // refused before the campaign starts.
    npu::package_load_options load;
    for (const std::string& dir : args->include_dirs) {
      load.include_dirs.push_back(std::filesystem::absolute(dir).lexically_normal());
    }
    for (const std::filesystem::path& op : *ops) {
      if (result<npu::op_package> pkg = npu::load_op_package(op, load); !pkg.ok()) {
        fmt::print(stderr, "aopt: {}\n", pkg.error().to_string());
        ctx.exit_code = exit_bad_input;
        return;
      }
    }
    campaign_request request;
    request.campaign = args->campaign;
    request.operators = std::move(*ops);
    request.include_dirs = std::move(load.include_dirs);
    request.config = *cfg;
    ctx.exit_code = execute(std::move(request), *cfg, args->json);
  });

  auto resume_args = std::make_shared<run_args>();
  CLI::App* resume = app.add_subcommand("resume", "continue unfinished campaigns");
  resume->add_option("campaign", resume_args->campaign, "campaign id (default: every unfinished)");
  resume->add_option("--db", resume_args->db, "database folder (storage.db)");
  resume->add_option("--llm-cache", resume_args->llm_cache,
                     "LLM response cache for the resumed run: off, read or readwrite (llm.cache)");
  resume->add_flag("--json", resume_args->json, "print one JSON summary object per campaign");
  add_config_options(resume, resume_args->config);
  resume->callback([resume_args, &ctx] {
    result<config::aopt_config> cfg =
        load_config(resume_args->config, flag_overrides(*resume_args));
    if (!cfg.ok()) {
      fmt::print(stderr, "aopt: {}\n", cfg.error().to_string());
      ctx.exit_code = exit_bad_input;
      return;
    }
    std::vector<std::string> ids;
    {
      result<std::unique_ptr<storage::store>> db = storage::store::open(cfg->storage.db);
      if (!db.ok()) {
        fmt::print(stderr, "aopt: {}\n", db.error().to_string());
        ctx.exit_code = exit_failed;
        return;
      }
      if (!resume_args->campaign.empty()) {
        ids.push_back(resume_args->campaign);
      } else if (auto all = (*db)->list_campaigns(); all.ok()) {
        for (const auto& kv : *all) {
          if (kv.value.value("status", "") != "done") ids.push_back(kv.key);
        }
      }
      for (const std::string& id : ids) {
        if (!load_campaign_request(**db, id).ok()) {
          fmt::print(stderr, "aopt: no campaign '{}' in {}\n", id, cfg->storage.db);
          ctx.exit_code = exit_bad_input;
          return;
        }
      }
    }
    if (ids.empty()) fmt::print("nothing to resume\n");
    for (const std::string& id : ids) {
      result<std::unique_ptr<storage::store>> db = storage::store::open(cfg->storage.db);
      if (!db.ok()) {
        ctx.exit_code = exit_failed;
        return;
      }
      result<campaign_request> request = load_campaign_request(**db, id);
      db->reset();
      // A resume runs the stored configuration; only the flags that say how to run it apply.
      if (!resume_args->llm_cache.empty()) request->config.llm.cache = cfg->llm.cache;
      config::aopt_config run_cfg = request->config;
      run_cfg.storage = cfg->storage;
      ctx.exit_code = execute(*request, run_cfg, resume_args->json);
      if (ctx.exit_code == exit_interrupted) return;
    }
  });

  auto status_args = std::make_shared<run_args>();
  CLI::App* status_cmd = app.add_subcommand("status", "list the campaigns in the database");
  status_cmd->add_option("--db", status_args->db, "database folder (storage.db)");
  status_cmd->add_flag("--json", status_args->json, "print JSON");
  add_config_options(status_cmd, status_args->config);
  status_cmd->callback([status_args, &ctx] {
    result<config::aopt_config> cfg =
        load_config(status_args->config, flag_overrides(*status_args));
    if (!cfg.ok()) {
      fmt::print(stderr, "aopt: {}\n", cfg.error().to_string());
      ctx.exit_code = exit_bad_input;
      return;
    }
    result<std::unique_ptr<storage::store>> db = storage::store::open_read_only(cfg->storage.db);
    std::error_code ec;
    // A database that does not exist yet holds no campaigns (and reading it creates nothing);
    // one that exists and cannot be read says so rather than "no campaigns".
    const bool missing = !db.ok() && db.error().code() == status_code::not_found &&
                         !std::filesystem::exists(cfg->storage.db, ec);
    // What status prints must not rest on a damaged file it happened not to read.
    const status readable = !db.ok() ? db.error() : (*db)->verify();
    const auto fail = [&](const status& why) {
      fmt::print(stderr, "aopt: {}\n", why.to_string());
      ctx.exit_code = exit_failed;
    };
    if (!missing && !readable.ok()) return fail(readable);
    result<std::vector<storage::keyed_value>> all =
        db.ok() ? (*db)->list_campaigns() : std::vector<storage::keyed_value>{};
    if (!all.ok()) return fail(all.error());
    nlohmann::json out = nlohmann::json::array();
    for (const auto& kv : *all) {
      uint32_t done = 0, total = 0, used = 0;
      result<std::vector<storage::keyed_value>> eps = (*db)->list_episodes(kv.key);
      if (!eps.ok()) return fail(eps.error());
      for (const auto& e : *eps) {
        total++;
        std::string phase = e.value.value("phase", "");
        if (phase == "done" || phase == "failed") done++;
        used += e.value.value("candidates", 0u);
      }
      out.push_back(
          {{"campaign", kv.key},
           {"status", kv.value.value("status", "")},
           {"strategy", kv.value.value("strategy", "")},
           {"operators", kv.value.contains("operators") ? kv.value["operators"].size() : 0},
           {"episodes_started", total},
           {"episodes_finished", done},
           {"evaluations", used},
           {"updated", kv.value.value("updated", "")}});
    }
    if (status_args->json) {
      std::cout << dump_json(out) << std::endl;
      return;
    }
    if (out.empty()) fmt::print("no campaigns in {}\n", cfg->storage.db);
    for (const auto& c : out) {
      fmt::print("{:<16} {:<12} {:<12} {}/{} operators finished, {} evaluations, updated {}\n",
                 c["campaign"].get<std::string>(), c["status"].get<std::string>(),
                 c["strategy"].get<std::string>(), c["episodes_finished"].get<uint32_t>(),
                 c["operators"].get<size_t>(), c["evaluations"].get<uint32_t>(),
                 c["updated"].get<std::string>());
    }
  });

  auto report_args = std::make_shared<run_args>();
  CLI::App* report = app.add_subcommand(
      "report", "write campaigns' reports again; with several campaigns also a comparison");
  report->add_option("campaigns", report_args->inputs, "campaign ids")->required();
  report->add_option("--db", report_args->db, "database folder (storage.db)");
  report->add_option("--report", report_args->report_dir, "report folder (report.dir)");
  report->add_flag("--json", report_args->json, "print the JSON summary (or comparison)");
  add_config_options(report, report_args->config);
  report->callback([report_args, &ctx] {
    result<config::aopt_config> cfg =
        load_config(report_args->config, flag_overrides(*report_args));
    if (!cfg.ok()) {
      fmt::print(stderr, "aopt: {}\n", cfg.error().to_string());
      ctx.exit_code = exit_bad_input;
      return;
    }
    result<std::unique_ptr<storage::store>> db = storage::store::open_read_only(cfg->storage.db);
    if (!db.ok()) {
      fmt::print(stderr, "aopt: {}\n", db.error().to_string());
      // No database means none of the named campaigns is there.
      ctx.exit_code = db.error().code() == status_code::not_found ? exit_bad_input : exit_failed;
      return;
    }
    std::vector<report_data> reports;
    for (const std::string& id : report_args->inputs) {
      result<report_data> data = load_stored_report(**db, id);
      if (!data.ok()) {
        fmt::print(stderr, "aopt: {}\n", data.error().to_string());
        // An unknown id is bad input; a database that cannot be read is not.
        ctx.exit_code =
            data.error().code() == status_code::not_found ? exit_bad_input : exit_failed;
        return;
      }
      const std::string dir = cfg->report.dir + "/" + id;
      if (status written = write_reports(*data, dir, format_names(cfg->report)); !written.ok()) {
        fmt::print(stderr, "aopt: {}\n", written.to_string());
        ctx.exit_code = exit_failed;
        return;
      }
      if (!report_args->json) fmt::print("reports in {}\n", dir);
      reports.push_back(std::move(*data));
    }
    if (reports.size() == 1) {
      if (report_args->json) std::cout << dump_json(report_json(reports.front())) << std::endl;
      return;
    }
    const std::string markdown = comparison_markdown(reports);
    const nlohmann::json comparison = comparison_json(reports);
    if (status written = write_comparison(comparison, markdown, cfg->report.dir); !written.ok()) {
      fmt::print(stderr, "aopt: {}\n", written.to_string());
      ctx.exit_code = exit_failed;
      return;
    }
    if (report_args->json) {
      std::cout << dump_json(comparison) << std::endl;
    } else {
      fmt::print("\n{}\ncomparison in {}/comparison.md\n", markdown, cfg->report.dir);
    }
  });
}

}  // namespace aopt::runtime
