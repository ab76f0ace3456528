#include "agent/episode/improvement_confirmation.hpp"

#include <algorithm>

#include <fmt/format.h>

namespace aopt::agent {

npu::eval_result confirmed_result(const npu::eval_result& first, const npu::eval_result& cold) {
  if (!cold.ok()) {
    npu::eval_result out = cold;
    out.error_kind = "unconfirmed";
    out.message = fmt::format(
        "the cold re-evaluation of an accepted improvement ended {} (the first evaluation: {})",
        npu::describe_outcome(cold), npu::describe_outcome(first));
    return out;
  }
  npu::eval_result out = cold.latency_us >= first.latency_us ? cold : first;
  out.from_cache = false;
  out.confirmed = true;
  const double fast = std::min(first.latency_us, cold.latency_us);
  const double slow = std::max(first.latency_us, cold.latency_us);
  if (fast <= 0 || slow / fast - 1 > confirmation_tolerance) {
    out.diagnostics.push_back(
        fmt::format("confirmation: the cold re-evaluation measured {:g} us against {:g} us; the "
                    "slower one counts",
                    cold.latency_us, first.latency_us));
  }
  return out;
}

}  // namespace aopt::agent
