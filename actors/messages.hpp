// Every message type the actors exchange, their `inspect` overloads and the CAF type-ID block,
// kept in one header so that a move to CAF 0.18+/1.x (where `inspect` and typed signatures
// change) is mechanical.
//
// Two kinds of payload:
// * evaluation_request / evaluation_reply / worker_hello / worker_welcome / package_sources
//   cross the network between the device pool and remote evaluation workers (issue 19): plain
//   strings and numbers, fully inspected; the eval_result of a reply as its JSON form.
// * local<T> carries a plain request or reply of the agent layer between actors of one process
//   (it holds pointers, e.g. to the operator package); it is never serialised: one that arrives
//   from another node holds a null value, which every receiver refuses.
#pragma once

#include <functional>
#include <memory>
#include <string>

#include <caf/all.hpp>

#include "agent/episode/campaign_metrics.hpp"
#include "agent/episode/episode.hpp"
#include "agent/episode/hooks.hpp"
#include "agent/episode/roles.hpp"
#include "agent/heuristics/bank_rewind.hpp"
#include "base/utf8.hpp"
#include "llm/call_result.hpp"
#include "llm/chat_types.hpp"
#include "llm/gateway.hpp"
#include "llm/token_ledger.hpp"
#include "npu/device.hpp"
#include "npu/package_sources.hpp"
#include "npu/protocol/eval_result.hpp"

namespace aopt::actors {

template <class T>
struct local {
  std::shared_ptr<const T> value;
};

template <class T>
local<T> make_local(T value) {
  return local<T>{std::make_shared<const T>(std::move(value))};
}

template <class Inspector, class T>
typename Inspector::result_type inspect(Inspector& f, local<T>&) {
  return f(caf::meta::type_name("local"));
}

// A request to evaluate (T, K) of the operator in `op_dir` (the package's op.json and
// reference are read from there; T and K travel as text).
struct evaluation_job {
  std::string campaign;
  std::string op_dir;
  std::string tiling;
  std::string kernel;
  // Local fast path: the already loaded package (not serialised; remote workers load op_dir).
  std::shared_ptr<const npu::op_package> op;
  // A confirmation: evaluated on the device from a cold build, never answered from a cache.
  bool cold = false;
  // A check of the final best on a validation shape (`op` reshaped), correctness only; cached
  // under a validation key of its own.
  bool validation = false;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, evaluation_job& x) {
  return f(caf::meta::type_name("evaluation_job"), x.campaign, x.op_dir, x.tiling, x.kernel, x.cold,
           x.validation);
}

struct evaluation_done {
  npu::eval_result result;
  std::string cache_key;  // eval_cache key of this (profile, op, T, K)
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, evaluation_done& x) {
  return f(caf::meta::type_name("evaluation_done"), x.result, x.cache_key);
}

// What a finished episode reports to its campaign.
struct episode_summary {
  std::string op;
  local<agent::episode_state> state;  // its final state; null when it could not be taken
  std::string error;  // why the episode stopped early (persistence failed); empty if none
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, episode_summary& x) {
  return f(caf::meta::type_name("episode_summary"), x.op, x.state, x.error);
}

struct campaign_summary {
  std::vector<episode_summary> episodes;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, campaign_summary& x) {
  return f(caf::meta::type_name("campaign_summary"), x.episodes);
}

using mutation_job = local<agent::mutation_request>;
using mutation_outcome = local<result<agent::mutation_reply>>;
using diagnosis_job = local<agent::diagnosis_request>;
using diagnosis_outcome = local<result<agent::diagnosis>>;
using retrieval_job = local<agent::need_retrieval>;
using retrieval_outcome = local<result<std::vector<agent::tuple_ref>>>;
using refinement_job = local<agent::refinement_request>;
using refinement_outcome = local<result<std::vector<agent::kernel_candidate>>>;
// Hooked roles (actors/hook_role.hpp, agent/episode/hooks.hpp).
using annotation_job = local<agent::annotation_request>;
using annotation_outcome = local<result<agent::annotation_reply>>;
using gate_job = local<agent::gate_request>;
using gate_outcome = local<result<agent::gate_verdict>>;
using verification_job = local<agent::verification_request>;
using verification_outcome = local<result<agent::verification_reply>>;
using observation_job = local<agent::observation>;
using observation_outcome = local<result<nlohmann::json>>;
// The Rewinder (actors/rewinder.hpp): one expert package in, its distilled trajectory out.
using rewind_job = local<npu::op_package>;
using rewind_outcome = local<result<agent::distilled_expert>>;

// LLM calls by message to the campaign's gateway actor (actors/llm_gateway.hpp). A failed call
// is a classified llm::call_result, not an actor error.
struct llm_chat_call {
  llm::call_context who;
  llm::chat_request request;
};
struct llm_embed_call {
  llm::call_context who;
  llm::embedding_request request;
};
// The gateway's accounting at one moment: the token ledger and the admission counters.
struct llm_usage {
  llm::token_ledger ledger;
  llm::gateway_stats stats;
};

using llm_chat_job = local<llm_chat_call>;
using llm_chat_outcome = local<llm::call_result<llm::chat_response>>;
using llm_embed_job = local<llm_embed_call>;
using llm_embed_outcome = local<llm::call_result<llm::embedding_response>>;
using llm_usage_report = local<llm_usage>;

}  // namespace aopt::actors

namespace aopt::npu {

// An eval_result is serialised as its JSON form (npu/protocol/eval_result.hpp, the one the
// database stores): only the replies of remote evaluation workers cross the network; between
// actors of one process CAF hands over the typed value without serialising it.
template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, eval_result& x) {
  std::string text;
  if constexpr (Inspector::reads_state) text = dump_json(nlohmann::json(x));
  return f(caf::meta::type_name("eval_result"), text, caf::meta::load_callback([&]() -> caf::error {
             nlohmann::json j = nlohmann::json::parse(text, nullptr, false);
             try {
               x = j.get<eval_result>();
             } catch (const std::exception& e) {
               return caf::make_error(caf::sec::invalid_argument,
                                      std::string("eval_result: ") + e.what());
             }
             return caf::none;
           }));
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, eval_options& x) {
  return f(caf::meta::type_name("eval_options"), x.input_sets, x.repetitions, x.timeout_seconds,
           x.compile_timeout_seconds, x.detect_races, x.noise_stddev_fraction, x.noise_seed,
           x.cold);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, package_sources& x) {
  return f(caf::meta::type_name("package_sources"), x.spec_json, x.tiling_header, x.host, x.kernel,
           x.reference, x.other_files);
}

}  // namespace aopt::npu

namespace aopt::actors {

// --- The device pool and remote evaluation workers (issue 19) -----------------------------------
// What crosses the network between a coordinator's device pool and `aopt worker` processes.

// One evaluation leased to a worker. The operator travels as the content hash of its sources;
// a worker that lacks them asks the pool with (package_atom, hash) -> npu::package_sources.
struct evaluation_request {
  uint64_t lease = 0;
  std::string campaign;
  std::string package;  // npu::package_hash
  std::string tiling;
  std::string kernel;
  npu::eval_options options;
  bool validation = false;  // a final best checked on a validation shape (counted apart)
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, evaluation_request& x) {
  return f(caf::meta::type_name("evaluation_request"), x.lease, x.campaign, x.package, x.tiling,
           x.kernel, x.options, x.validation);
}

struct evaluation_reply {
  uint64_t lease = 0;
  npu::eval_result result;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, evaluation_reply& x) {
  return f(caf::meta::type_name("evaluation_reply"), x.lease, x.result);
}

// A worker asking to join: first (challenge_atom) -> nonce, then
// (join_atom, worker_hello, its actor) -> worker_welcome or an error. The secret itself never
// crosses the wire (base/challenge_response.hpp).
struct worker_hello {
  std::string host;    // where it runs ("host:pid"): the coordinator's views, and the identity
                       // the answer is bound to
  std::string nonce;   // the challenge the pool sent; good for one join
  std::string answer;  // HMAC-SHA256(secret, nonce || host), hex; "" without a secret
  uint32_t slots = 0;
  std::string profile;  // the device's profile id; must equal the coordinator's
  // The device's checker id (npu::device::checker_id); must equal the coordinator's too: the
  // coordinator caches what a worker answers under its own checker, so a worker of another
  // build of the checker, or with a profile of the same name and other constants, would have its
  // verdicts and latencies served as the coordinator's.
  std::string checker;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, worker_hello& x) {
  return f(caf::meta::type_name("worker_hello"), x.host, x.nonce, x.answer, x.slots, x.profile,
           x.checker);
}

struct worker_welcome {
  std::string worker;  // the name the pool gave it; heartbeats carry it
  double heartbeat_s = 1;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, worker_welcome& x) {
  return f(caf::meta::type_name("worker_welcome"), x.worker, x.heartbeat_s);
}

// An evaluation handed to the device pool by an evaluator of this process: leased to a local
// slot (run_here) or to a remote worker (request and sources).
struct pool_work {
  evaluation_request request;
  std::shared_ptr<const npu::package_sources> sources;
  std::function<npu::eval_result()> run_here;  // evaluates on this process's device
};
using pool_job = local<pool_work>;

// One slot owner of the pool ("local", or a worker) as the views show it.
struct slot_owner_stats {
  std::string name;
  uint32_t slots = 0;
  uint32_t busy = 0;
  uint64_t evaluated = 0;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, slot_owner_stats& x) {
  return f(caf::meta::type_name("slot_owner_stats"), x.name, x.slots, x.busy, x.evaluated);
}

// Device-pool statistics, for tests and /metrics.
struct pool_stats {
  uint32_t slots = 0;
  uint32_t in_flight = 0;
  uint32_t max_in_flight = 0;
  uint32_t queued = 0;
  uint64_t evaluated = 0;
  uint64_t cache_hits = 0;
  uint64_t confirmations = 0;  // cold re-evaluations of accepted improvements (issue 17)
  uint64_t validations = 0;    // evaluations of final bests on validation shapes
  double busy_seconds = 0;
  uint32_t workers = 0;                  // remote workers joined now
  uint64_t requeued = 0;                 // leases queued again because their worker disappeared
  uint64_t duplicates = 0;               // late results of leases already completed (not counted)
  uint64_t refused = 0;                  // workers refused (wrong secret or profile)
  uint64_t packages_sent = 0;            // operator packages sent to workers that lacked them
  std::vector<slot_owner_stats> owners;  // "local" and every worker, departed ones included
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, pool_stats& x) {
  return f(caf::meta::type_name("pool_stats"), x.slots, x.in_flight, x.max_in_flight, x.queued,
           x.evaluated, x.cache_hits, x.confirmations, x.validations, x.busy_seconds, x.workers,
           x.requeued, x.duplicates, x.refused, x.packages_sent, x.owners);
}

}  // namespace aopt::actors

CAF_BEGIN_TYPE_ID_BLOCK(aopt, caf::first_custom_type_id)
CAF_ADD_TYPE_ID(aopt, (aopt::actors::evaluation_job))
CAF_ADD_TYPE_ID(aopt, (aopt::actors::evaluation_done))
CAF_ADD_TYPE_ID(aopt, (aopt::actors::episode_summary))
CAF_ADD_TYPE_ID(aopt, (aopt::actors::pool_stats))
CAF_ADD_TYPE_ID(aopt, (aopt::actors::campaign_summary))
CAF_ADD_TYPE_ID(aopt, (aopt::actors::mutation_job))
CAF_ADD_TYPE_ID(aopt, (aopt::actors::mutation_outcome))
CAF_ADD_TYPE_ID(aopt, (aopt::actors::diagnosis_job))
CAF_ADD_TYPE_ID(aopt, (aopt::actors::diagnosis_outcome))
CAF_ADD_TYPE_ID(aopt, (aopt::actors::retrieval_job))
CAF_ADD_TYPE_ID(aopt, (aopt::actors::retrieval_outcome))
CAF_ADD_TYPE_ID(aopt, (aopt::actors::refinement_job))
CAF_ADD_TYPE_ID(aopt, (aopt::actors::refinement_outcome))
CAF_ADD_TYPE_ID(aopt, (aopt::actors::llm_chat_job))
CAF_ADD_TYPE_ID(aopt, (aopt::actors::llm_chat_outcome))
CAF_ADD_TYPE_ID(aopt, (aopt::actors::llm_embed_job))
CAF_ADD_TYPE_ID(aopt, (aopt::actors::llm_embed_outcome))
CAF_ADD_TYPE_ID(aopt, (aopt::actors::llm_usage_report))
CAF_ADD_TYPE_ID(aopt, (aopt::actors::rewind_job))
CAF_ADD_TYPE_ID(aopt, (aopt::actors::rewind_outcome))
CAF_ADD_TYPE_ID(aopt, (aopt::actors::evaluation_request))
CAF_ADD_TYPE_ID(aopt, (aopt::actors::evaluation_reply))
CAF_ADD_TYPE_ID(aopt, (aopt::actors::worker_hello))
CAF_ADD_TYPE_ID(aopt, (aopt::actors::worker_welcome))
CAF_ADD_TYPE_ID(aopt, (aopt::actors::pool_job))
CAF_ADD_TYPE_ID(aopt, (aopt::npu::package_sources))
CAF_ADD_TYPE_ID(aopt, (aopt::actors::annotation_job))
CAF_ADD_TYPE_ID(aopt, (aopt::actors::annotation_outcome))
CAF_ADD_TYPE_ID(aopt, (aopt::actors::gate_job))
CAF_ADD_TYPE_ID(aopt, (aopt::actors::gate_outcome))
CAF_ADD_TYPE_ID(aopt, (aopt::actors::verification_job))
CAF_ADD_TYPE_ID(aopt, (aopt::actors::verification_outcome))
CAF_ADD_TYPE_ID(aopt, (aopt::actors::observation_job))
CAF_ADD_TYPE_ID(aopt, (aopt::actors::observation_outcome))
CAF_ADD_ATOM(aopt, aopt::actors, evaluate_atom, "evaluate")
CAF_ADD_ATOM(aopt, aopt::actors, mutate_atom, "mutate")
CAF_ADD_ATOM(aopt, aopt::actors, diagnose_atom, "diagnose")
CAF_ADD_ATOM(aopt, aopt::actors, retrieve_atom, "retrieve")
CAF_ADD_ATOM(aopt, aopt::actors, refine_atom, "refine")
CAF_ADD_ATOM(aopt, aopt::actors, run_atom, "run")
CAF_ADD_ATOM(aopt, aopt::actors, stats_atom, "stats")
CAF_ADD_ATOM(aopt, aopt::actors, slot_free_atom, "slotfree")
CAF_ADD_ATOM(aopt, aopt::actors, stop_atom, "stop")
CAF_ADD_ATOM(aopt, aopt::actors, chat_atom, "chat")
CAF_ADD_ATOM(aopt, aopt::actors, embed_atom, "embed")
CAF_ADD_ATOM(aopt, aopt::actors, usage_atom, "usage")
CAF_ADD_ATOM(aopt, aopt::actors, llm_done_atom, "llmdone")
CAF_ADD_ATOM(aopt, aopt::actors, rewind_atom, "rewind")
CAF_ADD_ATOM(aopt, aopt::actors, join_atom, "join")
CAF_ADD_ATOM(aopt, aopt::actors, heartbeat_atom, "heartbeat")
CAF_ADD_ATOM(aopt, aopt::actors, package_atom, "package")
CAF_ADD_ATOM(aopt, aopt::actors, tick_atom, "tick")
CAF_ADD_ATOM(aopt, aopt::actors, challenge_atom, "challenge")
CAF_ADD_ATOM(aopt, aopt::actors, done_atom, "done")
CAF_ADD_ATOM(aopt, aopt::actors, annotate_atom, "annotate")
CAF_ADD_ATOM(aopt, aopt::actors, gate_atom, "gate")
CAF_ADD_ATOM(aopt, aopt::actors, verify_atom, "verify")
CAF_ADD_ATOM(aopt, aopt::actors, observe_atom, "observe")
CAF_END_TYPE_ID_BLOCK(aopt)
