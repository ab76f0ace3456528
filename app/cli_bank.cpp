// `aopt bank`: the experience bank.
//   build <experts-dir>... [--force]
//                            rewind every expert operator (a folder holding op.json, or a folder
//                            of them) through the Rewinder actor, validate every step on the
//                            configured device, distill the kept pairs and store them
//                            deduplicated. Resumable: each expert is recorded once its tuples
//                            are stored (with its counts), and a later build skips a recorded
//                            expert whose sources, policies, profile and significance are
//                            unchanged; --force rewinds it again (its counts are not re-added).
//   list | show <id> | stats [--json] | export <file.jsonl> | import <file.jsonl>
//
// The rewinder and distiller policies come from roles.rewinder / roles.distiller: "heuristic"
// (rule-based rewind, rule-and-profile distillation) or "llm" (the rewind and distillation
// prompts through the LLM backend).
//
// Exit status: 0 ok; 1 the command failed (database, device, LLM); 2 bad input.
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <map>
#include <memory>
#include <optional>

#include <fmt/format.h>
#include <caf/all.hpp>

#include "actors/actor_error.hpp"
#include "actors/device_pool_slots.hpp"
#include "actors/messages.hpp"
#include "actors/rewinder.hpp"
#include "actors/shut_down.hpp"
#include "agent/bank/bank_store.hpp"
#include "agent/bank/bm25_retriever.hpp"
#include "agent/heuristics/bank_rewind.hpp"
#include "agent/llm_policies/llm_backend.hpp"
#include "agent/llm_policies/llm_bank.hpp"
#include "app/cli_commands.hpp"
#include "app/cli_config.hpp"
#include "app/exit_codes.hpp"
#include "npu/verdict_scope.hpp"
#include "runtime/device_factory.hpp"
#include "runtime/engine.hpp"
#include "runtime/llm_factory.hpp"

namespace aopt::runtime {
namespace {

namespace fs = std::filesystem;

struct bank_args {
  config_options config;
  std::string db;
  std::vector<std::string> experts;
  std::string id;
  std::string file;
  bool json = false;
  bool force = false;
};

std::vector<std::string> overrides(const bank_args& a) {
  std::vector<std::string> o;
  if (!a.db.empty()) o.push_back("storage.db=" + a.db);
  return o;
}

bool uses_llm(const config::aopt_config& config, const std::string& role) {
  auto it = config.roles.find(role);
  return it != config.roles.end() && it->second.policy == config::policy_kind::llm;
}

// The expert packages named by `paths`: a package folder, or a folder of package folders.
result<std::vector<fs::path>> expert_dirs(const std::vector<std::string>& paths) {
  std::vector<fs::path> out;
  for (const std::string& p : paths) {
    std::error_code ec;
    if (fs::exists(fs::path(p) / "op.json", ec)) {
      out.emplace_back(p);
      continue;
    }
    if (!fs::is_directory(p, ec)) return invalid_argument(p + ": not a folder");
    std::vector<fs::path> found;
    for (const fs::directory_entry& e : fs::directory_iterator(p, ec)) {
      if (fs::exists(e.path() / "op.json")) found.push_back(e.path());
    }
    if (found.empty()) return invalid_argument(p + ": holds no operator package (op.json)");
    std::sort(found.begin(), found.end());
    out.insert(out.end(), found.begin(), found.end());
  }
  return out;
}

// The rewinder actor of one build, shut down when the build ends.
struct rewinder_handle {
  actors::rewinder_actor actor;
  ~rewinder_handle() { actors::shut_down(actor); }
};

// Prints the expert's trajectory and stores its tuples; the retrieval probes of the stored
// tuples go to `probes`. Counts the tuples added and the duplicates.
status store_tuples(const agent::distilled_expert& done, agent::bank_writer& writer,
                    std::vector<agent::retrieval_probe>& probes, uint64_t& added,
                    uint64_t& duplicates) {
  const agent::rewind_trajectory& traj = done.trajectory;
  fmt::print("{}: expert {:.3f} us (simulated: {})\n", traj.expert_op,
             traj.expert_result.latency_us, traj.expert_result.latency_is_simulated);
  for (const agent::rewind_step& s : traj.steps) {
    fmt::print("  step {:2} {:26} {:10.3f} us  {}\n", s.index, s.motif,
               s.result.ok() ? s.result.latency_us : 0.0, s.verdict);
  }
  // Progress of a long build reaches a pipe (campaign.sh's log) even if the build is killed.
  std::fflush(stdout);
  for (const agent::distilled_tuple& d : done.tuples) {
    result<agent::insert_outcome> stored = writer.insert(d.tuple);
    if (!stored.ok()) return stored.error();
    ++(stored->added ? added : duplicates);
    probes.push_back({d.slow_query, stored->id});
  }
  return {};
}

int run_build(const bank_args& args) {
  result<config::aopt_config> cfg = load_config(args.config, overrides(args));
  if (!cfg.ok()) {
    fmt::print(stderr, "aopt bank build: {}\n", cfg.error().to_string());
    return exit_bad_input;
  }
  result<std::vector<fs::path>> dirs = expert_dirs(args.experts);
  if (!dirs.ok()) {
    fmt::print(stderr, "aopt bank build: {}\n", dirs.error().to_string());
    return exit_bad_input;
  }
  result<std::shared_ptr<npu::device>> device = make_device(*cfg);
  if (!device.ok()) {
    fmt::print(stderr, "aopt bank build: {}\n", device.error().to_string());
    return exit_failed;
  }
  result<std::unique_ptr<storage::store>> db = storage::store::open(cfg->storage.db);
  if (!db.ok()) {
    fmt::print(stderr, "aopt bank build: {}\n", db.error().to_string());
    return exit_failed;
  }
  const bool llm_rewind = uses_llm(*cfg, "rewinder");
  const bool llm_distill = uses_llm(*cfg, "distiller");
  // The process's engine: the evaluations go through its device pool, the LLM calls through its
  // LLM service.
  result<std::shared_ptr<engine>> started = engine::start(*cfg, db->get());
  if (!started.ok()) {
    fmt::print(stderr, "aopt bank build: {}\n", started.error().to_string());
    return exit_bad_input;
  }
  std::shared_ptr<agent::llm_backend> llm;
  if (llm_rewind || llm_distill) {
    result<std::shared_ptr<agent::llm_service>> service = (*started)->llm_service();
    result<std::shared_ptr<agent::llm_backend>> made =
        service.ok() ? runtime::make_llm_backend(*cfg, db->get(), *service)
                     : result<std::shared_ptr<agent::llm_backend>>(service.error());
    if (!made.ok()) {
      fmt::print(stderr, "aopt bank build: {}\n", made.error().to_string());
      return exit_failed;
    }
    llm = std::move(*made);
  }
  result<agent::bank_writer> writer = agent::bank_writer::open(**db, cfg->bank.dedup_threshold);
  if (!writer.ok()) {
    fmt::print(stderr, "aopt bank build: {}\n", writer.error().to_string());
    return exit_failed;
  }
  actors::rewinder_context context;
  context.options.significance = cfg->bank.significance;
  context.options.policy = llm_rewind ? "llm-rewind" : "heuristic-rewind";
  context.proposer = [llm, llm_rewind](std::shared_ptr<const npu::op_package> op) {
    return llm_rewind ? agent::llm_rewind_proposer(llm, std::move(op))
                      : agent::heuristic_rewind_proposer();
  };
  context.distill = llm_distill ? agent::llm_pair_distiller(llm)
                                : agent::heuristic_distiller(context.options.policy);
  // Everything the stored tuples depend on besides the package, the profile and significance.
  const std::string policy = context.options.policy + "+" +
                             (llm_distill ? "llm-distill" : "heuristic-distill") +
                             (llm ? "@" + llm->model() : std::string());

  caf::actor_system& sys = (*started)->system();
  // Every rewind step leases a slot of the engine's device pool, like a campaign's evaluations.
  context.evaluations = std::make_shared<agent::evaluation_service>(
      std::make_shared<actors::device_pool_slots>(sys, (*started)->device_pool(), *device), nullptr,
      make_eval_options(cfg->device));
  rewinder_handle rewinder;
  rewinder.actor = actors::spawn_rewinder(sys, std::move(context));
  caf::scoped_actor self{sys};

  agent::bank_build_counts counts;
  uint64_t added = 0, duplicates = 0, skipped = 0;
  std::vector<agent::retrieval_probe> probes;
  int exit_code = exit_ok;
  for (const fs::path& dir : *dirs) {
    result<npu::op_package> op = npu::load_op_package(dir);
    if (!op.ok()) {
      fmt::print(stderr, "aopt bank build: {}\n", op.error().to_string());
      exit_code = exit_failed;
      continue;
    }
    const std::string key = agent::rewind_record_key(
        *op, policy, npu::verdict_scope((*device)->profile_id(), (*device)->checker_id()),
        cfg->bank.significance);
    result<bool> rewound = agent::is_rewound(**db, key);
    if (!rewound.ok()) {
      fmt::print(stderr, "aopt bank build: {}\n", rewound.error().to_string());
      return exit_failed;
    }
    if (*rewound && !args.force) {
      fmt::print("{}: already rewound, skipped\n", op->spec.name);
      ++skipped;
      continue;
    }
    std::optional<result<agent::distilled_expert>> done;
    self->request(rewinder.actor, caf::infinite, actors::rewind_atom_v,
                  actors::make_local(std::move(*op)))
        .receive(
            [&](const actors::rewind_outcome& r) { done = *r.value; },
            [&](const caf::error& e) { done = actors::to_status(e).with_context("rewinder"); });
    if (!done->ok()) {
      fmt::print(stderr, "aopt bank build: {}\n", done->error().to_string());
      exit_code = exit_failed;
      continue;
    }
    status stored = store_tuples(**done, *writer, probes, added, duplicates);
    if (!stored.ok()) {
      fmt::print(stderr, "aopt bank build: {}\n", stored.to_string());
      return exit_failed;
    }
    for (const std::string& failure : (*done)->failures) {
      fmt::print(stderr, "aopt bank build: {}\n", failure);
      exit_code = exit_failed;
    }
    // An expert whose pairs did not all distill is not recorded, so a rerun retries it.
    if (!(*done)->failures.empty()) continue;
    const agent::bank_build_counts expert_counts{1, (*done)->trajectory.steps.size(),
                                                 (*done)->trajectory.pairs.size()};
    status recorded = agent::record_rewind(**db, key, (*done)->trajectory.expert_op, expert_counts);
    if (!recorded.ok()) {
      fmt::print(stderr, "aopt bank build: {}\n", recorded.to_string());
      return exit_failed;
    }
    counts.trajectories += expert_counts.trajectories;
    counts.steps_tried += expert_counts.steps_tried;
    counts.pairs_kept += expert_counts.pairs_kept;
  }
  // Measured on the pairs of the experts rewound by this build (none when all were skipped).
  if (!probes.empty()) {
    agent::bm25_retriever retriever;
    for (const agent::experience_tuple& t : writer->tuples()) retriever.add(t);
    fmt::print(
        "retrieval: the diagnoser's query of the slow kernel finds its pair's tuple in the "
        "BM25 top 3 for {:.1f} % of {} pairs\n",
        100 * agent::top_k_hit_rate(retriever, probes, 3), probes.size());
  }
  fmt::print(
      "trajectories {}  steps tried {}  pairs kept {}  tuples added {}  duplicates {}  "
      "skipped {}  bank size {}\n",
      counts.trajectories, counts.steps_tried, counts.pairs_kept, added, duplicates, skipped,
      writer->tuples().size());
  std::map<std::string, uint64_t> by_category;
  for (const agent::experience_tuple& t : writer->tuples()) {
    ++by_category[t.category.empty() ? "uncategorized" : t.category];
  }
  for (const auto& [category, n] : by_category) fmt::print("  {:16} {}\n", category, n);
  return exit_code;
}

// Opens the configured database for the subcommands that only read (list, show, stats,
// export): without its lock, so they work while a campaign or daemon has it open. A database
// that does not exist yet is created, empty, as a writer would.
result<std::unique_ptr<storage::store>> open_db(const bank_args& args) {
  result<config::aopt_config> cfg = load_config(args.config, overrides(args));
  if (!cfg.ok()) return cfg.error();
  result<std::unique_ptr<storage::store>> db = storage::store::open_read_only(cfg->storage.db);
  if (!db.ok() && db.error().code() == status_code::not_found)
    return storage::store::open(cfg->storage.db);
  return db;
}

int report(const char* what, const status& s, int code) {
  fmt::print(stderr, "aopt bank {}: {}\n", what, s.to_string());
  return code;
}

int run_list(const bank_args& args) {
  auto db = open_db(args);
  if (!db.ok()) return report("list", db.error(), exit_failed);
  result<std::vector<agent::experience_tuple>> bank = agent::load_bank(**db);
  if (!bank.ok()) return report("list", bank.error(), exit_failed);
  for (const agent::experience_tuple& t : *bank) {
    fmt::print("{}  {:16} {:22} {}\n", t.id, t.category, t.provenance.expert_op, t.title);
  }
  return exit_ok;
}

int run_show(const bank_args& args) {
  auto db = open_db(args);
  if (!db.ok()) return report("show", db.error(), exit_failed);
  result<nlohmann::json> t = (*db)->get_tuple(args.id);
  if (!t.ok()) {
    return report("show", t.error(),
                  t.error().code() == status_code::not_found ? exit_bad_input : exit_failed);
  }
  std::cout << t->dump(2) << std::endl;
  return exit_ok;
}

int run_stats(const bank_args& args) {
  auto db = open_db(args);
  if (!db.ok()) return report("stats", db.error(), exit_failed);
  result<nlohmann::json> s = agent::bank_stats(**db);
  if (!s.ok()) return report("stats", s.error(), exit_failed);
  if (args.json) {
    std::cout << s->dump() << std::endl;
    return exit_ok;
  }
  fmt::print("tuples {}  trajectories {}  steps tried {}  pairs kept {}\n",
             (*s)["tuples"].get<uint64_t>(), (*s)["trajectories"].get<uint64_t>(),
             (*s)["steps_tried"].get<uint64_t>(), (*s)["pairs_kept"].get<uint64_t>());
  for (const auto& [category, n] : (*s)["by_category"].items()) {
    fmt::print("  {:16} {}\n", category, n.get<uint64_t>());
  }
  return exit_ok;
}

int run_export(const bank_args& args) {
  auto db = open_db(args);
  if (!db.ok()) return report("export", db.error(), exit_failed);
  status s = agent::export_bank(**db, args.file);
  if (!s.ok()) return report("export", s, exit_failed);
  return exit_ok;
}

int run_import(const bank_args& args) {
  result<config::aopt_config> cfg = load_config(args.config, overrides(args));
  if (!cfg.ok()) return report("import", cfg.error(), exit_bad_input);
  auto db = storage::store::open(cfg->storage.db);
  if (!db.ok()) return report("import", db.error(), exit_failed);
  result<agent::import_counts> c = agent::import_bank(**db, args.file, cfg->bank.dedup_threshold);
  if (!c.ok()) {
    return report("import", c.error(),
                  c.error().code() == status_code::invalid_argument ||
                          c.error().code() == status_code::not_found
                      ? exit_bad_input
                      : exit_failed);
  }
  fmt::print("read {}  added {}  duplicates {}\n", c->read, c->added, c->duplicates);
  return exit_ok;
}

CLI::App* add_sub(CLI::App* bank, const char* name, const char* help, bank_args& args) {
  CLI::App* sub = bank->add_subcommand(name, help);
  add_config_options(sub, args.config);
  sub->add_option("--db", args.db, "database folder (storage.db)");
  return sub;
}

}  // namespace

void add_bank_command(CLI::App& app, cli_context& ctx) {
  auto args = std::make_shared<bank_args>();
  CLI::App* bank = app.add_subcommand("bank", "Build and inspect the experience bank");
  bank->require_subcommand(1);

  CLI::App* build = add_sub(bank, "build",
                            "Rewind expert operators on the device and store the distilled "
                            "tuples (latency is simulated on the sim device)",
                            *args);
  build->add_option("experts", args->experts, "expert package folders, or folders of them")
      ->required();
  build->add_flag("--force", args->force,
                  "rewind experts again even when this database records them as rewound");
  build->callback([args, &ctx] { ctx.exit_code = run_build(*args); });

  add_sub(bank, "list", "One line per tuple: id, category, expert, title", *args)
      ->callback([args, &ctx] { ctx.exit_code = run_list(*args); });
  CLI::App* show = add_sub(bank, "show", "Print one tuple as JSON", *args);
  show->add_option("id", args->id, "tuple id")->required();
  show->callback([args, &ctx] { ctx.exit_code = run_show(*args); });
  CLI::App* stats = add_sub(bank, "stats", "Tuples by category and build counters", *args);
  stats->add_flag("--json", args->json, "print one JSON object");
  stats->callback([args, &ctx] { ctx.exit_code = run_stats(*args); });
  CLI::App* exp = add_sub(bank, "export", "Write the bank as JSONL", *args);
  exp->add_option("file", args->file, "output .jsonl")->required();
  exp->callback([args, &ctx] { ctx.exit_code = run_export(*args); });
  CLI::App* imp = add_sub(bank, "import", "Merge a JSONL bank, skipping near-duplicates", *args);
  imp->add_option("file", args->file, "input .jsonl")->required();
  imp->callback([args, &ctx] { ctx.exit_code = run_import(*args); });
}

}  // namespace aopt::runtime
