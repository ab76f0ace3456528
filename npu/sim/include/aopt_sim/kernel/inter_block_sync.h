// aopt simulator, kernel side: IBSet/IBWait, synchronisation between two blocks through a GM
// workspace (AscendC "multi-core control"). IBSet sets the flag of (blockIdx, eventID); IBWait
// stalls the calling block until that flag is set: a block waits for a result another block
// wrote to GM. The blocks really synchronise (block_runner.hpp: a waiting block hands its turn
// on), so a block may wait for a later one. Checked as documented: blockIdx in [0, cores) (not
// the caller's own for IBWait), a 32-byte ubWorkspace and a gmWorkspace of at least
// cores * 32 * eventID + blockIdx * 32 + 32 bytes, where cores is GetBlockNum() (twice that in
// MIX mode, isAIVOnly = false); blockDim above the core count hangs the hardware and is
// refused. The documentation does not give the workspace's layout or values: the flags live in
// the simulator, the workspace is only checked, and a flag once set stays set.
#pragma once

#include <cstdint>

#include "aopt_sim/kernel/runtime_api.h"
#include "aopt_sim/kernel/tensor.h"

namespace AscendC {

template <bool isAIVOnly = true>
void IBSet(const GlobalTensor<int32_t>& gmWorkspace, const LocalTensor<int32_t>& ubWorkspace,
           int32_t blockIdx, int32_t eventID,
           aopt_sim::rt::call_site site = aopt_sim::rt::call_site(__builtin_LINE())) {
  aopt_sim::rt::inter_block_flag(true, reinterpret_cast<uint8_t*>(gmWorkspace.GetPhyAddr()),
                                 gmWorkspace.GetSize(), ubWorkspace.aopt_ref(), blockIdx, eventID,
                                 isAIVOnly, site);
}

template <bool isAIVOnly = true>
void IBWait(const GlobalTensor<int32_t>& gmWorkspace, const LocalTensor<int32_t>& ubWorkspace,
            int32_t blockIdx, int32_t eventID,
            aopt_sim::rt::call_site site = aopt_sim::rt::call_site(__builtin_LINE())) {
  aopt_sim::rt::inter_block_flag(false, reinterpret_cast<uint8_t*>(gmWorkspace.GetPhyAddr()),
                                 gmWorkspace.GetSize(), ubWorkspace.aopt_ref(), blockIdx, eventID,
                                 isAIVOnly, site);
}

}  // namespace AscendC
