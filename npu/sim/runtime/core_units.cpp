#include "core_units.hpp"

namespace aopt::sim {
namespace {

constexpr uint32_t none = ~uint32_t{0};

std::string core_name(const core_trace& t) {
  if (t.kind == core_kind::whole) return "block " + std::to_string(t.block_idx);
  return std::string(to_string(t.kind)) + " " + std::to_string(t.block_idx) + " (group " +
         std::to_string(t.group) + ")";
}

std::string instruction_name(const core_trace& t, uint32_t i) {
  const instruction& in = t.instructions[i];
  return std::string(in.api != nullptr && *in.api != '\0' ? in.api : "<unnamed>") + " (#" +
         std::to_string(i) + (in.line != 0 ? ", line " + std::to_string(in.line) : "") + ")";
}

}  // namespace

bool split_ai_cores(const hw_profile& hw) {
  return hw.cube_cores != 0 && hw.cube_cores != hw.vector_cores;
}

std::optional<std::string> find_unit_mix(const std::vector<core_trace>& traces,
                                         const hw_profile& hw) {
  const bool split = split_ai_cores(hw);
  for (const core_trace& t : traces) {
    uint32_t cube = none, vector = none;
    for (uint32_t i = 0; i < t.instructions.size() && (cube == none || vector == none); ++i) {
      const instruction& in = t.instructions[i];
      if (is_cube_class(in.cls) && !in.on_group_cube && cube == none) cube = i;
      if (is_vector_class(in.cls) && vector == none) vector = i;
    }
    const bool both = cube != none && vector != none;
    if (t.kind == core_kind::aic && vector != none) {
      return core_name(t) + " runs " + instruction_name(t, vector) +
             " on the vector unit, which an AIC does not have (vector work of a MIX kernel runs "
             "on its AIVs)";
    }
    if (t.kind == core_kind::aiv && cube != none) {
      return core_name(t) + " runs " + instruction_name(t, cube) +
             " on the cube, which an AIV does not have (cube work of a MIX kernel runs on its AIC, "
             "or through a Matmul object)";
    }
    if (t.kind == core_kind::whole && split && both) {
      return core_name(t) + " runs " + instruction_name(t, cube) + " on the cube and " +
             instruction_name(t, vector) + " on the vector unit, but " + hw.name +
             "'s AI cores are split: a core is an AIC (cube) or an AIV (vector). A kernel that "
             "uses both is MIX (KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_MIX_AIC_1_2)): its cube work "
             "on the AIC of each group, its vector work on the AIVs";
    }
  }
  return std::nullopt;
}

}  // namespace aopt::sim
