// make_policies: the configured policy of every role. The heuristic policies read their knobs
// from [campaign] and the hardware profile; the retriever starts from the bank stored in the
// database (an empty bank is valid: Stage II then finds no tuple and relies on rules).
#include <memory>
#include <vector>

#include "agent/experience_tuple.hpp"
#include "agent/heuristic_policies.hpp"
#include "npu/hardware_profile.hpp"
#include "runtime/campaign_runner.hpp"

namespace aopt::runtime {
namespace {

status require_heuristic(const config::aopt_config& config, const std::string& role) {
  auto it = config.roles.find(role);
  if (it == config.roles.end() || it->second.policy == config::policy_kind::heuristic) {
    return status{};
  }
  return status(status_code::unimplemented, "roles." + role +
                               ".policy = \"llm\": no LLM policy is built into this version of "
                               "aopt yet; use policy = \"heuristic\"");
}

result<std::vector<agent::experience_tuple>> load_bank(const storage::store& db) {
  result<std::vector<storage::keyed_value>> rows = db.list_tuples();
  if (!rows.ok()) return rows.error().with_context("reading the experience bank");
  std::vector<agent::experience_tuple> bank;
  bank.reserve(rows->size());
  for (const storage::keyed_value& row : *rows) {
    result<agent::experience_tuple> t = agent::experience_tuple_from_json(row.value);
    if (!t.ok()) return t.error().with_context("experience bank tuple " + row.key);
    bank.push_back(std::move(*t));
  }
  return bank;
}

}  // namespace

result<agent::policy_set> make_policies(const config::aopt_config& config, storage::store& db) {
  for (const std::string& role : config::known_roles()) {
    AOPT_RETURN_IF_ERROR(require_heuristic(config, role));
  }
  result<sim::hw_profile> hw =
      npu::find_hardware_profile(config.device.profile, config::hardware_dir(config.device));
  if (!hw.ok()) return hw.error().with_context("device.profile");
  result<std::vector<agent::experience_tuple>> bank = load_bank(db);
  if (!bank.ok()) return bank.error();

  agent::heuristic_mutator_policy_options mutator;
  mutator.mutator.population = config.campaign.population;
  mutator.mutator.elite = config.campaign.elite;
  mutator.mutator.seed = config.campaign.seed;
  mutator.ub_bytes = hw->ub_bytes;

  agent::policy_set set;
  set.mutator = std::make_shared<agent::heuristic_mutator_policy>(mutator);
  set.diagnoser = std::make_shared<agent::heuristic_diagnoser_policy>();
  set.retriever = std::make_shared<agent::bm25_retriever_policy>(*bank);
  set.refiner = std::make_shared<agent::heuristic_refiner_policy>();
  return set;
}

}  // namespace aopt::runtime
