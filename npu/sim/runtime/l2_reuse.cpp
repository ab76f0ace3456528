#include "l2_reuse.hpp"

#include <algorithm>
#include <iterator>
#include <map>

namespace aopt::sim {
namespace {

// The bytes of one GM buffer that some access has touched: disjoint [begin, end) by begin.
class touched_bytes {
 public:
  // How many of [begin, end) were touched already; then all of them are.
  uint64_t touch(uint64_t begin, uint64_t end) {
    uint64_t seen = 0;
    auto it = ranges_.upper_bound(begin);
    if (it != ranges_.begin() && std::prev(it)->second >= begin) --it;
    uint64_t lo = begin, hi = end;
    while (it != ranges_.end() && it->first <= end) {
      if (it->second > begin && it->first < end)
        seen += std::min(end, it->second) - std::max(begin, it->first);
      lo = std::min(lo, it->first);
      hi = std::max(hi, it->second);
      it = ranges_.erase(it);
    }
    ranges_.emplace(lo, hi);
    return seen;
  }

 private:
  std::map<uint64_t, uint64_t> ranges_;
};

struct gm_access {
  uint64_t seq = 0;
  const gm_runs* runs = nullptr;
  uint32_t core = 0;
  bool l1_load = false;  // made by a GM -> L1 load (runs->instruction)
};

}  // namespace

bool is_l1_load(const instruction& in) {
  return in.cls == op_class::dma_in && in.repeats == 1;
}

std::vector<l2_hit_bytes> find_l2_hits(const std::vector<core_trace>& traces) {
  std::vector<gm_access> accesses;
  for (uint32_t c = 0; c < traces.size(); ++c) {
    const core_trace& t = traces[c];
    for (const gm_write& w : t.gm_writes) accesses.push_back({w.seq, &w, c, false});
    for (const gm_read& r : t.gm_reads) {
      const bool load =
          r.instruction < t.instructions.size() && is_l1_load(t.instructions[r.instruction]);
      accesses.push_back({r.seq, &r, c, load});
    }
  }
  std::stable_sort(accesses.begin(), accesses.end(),
                   [](const gm_access& a, const gm_access& b) { return a.seq < b.seq; });
  std::vector<l2_hit_bytes> hits(traces.size());
  std::map<uint32_t, touched_bytes> regions;
  for (const gm_access& a : accesses) {
    touched_bytes& region = regions[a.runs->region];
    uint64_t seen = 0;
    // Run by run, so that a load re-reading its own bytes (a zero stride) hits on them too.
    for (uint32_t k = 0; k < a.runs->bursts; ++k) {
      const uint64_t begin = a.runs->offset + a.runs->stride * k;
      seen += region.touch(begin, begin + a.runs->burst_bytes);
    }
    if (!a.l1_load || seen == 0) continue;
    const instruction& load = traces[a.core].instructions[a.runs->instruction];
    uint64_t& hit = hits[a.core][a.runs->instruction];
    hit = std::min(load.bytes, hit + seen);
  }
  return hits;
}

}  // namespace aopt::sim
