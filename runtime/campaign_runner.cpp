#include "runtime/campaign_runner.hpp"

#include <algorithm>
#include <chrono>
#include <ctime>
#include <functional>
#include <mutex>
#include <set>

#include <spdlog/spdlog.h>

#include "actors/campaign.hpp"
#include "actors/evaluator.hpp"
#include "actors/llm_gateway.hpp"
#include "actors/prober.hpp"
#include "actors/role_registry.hpp"
#include "agent/episode/store_journal.hpp"
#include "base/content_hash.hpp"
#include "llm/token_ledger_json.hpp"
#include "runtime/device_factory.hpp"
#include "runtime/tiling_probe_factory.hpp"

namespace aopt::runtime {
namespace fs = std::filesystem;

namespace {

bool is_expert(const fs::path& op_json) {
  result<npu::op_package> pkg = npu::load_op_package(op_json.parent_path());
  return pkg.ok() && pkg->spec.kind == "expert";
}

std::string utc_now() {
  std::time_t t = std::time(nullptr);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&t));
  return buf;
}

// A restored episode whose baseline failed transiently runs its baseline again (see
// agent::reopen_transient_baseline_failure); its last stored candidate is that baseline.
void reopen_if_baseline_failed_transiently(const storage::store& db, agent::episode_state& state) {
  if (state.phase != agent::episode_phase::failed || state.next_seq == 0) return;
  result<nlohmann::json> stored =
      db.get_candidate(state.campaign, state.op_name, state.next_seq - 1);
  if (!stored.ok()) return;
  result<agent::candidate_record> last = agent::candidate_record_from_json(*stored);
  if (last.ok() && last->role == "baseline") {
    agent::reopen_transient_baseline_failure(state, last->result);
  }
}

result<agent::episode_config> episode_config_of(const config::aopt_config& c) {
  agent::episode_config e;
  switch (c.campaign.strategy) {
    case config::strategy::alternating:
      e.strat = agent::strategy::alternating;
      break;
    case config::strategy::stage1:
      e.strat = agent::strategy::stage1;
      break;
    case config::strategy::stage2:
      e.strat = agent::strategy::stage2;
      break;
    case config::strategy::best_of_n:
      e.strat = agent::strategy::best_of_n;
      break;
    case config::strategy::evolve:
      e.strat = agent::strategy::evolve;
      break;
  }
  e.budget = c.campaign.budget;
  e.rounds = c.campaign.rounds;
  e.stage1_steps = c.campaign.stage1_steps;
  e.stage2_steps = c.campaign.stage2_steps;
  e.top_k = std::max<uint32_t>(1, c.roles.at("retriever").top_k);
  e.seed = c.campaign.seed;
  return e;
}

// The campaign's gateway actor, through which its LLM policies call (they run in detached
// workers and block on the actor's answer). Unroutes the backend when the campaign returns,
// because the port refers to the actor system; calls already started keep their port.
class llm_gateway_link {
 public:
  llm_gateway_link(caf::actor_system& sys, std::shared_ptr<agent::llm_backend> backend)
      : backend_(std::move(backend)) {
    if (!backend_) return;
    actor_ = actors::spawn_llm_gateway(sys, backend_->gateway());
    backend_->route_through(std::make_shared<actors::llm_gateway_port>(sys, actor_));
  }
  ~llm_gateway_link() {
    if (backend_) backend_->route_through(nullptr);
  }
  llm_gateway_link(const llm_gateway_link&) = delete;
  llm_gateway_link& operator=(const llm_gateway_link&) = delete;

  const caf::actor& actor() const { return actor_; }

 private:
  std::shared_ptr<agent::llm_backend> backend_;
  caf::actor actor_;
};

// The journal of a campaign's episodes. It writes each transition as store_journal does and,
// in the same atomic batch, adds the LLM usage the step consumed (the gateway's unpersisted
// consumption of that operator) to the campaign record's "llm_usage"; as the gateway's billing
// sink it adds billed tokens to the record when they arrive. So the record's usage is always
// that of the persisted steps plus everything billed, whenever the process dies (DESIGN §4).
// Record writes are serialised, so concurrent episodes never overwrite each other's usage.
class campaign_journal final : public agent::episode_journal {
 public:
  // `db` must outlive the journal; `gateway` (null without LLM roles) must outlive its use.
  campaign_journal(storage::store& db, nlohmann::json record, llm::token_ledger usage,
                   llm::gateway* gateway)
      : db_(db), gateway_(gateway), record_(std::move(record)), usage_(std::move(usage)) {}

  status record(const agent::episode_state& state,
                const std::optional<agent::candidate_record>& candidate,
                const std::optional<agent::eval_cache_entry>& cache_entry) override {
    storage::transition t = agent::episode_transition(state, candidate, cache_entry);
    const llm::token_ledger consumed =
        gateway_ ? gateway_->take_unpersisted(state.campaign, state.op_name) : llm::token_ledger();
    if (consumed.entries().empty()) return db_.commit_transition(t);
    std::lock_guard<std::mutex> lock(mutex_);
    llm::token_ledger usage = usage_;
    usage.add(consumed);
    return write_usage_locked(state.campaign, std::move(usage), &t);
  }

  // The gateway's billing sink.
  status record_billed(const llm::call_context& who, const llm::token_usage& billed) {
    std::lock_guard<std::mutex> lock(mutex_);
    llm::ledger_entry entry;
    entry.billed = billed;
    llm::token_ledger usage = usage_;
    usage.add(who, entry);
    return write_usage_locked(who.campaign, std::move(usage), nullptr);
  }

  // Changes the campaign record with `change` and writes it. Through the journal, so that a
  // late billing write cannot put back what the change replaced.
  status update_record(const std::string& campaign,
                       const std::function<void(nlohmann::json&)>& change) {
    std::lock_guard<std::mutex> lock(mutex_);
    nlohmann::json record = record_;
    change(record);
    AOPT_RETURN_IF_ERROR(db_.put_campaign(campaign, record));
    record_ = std::move(record);
    return status{};
  }
  llm::token_ledger usage() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return usage_;
  }

 private:
  // Writes the record with `usage` as its "llm_usage": in the batch of `step` when given, alone
  // otherwise; the cached record and usage change only once the write succeeded. The caller
  // holds mutex_.
  status write_usage_locked(const std::string& campaign, llm::token_ledger usage,
                            storage::transition* step) {
    nlohmann::json record = record_;
    record["llm_usage"] = llm::to_json(usage);
    if (step != nullptr) {
      step->campaign_record = record;
      AOPT_RETURN_IF_ERROR(db_.commit_transition(*step));
    } else {
      AOPT_RETURN_IF_ERROR(db_.put_campaign(campaign, record));
    }
    usage_ = std::move(usage);
    record_ = std::move(record);
    return status{};
  }

  storage::store& db_;
  llm::gateway* gateway_;
  mutable std::mutex mutex_;
  nlohmann::json record_;    // the campaign record as last written; guarded by mutex_
  llm::token_ledger usage_;  // its "llm_usage"; guarded by mutex_
};

// Routes the billed tokens of `campaign`'s LLM calls to its journal while in scope.
class billing_link {
 public:
  billing_link(llm::gateway* gateway, const std::string& campaign,
               const std::shared_ptr<campaign_journal>& journal)
      : gateway_(gateway), campaign_(campaign) {
    if (!gateway_) return;
    gateway_->set_billing_sink(campaign_,
                               [journal](const llm::call_context& who, const llm::token_usage& b) {
                                 return journal->record_billed(who, b);
                               });
  }
  ~billing_link() {
    if (gateway_) gateway_->set_billing_sink(campaign_, nullptr);
  }
  billing_link(const billing_link&) = delete;
  billing_link& operator=(const billing_link&) = delete;

 private:
  llm::gateway* gateway_;
  std::string campaign_;
};

}  // namespace

result<std::optional<llm::token_ledger>> llm_usage_of(const nlohmann::json& campaign_record) {
  if (!campaign_record.contains("llm_usage")) return std::optional<llm::token_ledger>();
  result<llm::token_ledger> ledger = llm::token_ledger_from_json(campaign_record["llm_usage"]);
  if (!ledger.ok()) return ledger.error();
  return std::optional<llm::token_ledger>(std::move(*ledger));
}

result<std::vector<fs::path>> discover_operators(const std::vector<fs::path>& inputs) {
  std::set<fs::path> found;
  for (const fs::path& input : inputs) {
    std::error_code ec;
    if (!fs::exists(input, ec)) return not_found(input.string() + ": no such file or directory");
    if (fs::exists(input / "op.json")) {
      found.insert(fs::weakly_canonical(input));
      continue;
    }
    if (!fs::is_directory(input)) {
      return invalid_argument(input.string() + ": not an operator package (no op.json) or folder");
    }
    for (auto it = fs::recursive_directory_iterator(input, ec); it != fs::end(it);
         it.increment(ec)) {
      if (ec) return internal_error(input.string() + ": " + ec.message());
      if (it->path().filename() == "op.json" && !is_expert(it->path())) {
        found.insert(fs::weakly_canonical(it->path().parent_path()));
      }
    }
  }
  if (found.empty()) return not_found("no operator packages (op.json) found in the given paths");
  return std::vector<fs::path>(found.begin(), found.end());
}

std::string derive_campaign_id(const std::vector<fs::path>& operators,
                               const config::aopt_config& config) {
  std::vector<std::string> parts;
  for (const fs::path& p : operators) parts.push_back(p.string());
  // Only what can change a result names the campaign: rerunning it with more parallelism,
  // another report folder or another database location resumes it instead of starting over.
  nlohmann::json shaping = config::to_json(config);
  shaping["campaign"].erase("jobs");
  shaping["device"].erase("slots");
  for (const char* section : {"report", "server", "storage", "workers"}) shaping.erase(section);
  // The hardware sections shape only campaigns on hardware (and keep simulator campaigns' ids
  // what they were before these sections existed).
  if (config.device.kind == config::device_kind::sim) {
    for (const char* section : {"cann", "cascade"}) shaping.erase(section);
  }
  // The tiling probe on (the default) keeps the ids of campaigns made before [stage1] existed.
  if (config.stage1.probe_tilings) shaping.erase("stage1");
  parts.push_back(shaping.dump());
  return "c-" + content_hash(parts).substr(0, 12);
}

result<campaign_request> load_campaign_request(storage::store& db, const std::string& id) {
  result<nlohmann::json> record = db.get_campaign(id);
  if (!record.ok()) return record.error();
  campaign_request r;
  r.campaign = id;
  try {
    for (const auto& dir : record->at("operators"))
      r.operators.emplace_back(dir.get<std::string>());
    result<config::aopt_config> cfg = config::from_json(record->at("config"));
    if (!cfg.ok()) return cfg.error().with_context("campaign " + id);
    r.config = *cfg;
  } catch (const nlohmann::json::exception& e) {
    return data_loss("campaign " + id + ": unreadable record: " + e.what());
  }
  return r;
}

result<campaign_outcome> run_campaign(const campaign_request& request, storage::store& db,
                                      std::shared_ptr<agent::event_sink> events,
                                      std::shared_ptr<const std::atomic<bool>> stop) {
  const auto start = std::chrono::steady_clock::now();
  const config::aopt_config& cfg = request.config;
  campaign_outcome outcome;
  outcome.campaign =
      request.campaign.empty() ? derive_campaign_id(request.operators, cfg) : request.campaign;
  result<agent::episode_config> episode_cfg = episode_config_of(cfg);
  if (!episode_cfg.ok()) return episode_cfg.error();
  const actors::role_registry roles = actors::role_registry::with_builtin_roles();
  if (result<agent::pipeline_roles> valid = roles.resolve(cfg.pipeline.stage1, cfg.pipeline.stage2);
      !valid.ok())
    return valid.error();
  // Before the record says "running": a device that cannot be made refuses the start.
  result<std::shared_ptr<npu::device>> device =
      make_device(cfg, secrets_to_redact(cfg), request.drift);
  if (!device.ok()) return device.error();

  nlohmann::json record = {{"id", outcome.campaign}, {"created", utc_now()}};
  if (result<nlohmann::json> existing = db.get_campaign(outcome.campaign); existing.ok()) {
    record = *existing;
  }
  record["operators"] = nlohmann::json::array();
  for (const fs::path& p : request.operators) record["operators"].push_back(p.string());
  record["config"] = config::to_json(cfg);
  record["strategy"] = config::to_string(cfg.campaign.strategy);
  record["status"] = "running";
  record["updated"] = utc_now();
  AOPT_RETURN_IF_ERROR(db.put_campaign(outcome.campaign, record));
  // A start refused from here on marks the record failed, or it would read "running" for ever.
  const auto refuse = [&](const status& why) {
    record["status"] = "failed";
    record["error"] = why.to_string();
    record["updated"] = utc_now();
    (void)db.put_campaign(outcome.campaign, record);
    return why;
  };

  // Stage counts of the cascade's earlier runs of this campaign: the report counts them all.
  npu::cascade_counts earlier_cascade;
  if (auto it = record.find("cascade"); it != record.end()) {
    result<npu::cascade_counts> earlier = npu::cascade_counts_from_json(*it);
    if (!earlier.ok()) return refuse(earlier.error().with_context("campaign " + outcome.campaign));
    earlier_cascade = *earlier;
  }

  std::vector<actors::campaign_episode> episodes;
  std::vector<std::shared_ptr<const npu::op_package>> packages;
  for (const fs::path& dir : request.operators) {
    result<npu::op_package> pkg = npu::load_op_package(dir);
    if (!pkg.ok()) {
      outcome.errors.push_back(pkg.error().to_string());
      continue;
    }
    auto op = std::make_shared<const npu::op_package>(std::move(*pkg));
    packages.push_back(op);
    agent::episode_state state = agent::initial_episode_state(outcome.campaign, *op, *episode_cfg);
    if (result<nlohmann::json> saved = db.get_episode(outcome.campaign, op->spec.name);
        saved.ok()) {
      result<agent::episode_state> restored = agent::episode_state_from_json(*saved);
      if (!restored.ok()) return refuse(restored.error().with_context("resuming " + op->spec.name));
      state = std::move(*restored);
      reopen_if_baseline_failed_transiently(db, state);
    }
    episodes.push_back({std::move(op), std::move(state)});
  }

  result<std::shared_ptr<agent::llm_backend>> backend = make_role_llm_backend(cfg, db, request.llm);
  if (!backend.ok()) return refuse(backend.error());
  llm::gateway* gateway = *backend ? &(*backend)->gateway() : nullptr;
  llm::token_ledger usage(gateway ? gateway->options().prices : llm::price_table{});
  if (gateway) {
    // A resumed campaign's budget and totals include what its earlier runs persisted. Only
    // this campaign's entries: records of older versions may hold other campaigns' too.
    result<std::optional<llm::token_ledger>> earlier = llm_usage_of(record);
    if (!earlier.ok()) return refuse(earlier.error().with_context("campaign " + outcome.campaign));
    if (*earlier) usage.replace_campaign(outcome.campaign, **earlier);
    gateway->restore_usage(outcome.campaign, usage);
  }
  result<agent::policy_set> policies = make_policies(cfg, db, *backend, outcome.campaign);
  if (!policies.ok()) return refuse(policies.error());
  const tiling_probe_setup probe = make_tiling_probe(cfg, *device, secrets_to_redact(cfg));
  outcome.tiling_probe = probe.description;
  if (cfg.stage1.probe_tilings && !probe.screen) {
    spdlog::warn(
        "no tiling prober for device.kind = {}: {}; Stage I candidates go to the device "
        "unprobed",
        config::to_string(cfg.device.kind), probe.description);
  }
  auto journal = std::make_shared<campaign_journal>(db, record, usage, gateway);
  billing_link billing(gateway, outcome.campaign, journal);

  std::shared_ptr<engine> own_engine = request.shared_engine;
  if (!own_engine) {
    result<std::shared_ptr<engine>> started = engine::start(cfg);
    if (!started.ok()) return refuse(started.error());
    own_engine = std::move(*started);
  }
  caf::actor_system& sys = own_engine->system();
  llm_gateway_link llm_gateway(sys, *backend);
  result<actors::episode_pipeline> pipeline =
      roles.spawn_pipeline(sys, cfg.pipeline.stage1, cfg.pipeline.stage2, *policies);
  if (!pipeline.ok()) return refuse(pipeline.error());
  pipeline->confirm_improvements = cfg.device.confirm_improvements;
  if (probe.screen) pipeline->prober = actors::spawn_prober(sys, probe.screen);
  pipeline->evaluator = actors::spawn_evaluator(
      sys, {*device, own_engine->device_pool(), std::make_shared<agent::store_journal>(db),
            make_eval_options(cfg.device)});

  if (events) {
    agent::campaign_event started;
    started.type = agent::campaign_event::kind::campaign_started;
    started.campaign = outcome.campaign;
    started.operators = static_cast<uint32_t>(episodes.size());
    started.budget = cfg.campaign.budget;
    events->publish(started);
  }
  actors::campaign_context ctx{
      outcome.campaign, std::move(episodes), cfg.campaign.jobs, *pipeline, journal, events, stop};
  caf::actor campaign = actors::spawn_campaign(sys, std::move(ctx));
  caf::scoped_actor self{sys};
  std::optional<actors::campaign_summary> summary;
  self->request(campaign, caf::infinite, actors::run_atom_v)
      .receive([&](const actors::campaign_summary& s) { summary = s; },
               [&](caf::error& e) { outcome.errors.push_back("campaign: " + caf::to_string(e)); });
  self->request(pipeline->evaluator, caf::infinite, actors::stats_atom_v)
      .receive([&](const actors::pool_stats& s) { outcome.pool = s; }, [](caf::error&) {});
  if (auto* cascade = dynamic_cast<npu::cascade_device*>(device->get())) {
    outcome.cascade = earlier_cascade;
    *outcome.cascade += cascade->counts();
  }
  for (const caf::actor& a :
       {pipeline->mutator, pipeline->diagnoser, pipeline->retriever, pipeline->refiner,
        pipeline->evaluator, pipeline->prober, llm_gateway.actor()}) {
    if (a) caf::anon_send_exit(a, caf::exit_reason::user_shutdown);
  }

  // Episodes that never started (a stop came first) report their stored state.
  std::set<std::string> reported;
  if (summary) {
    for (const actors::episode_summary& s : summary->episodes) {
      if (!s.error.empty()) outcome.errors.push_back(s.op + ": " + s.error);
      if (s.state_json.empty()) continue;
      result<agent::episode_state> st =
          agent::episode_state_from_json(nlohmann::json::parse(s.state_json));
      if (st.ok()) {
        reported.insert(st->op_name);
        outcome.episodes.push_back(std::move(*st));
      }
    }
  }
  if (result<std::vector<storage::keyed_value>> stored = db.list_episodes(outcome.campaign);
      stored.ok()) {
    for (const storage::keyed_value& kv : *stored) {
      if (reported.count(kv.key)) continue;
      result<agent::episode_state> st = agent::episode_state_from_json(kv.value);
      if (st.ok()) outcome.episodes.push_back(std::move(*st));
    }
  }
  std::sort(outcome.episodes.begin(), outcome.episodes.end(),
            [](const auto& a, const auto& b) { return a.op_name < b.op_name; });
  const bool all_finished =
      outcome.episodes.size() + outcome.errors.size() >= request.operators.size() &&
      std::all_of(outcome.episodes.begin(), outcome.episodes.end(), [](const auto& e) {
        return e.phase == agent::episode_phase::done || e.phase == agent::episode_phase::failed;
      });
  outcome.interrupted = !all_finished;
  if (all_finished && cfg.cann.remeasure_top > 0) {
    // After the evaluator has stopped: the device is this thread's alone.
    auto finals = remeasure_finalists(**device, db, outcome.campaign, outcome.episodes, packages,
                                      cfg.cann.remeasure_top, make_eval_options(cfg.device));
    if (finals.ok()) {
      outcome.finalists = std::move(*finals);
    } else {
      outcome.errors.push_back("re-measuring the finalists: " + finals.error().to_string());
    }
  }
  if (gateway) {
    outcome.llm_usage = journal->usage();
    // Answers consumed by steps that were not persisted are asked again on resume.
    gateway->restore_usage(outcome.campaign, *outcome.llm_usage);
  }
  AOPT_RETURN_IF_ERROR(journal->update_record(outcome.campaign, [&](nlohmann::json& r) {
    r["status"] = all_finished ? "done" : "interrupted";
    r["updated"] = utc_now();
    if (outcome.cascade) r["cascade"] = npu::to_json(*outcome.cascade);
  }));
  outcome.wall_seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return outcome;
}

}  // namespace aopt::runtime
