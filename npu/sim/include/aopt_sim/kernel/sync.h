// aopt simulator, kernel side: explicit synchronisation between the pipes of a core.
//
//   SetFlag<HardEvent::X_Y>(id)   on pipe X: fires once X's earlier work is done
//   WaitFlag<HardEvent::X_Y>(id)  on pipe Y: Y waits for the flag, then clears it
//   PipeBarrier<PIPE_X>()         orders pipe X's instructions (PIPE_ALL: drains every pipe)
//
// Event ids are 0..7 per HardEvent. Setting an id twice before its wait, waiting without a set,
// and a set left unwaited at the end of the kernel are errors. The pre-AscendC intrinsics
// (pipe_barrier, set_flag, wait_flag) are accepted too.
#pragma once

#include <cstdint>

#include "aopt_sim/kernel/defs.h"
#include "aopt_sim/kernel/runtime_api.h"

namespace AscendC {

template <pipe_t pipe>
void PipeBarrier(aopt_sim::rt::call_site site = aopt_sim::rt::call_site()) {
  aopt_sim::rt::pipe_barrier(pipe, site);
}

template <HardEvent event>
void SetFlag(int32_t eventID, aopt_sim::rt::call_site site = aopt_sim::rt::call_site()) {
  aopt_sim::rt::set_flag(event, eventID, site);
}

template <HardEvent event>
void WaitFlag(int32_t eventID, aopt_sim::rt::call_site site = aopt_sim::rt::call_site()) {
  aopt_sim::rt::wait_flag(event, eventID, site);
}

}  // namespace AscendC

inline void pipe_barrier(pipe_t pipe, aopt_sim::rt::call_site site = aopt_sim::rt::call_site()) {
  aopt_sim::rt::pipe_barrier(pipe, site);
}

inline void set_flag(pipe_t src, pipe_t dst, event_t id,
                     aopt_sim::rt::call_site site = aopt_sim::rt::call_site()) {
  aopt_sim::rt::set_flag_pipes(src, dst, id, site);
}

inline void wait_flag(pipe_t src, pipe_t dst, event_t id,
                      aopt_sim::rt::call_site site = aopt_sim::rt::call_site()) {
  aopt_sim::rt::wait_flag_pipes(src, dst, id, site);
}
