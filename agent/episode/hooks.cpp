#include "agent/episode/hooks.hpp"

#include <type_traits>

namespace aopt::agent {

const char* to_string(hook_kind k) {
  switch (k) {
    case hook_kind::annotate:
      return "annotate";
    case hook_kind::gate:
      return "gate";
    case hook_kind::verify:
      return "verify";
    case hook_kind::observe:
      return "observe";
  }
  return "?";
}

const char* pipeline_list(hook_kind k) {
  switch (k) {
    case hook_kind::annotate:
      return "annotators";
    case hook_kind::gate:
      return "gates";
    case hook_kind::verify:
      return "verifiers";
    case hook_kind::observe:
      return "observers";
  }
  return "?";
}

const char* to_string(verification_moment m) {
  return m == verification_moment::final ? "final" : "evaluation";
}

hook_kind kind_of(const hook_policy& policy) {
  return std::visit(
      [](const auto& p) {
        using policy_type = typename std::decay_t<decltype(p)>::element_type;
        if constexpr (std::is_same_v<policy_type, annotator_policy>) {
          return hook_kind::annotate;
        } else if constexpr (std::is_same_v<policy_type, gate_policy>) {
          return hook_kind::gate;
        } else if constexpr (std::is_same_v<policy_type, verifier_policy>) {
          return hook_kind::verify;
        } else {
          static_assert(std::is_same_v<policy_type, observer_policy>, "a hook policy kind");
          return hook_kind::observe;
        }
      },
      policy);
}

std::string name_of(const hook_policy& policy) {
  return std::visit([](const auto& p) { return p ? p->name() : std::string(); }, policy);
}

}  // namespace aopt::agent
