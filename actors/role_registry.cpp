#include "actors/role_registry.hpp"

#include "actors/diagnoser.hpp"
#include "actors/mutator.hpp"
#include "actors/refiner.hpp"
#include "actors/retriever.hpp"

namespace aopt::actors {

role_registry role_registry::with_builtin_roles() {
  role_registry r;
  r.add("mutator", [](caf::actor_system& sys, const agent::policy_set& p) {
    return spawned_role<mutator_actor>{spawn_mutator(sys, p.mutator), p.mutator->name()};
  });
  r.add("diagnoser", [](caf::actor_system& sys, const agent::policy_set& p) {
    return spawned_role<diagnoser_actor>{spawn_diagnoser(sys, p.diagnoser), p.diagnoser->name()};
  });
  r.add("retriever", [](caf::actor_system& sys, const agent::policy_set& p) {
    return spawned_role<retriever_actor>{spawn_retriever(sys, p.retriever), p.retriever->name()};
  });
  r.add("refiner", [](caf::actor_system& sys, const agent::policy_set& p) {
    return spawned_role<refiner_actor>{spawn_refiner(sys, p.refiner), p.refiner->name()};
  });
  return r;
}

std::optional<agent::role_kind> role_registry::kind_of(const std::string& name) const {
  auto it = roles_.find(name);
  if (it == roles_.end()) return std::nullopt;
  return std::visit(
      [](const auto& factory) {
        using handle = decltype(factory(std::declval<caf::actor_system&>(),
                                        std::declval<const agent::policy_set&>())
                                    .actor);
        return role_kind_of<handle>();
      },
      it->second);
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
  // resolve() checked that each name serves its need, so each holds the factory asked for.
  auto spawn = [&](auto handle, const std::string& name) {
    return std::get<role_factory<decltype(handle)>>(roles_.at(name))(sys, policies);
  };
  episode_pipeline pipeline;
  spawned_role<mutator_actor> mutator = spawn(mutator_actor{}, roles->mutator);
  pipeline.mutator = mutator.actor;
  pipeline.mutator_policy = mutator.policy;
  if (roles->diagnoser) pipeline.diagnoser = spawn(diagnoser_actor{}, *roles->diagnoser).actor;
  if (roles->retriever) pipeline.retriever = spawn(retriever_actor{}, *roles->retriever).actor;
  spawned_role<refiner_actor> refiner = spawn(refiner_actor{}, roles->refiner);
  pipeline.refiner = refiner.actor;
  pipeline.refiner_policy = refiner.policy;
  return pipeline;
}

}  // namespace aopt::actors
