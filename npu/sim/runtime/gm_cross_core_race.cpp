#include "gm_cross_core_race.hpp"

#include <algorithm>
#include <limits>
#include <map>
#include <set>
#include <sstream>

#include "gm_key_ranges.hpp"
#include "range_shadow.hpp"

namespace aopt::sim {
namespace {

constexpr uint32_t nobody = std::numeric_limits<uint32_t>::max();

bool synchronises_cores(op_class c) {
  return c == op_class::sync_all || c == op_class::ib_set || c == op_class::ib_wait ||
         c == op_class::cross_set || c == op_class::cross_wait;
}

// Per core of the launch: how many of its segments are known to be done.
using core_clock = std::vector<uint32_t>;

void join(core_clock& into, const core_clock& other) {
  for (size_t c = 0; c < into.size(); ++c) into[c] = std::max(into[c], other[c]);
}

// A core's trace cut at its synchronisations into segments (segment k lies between its k-th and
// (k+1)-th), and per segment what the core knows of the others when the segment starts: segment s
// of core a is done before segment t of core b starts when b's clock at t counts more than s of
// a's segments. Found as the simulator ran the launch: each core goes on to its next wait whose
// flag or signals no core has set yet, or its next SyncAll, which passes when every core of its
// SyncAll class (trace.hpp core_kind) that is not done waits there.
class segment_clocks {
 public:
  explicit segment_clocks(const std::vector<core_trace>& traces)
      : traces_(traces), syncs_(traces.size()) {
    bool any = false;
    for (size_t c = 0; c < traces.size(); ++c) {
      const auto& ins = traces[c].instructions;
      for (uint32_t i = 0; i < ins.size(); ++i) {
        if (synchronises_cores(ins[i].cls)) syncs_[c].push_back(i);
      }
      any = any || !syncs_[c].empty();
    }
    if (any) compute();
  }

  uint32_t segment(size_t core, uint32_t instruction) const {
    const auto& s = syncs_[core];
    return static_cast<uint32_t>(std::lower_bound(s.begin(), s.end(), instruction) - s.begin());
  }

  // Whether any core synchronises with another: without, no access of one core is ordered
  // against another's.
  bool synchronised() const { return !clocks_.empty(); }

  // Whether segment `a_segment` of core `a` is done before segment `b_segment` of core `b` starts.
  bool before(size_t a, uint32_t a_segment, size_t b, uint32_t b_segment) const {
    if (clocks_.empty()) return false;
    return clocks_[b][b_segment][a] > a_segment;
  }

 private:
  void compute() {
    const size_t n = traces_.size();
    clocks_.assign(n, {});
    for (auto& c : clocks_) c.push_back(core_clock(n, 0));
    std::vector<size_t> next(n, 0);          // per core, its next synchronisation in syncs_
    std::map<uint64_t, core_clock> flags;    // IBSet by flag (the first set counts)
    std::map<uint64_t, core_clock> signals;  // CrossCoreSetFlag by signal id
    for (;;) {
      bool moved = false;
      for (size_t c = 0; c < n; ++c) {
        while (next[c] < syncs_[c].size()) {
          const instruction& in = traces_[c].instructions[syncs_[c][next[c]]];
          core_clock at = release(c, next[c]);
          if (in.cls == op_class::sync_all) break;
          if (in.cls == op_class::ib_set) flags.emplace(in.bytes, at);
          if (in.cls == op_class::cross_set)
            for (uint64_t id : in.signals) signals.emplace(id, at);
          if (in.cls == op_class::ib_wait) {
            const auto set = flags.find(in.bytes);
            if (set == flags.end()) break;
            join(at, set->second);
          }
          if (in.cls == op_class::cross_wait) {
            if (!std::all_of(in.signals.begin(), in.signals.end(),
                             [&](uint64_t id) { return signals.count(id) != 0; }))
              break;
            for (uint64_t id : in.signals) join(at, signals.at(id));
          }
          pass(c, next, std::move(at));
          moved = true;
        }
      }
      if (moved) continue;
      if (!pass_sync_alls(next)) {
        // Nothing can go on: a wait no core satisfies, which the functional run reported as a
        // deadlock. The waits pass with what their core knew, so the walk ends.
        bool stuck = false;
        for (size_t c = 0; c < n; ++c) {
          if (next[c] >= syncs_[c].size()) continue;
          pass(c, next, release(c, next[c]));
          stuck = true;
        }
        if (!stuck) return;
      }
    }
  }

  // What core c knows as its synchronisation `k` (ending segment k) completes.
  core_clock release(size_t c, size_t k) const {
    core_clock at = clocks_[c].back();
    at[c] = static_cast<uint32_t>(k + 1);
    return at;
  }

  void pass(size_t c, std::vector<size_t>& next, core_clock at) {
    clocks_[c].push_back(std::move(at));
    ++next[c];
  }

  // Passes the SyncAll of every class whose cores not yet done all wait in one. Whether any did.
  bool pass_sync_alls(std::vector<size_t>& next) {
    const size_t n = traces_.size();
    std::map<core_kind, bool> blocked_elsewhere;
    std::map<core_kind, core_clock> joined;
    for (size_t c = 0; c < n; ++c) {
      if (next[c] >= syncs_[c].size()) continue;
      const core_kind k = traces_[c].kind;
      if (traces_[c].instructions[syncs_[c][next[c]]].cls != op_class::sync_all) {
        blocked_elsewhere[k] = true;
        continue;
      }
      auto [it, fresh] = joined.emplace(k, core_clock(n, 0));
      join(it->second, release(c, next[c]));
    }
    bool any = false;
    for (size_t c = 0; c < n; ++c) {
      if (next[c] >= syncs_[c].size()) continue;
      const core_kind k = traces_[c].kind;
      if (blocked_elsewhere[k] ||
          traces_[c].instructions[syncs_[c][next[c]]].cls != op_class::sync_all)
        continue;
      pass(c, next, joined.at(k));
      any = true;
    }
    return any;
  }

  const std::vector<core_trace>& traces_;
  std::vector<std::vector<uint32_t>> syncs_;     // per core, its synchronisations' indices
  std::vector<std::vector<core_clock>> clocks_;  // per core and segment; none without any
};

struct access_ref {
  uint32_t core = nobody;
  uint32_t segment = 0;
  uint32_t instruction = 0;
  const gm_write* write = nullptr;  // a write's bytes, to compare with another core's
  bool operator==(const access_ref& o) const {
    return core == o.core && segment == o.segment && instruction == o.instruction &&
           write == o.write;
  }
};

// The byte `w` left at GM offset `offset` of its region, or null where it wrote none (a gap
// between its bursts). When bursts overlap, the last one's.
const uint8_t* byte_written(const gm_write& w, uint64_t offset) {
  if (offset < w.offset || w.bursts == 0) return nullptr;
  const uint64_t from = offset - w.offset;
  uint64_t k = w.stride == 0 ? w.bursts - 1 : std::min<uint64_t>(from / w.stride, w.bursts - 1);
  for (;;) {
    const uint64_t start = k * w.stride;
    if (from >= start && from - start < w.burst_bytes) {
      const uint64_t at = k * w.burst_bytes + (from - start);
      return at < w.data.size() ? w.data.data() + at : nullptr;
    }
    // An earlier burst holds it only while bursts are longer than their stride.
    if (k == 0 || from - (k - 1) * w.stride >= w.burst_bytes) return nullptr;
    --k;
  }
}

// The first GM key of [begin, end) where `a` and `b` both wrote and left different bytes.
std::optional<uint64_t> first_difference(const gm_write& a, const gm_write& b, uint64_t begin,
                                         uint64_t end) {
  for (uint64_t key = begin; key < end; ++key) {
    const uint8_t* x = byte_written(a, gm_offset_of(key));
    const uint8_t* y = byte_written(b, gm_offset_of(key));
    if (x != nullptr && y != nullptr && *x != *y) return key;
  }
  return std::nullopt;
}

// The last write to a run of GM bytes and, per core, the last read of it. A core's latest read
// stands for its earlier ones: the simulator ran the accesses in an order every synchronisation
// respects, so an access later than that read is ordered after it or not at all, and then after
// none of the core's earlier reads either only if it races with the latest too.
struct last_accesses {
  access_ref writer;
  std::vector<access_ref> readers;  // one per core, in no order
  bool operator==(const last_accesses& o) const {
    return writer == o.writer && readers == o.readers;
  }
};

struct gm_event {
  uint64_t seq = 0;
  access_ref who;
  bool write = false;
  const gm_runs* runs = nullptr;
};

std::string core_name(const core_trace& t) {
  if (t.kind == core_kind::whole) return "block " + std::to_string(t.block_idx);
  return std::string(to_string(t.kind)) + " " + std::to_string(t.block_idx) + " (group " +
         std::to_string(t.group) + ")";
}

std::string site(const std::vector<core_trace>& traces, const access_ref& a) {
  const core_trace& t = traces[a.core];
  const instruction& in = t.instructions[a.instruction];
  std::ostringstream os;
  os << core_name(t) << "'s " << (in.api && *in.api ? in.api : "<unnamed>") << " ("
     << to_string(in.on) << ", #" << a.instruction;
  if (in.line != 0) os << ", line " << in.line;
  os << ")";
  return os.str();
}

class detector {
 public:
  explicit detector(const std::vector<core_trace>& traces) : traces_(traces), clocks_(traces) {}

  std::optional<cross_core_race> run() {
    for (const gm_event& e : events()) {
      for (const key_range& r : gm_key_ranges(*e.runs)) {
        if (auto race = access(e, r)) return race;
      }
    }
    return std::nullopt;
  }

 private:
  // Every GM access some instruction of its core made to a kernel argument the launch both
  // reads and writes (only there can a read and a write meet) or that two cores write (only
  // there can two writes meet), in the order the simulator ran them.
  std::vector<gm_event> events() const {
    std::set<uint32_t> read, written, written_twice;
    std::map<uint32_t, size_t> writer;  // per argument, a core that writes it
    for (size_t c = 0; c < traces_.size(); ++c) {
      const core_trace& t = traces_[c];
      for (const gm_read& r : t.gm_reads) read.insert(r.region);
      for (const gm_write& w : t.gm_writes) {
        written.insert(w.region);
        const auto [it, fresh] = writer.emplace(w.region, c);
        if (!fresh && it->second != c) written_twice.insert(w.region);
      }
    }
    std::vector<gm_event> out;
    for (size_t c = 0; c < traces_.size(); ++c) {
      const core_trace& t = traces_[c];
      auto add = [&](const gm_runs& g, const gm_write* write) {
        if (g.instruction >= t.instructions.size()) return;
        const bool read_and_written = read.count(g.region) != 0 && written.count(g.region) != 0;
        if (!read_and_written && written_twice.count(g.region) == 0) return;
        access_ref who{static_cast<uint32_t>(c), clocks_.segment(c, g.instruction), g.instruction,
                       write};
        out.push_back({g.seq, who, write != nullptr, &g});
      };
      for (const gm_read& r : t.gm_reads) add(r, nullptr);
      for (const gm_write& w : t.gm_writes) add(w, &w);
    }
    std::stable_sort(out.begin(), out.end(),
                     [](const gm_event& a, const gm_event& b) { return a.seq < b.seq; });
    return out;
  }

  // Either ordered before the other, or of one core (hazard_detector.hpp's concern).
  bool ordered(const access_ref& a, const access_ref& b) const {
    return a.core == nobody || a.core == b.core ||
           clocks_.before(a.core, a.segment, b.core, b.segment) ||
           clocks_.before(b.core, b.segment, a.core, a.segment);
  }

  std::optional<cross_core_race> access(const gm_event& e, key_range r) {
    const auto first = shadow_.cover(r.begin, r.end);
    for (auto it = first; it != shadow_.end() && it->first < r.end; ++it) {
      const last_accesses& s = it->second.state;
      if (!e.write && !ordered(s.writer, e.who)) {
        return describe(s.writer, true, e.who, false, {it->first, it->second.end});
      }
      if (e.write) {
        for (const access_ref& reader : s.readers) {
          if (!ordered(reader, e.who)) {
            return describe(reader, false, e.who, true, {it->first, it->second.end});
          }
        }
        // Two cores storing different bytes with nothing ordering them: which one the output
        // keeps depends on which core the hardware runs last, where the simulator always runs
        // them in block order. The same bytes (a shared tail) or an accumulation are no race.
        if (!ordered(s.writer, e.who) && !accumulates(s.writer) && !accumulates(e.who)) {
          const uint64_t begin = std::max(it->first, r.begin);
          const uint64_t end = std::min(it->second.end, r.end);
          if (const auto key = first_difference(*s.writer.write, *e.who.write, begin, end)) {
            return describe(s.writer, true, e.who, true, {*key, end},
                            " and leave different bytes, so the output depends on which core "
                            "the hardware runs last");
          }
        }
      }
    }
    const auto last = shadow_.past(r.end);
    for (auto it = first; it != last; ++it) {
      last_accesses& s = it->second.state;
      if (e.write) {
        s.writer = e.who;
        continue;
      }
      auto mine = std::find_if(s.readers.begin(), s.readers.end(),
                               [&](const access_ref& a) { return a.core == e.who.core; });
      if (mine != s.readers.end()) {
        *mine = e.who;
      } else if (clocks_.synchronised() || s.readers.size() < 2) {
        // Unsynchronised, any reader of another core races with a write: two readers of different
        // cores always leave one that is not the writer's, and the list stays short when
        // thousands of blocks read a shared input.
        s.readers.push_back(e.who);
      }
    }
    shadow_.coalesce(r.begin, r.end);
    return std::nullopt;
  }

  // Whether the access accumulates into GM (SetAtomicAdd and its kind): such writes land in any
  // order by design.
  bool accumulates(const access_ref& a) const {
    return a.write != nullptr && traces_[a.core].instructions[a.instruction].accumulates;
  }

  cross_core_race describe(const access_ref& earlier, bool earlier_writes, const access_ref& later,
                           bool later_writes, key_range bytes, const char* what = "") const {
    cross_core_race race;
    race.first_core = earlier.core;
    race.first_index = earlier.instruction;
    race.second_core = later.core;
    race.second_index = later.instruction;
    std::ostringstream os;
    os << "data race between cores: " << site(traces_, earlier)
       << (earlier_writes ? " writes" : " reads") << " GM bytes [" << gm_offset_of(bytes.begin)
       << ", " << gm_offset_of(bytes.end) << ") of kernel argument " << gm_region_of(bytes.begin)
       << " and " << site(traces_, later) << (later_writes ? " writes" : " reads")
       << " them with no synchronisation between the cores ordering the two (missing SyncAll, "
          "IBSet/IBWait or CrossCoreSetFlag/WaitFlag after the "
       << (earlier_writes ? "write" : "read") << " and before the "
       << (later_writes ? "write" : "read") << ")" << what;
    race.message = os.str();
    return race;
  }

  const std::vector<core_trace>& traces_;
  segment_clocks clocks_;
  range_shadow<last_accesses> shadow_;
};

}  // namespace

std::optional<cross_core_race> find_cross_core_race(const std::vector<core_trace>& traces) {
  return detector(traces).run();
}

}  // namespace aopt::sim
