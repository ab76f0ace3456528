// aopt simulator, kernel side: what kernel_operator.h makes visible besides the tensor APIs:
//   ASSERT / assert (a failed check ends the block as runtime_error "assertion"), the scalar
//   math of the C and C++ libraries (sqrt, exp, abs, ...; min/max in AscendC), printf and
//   std::cout, the workspace APIs (GetUserWorkspace, SetSysWorkspace, GetSysWorkSpacePtr),
//   InitGlobalMemory (and its earlier name InitOutput), DataCacheCleanAndInvalid, GetSystemCycle,
//   GetDataBlockSizeInBytes, SyncAll (blocks really synchronise: block_runner.hpp) and TQueSync.
#pragma once

#include <math.h>    // NOLINT(modernize-deprecated-headers): puts the overloaded abs/sqrt in ::
#include <stdlib.h>  // NOLINT(modernize-deprecated-headers)
#include <algorithm>
#include <cassert>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <iostream>

#include "aopt_sim/kernel/defs.h"
#include "aopt_sim/kernel/runtime_api.h"
#include "aopt_sim/kernel/tensor.h"

// Kernel assertions report through the simulator instead of aborting the process.
// The message arguments AscendC's assert accepts after the condition are ignored.
#undef assert
#define AOPT_SIM_KERNEL_ASSERT(cond, ...) \
  ((cond)                                 \
       ? static_cast<void>(0)             \
       : ::aopt_sim::rt::kernel_assert_failed(#cond, __FILE__, static_cast<uint32_t>(__LINE__)))
#define assert(...) AOPT_SIM_KERNEL_ASSERT(__VA_ARGS__, 0)
#define ASSERT(...) AOPT_SIM_KERNEL_ASSERT(__VA_ARGS__, 0)
// ASCENDC_ASSERT(cond, message-or-statement): a failed condition is a kernel assertion.
#define ASCENDC_ASSERT(cond, ...) AOPT_SIM_KERNEL_ASSERT(cond, 0)

namespace AscendC {

using std::max;
using std::min;

enum class CacheLine : uint8_t { SINGLE_CACHE_LINE = 0, ENTIRE_DATA_CACHE };
enum class DcciDst : uint8_t { CACHELINE_ALL = 0, CACHELINE_UB, CACHELINE_OUT, CACHELINE_ATOMIC };

constexpr uint32_t GetDataBlockSizeInBytes() {
  return 32;
}

// The simulator's library APIs need no system workspace (GetLibApiWorkSpaceSize is 0), so the
// user workspace starts at the kernel's workspace argument.
inline GM_ADDR GetUserWorkspace(GM_ADDR workspace) {
  return workspace;
}
inline void SetSysWorkspace(GM_ADDR workspace) {
  aopt_sim::rt::set_sys_workspace(workspace);
}
inline GM_ADDR GetSysWorkSpacePtr() {
  return aopt_sim::rt::sys_workspace();
}

// Monotonic per core (instructions recorded so far), not a cycle count.
inline int64_t GetSystemCycle() {
  return aopt_sim::rt::system_cycle();
}

template <typename T>
void InitGlobalMemory(GlobalTensor<T>& gmWorkspaceAddr, const uint64_t size, const T value,
                      aopt_sim::rt::call_site site = aopt_sim::rt::call_site(__builtin_LINE())) {
  aopt_sim::rt::gm_fill(reinterpret_cast<uint8_t*>(gmWorkspaceAddr.GetPhyAddr()), size * sizeof(T),
                        &value, sizeof(T), "InitGlobalMemory", site);
}

// InitGlobalMemory's earlier name, which kernels written for earlier CANN releases still call:
// the same fill, `value` defaulting to zero.
template <typename T>
void InitOutput(GlobalTensor<T> gmWorkspaceAddr, const uint64_t size, const T value = 0,
                aopt_sim::rt::call_site site = aopt_sim::rt::call_site(__builtin_LINE())) {
  aopt_sim::rt::gm_fill(reinterpret_cast<uint8_t*>(gmWorkspaceAddr.GetPhyAddr()), size * sizeof(T),
                        &value, sizeof(T), "InitOutput", site);
}

// Simulated GM is coherent; the flush costs one uncached scalar GM access.
template <typename T, CacheLine entireType = CacheLine::SINGLE_CACHE_LINE,
          DcciDst dcciDst = DcciDst::CACHELINE_OUT>
void DataCacheCleanAndInvalid(
    const GlobalTensor<T>& dstTensor,
    aopt_sim::rt::call_site site = aopt_sim::rt::call_site(__builtin_LINE())) {
  aopt_sim::rt::gm_scalar(reinterpret_cast<uint8_t*>(dstTensor.GetPhyAddr()), 0, true, nullptr,
                          "DataCacheCleanAndInvalid", site);
}

// The hardware barrier; blocks synchronise for real (the driver's block_runner).
template <bool isAIVOnly = true>
void SyncAll(aopt_sim::rt::call_site site = aopt_sim::rt::call_site(__builtin_LINE())) {
  aopt_sim::rt::sync_all(2, site);
}
// The software barrier over a zeroed GM workspace: the same synchronisation; the flag values it
// leaves in the workspaces are not documented, so the simulator leaves them as they were.
template <bool isAIVOnly = true>
void SyncAll(const GlobalTensor<int32_t>& gmWorkspace, const LocalTensor<int32_t>& ubWorkspace,
             const int32_t usedCores = 0,
             aopt_sim::rt::call_site site = aopt_sim::rt::call_site(__builtin_LINE())) {
  aopt_sim::rt::soft_sync_all(ubWorkspace.aopt_ref(), gmWorkspace.GetSize(), usedCores, site);
}

// Flags between two pipes, named by the pipes instead of a HardEvent.
template <pipe_t src, pipe_t dst>
class TQueSync {
 public:
  void SetFlag(TEventID id,
               aopt_sim::rt::call_site site = aopt_sim::rt::call_site(__builtin_LINE())) {
    aopt_sim::rt::set_flag_pipes(src, dst, id, site);
  }
  void WaitFlag(TEventID id,
                aopt_sim::rt::call_site site = aopt_sim::rt::call_site(__builtin_LINE())) {
    aopt_sim::rt::wait_flag_pipes(src, dst, id, site);
  }
};

}  // namespace AscendC
