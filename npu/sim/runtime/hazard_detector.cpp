#include "hazard_detector.hpp"

#include <algorithm>
#include <array>
#include <limits>
#include <map>
#include <sstream>
#include <vector>

#include "gm_key_ranges.hpp"
#include "range_shadow.hpp"

namespace aopt::sim {
namespace {

constexpr uint32_t no_instruction = std::numeric_limits<uint32_t>::max();

using vector_clock = std::array<uint32_t, pipe_count>;

size_t index_of(pipe p) {
  return static_cast<size_t>(p);
}

void join(vector_clock& into, const vector_clock& other) {
  for (size_t p = 0; p < pipe_count; ++p) into[p] = std::max(into[p], other[p]);
}

// Sorted, disjoint, non-empty ranges covering the same bytes.
std::vector<key_range> merged(std::vector<key_range> out) {
  out.erase(
      std::remove_if(out.begin(), out.end(), [](const key_range& r) { return r.begin >= r.end; }),
      out.end());
  std::sort(out.begin(), out.end(),
            [](const key_range& a, const key_range& b) { return a.begin < b.begin; });
  size_t n = 0;
  for (size_t i = 0; i < out.size(); ++i) {
    if (n > 0 && out[i].begin <= out[n - 1].end)
      out[n - 1].end = std::max(out[n - 1].end, out[i].end);
    else
      out[n++] = out[i];
  }
  out.resize(n);
  return out;
}

std::vector<key_range> ub_key_ranges(const std::vector<ub_range>& ranges) {
  std::vector<key_range> out;
  out.reserve(ranges.size());
  for (const ub_range& r : ranges) out.push_back({r.begin, r.end});
  return merged(std::move(out));
}

// The last accesses to a run of bytes: the last write and, per pipe, the last read since it.
// Per pipe the latest read suffices: if it happens before an access, so do the earlier ones.
struct last_access {
  uint32_t writer = no_instruction;
  std::array<uint32_t, pipe_count> readers = no_readers();

  static std::array<uint32_t, pipe_count> no_readers() {
    std::array<uint32_t, pipe_count> r;
    r.fill(no_instruction);
    return r;
  }

  bool operator==(const last_access& o) const { return writer == o.writer && readers == o.readers; }
};

// The GM accesses of a trace that the detector orders, those of the DMA pipes, each with the
// GM keys it touches (gm_key_ranges.hpp).
struct gm_access {
  uint32_t instruction = 0;
  bool write = false;
  std::vector<key_range> ranges;
};

// Only the accesses of a kernel argument where two can race: one the core both reads and writes,
// or writes from two pipes. The others (inputs only read, outputs only stored) are most of a
// kernel's and cannot race, so the detector skips them whole.
std::vector<gm_access> dma_gm_accesses(const core_trace& trace) {
  auto made_by_dma = [&](const gm_runs& g) {
    // An access no instruction of the trace made cannot be ordered; the scalar unit's are the
    // compiler's to order (auto_sync.hpp).
    return g.instruction < trace.instructions.size() &&
           trace.instructions[g.instruction].on != pipe::s;
  };
  struct use {
    bool read = false;
    uint32_t write_pipes = 0;  // bit per pipe
  };
  std::map<uint32_t, use> uses;
  for (const gm_read& r : trace.gm_reads)
    if (made_by_dma(r)) uses[r.region].read = true;
  for (const gm_write& w : trace.gm_writes)
    if (made_by_dma(w))
      uses[w.region].write_pipes |= 1u << index_of(trace.instructions[w.instruction].on);
  auto may_race = [&](uint32_t region) {
    const use& u = uses[region];
    return (u.read && u.write_pipes != 0) || (u.write_pipes & (u.write_pipes - 1)) != 0;
  };
  std::vector<gm_access> out;
  auto add = [&](const gm_runs& g, bool write) {
    if (made_by_dma(g) && may_race(g.region))
      out.push_back({g.instruction, write, merged(gm_key_ranges(g))});
  };
  for (const gm_read& r : trace.gm_reads) add(r, false);
  for (const gm_write& w : trace.gm_writes) add(w, true);
  // Per instruction its reads first, as for UB.
  std::stable_sort(out.begin(), out.end(), [](const gm_access& a, const gm_access& b) {
    return a.instruction != b.instruction ? a.instruction < b.instruction : !a.write && b.write;
  });
  return out;
}

std::string hint(pipe from, pipe to) {
  std::string flag =
      std::string("SetFlag/WaitFlag<HardEvent::") + to_string(from) + "_" + to_string(to) + ">";
  if (from == pipe::mte2 && to == pipe::v) return "EnQue/DeQue on a VECIN queue or " + flag;
  if (from == pipe::v && to == pipe::mte3) return "EnQue/DeQue on a VECOUT queue or " + flag;
  if (from == pipe::v && to == pipe::mte2)
    return "FreeTensor before AllocTensor of the reused VECIN buffer or " + flag;
  if (from == pipe::mte3 && to == pipe::v)
    return "FreeTensor before AllocTensor of the reused VECOUT buffer or " + flag;
  if (from == pipe::s || to == pipe::s)
    return flag + " or PipeBarrier<PIPE_ALL>; CANN's compiler inserts this one itself with " +
           "auto-sync (device.auto_sync = true, the default)";
  return flag + " or PipeBarrier<PIPE_ALL>";
}

class detector {
 public:
  explicit detector(const core_trace& trace)
      : trace_(trace), clocks_(trace.instructions.size()), gm_(dma_gm_accesses(trace)) {}

  std::optional<data_race> run() {
    size_t next_gm = 0;
    for (uint32_t i = 0; i < trace_.instructions.size(); ++i) {
      advance_clock(i);
      for (const key_range& r : ub_key_ranges(trace_.instructions[i].reads))
        if (auto race = access(ub_, i, r, false)) return race;
      for (const key_range& r : ub_key_ranges(trace_.instructions[i].writes))
        if (auto race = access(ub_, i, r, true)) return race;
      for (; next_gm < gm_.size() && gm_[next_gm].instruction == i; ++next_gm) {
        for (const key_range& r : gm_[next_gm].ranges) {
          if (auto race = access(gm_shadow_, i, r, gm_[next_gm].write)) return race;
        }
      }
    }
    return std::nullopt;
  }

 private:
  // The clock of instruction i: its pipe's knowledge joined with every dependency's and with what
  // the scalar unit learned before issuing it, then one tick of its own pipe. A PIPE_ALL barrier
  // joins every pipe before it and is joined into every pipe after it (issue blocks until all
  // pipes drain).
  //
  // The scalar unit issues every instruction in program order and does not issue past one of its
  // own until it finishes (timing_model.hpp), so what a scalar instruction waited for (a
  // WaitFlag<V_S>, a barrier on S) happens before everything issued after it: a wait for V
  // followed by a scalar-issued MTE2 copy orders the copy after V. The scalar unit's own UB
  // accesses are not ordered that way (a SetValue still needs S_V before the vector unit reads
  // the value), so its own tick is left out.
  void advance_clock(uint32_t i) {
    const instruction& in = trace_.instructions[i];
    const size_t p = index_of(in.on);
    vector_clock c = pipe_clock_[p];
    join(c, issued_after_);
    for (uint32_t d : in.deps)
      if (d < i) join(c, clocks_[d]);
    for (uint32_t d : in.auto_deps)
      if (d < i) join(c, clocks_[d]);
    if (in.all_pipes_barrier)
      for (const vector_clock& other : pipe_clock_) join(c, other);
    if (in.on == pipe::s) {
      vector_clock learned = c;
      learned[index_of(pipe::s)] = issued_after_[index_of(pipe::s)];
      join(issued_after_, learned);
    }
    ++c[p];
    clocks_[i] = c;
    pipe_clock_[p] = c;
    if (in.all_pipes_barrier)
      for (vector_clock& other : pipe_clock_) join(other, c);
  }

  bool ordered_before(uint32_t earlier, uint32_t later) const {
    if (earlier == no_instruction) return true;
    const size_t p = index_of(trace_.instructions[earlier].on);
    if (p == index_of(trace_.instructions[later].on)) return true;
    return clocks_[earlier][p] <= clocks_[later][p];
  }

  // The earlier access to this run that races with the current one, or no_instruction.
  struct conflict {
    uint32_t index = no_instruction;
    bool was_write = false;
  };

  conflict find_conflict(const last_access& s, uint32_t i, bool is_write) const {
    if (!ordered_before(s.writer, i)) return {s.writer, true};
    if (is_write)
      for (uint32_t reader : s.readers)
        if (!ordered_before(reader, i)) return {reader, false};
    return {};
  }

  // Checks instruction i's access to the bytes `r` of `shadow` against the last ones, then
  // records it. A race is described with the bytes in the detector's keys (UB offsets or GM keys).
  std::optional<data_race> access(range_shadow<last_access>& shadow, uint32_t i, key_range r,
                                  bool is_write) {
    const auto first = shadow.cover(r.begin, r.end);
    for (auto it = first; it != shadow.end() && it->first < r.end; ++it) {
      const conflict c = find_conflict(it->second.state, i, is_write);
      if (c.index == no_instruction) continue;
      key_range overlap{it->first, it->second.end};
      for (auto next = std::next(it);
           next != shadow.end() && next->first == overlap.end && next->first < r.end; ++next) {
        const conflict more = find_conflict(next->second.state, i, is_write);
        if (more.index != c.index) break;
        overlap.end = next->second.end;
      }
      return describe(c.index, c.was_write, i, is_write, overlap, &shadow == &gm_shadow_);
    }
    if (is_write) {
      last_access written;
      written.writer = i;
      shadow.assign(r.begin, r.end, written);
    } else {
      const size_t p = index_of(trace_.instructions[i].on);
      const auto last = shadow.past(r.end);
      for (auto it = first; it != last; ++it) it->second.state.readers[p] = i;
    }
    shadow.coalesce(r.begin, r.end);
    return std::nullopt;
  }

  std::string site(uint32_t index) const {
    const instruction& in = trace_.instructions[index];
    std::ostringstream os;
    os << (in.api && *in.api ? in.api : "<unnamed>") << " (" << to_string(in.on) << ", #" << index;
    if (in.line != 0) os << ", line " << in.line;
    os << ")";
    return os.str();
  }

  data_race describe(uint32_t earlier, bool earlier_writes, uint32_t later, bool later_writes,
                     key_range overlap, bool in_gm) const {
    data_race race;
    race.first_index = earlier;
    race.second_index = later;
    std::ostringstream os;
    os << "data race: " << site(earlier) << (earlier_writes ? " writes " : " reads ");
    if (in_gm) {
      race.gm_region = gm_region_of(overlap.begin);
      race.gm_begin = gm_offset_of(overlap.begin);
      race.gm_end = gm_offset_of(overlap.end);
      os << "GM bytes [" << gm_offset_of(overlap.begin) << ", " << gm_offset_of(overlap.end)
         << ") of kernel argument " << gm_region_of(overlap.begin);
    } else {
      race.overlap = {static_cast<uint32_t>(overlap.begin), static_cast<uint32_t>(overlap.end)};
      os << "UB [" << overlap.begin << ", " << overlap.end << ")";
    }
    os << " while " << site(later) << (later_writes ? " writes" : " reads")
       << " it without synchronisation (missing "
       << hint(trace_.instructions[earlier].on, trace_.instructions[later].on) << ")";
    race.message = os.str();
    return race;
  }

  const core_trace& trace_;
  std::vector<vector_clock> clocks_;
  std::array<vector_clock, pipe_count> pipe_clock_{};
  vector_clock issued_after_{};  // what every instruction issued from here on happens after
  range_shadow<last_access> ub_;
  std::vector<gm_access> gm_;  // in instruction order
  range_shadow<last_access> gm_shadow_;
};

}  // namespace

std::optional<data_race> find_first_race(const core_trace& trace) {
  return detector(trace).run();
}

}  // namespace aopt::sim
