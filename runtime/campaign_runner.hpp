// Runs (or resumes) a campaign in this process: discovers the operators, restores every
// episode's persisted state, spawns the configured roles in the engine's actor system (evaluating
// through its device pool, calling the LLM through its LLM service), and reports when every
// episode has finished or a stop was requested. A campaign is an actor of the engine
// (spawn_campaign_run); run_campaign waits for one.
//
// A campaign's id is derived from its inputs and configuration unless named, so running the
// same command again resumes the same campaign.
#pragma once

#include <atomic>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "actors/messages.hpp"
#include "agent/episode/campaign_events.hpp"
#include "agent/episode/episode_state.hpp"
#include "agent/episode/policy_set.hpp"
#include "agent/llm_policies/llm_backend.hpp"
#include "base/status.hpp"
#include "config/aopt_config.hpp"
#include "llm/token_ledger.hpp"
#include "npu/cann/drift_board.hpp"
#include "npu/cascade_device.hpp"
#include "runtime/engine.hpp"
#include "runtime/finalist_remeasurement.hpp"
#include "storage/store.hpp"

namespace aopt::runtime {

// Operator package folders under `inputs`: a folder holding op.json is one operator; any other
// folder is searched recursively, skipping expert kernels (kind "expert"), which are material
// for the experience bank, not optimization targets. Sorted, without duplicates.
result<std::vector<std::filesystem::path>> discover_operators(
    const std::vector<std::filesystem::path>& inputs);

struct campaign_outcome {
  std::string campaign;
  std::vector<agent::episode_state> episodes;
  std::vector<std::string> errors;  // operators that could not be loaded or persisted
  bool interrupted = false;         // a stop was requested before every episode finished
  double wall_seconds = 0;
  actors::pool_stats pool;
  // LLM calls and tokens per (campaign, operator, role), over every run of the campaign; unset
  // when no role uses the LLM. Persisted in the campaign record as "llm_usage".
  std::optional<llm::token_ledger> llm_usage;
  // device.kind = "cascade": how many candidates each stage stopped, over every run of the
  // campaign (persisted in the campaign record as "cascade").
  std::optional<npu::cascade_counts> cascade;
  // A hardware device: the end-of-campaign re-measurement of each operator's finalists
  // (cann.remeasure_top), when every episode finished; unset on the simulator.
  std::optional<std::vector<operator_finalists>> finalists;
  // The tiling probe Stage I candidates passed (tiling_probe_factory.hpp: "simulator device",
  // "off (stage1.probe_tilings = false)", "none: <why>").
  std::string tiling_probe;
};

struct campaign_request {
  std::string campaign;  // "" = resolve_campaign_id (campaign_identity.hpp)
  std::vector<std::filesystem::path> operators;
  // Folders of the operators' repository holding helper headers the packages include but do
  // not carry (`aopt run --include-dir`, as `aopt eval`'s); kept in the campaign's record, so a
  // resumed campaign loads its packages the same way. Not part of the campaign id: the headers
  // joined are part of each package's content, which the results are keyed by.
  std::vector<std::filesystem::path> include_dirs;
  config::aopt_config config;
  // The engine (actor system, device pool, LLM service) run_campaign runs in; null = an engine
  // of the campaign's own, started from config (device.slots, [workers], [llm]).
  std::shared_ptr<engine> shared_engine;
  // Where CANN devices publish baseline drift checks (`aopt serve`: one board for /metrics);
  // null = the device's own.
  std::shared_ptr<npu::drift_board> drift;
};

// The LLM backend the configured roles share, calling through `shared` (the engine's LLM service)
// when given, else through a service of its own (llm_cache in `db`); null when no episode role
// uses the LLM.
result<std::shared_ptr<agent::llm_backend>> make_role_llm_backend(
    const config::aopt_config& config, storage::store& db,
    std::shared_ptr<agent::llm_service> shared = nullptr);

// True when an episode role's policy is "llm".
bool roles_use_llm(const config::aopt_config& config);

// Policies for the configured roles (heuristic or LLM per role). `llm`: make_role_llm_backend's
// backend; invalid_argument when a role needs it and it is null. `campaign` is the campaign the
// LLM calls of policies without a per-call campaign (dense retrieval) are accounted to.
result<agent::policy_set> make_policies(const config::aopt_config& config, storage::store& db,
                                        std::shared_ptr<agent::llm_backend> llm,
                                        const std::string& campaign);

// A campaign as an actor of `host`'s system:
//   (run_atom)  -> done_atom   once the campaign finished, stopped or was refused; its outcome
//                              (or why it was refused) is then in *outcome. Answered once.
//   (stop_atom)                stop after the evaluations in flight (pause, cancel, shutdown)
// The outcome travels beside the answer because the actors layer's message types cannot name
// the runtime's campaign_outcome. `db` and `host` must outlive the actor (the engine waits for
// its actors when it stops). `events` may be null.
using campaign_run_actor =
    caf::typed_actor<caf::replies_to<actors::run_atom>::with<actors::done_atom>,
                     caf::reacts_to<actors::stop_atom>>;
struct campaign_run_handle {
  campaign_run_actor actor;
  std::shared_ptr<result<campaign_outcome>> outcome;
};
campaign_run_handle spawn_campaign_run(engine& host, campaign_request request, storage::store& db,
                                       std::shared_ptr<agent::event_sink> events);

// Runs the campaign actor to completion in request.shared_engine (or an engine of its own) and
// waits for its answer; *stop becoming true (a signal) is sent to it as a stop message.
// `events` and `stop` may be null.
result<campaign_outcome> run_campaign(const campaign_request& request, storage::store& db,
                                      std::shared_ptr<agent::event_sink> events,
                                      std::shared_ptr<const std::atomic<bool>> stop);

// The "llm_usage" of a campaign record (see campaign_outcome); nullopt when it has none.
result<std::optional<llm::token_ledger>> llm_usage_of(const nlohmann::json& campaign_record);

// Loads the campaign record `id` (its operators and configuration snapshot) for a resume.
result<campaign_request> load_campaign_request(storage::store& db, const std::string& id);

}  // namespace aopt::runtime
