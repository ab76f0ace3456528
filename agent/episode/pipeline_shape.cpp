#include "agent/episode/pipeline_shape.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace aopt::agent {
namespace {

std::string what_it_does(role_kind k) {
  switch (k) {
    case role_kind::mutate:
      return "mutates tilings (a Stage I role)";
    case role_kind::diagnose:
      return "diagnoses the kernel (a Stage II role)";
    case role_kind::retrieve:
      return "retrieves experience tuples (a Stage II role)";
    case role_kind::refine:
      return "rewrites kernels (a Stage II role)";
  }
  return "";
}

}  // namespace

const char* to_string(role_kind k) {
  switch (k) {
    case role_kind::mutate:
      return "mutate";
    case role_kind::diagnose:
      return "diagnose";
    case role_kind::retrieve:
      return "retrieve";
    case role_kind::refine:
      return "refine";
  }
  return "unknown";
}

result<pipeline_roles> resolve_pipeline(const std::vector<std::string>& stage1,
                                        const std::vector<std::string>& stage2,
                                        const role_kind_lookup& kind_of,
                                        const std::vector<std::string>& known) {
  auto kind_at = [&](const std::string& key, const std::string& name) -> result<role_kind> {
    std::optional<role_kind> k = kind_of(name);
    if (!k)
      return invalid_argument(fmt::format("{}: no role '{}' is registered (known: {})", key, name,
                                          fmt::join(known, ", ")));
    return *k;
  };

  pipeline_roles roles;
  if (stage1.size() != 1)
    return invalid_argument("pipeline.stage1: must name exactly one role, the tiling mutator (" +
                            std::to_string(stage1.size()) + " given)");
  result<role_kind> first = kind_at("pipeline.stage1[0]", stage1[0]);
  if (!first.ok()) return first.error();
  if (*first != role_kind::mutate)
    return invalid_argument("pipeline.stage1[0]: role '" + stage1[0] + "' " + what_it_does(*first) +
                            "; Stage I needs a role that mutates tilings");
  roles.mutator = stage1[0];

  if (stage2.empty()) return invalid_argument("pipeline.stage2: must name at least the refiner");
  for (size_t i = 0; i < stage2.size(); ++i) {
    const std::string key = "pipeline.stage2[" + std::to_string(i) + "]";
    result<role_kind> k = kind_at(key, stage2[i]);
    if (!k.ok()) return k.error();
    const std::string role = "role '" + stage2[i] + "'";
    switch (*k) {
      case role_kind::mutate:
        return invalid_argument(key + ": " + role + " " + what_it_does(*k) +
                                "; Stage II diagnoses, retrieves and refines kernels");
      case role_kind::diagnose:
        if (roles.diagnoser || roles.retriever)
          return invalid_argument(key + ": " + role +
                                  " must come first in stage2, and only one diagnoser");
        roles.diagnoser = stage2[i];
        break;
      case role_kind::retrieve:
        if (!roles.diagnoser)
          return invalid_argument(key + ": " + role +
                                  " needs a diagnoser before it (it searches the bank with the "
                                  "diagnosis)");
        if (roles.retriever) return invalid_argument(key + ": only one retriever");
        roles.retriever = stage2[i];
        break;
      case role_kind::refine:
        if (i + 1 != stage2.size())
          return invalid_argument(key + ": " + role +
                                  " must be the last entry of stage2 (it turns what the roles "
                                  "before it found into kernels)");
        roles.refiner = stage2[i];
        break;
    }
  }
  if (roles.refiner.empty())
    return invalid_argument("pipeline.stage2: must end with a role that rewrites kernels");
  return roles;
}

}  // namespace aopt::agent
