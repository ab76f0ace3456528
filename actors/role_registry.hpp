// Role actors by name. Adding a role is one actor file plus one add() here (or by the caller);
// an episode's pipeline names the roles it uses, so a configured pipeline can swap a role
// (e.g. a different refiner) without code changes elsewhere.
#pragma once

#include <functional>
#include <map>
#include <string>
#include <vector>

#include <caf/all.hpp>

#include "agent/policy_set.hpp"
#include "base/status.hpp"

namespace aopt::actors {

using role_factory = std::function<caf::actor(caf::actor_system&, const agent::policy_set&)>;

class role_registry {
 public:
  // mutator, diagnoser, retriever, refiner.
  static role_registry with_builtin_roles();

  void add(const std::string& name, role_factory factory);
  result<caf::actor> spawn(const std::string& name, caf::actor_system& sys,
                           const agent::policy_set& policies) const;
  std::vector<std::string> names() const;

 private:
  std::map<std::string, role_factory> factories_;
};

}  // namespace aopt::actors
