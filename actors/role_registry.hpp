// Role actors by name. A role is an actor file plus one add() here (with_builtin_roles) or by
// the caller: its name and how to spawn it; the typed handle it spawns says the need of
// Algorithm 1 it serves (role_kind_of), so a role cannot be registered for a need whose
// protocol it does not speak. [pipeline] names the roles an episode uses, so a configured pipeline
// can swap a role (e.g. another refiner) or leave out the diagnoser or the retriever without code
// changes elsewhere; agent::resolve_pipeline says which configurations are valid.
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

#include <caf/all.hpp>

#include "actors/episode.hpp"
#include "agent/episode/pipeline_shape.hpp"
#include "agent/episode/policy_set.hpp"
#include "base/status.hpp"

namespace aopt::actors {

// A spawned role: its typed handle, which says the need it serves, and its policy's name.
template <class Handle>
struct spawned_role {
  Handle actor;
  std::string policy;  // recorded with each candidate the role proposes
};

template <class Handle>
using role_factory =
    std::function<spawned_role<Handle>(caf::actor_system&, const agent::policy_set&)>;

// The need of Algorithm 1 a role speaking Handle's protocol serves.
template <class Handle>
constexpr agent::role_kind role_kind_of() {
  if constexpr (std::is_same_v<Handle, mutator_actor>) {
    return agent::role_kind::mutate;
  } else if constexpr (std::is_same_v<Handle, diagnoser_actor>) {
    return agent::role_kind::diagnose;
  } else if constexpr (std::is_same_v<Handle, retriever_actor>) {
    return agent::role_kind::retrieve;
  } else {
    static_assert(std::is_same_v<Handle, refiner_actor>, "not the handle of a pipeline role");
    return agent::role_kind::refine;
  }
}

class role_registry {
 public:
  // mutator, diagnoser, retriever, refiner.
  static role_registry with_builtin_roles();

  // Registers (or replaces) the role `name`: `factory` is callable as a role_factory<Handle>,
  // and the handle it spawns says which need the role serves.
  template <class Factory, class Handle = decltype(std::declval<Factory>()(
                                                       std::declval<caf::actor_system&>(),
                                                       std::declval<const agent::policy_set&>())
                                                       .actor)>
  void add(const std::string& name, Factory factory) {
    roles_.insert_or_assign(name, entry{role_factory<Handle>(std::move(factory))});
  }
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
  using entry = std::variant<role_factory<mutator_actor>, role_factory<diagnoser_actor>,
                             role_factory<retriever_actor>, role_factory<refiner_actor>>;
  std::map<std::string, entry> roles_;
};

}  // namespace aopt::actors
