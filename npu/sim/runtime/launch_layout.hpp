// How the blocks of one launch map onto simulated cores. A kernel not declared MIX runs blockDim
// `whole` cores, block b as core b. A MIX kernel (KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_MIX_AIC_1_2)
// or _1_1) runs blockDim groups, each one AIC and `aiv_per_aic` AIVs that start together: core
// g * (1 + aiv_per_aic) is group g's AIC and the next ones its AIVs. As the AscendC documentation
// of GetBlockIdx says, the AIC of group g reports block g and AIV s of it block g * aiv_per_aic +
// s, in [0, aiv_per_aic * blockDim).
#pragma once

#include <cstdint>

#include "trace.hpp"

namespace aopt::sim {

struct core_identity {
  core_kind kind = core_kind::whole;
  uint32_t group = 0;
  uint32_t block_idx = 0;  // what GetBlockIdx returns
  uint32_t sub_block = 0;  // what GetSubBlockIdx returns
};

struct launch_layout {
  uint32_t block_dim = 1;
  uint32_t aiv_per_aic = 0;  // 0: not MIX

  bool mixed() const { return aiv_per_aic != 0; }
  uint32_t cores_per_group() const { return mixed() ? 1 + aiv_per_aic : 1; }
  uint32_t cores() const { return block_dim * cores_per_group(); }

  core_identity identity(uint32_t core) const {
    if (!mixed()) return {core_kind::whole, core, core, 0};
    const uint32_t group = core / cores_per_group();
    const uint32_t place = core % cores_per_group();
    if (place == 0) return {core_kind::aic, group, group, 0};
    return {core_kind::aiv, group, group * aiv_per_aic + place - 1, place - 1};
  }
};

}  // namespace aopt::sim
