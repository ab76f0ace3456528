#include "agent/episode/baseline_repair.hpp"

#include <algorithm>
#include <array>
#include <string_view>

namespace aopt::agent {

bool tiling_may_fix(const npu::eval_result& r) {
  static constexpr std::array<std::string_view, 5> kinds = {
      "ub_overflow", "ub_out_of_bounds", "too_many_buffers", "bad_block_dim", "misaligned"};
  return r.status == npu::eval_status::runtime_error &&
         std::find(kinds.begin(), kinds.end(), r.error_kind) != kinds.end();
}

}  // namespace aopt::agent
