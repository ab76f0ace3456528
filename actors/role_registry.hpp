// Role actors by name. A role is an actor file plus one add() here (with_builtin_roles) or by
// the caller: its name, the need of Algorithm 1 it serves (agent::role_kind) and how to spawn
// it. [pipeline] names the roles an episode uses (its stage1 and stage2 lists, as given here), so
// a configured pipeline can swap a role (e.g. another refiner) or leave out the diagnoser or the
// retriever without code changes elsewhere; agent::resolve_pipeline says which are valid.
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <caf/all.hpp>

#include "actors/episode.hpp"
#include "agent/episode/pipeline_shape.hpp"
#include "agent/episode/policy_set.hpp"
#include "base/status.hpp"

namespace aopt::actors {

struct spawned_role {
  caf::actor actor;
  std::string policy;  // recorded with each candidate the role proposes
};

using role_factory = std::function<spawned_role(caf::actor_system&, const agent::policy_set&)>;

class role_registry {
 public:
  // mutator, diagnoser, retriever, refiner.
  static role_registry with_builtin_roles();

  // Registers (or replaces) the role `name`.
  void add(const std::string& name, agent::role_kind serves, role_factory factory);
  std::optional<agent::role_kind> kind_of(const std::string& name) const;
  std::vector<std::string> names() const;

  // The roles the stages name, resolved and checked (agent::resolve_pipeline), without spawning.
  result<agent::pipeline_roles> resolve(const std::vector<std::string>& stage1,
                                        const std::vector<std::string>& stage2) const;
  // Spawns the roles the stages name into an episode pipeline (the evaluator is the caller's). A
  // role left out of stage2 stays a null actor, which the episode treats as answering nothing.
  result<episode_pipeline> spawn_pipeline(caf::actor_system& sys,
                                          const std::vector<std::string>& stage1,
                                          const std::vector<std::string>& stage2,
                                          const agent::policy_set& policies) const;

 private:
  struct entry {
    agent::role_kind serves;
    role_factory factory;
  };
  std::map<std::string, entry> roles_;
};

}  // namespace aopt::actors
