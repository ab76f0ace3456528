#include "timing_model.hpp"

#include <algorithm>
#include <cmath>
#include <deque>
#include <functional>
#include <map>
#include <queue>

namespace aopt::sim {
namespace {

constexpr double vector_repeat_bytes = 256;

size_t index_of(pipe p) {
  return static_cast<size_t>(p);
}

double cycles_per_repeat(op_class c, const hw_profile& hw) {
  switch (c) {
    case op_class::vec_mul:
      return hw.vec_mul_cycles_per_repeat;
    case op_class::vec_div_transcendental:
      return hw.vec_div_transcendental_cycles_per_repeat;
    case op_class::vec_reduce:
      return hw.vec_reduce_cycles_per_repeat;
    case op_class::vec_cast:
      return hw.vec_cast_cycles_per_repeat;
    case op_class::vec_compare_select:
      return hw.vec_compare_select_cycles_per_repeat;
    default:
      return hw.vec_simple_cycles_per_repeat;
  }
}

// Repeat cycles of a vector instruction, without start-up. An instruction recorded with bytes
// but no repeat count (a UB -> UB copy) costs one repeat per 256 bytes.
double vector_work(const instruction& in, const hw_profile& hw) {
  double repeats = in.repeats;
  if (repeats == 0 && in.bytes > 0)
    repeats = std::ceil(static_cast<double>(in.bytes) / vector_repeat_bytes);
  return repeats * cycles_per_repeat(in.cls, hw);
}

// `from_l2`: the bytes of a GM -> L1 load that L2 serves (l2_reuse.hpp); the rest come from GM.
double dma_cost(const instruction& in, const hw_profile& hw, uint32_t active_cores,
                uint64_t from_l2) {
  const double per_core =
      in.cls == op_class::dma_in ? hw.gm_read_bytes_per_cycle : hw.gm_write_bytes_per_cycle;
  // hbm_gbps GB/s over clock_ghz G cycles/s is bytes per cycle for the whole chip.
  const double hbm_share = hw.hbm_gbps / hw.clock_ghz / std::max<uint32_t>(active_cores, 1);
  double bandwidth = std::min(per_core, hbm_share);
  double l2_bandwidth = hw.l2_read_bytes_per_cycle;
  const uint64_t bursts = std::max<uint64_t>(in.bursts, 1);
  const uint64_t shortest_burst = in.min_burst_bytes > 0 ? in.min_burst_bytes : in.bytes / bursts;
  if (shortest_burst < hw.dma_efficient_burst_bytes) {
    bandwidth /= hw.dma_short_burst_penalty;
    l2_bandwidth /= hw.dma_short_burst_penalty;
  }
  if (in.gm_unaligned) {
    bandwidth *= hw.dma_unaligned_efficiency;
    l2_bandwidth *= hw.dma_unaligned_efficiency;
  }
  const uint64_t hits = std::min(from_l2, in.bytes);
  return hw.dma_latency_cycles + static_cast<double>(bursts) * hw.dma_burst_overhead_cycles +
         static_cast<double>(in.bytes - hits) / bandwidth +
         static_cast<double>(hits) / l2_bandwidth;
}

// Cube work (the roofline's compute bound): Mmad cycles at the profile's MAC rate for its type.
double mmad_cycles(const instruction& in, const hw_profile& hw) {
  double rate = hw.cube_f16_macs_per_cycle;
  if (in.repeats == static_cast<uint32_t>(cube_dtype::i8)) rate = hw.cube_i8_macs_per_cycle;
  if (in.repeats == static_cast<uint32_t>(cube_dtype::f32)) rate = hw.cube_f32_macs_per_cycle;
  return static_cast<double>(in.count) / rate;
}

// Fixpipe into GM drains L0C no faster than the core can write GM.
double fixpipe_cost(const instruction& in, const hw_profile& hw, uint32_t active_cores) {
  double bandwidth = hw.fixpipe_bytes_per_cycle;
  if (in.cls == op_class::cube_fixpipe) {
    const double hbm_share = hw.hbm_gbps / hw.clock_ghz / std::max<uint32_t>(active_cores, 1);
    bandwidth = std::min({bandwidth, hw.gm_write_bytes_per_cycle, hbm_share});
  }
  return hw.fixpipe_latency_cycles + static_cast<double>(in.bytes) / bandwidth;
}

// Execution cycles of an instruction on its pipe, not counting issue.
double execution_cost(const instruction& in, const hw_profile& hw, uint32_t active_cores,
                      uint64_t from_l2) {
  switch (in.cls) {
    case op_class::scalar_ub:
      return static_cast<double>(in.count) * hw.scalar_ub_access_cycles;
    case op_class::scalar_gm:
      return static_cast<double>(in.count) * hw.scalar_gm_access_cycles;
    case op_class::dma_in:
    case op_class::dma_out:
      return dma_cost(in, hw, active_cores, from_l2);
    case op_class::set_flag:
    case op_class::wait_flag:
    case op_class::barrier:
    case op_class::cross_set:
    case op_class::cross_wait:
      return 0;
    case op_class::sync_all:
      // The cross-core barrier's own work: at least a flag write and a read in GM (an estimate
      // from the scalar GM access cost; the wait for the other blocks comes on top).
      return static_cast<double>(std::max<uint64_t>(in.count, 2)) * hw.scalar_gm_access_cycles;
    case op_class::ib_set:
    case op_class::ib_wait:
      // The flag's GM accesses; the wait for the setting core comes on top (replay_cores).
      return static_cast<double>(in.count) * hw.scalar_gm_access_cycles;
    case op_class::cube_load:
      return hw.mte1_latency_cycles + static_cast<double>(in.bytes) / hw.mte1_bytes_per_cycle;
    case op_class::cube_mmad:
      return hw.cube_startup_cycles + mmad_cycles(in, hw);
    case op_class::cube_fixpipe:
    case op_class::cube_fixpipe_local:
      return fixpipe_cost(in, hw, active_cores);
    default:
      return hw.vec_startup_cycles + vector_work(in, hw);
  }
}

// Instructions that run on the scalar unit itself and so hold up issue until they finish.
bool blocks_issue(const instruction& in) {
  return in.on == pipe::s || in.all_pipes_barrier;
}

// Issue slots taken: a coalesced scalar access stands for `count` API calls.
double issue_slots(const instruction& in) {
  if (in.cls == op_class::scalar_ub || in.cls == op_class::scalar_gm)
    return static_cast<double>(std::max<uint64_t>(in.count, 1));
  return 1;
}

// Inter-block flags by name (trace.hpp op_class::ib_set): when the first IBSet of each finished;
// and CrossCoreSetFlags by signal id (op_class::cross_set), under their own bit.
using flag_times = std::map<uint64_t, double>;
constexpr uint64_t cross_signal_bit = uint64_t{1} << 63;

// The pipes of one AIC of a MIX launch: its own trace and its AIVs' Matmul requests
// (instruction::on_group_cube) take turns on them.
using pipe_times = std::array<double, pipe_count>;

class core_replay {
 public:
  // `flags` is shared by the cores replayed together (replay_cores); without it an IBWait waits
  // for nothing.
  // `group_cube`: the pipes of the core's MIX group's AIC (none for whole cores).
  // `l2_hits`: the bytes of its GM -> L1 loads that L2 serves (none: all come from GM).
  core_replay(const core_trace& trace, const hw_profile& hw, uint32_t active_cores,
              const l2_hit_bytes* l2_hits, flag_times* flags = nullptr,
              pipe_times* group_cube = nullptr)
      : trace_(trace),
        hw_(hw),
        active_cores_(active_cores),
        l2_hits_(l2_hits),
        flags_(flags),
        group_cube_(group_cube),
        end_(trace.instructions.size(), 0.0) {}

  core_kind kind() const { return trace_.kind; }

  core_timing run() {
    while (advance()) pass_sync(0);
    return finish();
  }

  // Replays up to the next SyncAll or IBWait whose flag no core has set so far (true), or to
  // the end of the trace (false).
  bool advance() {
    while (next_ < trace_.instructions.size()) {
      const instruction& in = trace_.instructions[next_];
      if (in.cls == op_class::sync_all) return true;
      if (in.cls == op_class::ib_wait && flags_ != nullptr && flags_->count(in.bytes) == 0)
        return true;
      if (in.cls == op_class::cross_wait && flags_ != nullptr && !signalled(in)) return true;
      step(next_++);
    }
    return false;
  }

  size_t position() const { return next_; }
  // REQUIRES: advance() returned true.
  bool at_sync_all() const { return trace_.instructions[next_].cls == op_class::sync_all; }
  bool done() const { return next_ >= trace_.instructions.size(); }

  // When the pending SyncAll could start on this core: issued, its dependencies done and every
  // pipe drained. REQUIRES: advance() returned true.
  double sync_arrival() const {
    const instruction& in = trace_.instructions[next_];
    double t = issue_time_ + issue_slots(in) * hw_.issue_cycles;
    t = std::max({t, end_of(in.deps), end_of(in.auto_deps)});
    const bool on_aic = trace_.kind == core_kind::aic && group_cube_ != nullptr;
    for (double f : on_aic ? *group_cube_ : pipe_free_) t = std::max(t, f);
    return t;
  }

  // Passes the pending SyncAll no earlier than `release` (the last block's arrival).
  void pass_sync(double release) {
    release_ = release;
    step(next_++);
    release_ = 0;
  }

  core_timing finish() {
    double finish = issue_time_;
    for (double t : pipe_free_) finish = std::max(finish, t);
    // A MIX core's work may sit on its group's AIC pipes.
    for (double t : end_) finish = std::max(finish, t);
    result_.total_cycles = finish;
    return result_;
  }

 private:
  bool signalled(const instruction& in) const {
    for (uint64_t id : in.signals)
      if (flags_->count(id | cross_signal_bit) == 0) return false;
    return true;
  }

  // When every set a CrossCoreWaitFlag consumed has fired.
  double signal_time(const instruction& in) const {
    double t = 0;
    for (uint64_t id : in.signals) {
      const auto set = flags_->find(id | cross_signal_bit);
      if (set != flags_->end()) t = std::max(t, set->second);
    }
    return t;
  }

  // The pipe timeline an instruction runs on: its core's, or its group's AIC's.
  pipe_times& pipes_for(const instruction& in) {
    const bool on_aic = in.on_group_cube || trace_.kind == core_kind::aic;
    return on_aic && group_cube_ != nullptr ? *group_cube_ : pipe_free_;
  }

  double end_of(const std::vector<uint32_t>& deps) const {
    double t = 0;
    for (uint32_t d : deps)
      if (d < end_.size()) t = std::max(t, end_[d]);
    return t;
  }

  // When the instruction's dependencies let it start, and the part of that wait past `ready`
  // that only the compiler-inserted edges cause.
  double deps_end(const instruction& in, double ready) {
    const double own = std::max(ready, end_of(in.deps));
    const double all = std::max(own, end_of(in.auto_deps));
    result_.auto_sync_wait_cycles += all - own;
    return all;
  }

  void step(size_t i) {
    const instruction& in = trace_.instructions[i];
    const double slots = issue_slots(in);
    const double issued = issue_time_ + slots * hw_.issue_cycles;
    result_.busy_cycles[index_of(pipe::s)] += slots * hw_.issue_cycles;
    const uint64_t from_l2 = l2_hits_of(i);
    const double cost = execution_cost(in, hw_, active_cores_, from_l2);
    account_work(in, from_l2);

    if (blocks_issue(in)) {
      double start = deps_end(in, issued);
      if (in.all_pipes_barrier) {
        for (double t : pipes_for(in)) start = std::max(start, t);
        result_.barrier_stall_cycles += start - issued;
        if (in.cls == op_class::sync_all && release_ > start) {
          result_.sync_all_wait_cycles += release_ - start;
          start = release_;
        }
        if (in.cls == op_class::ib_wait && flags_ != nullptr) {
          const auto set = flags_->find(in.bytes);
          if (set != flags_->end() && set->second > start) {
            result_.flag_wait_cycles += set->second - start;
            start = set->second;
          }
        }
      } else {
        result_.flag_wait_cycles += start - issued;
      }
      if (in.cls == op_class::cross_wait && flags_ != nullptr) {
        const double set = signal_time(in);
        if (set > start) {
          result_.flag_wait_cycles += set - start;
          start = set;
        }
      }
      end_[i] = start + cost;
      note_signal(in, end_[i]);
      if (in.cls == op_class::ib_set && flags_ != nullptr) {
        const auto [it, fresh] = flags_->emplace(in.bytes, end_[i]);
        if (!fresh) it->second = std::min(it->second, end_[i]);
      }
      result_.busy_cycles[index_of(pipe::s)] += cost;
      issue_time_ = end_[i];
      pipe_times& pipes = pipes_for(in);
      pipes[index_of(pipe::s)] = std::max(pipes[index_of(pipe::s)], end_[i]);
      return;
    }

    const size_t p = index_of(in.on);
    pipe_times& pipes = pipes_for(in);
    double enqueued = issued;
    std::deque<double>& waiting = queued_starts_[p];
    while (!waiting.empty() && waiting.front() <= enqueued) waiting.pop_front();
    if (hw_.pipe_queue_depth > 0 && waiting.size() >= hw_.pipe_queue_depth) {
      // The queue is full: issue stalls until the oldest waiting instruction leaves it.
      enqueued = waiting.front();
      waiting.pop_front();
    }
    const double ready = std::max(enqueued, pipes[p]);
    const double start = deps_end(in, ready);
    result_.flag_wait_cycles += start - ready;
    end_[i] = start + cost;
    pipes[p] = end_[i];
    note_signal(in, end_[i]);
    result_.busy_cycles[p] += cost;
    if (start > enqueued) waiting.push_back(start);
    issue_time_ = enqueued;
  }

  void note_signal(const instruction& in, double at) {
    if (in.cls != op_class::cross_set || flags_ == nullptr) return;
    for (uint64_t id : in.signals) flags_->emplace(id | cross_signal_bit, at);
  }

  uint64_t l2_hits_of(size_t i) const {
    if (l2_hits_ == nullptr) return 0;
    const auto it = l2_hits_->find(static_cast<uint32_t>(i));
    return it == l2_hits_->end() ? 0 : it->second;
  }

  void account_work(const instruction& in, uint64_t from_l2) {
    if (in.cls == op_class::dma_in || in.cls == op_class::dma_out) {
      result_.dma_bursts += std::max<uint32_t>(in.bursts, 1);
      result_.dma_bytes += in.bytes;
      if (is_l1_load(in)) result_.l2_dma_bytes += std::min(from_l2, in.bytes);
    } else if (in.cls == op_class::scalar_ub || in.cls == op_class::scalar_gm) {
      result_.scalar_accesses += in.count;
    } else if (is_vector_class(in.cls)) {
      ++result_.vector_instructions;
      result_.vector_work_cycles += vector_work(in, hw_);
    } else if (in.cls == op_class::cube_mmad) {
      result_.cube_work_cycles += mmad_cycles(in, hw_);
    }
  }

  const core_trace& trace_;
  const hw_profile& hw_;
  uint32_t active_cores_;
  const l2_hit_bytes* l2_hits_;
  flag_times* flags_;
  pipe_times* group_cube_;
  std::vector<double> end_;
  size_t next_ = 0;     // the next instruction to replay
  double release_ = 0;  // when the pending SyncAll may pass
  double issue_time_ = 0;
  pipe_times pipe_free_{};
  // Per pipe, start times of issued instructions that have not started yet (in order).
  std::array<std::deque<double>, pipe_count> queued_starts_;
  core_timing result_;
};

}  // namespace

bool uses_cube(const core_trace& trace) {
  for (const instruction& in : trace.instructions)
    if (in.on == pipe::m || in.on == pipe::mte1 || in.on == pipe::fix) return true;
  return false;
}

uint32_t cores_of_kind(const std::vector<core_trace>& traces, const hw_profile& hw) {
  for (const core_trace& t : traces)
    if (uses_cube(t)) return hw.cube_cores;
  return hw.vector_cores;
}

mix_shape mix_shape_of(const std::vector<core_trace>& traces) {
  mix_shape m;
  for (const core_trace& t : traces) {
    if (t.kind == core_kind::whole) return {};
    m.groups = std::max(m.groups, t.group + 1);
  }
  if (m.groups != 0) m.cores_per_group = static_cast<uint32_t>(traces.size()) / m.groups;
  return m;
}

uint32_t cores_running(const mix_shape& mix, const std::vector<core_trace>& traces,
                       const hw_profile& hw) {
  return mix.groups != 0 ? hw.cube_cores : cores_of_kind(traces, hw);
}

namespace {

// The cores a launch of `blocks` blocks (of a MIX launch: its groups) keeps busy at once: its
// first wave, a MIX group's AIC and AIVs alike.
uint32_t first_wave_cores(const mix_shape& mix, uint32_t blocks,
                          const std::vector<core_trace>& traces, const hw_profile& hw) {
  return std::min(mix.groups != 0 ? mix.groups : blocks, cores_running(mix, traces, hw)) *
         mix.cores_per_group;
}

}  // namespace

uint32_t launch_cores(const std::vector<core_trace>& traces, const hw_profile& hw) {
  return first_wave_cores(mix_shape_of(traces), static_cast<uint32_t>(traces.size()), traces, hw);
}

core_timing replay_core(const core_trace& trace, const hw_profile& hw, uint32_t active_cores,
                        const l2_hit_bytes* l2_hits) {
  const uint32_t cores = uses_cube(trace) ? hw.cube_cores : hw.vector_cores;
  return core_replay(trace, hw, std::min(active_cores, cores), l2_hits).run();
}

std::vector<core_timing> replay_cores(const std::vector<core_trace>& traces, const hw_profile& hw,
                                      uint32_t block_dim) {
  const mix_shape mix = mix_shape_of(traces);
  // A MIX launch keeps every core of its groups busy at once: its groups on the physical AI
  // cores, each with its AIC and AIVs.
  const uint32_t active = first_wave_cores(mix, block_dim, traces, hw);
  flag_times flags;
  std::vector<pipe_times> group_cube(mix.groups);
  const std::vector<l2_hit_bytes> l2_hits = find_l2_hits(traces);
  std::vector<core_replay> cores;
  cores.reserve(traces.size());
  for (size_t i = 0; i < traces.size(); ++i) {
    const core_trace& t = traces[i];
    pipe_times* cube =
        t.kind != core_kind::whole && t.group < group_cube.size() ? &group_cube[t.group] : nullptr;
    cores.emplace_back(t, hw, active, &l2_hits[i], &flags, cube);
  }
  // Every core replays as far as it can: to its end, its next SyncAll, or a wait whose flag no
  // core has set yet (a flag set meanwhile lets its waiters go on). Then a kind of core (AIC,
  // AIV, or every core of a launch that is not MIX) whose every core is at a SyncAll passes it
  // when the last arrives. A wait no replay can satisfy is one the functional run already
  // reported as a deadlock: it passes at once, so the replay ends.
  std::vector<char> stopped(cores.size());
  for (;;) {
    for (bool moved = true; moved;) {
      moved = false;
      for (size_t i = 0; i < cores.size(); ++i) {
        const size_t before = cores[i].position();
        stopped[i] = cores[i].advance();
        moved = moved || cores[i].position() != before;
      }
    }
    // Per kind: a core at a SyncAll, a core at a wait, and when the last SyncAll arrives.
    std::array<bool, 3> at_sync{}, waiting{};
    std::array<double, 3> release{};
    for (size_t i = 0; i < cores.size(); ++i) {
      if (!stopped[i]) continue;
      const auto k = static_cast<size_t>(cores[i].kind());
      if (cores[i].at_sync_all()) {
        at_sync[k] = true;
        release[k] = std::max(release[k], cores[i].sync_arrival());
      } else {
        waiting[k] = true;
      }
    }
    // The SyncAll of a kind passes once none of its cores waits elsewhere (the cores of a launch
    // that is not MIX pass theirs at once, as they always have).
    std::array<bool, 3> passes{};
    bool any_passes = false;
    for (size_t k = 0; k < passes.size(); ++k) {
      passes[k] = at_sync[k] && (k == static_cast<size_t>(core_kind::whole) || !waiting[k]);
      any_passes = any_passes || passes[k];
    }
    bool any_stopped = false;
    for (size_t i = 0; i < cores.size(); ++i) {
      if (!stopped[i]) continue;
      any_stopped = true;
      const auto k = static_cast<size_t>(cores[i].kind());
      const bool sync = cores[i].at_sync_all();
      // With no SyncAll to pass, the waits pass: none can be satisfied any more.
      if (any_passes ? sync && passes[k] : !sync) cores[i].pass_sync(release[k]);
    }
    if (!any_stopped) break;
  }
  std::vector<core_timing> out;
  out.reserve(cores.size());
  for (core_replay& c : cores) out.push_back(c.finish());
  return out;
}

kernel_timing combine_cores(const std::vector<core_timing>& cores,
                            const std::vector<core_trace>& traces, const hw_profile& hw) {
  kernel_timing k;
  const mix_shape mix = mix_shape_of(traces);
  // A MIX group's cores start together and the group ends with its slowest: the groups are the
  // blocks that take the physical AI cores in waves.
  std::vector<double> block_cycles;
  std::vector<uint32_t> slowest_core;
  if (mix.groups != 0) {
    block_cycles.assign(mix.groups, 0.0);
    slowest_core.assign(mix.groups, 0);
    for (size_t i = 0; i < cores.size() && i < traces.size(); ++i) {
      const uint32_t g = traces[i].group;
      if (g >= mix.groups || cores[i].total_cycles < block_cycles[g]) continue;
      block_cycles[g] = cores[i].total_cycles;
      slowest_core[g] = static_cast<uint32_t>(i);
    }
  } else {
    for (size_t i = 0; i < cores.size(); ++i) {
      block_cycles.push_back(cores[i].total_cycles);
      slowest_core.push_back(static_cast<uint32_t>(i));
    }
  }
  const auto block_dim = static_cast<uint32_t>(block_cycles.size());
  const uint32_t physical = std::min(block_dim, cores_running(mix, traces, hw));
  k.launch_overhead_us = hw.launch_overhead_us(launch_cores(traces, hw));
  k.waves = physical == 0 ? 0 : (block_dim + physical - 1) / physical;
  // Free time of each physical core; a min-heap hands each block the earliest-free core.
  std::priority_queue<double, std::vector<double>, std::greater<>> free_at;
  for (uint32_t c = 0; c < physical; ++c) free_at.push(0.0);
  double sum_us = 0;
  double slowest_block_us = -1;
  for (size_t i = 0; i < block_cycles.size(); ++i) {
    const double us = hw.cycles_to_us(block_cycles[i]);
    sum_us += us;
    if (us > slowest_block_us) {
      slowest_block_us = us;
      k.critical_core = slowest_core[i];
    }
    const double done = free_at.top() + us;
    free_at.pop();
    free_at.push(done);
    k.core_time_max_us = std::max(k.core_time_max_us, done);
  }
  if (!block_cycles.empty())
    k.core_time_mean_us = sum_us / static_cast<double>(block_cycles.size());
  // GM traffic per core: the trace's own count where the recorder kept one, else the DMA bytes.
  double gm_bytes = 0;
  for (size_t i = 0; i < cores.size(); ++i) {
    double core_bytes = static_cast<double>(cores[i].dma_bytes);
    if (i < traces.size())
      core_bytes = std::max(
          core_bytes, static_cast<double>(traces[i].gm_read_bytes + traces[i].gm_write_bytes));
    gm_bytes += core_bytes - static_cast<double>(cores[i].l2_dma_bytes);
  }
  // hbm_gbps GB/s = hbm_gbps * 1e3 bytes per microsecond.
  k.hbm_floor_us = gm_bytes / (hw.hbm_gbps * 1e3);
  k.latency_us = k.launch_overhead_us + std::max(k.core_time_max_us, k.hbm_floor_us);
  return k;
}

}  // namespace aopt::sim
