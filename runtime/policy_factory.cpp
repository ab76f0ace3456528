// make_policies: the configured policy of every role. The heuristic policies read their knobs
// from [campaign] and the hardware profile; the retriever starts from the bank stored in the
// database, through BM25 or, with bank.index = "hnsw", the lexical hnsw index (an empty bank is
// valid: Stage II then finds no tuple, the heuristic refiner has nothing to transfer and the
// stage ends; an LLM refiner still rewrites unguided). Roles
// with policy = "llm" share one LLM backend (endpoint, gateway, llm_cache in `db`), made by
// make_role_llm_backend so that the campaign can route it through its gateway actor; the
// rewinder and distiller are not episode roles: the bank builder reads their policy itself.
#include <memory>
#include <vector>

#include "agent/bank/bank_index.hpp"
#include "agent/bank/bank_store.hpp"
#include "agent/bank/experience_tuple.hpp"
#include "agent/heuristics/heuristic_policies.hpp"
#include "agent/llm_policies/llm_backend.hpp"
#include "agent/llm_policies/llm_diagnoser.hpp"
#include "agent/llm_policies/llm_mutator.hpp"
#include "agent/llm_policies/llm_refiner.hpp"
#include "agent/llm_policies/llm_retriever.hpp"
#include "agent/llm_policies/llm_template.hpp"
#include "npu/hardware_profile.hpp"
#include "runtime/campaign_runner.hpp"
#include "runtime/llm_factory.hpp"

namespace aopt::runtime {
namespace {

const std::vector<std::string> episode_roles = {"template", "mutator", "diagnoser", "retriever",
                                                "refiner"};

bool uses_llm(const config::aopt_config& config, const std::string& role) {
  auto it = config.roles.find(role);
  return it != config.roles.end() && it->second.policy == config::policy_kind::llm;
}

// The roles of an episode that may call the LLM: Algorithm 1's and the hooked roles the
// pipeline names.
std::vector<std::string> llm_capable_roles(const config::aopt_config& config) {
  std::vector<std::string> roles = episode_roles;
  for (const auto* hooked :
       {&config.pipeline.annotators, &config.pipeline.gates, &config.pipeline.observers}) {
    roles.insert(roles.end(), hooked->begin(), hooked->end());
  }
  return roles;
}

}  // namespace

bool roles_use_llm(const config::aopt_config& config) {
  for (const std::string& role : llm_capable_roles(config)) {
    if (uses_llm(config, role)) return true;
  }
  return false;
}

result<std::shared_ptr<agent::llm_backend>> make_role_llm_backend(
    const config::aopt_config& config, storage::store& db,
    std::shared_ptr<agent::llm_service> shared) {
  for (const std::string& role : llm_capable_roles(config)) {
    if (!uses_llm(config, role)) continue;
    result<std::shared_ptr<agent::llm_backend>> made =
        make_llm_backend(config, &db, std::move(shared));
    if (!made.ok()) return made.error().with_context("roles." + role + ".policy = \"llm\"");
    return made;
  }
  return std::shared_ptr<agent::llm_backend>();
}

result<agent::policy_set> make_policies(const config::aopt_config& config, storage::store& db,
                                        std::shared_ptr<agent::llm_backend> llm,
                                        const std::string& campaign) {
  result<sim::hw_profile> hw =
      npu::find_hardware_profile(config.device.profile, config::hardware_dir(config.device));
  if (!hw.ok()) return hw.error().with_context("device.profile");
  result<std::vector<agent::experience_tuple>> bank = agent::load_bank(db);
  if (!bank.ok()) return bank.error();

  agent::heuristic_mutator_policy_options mutator;
  mutator.mutator.population = config.campaign.population;
  mutator.mutator.elite = config.campaign.elite;
  mutator.mutator.seed = config.campaign.seed;
  mutator.ub_bytes = hw->ub_bytes;
  mutator.synthesis.cores = hw->vector_cores;  // block-dim domains and the block-dim screen

  for (const std::string& role : episode_roles) {
    if (uses_llm(config, role) && !llm)
      return invalid_argument("roles." + role + ".policy = \"llm\" needs the LLM backend");
  }

  agent::policy_set set;
  if (uses_llm(config, "mutator")) {
    agent::llm_mutator_options options;
    options.synthesis.cores = hw->vector_cores;
    set.mutator = std::make_shared<agent::llm_mutator_policy>(llm, options);
  } else {
    set.mutator = std::make_shared<agent::heuristic_mutator_policy>(mutator);
  }
  if (uses_llm(config, "template")) {
    set.mutator = std::make_shared<agent::llm_template_mutator_policy>(llm, set.mutator);
  }
  if (uses_llm(config, "diagnoser")) {
    set.diagnoser = std::make_shared<agent::llm_diagnoser_policy>(llm);
  } else {
    set.diagnoser = std::make_shared<agent::heuristic_diagnoser_policy>();
  }
  if (uses_llm(config, "retriever")) {
    set.retriever = std::make_shared<agent::llm_embedding_retriever_policy>(llm, *bank, campaign);
  } else if (config.bank.index == config::index_kind::hnsw) {
    set.retriever =
        std::make_shared<agent::index_retriever_policy>(config::index_kind::hnsw, *bank);
  } else {
    set.retriever = std::make_shared<agent::bm25_retriever_policy>(*bank);
  }
  if (uses_llm(config, "refiner")) {
    set.refiner = std::make_shared<agent::llm_refiner_policy>(llm);
  } else {
    set.refiner = std::make_shared<agent::heuristic_refiner_policy>();
  }
  return set;
}

}  // namespace aopt::runtime
