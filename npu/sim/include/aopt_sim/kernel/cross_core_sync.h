// aopt simulator, kernel side: CrossCoreSetFlag/CrossCoreWaitFlag, the flags between the AIC and
// the AIVs of a MIX kernel (and between cores), with the counter semantics of the AscendC
// documentation (kernel_cross_core.cpp says which modes do what). A wait's mode and pipe change
// nothing: it waits on its own core's counter of the flag.
#pragma once

#include <cstdint>

#include "aopt_sim/kernel/defs.h"
#include "aopt_sim/kernel/runtime_api.h"

namespace AscendC {

template <uint8_t modeId = 0, pipe_t pipe = PIPE_S>
void CrossCoreSetFlag(uint16_t flagId,
                      aopt_sim::rt::call_site site = aopt_sim::rt::call_site(__builtin_LINE())) {
  aopt_sim::rt::cross_core_flag(true, modeId, pipe, flagId, site);
}

template <uint8_t modeId = 0, pipe_t pipe = PIPE_S>
void CrossCoreWaitFlag(uint16_t flagId,
                       aopt_sim::rt::call_site site = aopt_sim::rt::call_site(__builtin_LINE())) {
  aopt_sim::rt::cross_core_flag(false, modeId, pipe, flagId, site);
}

}  // namespace AscendC
