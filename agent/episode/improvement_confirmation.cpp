#include "agent/episode/improvement_confirmation.hpp"

#include <algorithm>

#include <fmt/format.h>

namespace aopt::agent {
namespace {

std::string outcome_of(const npu::eval_result& r) {
  if (r.ok()) return fmt::format("ok, {:g} us", r.latency_us);
  std::string what = npu::to_string(r.status);
  if (!r.error_kind.empty()) what += "/" + r.error_kind;
  return what + ": " + r.message;
}

}  // namespace

npu::eval_result confirmed_result(const npu::eval_result& first, const npu::eval_result& cold) {
  if (!cold.ok()) {
    npu::eval_result out = cold;
    out.error_kind = "unconfirmed";
    out.message = fmt::format(
        "the cold re-evaluation of an accepted improvement ended {} (the first evaluation: {})",
        outcome_of(cold), outcome_of(first));
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
