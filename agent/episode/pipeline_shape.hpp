// Which configured role serves which need of Algorithm 1 (docs/design.md §1). A role declares the
// need it serves (its kind) when it is registered; [pipeline] names roles per stage, and this
// resolves the names into the episode's pipeline, or says which entry is wrong and why:
//
//   stage1  exactly one role, and it mutates tilings;
//   stage2  in this order: an optional diagnoser, an optional retriever (only after a
//           diagnoser: it searches the bank with the diagnosis), then one refiner, last.
//
// Leaving out the diagnoser or the retriever is the paper's ablation: the refiner then works
// from an empty diagnosis or without experience tuples.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "base/status.hpp"

namespace aopt::agent {

enum class role_kind { mutate, diagnose, retrieve, refine };
const char* to_string(role_kind k);

struct pipeline_roles {
  std::string mutator;
  std::optional<std::string> diagnoser;
  std::optional<std::string> retriever;
  std::string refiner;
};

// The kind of a registered role; nullopt for an unknown name.
using role_kind_lookup = std::function<std::optional<role_kind>(const std::string& name)>;

// Errors: invalid_argument naming the entry ("pipeline.stage2[1]") and the reason; `known`
// lists the registered names for an unknown one.
result<pipeline_roles> resolve_pipeline(const std::vector<std::string>& stage1,
                                        const std::vector<std::string>& stage2,
                                        const role_kind_lookup& kind_of,
                                        const std::vector<std::string>& known);

}  // namespace aopt::agent
