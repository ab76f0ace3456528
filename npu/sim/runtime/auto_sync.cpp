#include "auto_sync.hpp"

#include <algorithm>
#include <array>
#include <limits>
#include <vector>

namespace aopt::sim {
namespace {

constexpr uint32_t none = std::numeric_limits<uint32_t>::max();
constexpr uint32_t block_bytes = 32;

// Per 32-byte UB block, the latest instruction of one pipe that wrote it and that touched it,
// and the bytes any of them touched: an access outside those needs no look at the blocks.
struct block_history {
  std::vector<uint32_t> last_write;
  std::vector<uint32_t> last_touch;
  uint32_t touched_begin = std::numeric_limits<uint32_t>::max();
  uint32_t touched_end = 0;

  explicit block_history(size_t blocks) : last_write(blocks, none), last_touch(blocks, none) {}

  // The latest instruction here that an access to `r` must follow.
  uint32_t conflicting(ub_range r, bool write) const {
    if (r.end <= touched_begin || r.begin >= touched_end) return none;
    const std::vector<uint32_t>& table = write ? last_touch : last_write;
    uint32_t latest = none;
    for (uint32_t b = r.begin / block_bytes; b * block_bytes < r.end; ++b)
      if (table[b] != none && (latest == none || table[b] > latest)) latest = table[b];
    return latest;
  }

  void record(ub_range r, bool write, uint32_t index) {
    touched_begin = std::min(touched_begin, r.begin / block_bytes * block_bytes);
    touched_end = std::max(touched_end, (r.end + block_bytes - 1) / block_bytes * block_bytes);
    for (uint32_t b = r.begin / block_bytes; b * block_bytes < r.end; ++b) {
      last_touch[b] = index;
      if (write) last_write[b] = index;
    }
  }
};

size_t blocks_needed(const core_trace& trace) {
  uint32_t end = 0;
  for (const instruction& in : trace.instructions) {
    for (const ub_range& r : in.reads) end = std::max(end, r.end);
    for (const ub_range& r : in.writes) end = std::max(end, r.end);
  }
  return end / block_bytes + 1;
}

// The latest instruction in `history` that `in`'s accesses must follow, or none.
uint32_t must_follow(const block_history& history, const instruction& in) {
  uint32_t latest = none;
  auto consider = [&latest](uint32_t i) {
    if (i != none && (latest == none || i > latest)) latest = i;
  };
  for (const ub_range& r : in.reads)
    if (r.begin < r.end) consider(history.conflicting(r, false));
  for (const ub_range& r : in.writes)
    if (r.begin < r.end) consider(history.conflicting(r, true));
  return latest;
}

}  // namespace

void insert_auto_sync(core_trace& trace) {
  clear_auto_sync(trace);
  const size_t blocks = blocks_needed(trace);
  std::vector<block_history> history(pipe_count, block_history(blocks));
  // Per pipe, the latest instruction of it that the scalar pipe already follows through an
  // inserted edge, and per pipe the latest scalar access it already follows: an edge to an
  // earlier one would order nothing new (each pipe runs in order).
  std::array<uint32_t, pipe_count> scalar_follows;
  std::array<uint32_t, pipe_count> follows_scalar;
  scalar_follows.fill(none);
  follows_scalar.fill(none);
  auto newer = [](uint32_t candidate, uint32_t known) {
    return candidate != none && (known == none || candidate > known);
  };

  // Per pipe, its latest instruction so far: an inserted SetFlag is issued on the producing pipe
  // right before the consumer's WaitFlag, and a SetFlag waits for every earlier instruction of
  // its pipe (the SetFlag/WaitFlag reference), so the edge goes to that pipe's latest instruction,
  // not only to the one that touched the data.
  std::array<uint32_t, pipe_count> latest_of;
  latest_of.fill(none);
  // Only a scalar access reads another pipe's history, so what another pipe does after the last
  // scalar access need not be recorded (most kernels have none: their UB is the vector pipes').
  uint32_t last_scalar_access = none;
  for (uint32_t i = 0; i < trace.instructions.size(); ++i) {
    const instruction& in = trace.instructions[i];
    if (in.on == pipe::s && !(in.reads.empty() && in.writes.empty())) last_scalar_access = i;
  }

  for (uint32_t i = 0; i < trace.instructions.size(); ++i) {
    instruction& in = trace.instructions[i];
    const auto p = static_cast<size_t>(in.on);
    if (in.reads.empty() && in.writes.empty()) {
      latest_of[p] = i;
      continue;
    }
    if (in.on == pipe::s) {
      for (size_t other = 0; other < pipe_count; ++other) {
        if (other == p || must_follow(history[other], in) == none) continue;
        const uint32_t dep = latest_of[other];
        if (newer(dep, scalar_follows[other])) {
          in.auto_deps.push_back(dep);
          scalar_follows[other] = dep;
        }
      }
    } else if (must_follow(history[static_cast<size_t>(pipe::s)], in) != none) {
      const uint32_t dep = latest_of[static_cast<size_t>(pipe::s)];
      if (newer(dep, follows_scalar[p])) {
        in.auto_deps.push_back(dep);
        follows_scalar[p] = dep;
      }
    }
    latest_of[p] = i;
    if (in.on != pipe::s && (last_scalar_access == none || i > last_scalar_access)) continue;
    for (const ub_range& r : in.reads)
      if (r.begin < r.end) history[p].record(r, false, i);
    for (const ub_range& r : in.writes)
      if (r.begin < r.end) history[p].record(r, true, i);
  }
}

void clear_auto_sync(core_trace& trace) {
  for (instruction& in : trace.instructions) in.auto_deps.clear();
}

}  // namespace aopt::sim
