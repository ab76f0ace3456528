// Which unit of an AI core each core of a launch is (issue 30, red team 6). On a profile whose
// AI cores are split, as the 910B's are (an AIC with the cube, AIVs with the vector unit, in
// different counts), a core has one unit: a kernel not declared MIX runs on AIVs (vector work) or
// on AICs (cube work), never both, and a MIX group's AIC does no vector work nor its AIVs cube
// work of their own (a Matmul object's requests, instruction::on_group_cube, are the AIC's). The
// candidate's recorder refuses a MIX core's wrong work as it runs; this check reads the delivered
// trace, so it holds for every core whatever the candidate's process did. Without it a kernel
// that dropped its MIX declaration got a cube and a vector unit on every block: matmul_gelu's own
// kernel ran its Matmul and its GELU on four such blocks in half the MIX launch's time.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "hw_profile.hpp"
#include "trace.hpp"

namespace aopt::sim {

// Whether `hw`'s AI cores are split into cube cores and vector cores (their counts differ); a
// profile of cores that each hold both units gives equal counts.
bool split_ai_cores(const hw_profile& hw);

// The first core of `traces` that does cube and vector work on a profile of split AI cores (or,
// on any profile, a MIX AIC's vector work or AIV's own cube work), named with one instruction of
// each unit; nothing when every core keeps to one unit.
std::optional<std::string> find_unit_mix(const std::vector<core_trace>& traces,
                                         const hw_profile& hw);

}  // namespace aopt::sim
