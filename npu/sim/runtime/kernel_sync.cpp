// SetFlag/WaitFlag, PipeBarrier and their pre-AscendC intrinsic forms: checked against misuse
// and recorded as set_flag/wait_flag/barrier instructions with dependency edges.
#include "kernel_state.hpp"

namespace aopt::sim::kernel {
namespace {

struct event_pipes {
  bool simulated = false;
  pipe src = pipe::s;
  pipe dst = pipe::s;
};

// Source and destination pipe of each HardEvent, the cube pipes (M, MTE1, FIX) included.
event_pipes pipes_of(AscendC::HardEvent e) {
  using AscendC::HardEvent;
  switch (e) {
    case HardEvent::MTE2_V:
      return {true, pipe::mte2, pipe::v};
    case HardEvent::V_MTE2:
      return {true, pipe::v, pipe::mte2};
    case HardEvent::MTE3_V:
      return {true, pipe::mte3, pipe::v};
    case HardEvent::V_MTE3:
      return {true, pipe::v, pipe::mte3};
    case HardEvent::V_V:
      return {true, pipe::v, pipe::v};
    case HardEvent::MTE3_MTE2:
      return {true, pipe::mte3, pipe::mte2};
    case HardEvent::MTE2_MTE3:
      return {true, pipe::mte2, pipe::mte3};
    case HardEvent::S_V:
      return {true, pipe::s, pipe::v};
    case HardEvent::V_S:
      return {true, pipe::v, pipe::s};
    case HardEvent::S_MTE2:
      return {true, pipe::s, pipe::mte2};
    case HardEvent::MTE2_S:
      return {true, pipe::mte2, pipe::s};
    case HardEvent::S_MTE3:
      return {true, pipe::s, pipe::mte3};
    case HardEvent::MTE3_S:
      return {true, pipe::mte3, pipe::s};
    // The cube's pipes (kernel_cube.cpp).
    case HardEvent::MTE2_MTE1:
      return {true, pipe::mte2, pipe::mte1};
    case HardEvent::MTE1_MTE2:
      return {true, pipe::mte1, pipe::mte2};
    case HardEvent::MTE1_M:
      return {true, pipe::mte1, pipe::m};
    case HardEvent::M_MTE1:
      return {true, pipe::m, pipe::mte1};
    case HardEvent::M_V:
      return {true, pipe::m, pipe::v};
    case HardEvent::V_M:
      return {true, pipe::v, pipe::m};
    case HardEvent::MTE3_MTE1:
      return {true, pipe::mte3, pipe::mte1};
    case HardEvent::MTE1_MTE3:
      return {true, pipe::mte1, pipe::mte3};
    case HardEvent::MTE1_V:
      return {true, pipe::mte1, pipe::v};
    case HardEvent::V_MTE1:
      return {true, pipe::v, pipe::mte1};
    case HardEvent::MTE2_M:
      return {true, pipe::mte2, pipe::m};
    case HardEvent::M_MTE2:
      return {true, pipe::m, pipe::mte2};
    case HardEvent::M_FIX:
      return {true, pipe::m, pipe::fix};
    case HardEvent::FIX_M:
      return {true, pipe::fix, pipe::m};
    case HardEvent::MTE2_FIX:
      return {true, pipe::mte2, pipe::fix};
    case HardEvent::FIX_MTE2:
      return {true, pipe::fix, pipe::mte2};
    case HardEvent::FIX_S:
      return {true, pipe::fix, pipe::s};
    case HardEvent::M_S:
      return {true, pipe::m, pipe::s};
    case HardEvent::FIX_MTE3:
      return {true, pipe::fix, pipe::mte3};
    case HardEvent::MTE1_FIX:
      return {true, pipe::mte1, pipe::fix};
    case HardEvent::FIX_MTE1:
      return {true, pipe::fix, pipe::mte1};
    case HardEvent::FIX_FIX:
      return {true, pipe::fix, pipe::fix};
    default:
      return {};
  }
}

}  // namespace

bool simulated_pipe(pipe_t p, pipe& out) {
  switch (p) {
    case PIPE_S:
      out = pipe::s;
      return true;
    case PIPE_V:
      out = pipe::v;
      return true;
    case PIPE_MTE2:
      out = pipe::mte2;
      return true;
    case PIPE_MTE3:
      out = pipe::mte3;
      return true;
    case PIPE_MTE1:
      out = pipe::mte1;
      return true;
    case PIPE_M:
      out = pipe::m;
      return true;
    case PIPE_FIX:
      out = pipe::fix;
      return true;
    default:
      return false;
  }
}

const char* pipe_t_name(pipe_t p) {
  switch (p) {
    case PIPE_S:
      return "PIPE_S";
    case PIPE_V:
      return "PIPE_V";
    case PIPE_M:
      return "PIPE_M";
    case PIPE_MTE1:
      return "PIPE_MTE1";
    case PIPE_MTE2:
      return "PIPE_MTE2";
    case PIPE_MTE3:
      return "PIPE_MTE3";
    case PIPE_ALL:
      return "PIPE_ALL";
    case PIPE_FIX:
      return "PIPE_FIX";
    default:
      return "an unsimulated pipe";
  }
}

namespace {

flag_slot& slot_of(state& s, AscendC::HardEvent e, int32_t id, const char* api,
                   aopt_sim::rt::call_site site, event_pipes& pipes) {
  pipes = pipes_of(e);
  if (!pipes.simulated) {
    fail("bad_argument",
         cat(where(api, site), ": HardEvent::", event_name(e),
             " is not simulated (docs/ascendc-api-coverage.md, row \"SetFlag/WaitFlag\")"));
  }
  if (id < 0 || id >= event_ids) {
    fail("flag_misuse", cat(where(api, site), "<HardEvent::", event_name(e), ">: event id ", id,
                            " is outside 0..", event_ids - 1));
  }
  return s.flags[static_cast<size_t>(e)][static_cast<size_t>(id)];
}

void set(AscendC::HardEvent e, int32_t id, const char* api, aopt_sim::rt::call_site site) {
  state& s = current();
  event_pipes pipes;
  flag_slot& slot = slot_of(s, e, id, api, site, pipes);
  if (slot.pending) {
    fail(
        "flag_misuse",
        cat(where(api, site), ": SetFlag<HardEvent::", event_name(e), ">(", id, ") is already set",
            slot.line != 0 ? cat(" (at line ", slot.line, ")") : std::string(),
            " and not yet waited for; setting an event id twice before its WaitFlag is undefined"));
  }
  slot.pending = true;
  slot.line = site.line;
  slot.set_index = s.rec.add_sync(pipes.src, op_class::set_flag, "SetFlag", site.line, no_index);
}

void wait(AscendC::HardEvent e, int32_t id, const char* api, aopt_sim::rt::call_site site) {
  state& s = current();
  event_pipes pipes;
  flag_slot& slot = slot_of(s, e, id, api, site, pipes);
  if (!slot.pending) {
    fail("flag_misuse", cat(where(api, site), ": WaitFlag<HardEvent::", event_name(e), ">(", id,
                            ") has no pending SetFlag<HardEvent::", event_name(e), ">(", id,
                            ") before it, so the pipe would wait forever"));
  }
  s.rec.add_sync(pipes.dst, op_class::wait_flag, "WaitFlag", site.line, slot.set_index);
  slot = flag_slot{};
}

AscendC::HardEvent event_between(pipe_t src, pipe_t dst, const char* api,
                                 aopt_sim::rt::call_site site) {
  pipe a;
  pipe b;
  if (simulated_pipe(src, a) && simulated_pipe(dst, b)) {
    for (size_t e = 0; e < hard_event_count; ++e) {
      const event_pipes p = pipes_of(static_cast<AscendC::HardEvent>(e));
      if (p.simulated && p.src == a && p.dst == b) return static_cast<AscendC::HardEvent>(e);
    }
  }
  fail("bad_argument", cat(where(api, site), ": no simulated event from ", pipe_t_name(src), " to ",
                           pipe_t_name(dst)));
}

}  // namespace
}  // namespace aopt::sim::kernel

namespace aopt_sim::rt {

using namespace aopt::sim::kernel;  // NOLINT(google-build-using-namespace): implementation file
using aopt::sim::instruction;
using aopt::sim::op_class;
using aopt::sim::pipe;

void set_flag(AscendC::HardEvent e, int32_t id, call_site site) {
  set(e, id, "SetFlag", site);
}

void wait_flag(AscendC::HardEvent e, int32_t id, call_site site) {
  wait(e, id, "WaitFlag", site);
}

void set_flag_pipes(pipe_t src, pipe_t dst, int32_t id, call_site site) {
  set(event_between(src, dst, "set_flag", site), id, "set_flag", site);
}

void wait_flag_pipes(pipe_t src, pipe_t dst, int32_t id, call_site site) {
  wait(event_between(src, dst, "wait_flag", site), id, "wait_flag", site);
}

void pipe_barrier(pipe_t p, call_site site) {
  state& s = current();
  if (p == PIPE_S)
    fail("bad_argument", cat(where("PipeBarrier", site), ": PipeBarrier<PIPE_S> is not allowed"));
  if (p == PIPE_ALL) {
    if (!s.rec.on()) return;
    instruction in;
    in.on = pipe::s;
    in.cls = op_class::barrier;
    in.all_pipes_barrier = true;
    in.api = "PipeBarrier<PIPE_ALL>";
    in.line = site.line;
    for (int q = 0; q < aopt::sim::pipe_count; ++q) {
      const uint32_t last = s.rec.last_on(static_cast<pipe>(q));
      if (last != no_index) in.deps.push_back(last);
    }
    s.rec.add(std::move(in));
    return;
  }
  pipe on;
  if (!simulated_pipe(p, on)) return;  // PIPE_MTE4/5, PIPE_V2: nothing to order
  const char* api = p == PIPE_V      ? "PipeBarrier<PIPE_V>"
                    : p == PIPE_MTE2 ? "PipeBarrier<PIPE_MTE2>"
                    : p == PIPE_MTE1 ? "PipeBarrier<PIPE_MTE1>"
                    : p == PIPE_M    ? "PipeBarrier<PIPE_M>"
                    : p == PIPE_FIX  ? "PipeBarrier<PIPE_FIX>"
                                     : "PipeBarrier<PIPE_MTE3>";
  s.rec.add_sync(on, op_class::barrier, api, site.line, no_index);
}

}  // namespace aopt_sim::rt
