#include "runtime/campaign_runner.hpp"

#include <algorithm>
#include <chrono>
#include <ctime>
#include <set>
#include <thread>

#include "actors/campaign.hpp"
#include "actors/evaluator.hpp"
#include "actors/llm_gateway.hpp"
#include "actors/role_registry.hpp"
#include "agent/device_slots.hpp"
#include "agent/store_journal.hpp"
#include "base/content_hash.hpp"
#include "llm/token_ledger_json.hpp"
#include "runtime/device_factory.hpp"

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
      return invalid_argument("campaign.strategy: 'evolve' is not implemented in this build");
  }
  e.budget = c.campaign.budget;
  e.rounds = c.campaign.rounds;
  e.stage1_steps = c.campaign.stage1_steps;
  e.stage2_steps = c.campaign.stage2_steps;
  e.top_k = std::max<uint32_t>(1, c.roles.at("retriever").top_k);
  e.seed = c.campaign.seed;
  return e;
}

result<actors::episode_pipeline> spawn_pipeline(caf::actor_system& sys,
                                                const config::pipeline_config& p,
                                                const agent::policy_set& policies) {
  if (p.stage1.size() != 1 || p.stage2.size() != 3) {
    return invalid_argument(
        "pipeline: stage1 must name one role (the mutator) and stage2 three (diagnoser, "
        "retriever, refiner)");
  }
  actors::role_registry registry = actors::role_registry::with_builtin_roles();
  actors::episode_pipeline pipeline;
  caf::actor* slots[] = {&pipeline.mutator, &pipeline.diagnoser, &pipeline.retriever,
                         &pipeline.refiner};
  const std::string names[] = {p.stage1[0], p.stage2[0], p.stage2[1], p.stage2[2]};
  for (int i = 0; i < 4; ++i) {
    result<caf::actor> a = registry.spawn(names[i], sys, policies);
    if (!a.ok()) return a.error();
    *slots[i] = *a;
  }
  pipeline.mutator_policy = policies.mutator->name();
  pipeline.refiner_policy = policies.refiner->name();
  return pipeline;
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

  // The ledger, asked of the actor; nullopt without an LLM backend.
  std::optional<llm::token_ledger> usage(caf::scoped_actor& self) const {
    std::optional<llm::token_ledger> ledger;
    if (!actor_) return ledger;
    self->request(actor_, caf::infinite, actors::usage_atom_v)
        .receive([&](const actors::llm_usage_report& u) { ledger = u.value->ledger; },
                 [](caf::error&) {});
    return ledger;
  }
  const caf::actor& actor() const { return actor_; }

 private:
  std::shared_ptr<agent::llm_backend> backend_;
  caf::actor actor_;
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
  parts.push_back(config::to_json(config).dump());
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

  std::vector<actors::campaign_episode> episodes;
  for (const fs::path& dir : request.operators) {
    result<npu::op_package> pkg = npu::load_op_package(dir);
    if (!pkg.ok()) {
      outcome.errors.push_back(pkg.error().to_string());
      continue;
    }
    auto op = std::make_shared<const npu::op_package>(std::move(*pkg));
    agent::episode_state state = agent::initial_episode_state(outcome.campaign, *op, *episode_cfg);
    if (result<nlohmann::json> saved = db.get_episode(outcome.campaign, op->spec.name);
        saved.ok()) {
      result<agent::episode_state> restored = agent::episode_state_from_json(*saved);
      if (!restored.ok()) return restored.error().with_context("resuming " + op->spec.name);
      state = std::move(*restored);
    }
    episodes.push_back({std::move(op), std::move(state)});
  }

  result<std::shared_ptr<agent::llm_backend>> backend = make_role_llm_backend(cfg, db);
  if (!backend.ok()) return backend.error();
  if (*backend) {
    // A resumed campaign's budget and totals include what its earlier runs used.
    result<std::optional<llm::token_ledger>> earlier = llm_usage_of(record);
    if (!earlier.ok()) return earlier.error().with_context("campaign " + outcome.campaign);
    if (*earlier) (*backend)->gateway().restore_usage(**earlier);
  }
  result<agent::policy_set> policies = make_policies(cfg, db, *backend);
  if (!policies.ok()) return policies.error();
  result<std::shared_ptr<npu::device>> device = make_device(cfg.device);
  if (!device.ok()) return device.error();
  auto journal = std::make_shared<agent::store_journal>(db);

  caf::actor_system_config caf_cfg;
  caf_cfg.add_message_types<caf::id_block::aopt>();
  caf_cfg.set("scheduler.max-threads", std::max(2u, std::thread::hardware_concurrency()));
  caf::actor_system sys{caf_cfg};
  llm_gateway_link llm_gateway(sys, *backend);
  result<actors::episode_pipeline> pipeline = spawn_pipeline(sys, cfg.pipeline, *policies);
  if (!pipeline.ok()) return pipeline.error();
  std::shared_ptr<agent::device_slots> slots =
      request.slots ? request.slots : std::make_shared<agent::device_slots>(cfg.device.slots);
  pipeline->evaluator =
      actors::spawn_evaluator(sys, {*device, slots, journal, make_eval_options(cfg.device)});

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
  outcome.llm_usage = llm_gateway.usage(self);
  for (const caf::actor& a : {pipeline->mutator, pipeline->diagnoser, pipeline->retriever,
                              pipeline->refiner, pipeline->evaluator, llm_gateway.actor()}) {
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
  record["status"] = all_finished ? "done" : "interrupted";
  if (outcome.llm_usage) record["llm_usage"] = llm::to_json(*outcome.llm_usage);
  record["updated"] = utc_now();
  AOPT_RETURN_IF_ERROR(db.put_campaign(outcome.campaign, record));
  outcome.wall_seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return outcome;
}

}  // namespace aopt::runtime
