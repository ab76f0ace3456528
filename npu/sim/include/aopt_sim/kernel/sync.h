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

#include <climits>
#include <cstdint>

#include "aopt_sim/kernel/defs.h"
#include "aopt_sim/kernel/runtime_api.h"

namespace AscendC {

template <pipe_t pipe>
void PipeBarrier(aopt_sim::rt::call_site site = aopt_sim::rt::call_site(__builtin_LINE())) {
  aopt_sim::rt::pipe_barrier(pipe, site);
}

template <HardEvent event>
void SetFlag(int32_t eventID,
             aopt_sim::rt::call_site site = aopt_sim::rt::call_site(__builtin_LINE())) {
  aopt_sim::rt::set_flag(event, eventID, site);
}

template <HardEvent event>
void WaitFlag(int32_t eventID,
              aopt_sim::rt::call_site site = aopt_sim::rt::call_site(__builtin_LINE())) {
  aopt_sim::rt::wait_flag(event, eventID, site);
}

}  // namespace AscendC

inline void pipe_barrier(pipe_t pipe,
                         aopt_sim::rt::call_site site = aopt_sim::rt::call_site(__builtin_LINE())) {
  aopt_sim::rt::pipe_barrier(pipe, site);
}

namespace aopt_sim::rt {
// An event id as the intrinsics take it: an event_t, an int literal or a uint64_t variable. One
// outside int32_t becomes -1, which the runtime reports as outside 0..7.
inline int32_t intrinsic_event_id(int64_t id) {
  return id >= 0 && id <= INT32_MAX ? static_cast<int32_t>(id) : -1;
}
}  // namespace aopt_sim::rt

// The id is any integer (CANN's kernels pass EVENT_ID0, 0 and uint64_t variables alike).
inline void set_flag(pipe_t src, pipe_t dst, int64_t id,
                     aopt_sim::rt::call_site site = aopt_sim::rt::call_site(__builtin_LINE())) {
  aopt_sim::rt::set_flag_pipes(src, dst, aopt_sim::rt::intrinsic_event_id(id), site);
}

inline void wait_flag(pipe_t src, pipe_t dst, int64_t id,
                      aopt_sim::rt::call_site site = aopt_sim::rt::call_site(__builtin_LINE())) {
  aopt_sim::rt::wait_flag_pipes(src, dst, aopt_sim::rt::intrinsic_event_id(id), site);
}
