#include "runtime/campaign_runner.hpp"
#include "runtime/campaign_identity.hpp"

#include <algorithm>
#include <chrono>
#include <ctime>
#include <functional>
#include <mutex>
#include <set>

#include <spdlog/spdlog.h>

#include "actors/actor_error.hpp"
#include "actors/campaign.hpp"
#include "actors/evaluator.hpp"
#include "actors/llm_gateway.hpp"
#include "actors/role_registry.hpp"
#include "actors/shut_down.hpp"
#include "agent/episode/store_journal.hpp"
#include "agent/roles/role_descriptor.hpp"
#include "llm/token_ledger_json.hpp"
#include "npu/hardware_profile.hpp"
#include "runtime/device_factory.hpp"
#include "runtime/hooked_roles.hpp"
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

// device.confirm_improvements = false leaves the confirmation out of an episode's verifiers, a
// resumed one's too: it is the campaign's switch, whatever the episode was started with.
void apply_confirmation_switch(const config::aopt_config& c, agent::episode_config& e) {
  if (c.device.confirm_improvements) return;
  std::vector<std::string>& v = e.verifiers;
  v.erase(std::remove(v.begin(), v.end(), "improvement_confirmation"), v.end());
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
  e.stage2_adaptive = c.campaign.stage2_adaptive;
  e.top_k = std::max<uint32_t>(1, c.roles.at("retriever").top_k);
  e.seed = c.campaign.seed;
  e.annotators = c.pipeline.annotators;
  e.gates = c.pipeline.gates;
  e.verifiers = c.pipeline.verifiers;
  e.observers = c.pipeline.observers;
  apply_confirmation_switch(c, e);
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

  const actors::llm_gateway_actor& actor() const { return actor_; }

 private:
  std::shared_ptr<agent::llm_backend> backend_;
  actors::llm_gateway_actor actor_;
};

// The journal of a campaign's episodes. It writes each transition as store_journal does and,
// in the same atomic batch, adds the LLM usage the step consumed (the gateway's unpersisted
// consumption of that operator) to the campaign record's "llm_usage"; as the gateway's billing
// sink it adds billed tokens to the record when they arrive. So the record's usage is always
// that of the persisted steps plus everything billed, whenever the process dies (docs/design.md
// §4). Record writes are serialised, so concurrent episodes never overwrite each other's usage.
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

result<campaign_request> load_campaign_request(storage::store& db, const std::string& id) {
  result<nlohmann::json> record = db.get_campaign(id);
  if (!record.ok()) return record.error();
  campaign_request r;
  r.campaign = id;
  try {
    for (const auto& dir : record->at("operators"))
      r.operators.emplace_back(dir.get<std::string>());
    if (auto dirs = record->find("include_dirs"); dirs != record->end()) {
      for (const auto& dir : *dirs) r.include_dirs.emplace_back(dir.get<std::string>());
    }
    result<config::aopt_config> cfg = config::from_json(record->at("config"));
    if (!cfg.ok()) return cfg.error().with_context("campaign " + id);
    r.config = *cfg;
  } catch (const nlohmann::json::exception& e) {
    return data_loss("campaign " + id + ": unreadable record: " + e.what());
  }
  return r;
}

namespace {

// One run of a campaign: the plain work of the campaign actor (spawn_campaign_run). prepare()
// brings the campaign up (record, episodes, policies, the roles' actors); finish() collects
// what the episodes reached once the campaign actor answered, re-measures the finalists and
// writes the final record. Both block (database, device): the actor runs them on one-shot
// detached actors.
class campaign_run {
 public:
  campaign_run(engine& host, campaign_request request, storage::store& db,
               std::shared_ptr<agent::event_sink> events)
      : host_(host),
        request_(std::move(request)),
        db_(db),
        events_(std::move(events)),
        start_(std::chrono::steady_clock::now()) {
    outcome_.campaign = request_.campaign.empty()
                            ? resolve_campaign_id(db, request_.operators, request_.config)
                            : request_.campaign;
  }

  // Asks the episodes to stop after their evaluations in flight.
  void stop() { stop_->store(true); }

  // Errors refuse the start; from the point the record says "running", the record then says
  // "failed".
  status prepare(caf::actor_system& sys);
  actors::campaign_actor campaign_actor() const { return campaign_; }
  actors::evaluator_actor evaluator() const { return pipeline_.evaluator; }
  // Ends the run: stops the roles' actors, collects the outcome.
  result<campaign_outcome> finish(const std::optional<actors::campaign_summary>& summary,
                                  const std::optional<std::string>& campaign_error,
                                  const actors::pool_stats& pool);

 private:
  status refuse(const status& why) {
    record_["status"] = "failed";
    record_["error"] = why.to_string();
    record_["updated"] = utc_now();
    (void)db_.put_campaign(outcome_.campaign, record_);
    return why;
  }

  engine& host_;  // outlives its actors, hence this run
  const campaign_request request_;
  storage::store& db_;
  std::shared_ptr<agent::event_sink> events_;
  const std::shared_ptr<std::atomic<bool>> stop_ = std::make_shared<std::atomic<bool>>(false);
  const std::chrono::steady_clock::time_point start_;

  campaign_outcome outcome_;
  nlohmann::json record_;
  npu::cascade_counts earlier_cascade_;
  std::vector<std::shared_ptr<const npu::op_package>> packages_;
  std::shared_ptr<npu::device> device_;
  llm::gateway* gateway_ = nullptr;
  std::shared_ptr<campaign_journal> journal_;
  std::unique_ptr<billing_link> billing_;
  std::unique_ptr<llm_gateway_link> llm_gateway_;
  actors::episode_pipeline pipeline_;
  actors::campaign_actor campaign_;
  sim::hw_profile hardware_;  // the hooked roles' environment points at it
};

status campaign_run::prepare(caf::actor_system& sys) {
  const config::aopt_config& cfg = request_.config;
  result<agent::episode_config> episode_cfg = episode_config_of(cfg);
  if (!episode_cfg.ok()) return episode_cfg.error();
  const actors::role_registry roles = actors::role_registry::with_builtin_roles();
  if (result<agent::pipeline_roles> valid = roles.resolve(cfg.pipeline.stage1, cfg.pipeline.stage2);
      !valid.ok())
    return valid.error();
  AOPT_RETURN_IF_ERROR(check_hooked_roles(cfg));
  // Before the record says "running": a device that cannot be made refuses the start.
  result<std::shared_ptr<npu::device>> device =
      make_device(cfg, secrets_to_redact(cfg), request_.drift);
  if (!device.ok()) return device.error();
  device_ = *device;

  record_ = {{"id", outcome_.campaign}, {"created", utc_now()}};
  if (result<nlohmann::json> existing = db_.get_campaign(outcome_.campaign); existing.ok()) {
    record_ = *existing;
  }
  record_["operators"] = nlohmann::json::array();
  for (const fs::path& p : request_.operators) record_["operators"].push_back(p.string());
  // Only a campaign that names include folders records them: other records stay as they were.
  if (!request_.include_dirs.empty()) {
    record_["include_dirs"] = nlohmann::json::array();
    for (const fs::path& p : request_.include_dirs) record_["include_dirs"].push_back(p.string());
  }
  record_["config"] = config::to_json(cfg);
  record_["strategy"] = config::to_string(cfg.campaign.strategy);
  record_["status"] = "running";
  record_["updated"] = utc_now();
  AOPT_RETURN_IF_ERROR(db_.put_campaign(outcome_.campaign, record_));

  // Stage counts of the cascade's earlier runs of this campaign: the report counts them all.
  if (auto it = record_.find("cascade"); it != record_.end()) {
    result<npu::cascade_counts> earlier = npu::cascade_counts_from_json(*it);
    if (!earlier.ok()) return refuse(earlier.error().with_context("campaign " + outcome_.campaign));
    earlier_cascade_ = *earlier;
  }

  std::vector<actors::campaign_episode> episodes;
  npu::package_load_options load;
  load.include_dirs = request_.include_dirs;
  for (const fs::path& dir : request_.operators) {
    result<npu::op_package> pkg = npu::load_op_package(dir, load);
    if (!pkg.ok()) {
      outcome_.errors.push_back(pkg.error().to_string());
      continue;
    }
    auto op = std::make_shared<const npu::op_package>(std::move(*pkg));
    packages_.push_back(op);
    agent::episode_state state = agent::initial_episode_state(outcome_.campaign, *op, *episode_cfg);
    if (result<nlohmann::json> saved = db_.get_episode(outcome_.campaign, op->spec.name);
        saved.ok()) {
      result<agent::episode_state> restored = agent::episode_state_from_json(*saved);
      if (!restored.ok()) return refuse(restored.error().with_context("resuming " + op->spec.name));
      state = std::move(*restored);
      apply_confirmation_switch(cfg, state.config);
      reopen_if_baseline_failed_transiently(db_, state);
    }
    episodes.push_back({std::move(op), std::move(state)});
  }

  // The LLM roles call through the engine's one LLM service (its limits span the process).
  std::shared_ptr<agent::llm_service> service;
  if (roles_use_llm(cfg)) {
    result<std::shared_ptr<agent::llm_service>> made = host_.llm_service();
    if (!made.ok()) return refuse(made.error().with_context("llm"));
    service = *made;
  }
  result<std::shared_ptr<agent::llm_backend>> backend = make_role_llm_backend(cfg, db_, service);
  if (!backend.ok()) return refuse(backend.error());
  gateway_ = *backend ? &(*backend)->gateway() : nullptr;
  llm::token_ledger usage(gateway_ ? gateway_->options().prices : llm::price_table{});
  if (gateway_) {
    // A resumed campaign's budget and totals include what its earlier runs persisted. Only
    // this campaign's entries: records of older versions may hold other campaigns' too.
    result<std::optional<llm::token_ledger>> earlier = llm_usage_of(record_);
    if (!earlier.ok()) return refuse(earlier.error().with_context("campaign " + outcome_.campaign));
    if (*earlier) usage.replace_campaign(outcome_.campaign, **earlier);
    gateway_->restore_usage(outcome_.campaign, usage);
  }
  result<agent::policy_set> policies = make_policies(cfg, db_, *backend, outcome_.campaign);
  if (!policies.ok()) return refuse(policies.error());
  const tiling_probe_setup probe = make_tiling_probe(cfg, device_, secrets_to_redact(cfg));
  outcome_.tiling_probe = probe.description;
  if (cfg.stage1.probe_tilings && !probe.screen) {
    spdlog::warn(
        "no tiling prober for device.kind = {}: {}; Stage I candidates go to the device "
        "unprobed",
        config::to_string(cfg.device.kind), probe.description);
  }
  journal_ = std::make_shared<campaign_journal>(db_, record_, usage, gateway_);
  billing_ = std::make_unique<billing_link>(gateway_, outcome_.campaign, journal_);

  llm_gateway_ = std::make_unique<llm_gateway_link>(sys, *backend);
  result<actors::episode_pipeline> pipeline =
      roles.spawn_pipeline(sys, cfg.pipeline.stage1, cfg.pipeline.stage2, *policies);
  if (!pipeline.ok()) return refuse(pipeline.error());
  pipeline_ = *pipeline;
  const actors::evaluator_context evaluation{device_, host_.device_pool(),
                                             std::make_shared<agent::store_journal>(db_),
                                             make_eval_options(cfg.device)};
  pipeline_.evaluator = actors::spawn_evaluator(sys, evaluation);

  result<sim::hw_profile> hardware =
      npu::find_hardware_profile(cfg.device.profile, config::hardware_dir(cfg.device));
  if (!hardware.ok()) return refuse(hardware.error().with_context("device.profile"));
  hardware_ = *hardware;
  agent::role_environment environment;
  environment.campaign = outcome_.campaign;
  environment.llm = *backend;
  environment.db = &db_;
  environment.hardware = &hardware_;
  environment.evaluation = actors::make_evaluation_service(sys, evaluation);
  environment.device_slots = cfg.device.slots;
  environment.tiling_probe = probe.screen;
  std::vector<agent::episode_config> resumed;
  for (const actors::campaign_episode& e : episodes) resumed.push_back(e.state.config);
  config::aopt_config hooked_cfg = cfg;
  hooked_cfg.pipeline = with_resumed_roles(cfg.pipeline, resumed);
  const std::vector<std::string>& gates = hooked_cfg.pipeline.gates;
  if (probe.screen && std::find(gates.begin(), gates.end(), "tiling_probe") == gates.end()) {
    outcome_.tiling_probe = "off ([pipeline] gates leaves out tiling_probe)";
  }
  result<std::vector<actors::hooked_role>> hooked =
      spawn_hooked_roles(sys, hooked_cfg, environment);
  if (!hooked.ok()) return refuse(hooked.error().with_context("the roles the episodes ask"));
  pipeline_.hooked = std::move(*hooked);

  if (events_) {
    agent::campaign_event started;
    started.type = agent::campaign_event::kind::campaign_started;
    started.campaign = outcome_.campaign;
    started.operators = static_cast<uint32_t>(episodes.size());
    started.budget = cfg.campaign.budget;
    events_->publish(started);
  }
  actors::campaign_context ctx{outcome_.campaign,
                               std::move(episodes),
                               cfg.campaign.jobs,
                               pipeline_,
                               journal_,
                               events_,
                               stop_};
  campaign_ = actors::spawn_campaign(sys, std::move(ctx));
  return status{};
}

result<campaign_outcome> campaign_run::finish(
    const std::optional<actors::campaign_summary>& summary,
    const std::optional<std::string>& campaign_error, const actors::pool_stats& pool) {
  const config::aopt_config& cfg = request_.config;
  campaign_outcome& outcome = outcome_;
  if (campaign_error) outcome.errors.push_back("campaign: " + *campaign_error);
  outcome.pool = pool;
  if (auto* cascade = dynamic_cast<npu::cascade_device*>(device_.get())) {
    outcome.cascade = earlier_cascade_;
    *outcome.cascade += cascade->counts();
  }
  actors::shut_down(pipeline_.mutator, pipeline_.diagnoser, pipeline_.retriever, pipeline_.refiner,
                    pipeline_.evaluator, llm_gateway_->actor());
  for (const actors::hooked_role& role : pipeline_.hooked) actors::shut_down(role.actor);
  // Unroutes the LLM backend from the gateway actor and the billing from the journal.
  llm_gateway_.reset();
  billing_.reset();

  // Episodes that never started (a stop came first) report their stored state.
  std::set<std::string> reported;
  if (summary) {
    for (const actors::episode_summary& s : summary->episodes) {
      if (!s.error.empty()) outcome.errors.push_back(s.op + ": " + s.error);
      if (!s.state.value) continue;
      reported.insert(s.state.value->op_name);
      outcome.episodes.push_back(*s.state.value);
    }
  }
  if (result<std::vector<storage::keyed_value>> stored = db_.list_episodes(outcome.campaign);
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
      outcome.episodes.size() + outcome.errors.size() >= request_.operators.size() &&
      std::all_of(outcome.episodes.begin(), outcome.episodes.end(), [](const auto& e) {
        return e.phase == agent::episode_phase::done || e.phase == agent::episode_phase::failed;
      });
  outcome.interrupted = !all_finished;
  if (all_finished && cfg.cann.remeasure_top > 0) {
    // After the evaluator has stopped: the device is this run's alone.
    auto finals = remeasure_finalists(*device_, db_, outcome.campaign, outcome.episodes, packages_,
                                      cfg.cann.remeasure_top, make_eval_options(cfg.device));
    if (finals.ok()) {
      outcome.finalists = std::move(*finals);
    } else {
      outcome.errors.push_back("re-measuring the finalists: " + finals.error().to_string());
    }
  }
  if (gateway_) {
    outcome.llm_usage = journal_->usage();
    // Answers consumed by steps that were not persisted are asked again on resume.
    gateway_->restore_usage(outcome.campaign, *outcome.llm_usage);
  }
  AOPT_RETURN_IF_ERROR(journal_->update_record(outcome.campaign, [&](nlohmann::json& r) {
    r["status"] = all_finished ? "done" : "interrupted";
    r["updated"] = utc_now();
    if (outcome.cascade) r["cascade"] = npu::to_json(*outcome.cascade);
  }));
  outcome.wall_seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  return std::move(outcome);
}

// Runs `work` (it blocks: database, device) on a one-shot detached actor, then `then` in `self`.
template <class Self, class Work, class Then>
void after_blocking(Self* self, Work work, Then then) {
  auto helper =
      self->template spawn<caf::detached>([work](caf::event_based_actor* h) -> caf::behavior {
        return {[h, work](actors::run_atom) {
          h->quit();
          work();
          return actors::done_atom_v;
        }};
      });
  self->request(helper, caf::infinite, actors::run_atom_v)
      .then([then](actors::done_atom) mutable { then(); }, [then](caf::error&) mutable { then(); });
}

// Work that throws becomes an error, not a campaign that never answers.
template <class Work>
auto guarded(Work work) -> decltype(work()) {
  try {
    return work();
  } catch (const std::exception& e) {
    return internal_error(std::string("campaign stopped by an exception: ") + e.what());
  } catch (...) {
    return internal_error("campaign stopped by an unknown exception");
  }
}

}  // namespace

namespace {

// The campaign actor: prepares the run, has the episodes driven by the campaign actor of the
// actors layer, collects the pool's counts, finishes the run and answers its one run request.
campaign_run_actor::behavior_type campaign_run_behavior(
    campaign_run_actor::pointer self, std::shared_ptr<campaign_run> run,
    std::shared_ptr<result<campaign_outcome>> outcome) {
  auto started = std::make_shared<bool>(false);
  return {
      [=](actors::run_atom) -> caf::result<actors::done_atom> {
        if (*started) return actors::to_actor_error(failed_precondition("a campaign runs once"));
        *started = true;
        auto promise = self->make_response_promise<actors::done_atom>();
        auto answer = [=]() mutable {
          promise.deliver(actors::done_atom_v);
          self->quit();
        };
        const auto conclude = [=](const std::optional<actors::campaign_summary>& summary,
                                  const std::optional<std::string>& error,
                                  const actors::pool_stats& pool) {
          after_blocking(
              self, [=] { *outcome = guarded([&] { return run->finish(summary, error, pool); }); },
              answer);
        };
        const auto ended = [=](const std::optional<actors::campaign_summary>& summary,
                               const std::optional<std::string>& error) {
          self->request(run->evaluator(), caf::infinite, actors::stats_atom_v)
              .then([=](const actors::pool_stats& pool) { conclude(summary, error, pool); },
                    [=](caf::error&) { conclude(summary, error, actors::pool_stats{}); });
        };
        auto ready = std::make_shared<status>();
        after_blocking(
            self, [=] { *ready = guarded([&] { return run->prepare(self->system()); }); },
            [=]() mutable {
              if (!ready->ok()) {
                *outcome = *ready;
                answer();
                return;
              }
              self->request(run->campaign_actor(), caf::infinite, actors::run_atom_v)
                  .then(
                      [=](const actors::campaign_summary& s) { ended(s, std::nullopt); },
                      [=](caf::error& e) { ended(std::nullopt, actors::to_status(e).message()); });
            });
        return promise;
      },
      [=](actors::stop_atom) { run->stop(); },
  };
}

}  // namespace

campaign_run_handle spawn_campaign_run(engine& host, campaign_request request, storage::store& db,
                                       std::shared_ptr<agent::event_sink> events) {
  auto outcome = std::make_shared<result<campaign_outcome>>(internal_error("campaign did not run"));
  auto run = std::make_shared<campaign_run>(host, std::move(request), db, std::move(events));
  return {host.system().spawn(campaign_run_behavior, run, outcome), outcome};
}

namespace {

// Forwards a raised stop flag (SIGINT or SIGTERM of `aopt run`) to the campaign actor as a stop
// message; ends with the campaign actor.
void spawn_stop_forwarder(caf::actor_system& sys, std::shared_ptr<const std::atomic<bool>> flag,
                          const campaign_run_actor& campaign) {
  sys.spawn([flag, campaign](caf::event_based_actor* self) -> caf::behavior {
    self->monitor(campaign);
    self->set_down_handler([self](caf::down_msg&) { self->quit(); });
    self->send(self, actors::tick_atom_v);
    return {[=](actors::tick_atom) {
      if (flag->load()) {
        self->send(campaign, actors::stop_atom_v);
        self->quit();
        return;
      }
      self->delayed_send(self, std::chrono::milliseconds(100), actors::tick_atom_v);
    }};
  });
}

}  // namespace

result<campaign_outcome> run_campaign(const campaign_request& request, storage::store& db,
                                      std::shared_ptr<agent::event_sink> events,
                                      std::shared_ptr<const std::atomic<bool>> stop) {
  std::shared_ptr<engine> host = request.shared_engine;
  if (!host) {
    result<std::shared_ptr<engine>> started = engine::start(request.config, &db);
    if (!started.ok()) return started.error();
    host = std::move(*started);
  }
  campaign_request own = request;
  own.shared_engine.reset();  // the run must not keep the engine alive from its own actors
  const campaign_run_handle run = spawn_campaign_run(*host, std::move(own), db, std::move(events));
  if (stop) spawn_stop_forwarder(host->system(), std::move(stop), run.actor);
  caf::scoped_actor self{host->system()};
  self->request(run.actor, caf::infinite, actors::run_atom_v)
      .receive([](actors::done_atom) {},
               [&](caf::error& e) {
                 *run.outcome = internal_error("campaign actor: " + actors::to_status(e).message());
               });
  return std::move(*run.outcome);
}

}  // namespace aopt::runtime
