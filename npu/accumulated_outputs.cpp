#include "npu/accumulated_outputs.hpp"

#include "npu/kernel_unit.hpp"
#include "npu/sim/device/static_screen.hpp"

namespace aopt::npu {

std::vector<std::string> assume_zero_init_of_accumulated_outputs(op_package& op) {
  std::vector<std::string> notes;
  if (!names_identifier(kernel_with_own_headers(op), "SetAtomicAdd")) return notes;
  for (tensor_spec& out : op.spec.outputs) {
    if (out.init != tensor_spec::initial::none) continue;
    out.init = tensor_spec::initial::value;
    out.init_value = 0;
    notes.push_back("output '" + out.name +
                    "' starts as zeros: the kernel accumulates into its outputs (SetAtomicAdd) "
                    "and op.json gives it no \"init\", so it is taken as zero-filled by the "
                    "framework, as the public operator libraries allocate such outputs");
  }
  return notes;
}

}  // namespace aopt::npu
