#include "hazard_detector.hpp"

#include <algorithm>
#include <array>
#include <limits>
#include <map>
#include <sstream>
#include <vector>

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
std::vector<ub_range> merged(const std::vector<ub_range>& ranges) {
  std::vector<ub_range> out;
  for (const ub_range& r : ranges)
    if (r.begin < r.end) out.push_back(r);
  std::sort(out.begin(), out.end(),
            [](const ub_range& a, const ub_range& b) { return a.begin < b.begin; });
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

// The last accesses to a run of UB bytes: the last write and, per pipe, the last read since it.
// Per pipe the latest read suffices: if it happens before an access, so do the earlier ones.
struct shadow {
  uint32_t end = 0;
  uint32_t writer = no_instruction;
  std::array<uint32_t, pipe_count> readers = no_readers();

  static std::array<uint32_t, pipe_count> no_readers() {
    std::array<uint32_t, pipe_count> r;
    r.fill(no_instruction);
    return r;
  }

  bool same_state(const shadow& o) const { return writer == o.writer && readers == o.readers; }
};

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
  explicit detector(const core_trace& trace) : trace_(trace), clocks_(trace.instructions.size()) {}

  std::optional<data_race> run() {
    for (uint32_t i = 0; i < trace_.instructions.size(); ++i) {
      advance_clock(i);
      for (const ub_range& r : merged(trace_.instructions[i].reads))
        if (auto race = access(i, r, false)) return race;
      for (const ub_range& r : merged(trace_.instructions[i].writes))
        if (auto race = access(i, r, true)) return race;
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

  // Makes [begin, end) a union of whole map entries, adding empty entries for untouched bytes.
  void cover(uint32_t begin, uint32_t end) {
    split_at(begin);
    split_at(end);
    uint32_t pos = begin;
    auto it = shadow_.lower_bound(begin);
    while (pos < end) {
      if (it == shadow_.end() || it->first > pos) {
        const uint32_t gap_end = it == shadow_.end() ? end : std::min(end, it->first);
        shadow new_entry;
        new_entry.end = gap_end;
        it = shadow_.emplace_hint(it, pos, new_entry);
      }
      pos = it->second.end;
      ++it;
    }
  }

  void split_at(uint32_t pos) {
    auto it = shadow_.upper_bound(pos);
    if (it == shadow_.begin()) return;
    --it;
    if (it->first < pos && pos < it->second.end) {
      shadow tail = it->second;
      it->second.end = pos;
      shadow_.emplace_hint(std::next(it), pos, tail);
    }
  }

  // The earlier access to this run that races with the current one, or no_instruction.
  struct conflict {
    uint32_t index = no_instruction;
    bool was_write = false;
  };

  conflict find_conflict(const shadow& s, uint32_t i, bool is_write) const {
    if (!ordered_before(s.writer, i)) return {s.writer, true};
    if (is_write)
      for (uint32_t reader : s.readers)
        if (!ordered_before(reader, i)) return {reader, false};
    return {};
  }

  std::optional<data_race> access(uint32_t i, ub_range r, bool is_write) {
    cover(r.begin, r.end);
    auto first = shadow_.find(r.begin);
    for (auto it = first; it != shadow_.end() && it->first < r.end; ++it) {
      const conflict c = find_conflict(it->second, i, is_write);
      if (c.index == no_instruction) continue;
      ub_range overlap{it->first, it->second.end};
      for (auto next = std::next(it);
           next != shadow_.end() && next->first == overlap.end && next->first < r.end; ++next) {
        const conflict more = find_conflict(next->second, i, is_write);
        if (more.index != c.index) break;
        overlap.end = next->second.end;
      }
      return describe(c.index, c.was_write, i, is_write, overlap);
    }
    auto last = shadow_.lower_bound(r.end);
    if (is_write) {
      shadow written;
      written.end = r.end;
      written.writer = i;
      shadow_.erase(first, last);
      shadow_.emplace(r.begin, written);
    } else {
      const size_t p = index_of(trace_.instructions[i].on);
      for (auto it = first; it != last; ++it) it->second.readers[p] = i;
    }
    coalesce(r.begin, r.end);
    return std::nullopt;
  }

  // Merges runs with identical state in and next to [begin, end) so the map stays small.
  void coalesce(uint32_t begin, uint32_t end) {
    auto it = shadow_.upper_bound(begin);
    if (it != shadow_.begin()) --it;
    if (it != shadow_.begin()) --it;
    while (it != shadow_.end() && it->first <= end) {
      auto next = std::next(it);
      if (next != shadow_.end() && next->first == it->second.end &&
          it->second.same_state(next->second)) {
        it->second.end = next->second.end;
        shadow_.erase(next);
      } else {
        it = next;
      }
    }
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
                     ub_range overlap) const {
    data_race race;
    race.first_index = earlier;
    race.second_index = later;
    race.overlap = overlap;
    std::ostringstream os;
    os << "data race: " << site(earlier) << (earlier_writes ? " writes" : " reads") << " UB ["
       << overlap.begin << ", " << overlap.end << ") while " << site(later)
       << (later_writes ? " writes" : " reads") << " it without synchronisation (missing "
       << hint(trace_.instructions[earlier].on, trace_.instructions[later].on) << ")";
    race.message = os.str();
    return race;
  }

  const core_trace& trace_;
  std::vector<vector_clock> clocks_;
  std::array<vector_clock, pipe_count> pipe_clock_{};
  vector_clock issued_after_{};        // what every instruction issued from here on happens after
  std::map<uint32_t, shadow> shadow_;  // keyed by first byte; entries are disjoint
};

}  // namespace

std::optional<data_race> find_first_race(const core_trace& trace) {
  return detector(trace).run();
}

}  // namespace aopt::sim
