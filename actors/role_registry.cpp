#include "actors/role_registry.hpp"

#include "actors/diagnoser.hpp"
#include "actors/mutator.hpp"
#include "actors/refiner.hpp"
#include "actors/retriever.hpp"

namespace aopt::actors {

role_registry role_registry::with_builtin_roles() {
  role_registry r;
  r.add("mutator", agent::role_kind::mutate,
        [](caf::actor_system& sys, const agent::policy_set& p) {
          return spawned_role{spawn_mutator(sys, p.mutator), p.mutator->name()};
        });
  r.add("diagnoser", agent::role_kind::diagnose,
        [](caf::actor_system& sys, const agent::policy_set& p) {
          return spawned_role{spawn_diagnoser(sys, p.diagnoser), p.diagnoser->name()};
        });
  r.add("retriever", agent::role_kind::retrieve,
        [](caf::actor_system& sys, const agent::policy_set& p) {
          return spawned_role{spawn_retriever(sys, p.retriever), p.retriever->name()};
        });
  r.add("refiner", agent::role_kind::refine,
        [](caf::actor_system& sys, const agent::policy_set& p) {
          return spawned_role{spawn_refiner(sys, p.refiner), p.refiner->name()};
        });
  return r;
}

void role_registry::add(const std::string& name, agent::role_kind serves, role_factory factory) {
  roles_[name] = entry{serves, std::move(factory)};
}

std::optional<agent::role_kind> role_registry::kind_of(const std::string& name) const {
  auto it = roles_.find(name);
  if (it == roles_.end()) return std::nullopt;
  return it->second.serves;
}

std::vector<std::string> role_registry::names() const {
  std::vector<std::string> out;
  for (const auto& [name, e] : roles_) out.push_back(name);
  return out;
}

result<agent::pipeline_roles> role_registry::resolve(const std::vector<std::string>& stage1,
                                                     const std::vector<std::string>& stage2) const {
  return agent::resolve_pipeline(
      stage1, stage2, [this](const std::string& name) { return kind_of(name); }, names());
}

result<episode_pipeline> role_registry::spawn_pipeline(caf::actor_system& sys,
                                                       const std::vector<std::string>& stage1,
                                                       const std::vector<std::string>& stage2,
                                                       const agent::policy_set& policies) const {
  result<agent::pipeline_roles> roles = resolve(stage1, stage2);
  if (!roles.ok()) return roles.error();
  auto spawn = [&](const std::string& name) { return roles_.at(name).factory(sys, policies); };
  episode_pipeline pipeline;
  spawned_role mutator = spawn(roles->mutator);
  pipeline.mutator = mutator.actor;
  pipeline.mutator_policy = mutator.policy;
  if (roles->diagnoser) pipeline.diagnoser = spawn(*roles->diagnoser).actor;
  if (roles->retriever) pipeline.retriever = spawn(*roles->retriever).actor;
  spawned_role refiner = spawn(roles->refiner);
  pipeline.refiner = refiner.actor;
  pipeline.refiner_policy = refiner.policy;
  return pipeline;
}

}  // namespace aopt::actors
