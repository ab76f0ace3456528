#include "actors/role_registry.hpp"

#include "actors/diagnoser.hpp"
#include "actors/mutator.hpp"
#include "actors/refiner.hpp"
#include "actors/retriever.hpp"

namespace aopt::actors {

role_registry role_registry::with_builtin_roles() {
  role_registry r;
  r.add("mutator", [](caf::actor_system& sys, const agent::policy_set& p) {
    return spawn_mutator(sys, p.mutator);
  });
  r.add("diagnoser", [](caf::actor_system& sys, const agent::policy_set& p) {
    return spawn_diagnoser(sys, p.diagnoser);
  });
  r.add("retriever", [](caf::actor_system& sys, const agent::policy_set& p) {
    return spawn_retriever(sys, p.retriever);
  });
  r.add("refiner", [](caf::actor_system& sys, const agent::policy_set& p) {
    return spawn_refiner(sys, p.refiner);
  });
  return r;
}

void role_registry::add(const std::string& name, role_factory factory) {
  factories_[name] = std::move(factory);
}

result<caf::actor> role_registry::spawn(const std::string& name, caf::actor_system& sys,
                                        const agent::policy_set& policies) const {
  auto it = factories_.find(name);
  if (it == factories_.end()) {
    std::string known;
    for (const auto& [n, f] : factories_) known += (known.empty() ? "" : ", ") + n;
    return invalid_argument("pipeline: unknown role '" + name + "' (known: " + known + ")");
  }
  return it->second(sys, policies);
}

std::vector<std::string> role_registry::names() const {
  std::vector<std::string> out;
  for (const auto& [n, f] : factories_) out.push_back(n);
  return out;
}

}  // namespace aopt::actors
