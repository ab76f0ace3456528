// `aopt bank`: the experience bank.
//   build <experts-dir>...   rewind every expert operator (a folder holding op.json, or a folder
//                            of them), validate every step on the configured device, distill
//                            the kept pairs and store them deduplicated
//   list | show <id> | stats [--json] | export <file.jsonl> | import <file.jsonl>
//
// The rewinder and distiller policies come from roles.rewinder / roles.distiller: "heuristic"
// (rule-based rewind, rule-and-profile distillation) or "llm" (the rewind and distillation
// prompts through the LLM backend).
//
// Exit status: 0 ok; 1 the command failed (database, device, LLM); 2 bad input.
#include <algorithm>
#include <filesystem>
#include <iostream>
#include <map>
#include <memory>

#include <fmt/format.h>

#include "agent/bank_rewind.hpp"
#include "agent/bank_store.hpp"
#include "agent/bm25_retriever.hpp"
#include "agent/llm_backend.hpp"
#include "agent/llm_bank.hpp"
#include "runtime/cli_commands.hpp"
#include "runtime/cli_config.hpp"
#include "runtime/device_factory.hpp"

namespace aopt::runtime {
namespace {

namespace fs = std::filesystem;

constexpr int exit_ok = 0;
constexpr int exit_failed = 1;
constexpr int exit_bad_input = 2;

struct bank_args {
  config_options config;
  std::string db;
  std::vector<std::string> experts;
  std::string id;
  std::string file;
  bool json = false;
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

agent::rewind_proposer llm_proposer(std::shared_ptr<agent::llm_backend> llm,
                                    const npu::op_package& op) {
  return [llm, &op](const std::string& kernel, const std::vector<std::string>& tried,
                    uint32_t step) -> result<agent::rewind_proposal> {
    agent::llm_rewind_request request;
    request.campaign = "bank";
    request.op = &op;
    request.kernel = kernel;
    request.removed_motifs = tried;
    request.sample_index = step;
    result<agent::llm_rewind_result> r = agent::llm_rewind_step(*llm, request);
    if (!r.ok()) {
      // A spent budget ends the trajectory; any other failure is one failed proposal.
      if (r.error().code() == status_code::failed_precondition)
        return not_found(r.error().message());
      return agent::rewind_proposal{"llm-failure-" + std::to_string(step), "", r.error().message(),
                                    kernel, nullptr};
    }
    return agent::rewind_proposal{r->motif, "", r->description, r->kernel, nullptr};
  };
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
  result<std::shared_ptr<npu::device>> device = make_device(cfg->device);
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
  std::shared_ptr<agent::llm_backend> llm;
  if (llm_rewind || llm_distill) {
    result<std::shared_ptr<agent::llm_backend>> made = agent::make_llm_backend(*cfg, db->get());
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
  agent::rewind_options options;
  options.significance = cfg->bank.significance;
  options.eval = make_eval_options(cfg->device);
  options.policy = llm_rewind ? "llm-rewind" : "heuristic-rewind";

  agent::bank_build_counts counts;
  uint64_t added = 0, duplicates = 0;
  std::vector<agent::retrieval_probe> probes;
  int exit_code = exit_ok;
  for (const fs::path& dir : *dirs) {
    result<npu::op_package> op = npu::load_op_package(dir);
    if (!op.ok()) {
      fmt::print(stderr, "aopt bank build: {}\n", op.error().to_string());
      exit_code = exit_failed;
      continue;
    }
    const agent::rewind_proposer propose =
        llm_rewind ? llm_proposer(llm, *op) : agent::heuristic_rewind_proposer();
    result<agent::rewind_trajectory> traj = agent::rewind_expert(**device, *op, propose, options);
    if (!traj.ok()) {
      fmt::print(stderr, "aopt bank build: {}\n", traj.error().to_string());
      exit_code = exit_failed;
      continue;
    }
    ++counts.trajectories;
    counts.steps_tried += traj->steps.size();
    counts.pairs_kept += traj->pairs.size();
    fmt::print("{}: expert {:.3f} us (simulated: {})\n", traj->expert_op,
               traj->expert_result.latency_us, traj->expert_result.latency_is_simulated);
    for (const agent::rewind_step& s : traj->steps) {
      fmt::print("  step {:2} {:26} {:10.3f} us  {}\n", s.index, s.motif,
                 s.result.ok() ? s.result.latency_us : 0.0, s.verdict);
    }
    for (const agent::rewind_pair& pair : traj->pairs) {
      agent::experience_tuple t;
      if (llm_distill) {
        agent::llm_distill_request request;
        request.campaign = "bank";
        request.op = &*op;
        request.slow_kernel = pair.slow_kernel;
        request.fast_kernel = pair.fast_kernel;
        request.slow_result = pair.slow_result;
        request.fast_result = pair.fast_result;
        request.sample_index = pair.step;
        result<agent::experience_tuple> d = agent::llm_distill(*llm, request);
        if (!d.ok()) {
          fmt::print(stderr, "aopt bank build: {} step {}: distillation: {}\n", op->spec.name,
                     pair.step, d.error().to_string());
          exit_code = exit_failed;
          continue;
        }
        t = std::move(*d);
        t.provenance.expert_op = op->spec.name;
        t.provenance.step = pair.step;
        t.provenance.profile_deltas = agent::profile_deltas(pair.slow_result, pair.fast_result);
        t.provenance.rule = pair.rule != nullptr ? pair.rule->name : std::string();
        if (t.category.empty()) t.category = pair.category;
      } else {
        t = agent::distill_pair(*op, pair, options.policy);
      }
      result<agent::insert_outcome> done = writer->insert(std::move(t));
      if (!done.ok()) {
        fmt::print(stderr, "aopt bank build: {}\n", done.error().to_string());
        return exit_failed;
      }
      ++(done->added ? added : duplicates);
      probes.push_back({agent::diagnose_slow_kernel(*op, pair).query, done->id});
    }
  }
  status saved = agent::add_build_counts(**db, counts);
  if (!saved.ok()) {
    fmt::print(stderr, "aopt bank build: {}\n", saved.to_string());
    return exit_failed;
  }
  agent::bm25_retriever retriever;
  for (const agent::experience_tuple& t : writer->tuples()) retriever.add(t);
  fmt::print(
      "retrieval: the diagnoser's query of the slow kernel finds its pair's tuple in the "
      "BM25 top 3 for {:.1f} % of {} pairs\n",
      100 * agent::top_k_hit_rate(retriever, probes, 3), probes.size());
  fmt::print(
      "trajectories {}  steps tried {}  pairs kept {}  tuples added {}  duplicates {}  "
      "bank size {}\n",
      counts.trajectories, counts.steps_tried, counts.pairs_kept, added, duplicates,
      writer->tuples().size());
  std::map<std::string, uint64_t> by_category;
  for (const agent::experience_tuple& t : writer->tuples()) {
    ++by_category[t.category.empty() ? "uncategorized" : t.category];
  }
  for (const auto& [category, n] : by_category) fmt::print("  {:16} {}\n", category, n);
  return exit_code;
}

// Opens the configured database for the read/write subcommands.
result<std::unique_ptr<storage::store>> open_db(const bank_args& args) {
  result<config::aopt_config> cfg = load_config(args.config, overrides(args));
  if (!cfg.ok()) return cfg.error();
  return storage::store::open(cfg->storage.db);
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
