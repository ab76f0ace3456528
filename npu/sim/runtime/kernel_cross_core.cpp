// MIX kernels (aopt_sim/kernel/cross_core_sync.h): the kernel type a kernel declares, which unit
// a core is, and CrossCoreSetFlag/CrossCoreWaitFlag as the AscendC documentation describes them.
// Every flagId is a counter per core, starting at 0; a wait on a counter at 0 blocks the core
// until it is above 0 and then takes one; a counter holds at most 16 sets. Who a set counts for
// depends on its mode:
//   mode 2 (AIC and AIVs of one group): the AIC's set adds one to each of its AIVs' counters; the
//     AIC's counter gains one once every AIV of the group has set the flag;
//   mode 1 (the AIVs of one group): each AIV's counter gains one once every AIV of the group has
//     set the flag;
//   mode 0 (across the launch): each core's counter gains one once every core of its kind has set
//     the flag.
// The documentation gives modes 0 and 1 one line each; the simulator reads them as the barriers
// above, and says so in docs/ascendc-api-coverage.md.
#include <string>
#include <vector>

#include "block_runner.hpp"
#include "kernel_state.hpp"
#include "trace_recorder.hpp"

namespace aopt_sim::rt {

using namespace aopt::sim::kernel;  // NOLINT(google-build-using-namespace): implementation file
using aopt::sim::core_kind;

namespace {

constexpr uint32_t max_flag_id = 15;

// The AIVs per AIC of a kernel type (KernelMetaType), 0 for a type that is not MIX.
uint32_t aiv_per_aic_of(int type) {
  if (type == KERNEL_TYPE_MIX_AIC_1_2) return 2;
  if (type == KERNEL_TYPE_MIX_AIC_1_1) return 1;
  return 0;
}

uint64_t counter_key(uint32_t core, uint32_t flag) {
  return (uint64_t{core} << 16) | flag;
}

// A join round's name: its mode, the scope (group or core kind) and the flag.
uint64_t round_key(int mode, uint32_t scope, uint32_t flag) {
  return (static_cast<uint64_t>(mode) << 56) | (uint64_t{scope} << 16) | flag;
}

std::string core_name(const state& s) {
  const aopt::sim::core_identity& id = s.id;
  if (id.kind == core_kind::whole) return cat("block ", id.block_idx);
  return cat(aopt::sim::to_string(id.kind), " ", id.block_idx, " (group ", id.group, ")");
}

void record_set(state& s, aopt::sim::pipe p, uint64_t signal, call_site site) {
  if (!s.rec.on()) return;
  aopt::sim::instruction in;
  in.on = p;
  in.cls = aopt::sim::op_class::cross_set;
  in.api = "CrossCoreSetFlag";
  in.line = site.line;
  in.signals = {signal};
  const uint32_t last = s.rec.last_on(p);
  if (last != aopt::sim::trace_recorder::no_index) in.deps.push_back(last);
  s.rec.add(std::move(in));
}

void record_wait(state& s, std::vector<uint64_t> signals, call_site site) {
  if (!s.rec.on()) return;
  aopt::sim::instruction in;
  in.on = aopt::sim::pipe::s;
  in.cls = aopt::sim::op_class::cross_wait;
  in.api = "CrossCoreWaitFlag";
  in.line = site.line;
  in.signals = std::move(signals);
  s.rec.add(std::move(in));
}

void set(state& s, int mode, aopt::sim::pipe p, uint32_t flag, call_site site) {
  aopt::sim::block_runner& runner = *s.launch.runner;
  const aopt::sim::launch_layout layout = s.launch.layout();
  const aopt::sim::core_identity& id = s.id;
  const uint64_t signal = runner.next_signal();
  record_set(s, p, signal, site);
  const uint32_t first_of_group = id.group * layout.cores_per_group();
  if (mode == 2) {
    if (id.kind == core_kind::aic) {
      for (uint32_t v = 1; v <= layout.aiv_per_aic; ++v)
        runner.signal(counter_key(first_of_group + v, flag), {signal});
      return;
    }
    std::vector<uint64_t> joined =
        runner.join(round_key(mode, id.group, flag), id.sub_block, layout.aiv_per_aic, signal);
    if (!joined.empty()) runner.signal(counter_key(first_of_group, flag), std::move(joined));
    return;
  }
  if (mode == 1) {
    std::vector<uint64_t> joined =
        runner.join(round_key(mode, id.group, flag), id.sub_block, layout.aiv_per_aic, signal);
    if (joined.empty()) return;
    for (uint32_t v = 1; v <= layout.aiv_per_aic; ++v)
      runner.signal(counter_key(first_of_group + v, flag), joined);
    return;
  }
  // Mode 0: every core of this kind.
  std::vector<uint32_t> peers;
  uint32_t me = 0;
  for (uint32_t c = 0; c < layout.cores(); ++c) {
    if (layout.identity(c).kind != id.kind) continue;
    if (c == s.core) me = static_cast<uint32_t>(peers.size());
    peers.push_back(c);
  }
  std::vector<uint64_t> joined = runner.join(round_key(mode, static_cast<uint32_t>(id.kind), flag),
                                             me, static_cast<uint32_t>(peers.size()), signal);
  if (joined.empty()) return;
  for (uint32_t c : peers) runner.signal(counter_key(c, flag), joined);
}

}  // namespace

void kernel_task_type(int type) {
  state& s = current();
  const uint32_t wanted = aiv_per_aic_of(type);
  if (wanted == s.launch.aiv_per_aic) return;
  if (s.launch.aiv_per_aic != 0) {
    fail("bad_argument",
         cat("KERNEL_TASK_TYPE_DEFAULT: this launch runs as MIX with ", s.launch.aiv_per_aic,
             " AIV(s) per AIC, but the kernel now declares another type"));
  }
  if (wanted == 0) return;  // AIV_ONLY, AIC_ONLY and the rest run on whole cores
  if (s.launch.declared_aiv_per_aic == nullptr) {
    fail("unsupported",
         "KERNEL_TASK_TYPE_DEFAULT: a MIX kernel needs a launch of AIC/AIV groups, "
         "which only the simulator's driver starts");
  }
  // The driver runs this input set again as a MIX launch; nothing of this run is kept.
  s.launch.declared_aiv_per_aic->store(wanted);
  throw aopt::sim::sim_error("relaunch", "the kernel declares a MIX kernel type");
}

void cross_core_flag(bool is_set, int mode, int pipe_value, uint32_t flag, call_site site) {
  state& s = current();
  const char* api = is_set ? "CrossCoreSetFlag" : "CrossCoreWaitFlag";
  if (flag > max_flag_id) {
    fail("bad_argument", cat(where(api, site), ": flagId ", flag, " is outside 0..", max_flag_id));
  }
  if (mode < 0 || mode > 2) {
    fail("bad_argument", cat(where(api, site), ": modeId ", mode, " is outside 0..2"));
  }
  if (s.launch.runner == nullptr) {
    fail("unsupported", cat(where(api, site),
                            ": this launch runs its blocks without a block "
                            "runner, so the cores cannot wait for each other"));
  }
  const core_kind kind = s.id.kind;
  if (is_set && mode != 0 && kind == core_kind::whole) {
    fail("unsupported",
         cat(where(api, site), ": modeId ", mode,
             " synchronises the units of one AI core, which only a MIX kernel has (declare it "
             "with KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_MIX_AIC_1_2))"));
  }
  if (is_set && mode == 1 && kind != core_kind::aiv) {
    fail("bad_argument", cat(where(api, site), ": modeId 1 synchronises the AIVs of a group; ",
                             core_name(s), " is not an AIV"));
  }
  if (!is_set) {
    std::vector<uint64_t> taken = s.launch.runner->take(
        s.core, counter_key(s.core, flag),
        cat(where(api, site), ": ", core_name(s), " waits for flagId ", flag));
    record_wait(s, std::move(taken), site);
    return;
  }
  aopt::sim::pipe p{};
  const auto pt = static_cast<pipe_t>(pipe_value);
  if (pt == PIPE_S || pt == PIPE_ALL || !simulated_pipe(pt, p)) {
    fail("bad_argument", cat(where(api, site), ": pipe ", pipe_t_name(pt),
                             " (the documentation allows neither PIPE_S nor PIPE_ALL)"));
  }
  set(s, mode, p, flag, site);
}

bool core_is_aiv() {
  return current().id.kind != core_kind::aic;
}
bool core_is_aic() {
  return current().id.kind == core_kind::aic;
}
int64_t sub_block_idx() {
  return current().id.sub_block;
}
int64_t sub_block_num() {
  const state& s = current();
  return s.launch.aiv_per_aic == 0 ? 1 : s.launch.aiv_per_aic;
}
int64_t task_ration() {
  return sub_block_num();
}

bool matmul_served_by_aic() {
  return current().id.kind == core_kind::aic;
}

void matmul_request(bool begin) {
  state& s = current();
  s.rec.serve_group_cube(begin && s.id.kind == core_kind::aiv);
}

}  // namespace aopt_sim::rt
