#include "waiting_launch.hpp"

#include "timing_model.hpp"

namespace aopt::sim {

std::optional<std::string> find_unfit_waiting_launch(const std::vector<core_trace>& traces,
                                                     const hw_profile& hw) {
  const char* wait = nullptr;
  uint32_t block = 0;
  for (const core_trace& t : traces) {
    for (const instruction& in : t.instructions) {
      if (in.cls == op_class::sync_all || in.cls == op_class::ib_wait) {
        wait = in.cls == op_class::sync_all ? "SyncAll" : "IBWait";
        block = t.block_idx;
        break;
      }
    }
    if (wait != nullptr) break;
  }
  if (wait == nullptr) return std::nullopt;
  const mix_shape mix = mix_shape_of(traces);
  const uint32_t blocks = mix.groups != 0 ? mix.groups : static_cast<uint32_t>(traces.size());
  const uint32_t cores = cores_running(mix, traces, hw);
  const bool cube = mix.groups != 0 || cores == hw.cube_cores;
  if (blocks <= cores) return std::nullopt;
  return std::string(wait) + " of block " + std::to_string(block) + ": blockDim " +
         std::to_string(blocks) + " exceeds the " + std::to_string(cores) + " " +
         (cube ? "cube cores (AIC)" : "vector cores (AIV)") + " of " + hw.name +
         " that run this launch: a block waits for one of a later wave, which never starts, so "
         "on hardware the launch hangs (blockDim must not exceed the cores running the operator)";
}

}  // namespace aopt::sim
