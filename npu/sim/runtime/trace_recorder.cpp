#include "trace_recorder.hpp"

#include "byte_arena.hpp"
#include "core_context.hpp"
#include "kernel_state.hpp"

#include <algorithm>
#include <cstring>
#include <string>
#include <utility>

namespace aopt::sim {
namespace {

// Enough for the access patterns of real scalar loops (a few tensors, rows with gaps) while
// bounding the hazard detector's work on one coalesced instruction.
constexpr size_t max_scalar_ranges = 64;

// The scalar unit moves at most 8 bytes per access: GetValue/SetValue of a wider element type (a
// struct) costs one access per 8 bytes, so a scalar access is priced by the bytes it moves.
uint64_t scalar_accesses(uint64_t bytes) {
  return std::max<uint64_t>(1, (bytes + 7) / 8);
}

constexpr const char* mixed_local = "LocalTensor::GetValue/SetValue";
constexpr const char* mixed_global = "GlobalTensor::GetValue/SetValue";

// Names a coalesced instruction after its calls: `api`, or `mixed` once two differ.
void rename(instruction& in, const char* api, const char* mixed) {
  if (in.api != api && in.api != mixed && std::strcmp(in.api, api) != 0) in.api = mixed;
}

}  // namespace

void merge_range(std::vector<ub_range>& ranges, ub_range r, size_t max_ranges) {
  if (r.begin >= r.end) return;
  if (!ranges.empty()) {
    ub_range& last = ranges.back();
    if (r.begin >= last.begin && r.begin <= last.end) {  // the common ascending walk
      last.end = std::max(last.end, r.end);
      return;
    }
  }
  auto it =
      std::lower_bound(ranges.begin(), ranges.end(), r,
                       [](const ub_range& a, const ub_range& b) { return a.begin < b.begin; });
  if (it != ranges.begin() && std::prev(it)->end >= r.begin) --it;
  if (it != ranges.end() && it->begin <= r.end) {
    it->begin = std::min(it->begin, r.begin);
    it->end = std::max(it->end, r.end);
    auto next = std::next(it);
    while (next != ranges.end() && next->begin <= it->end) {
      it->end = std::max(it->end, next->end);
      next = ranges.erase(next);
    }
  } else {
    ranges.insert(it, r);
  }
  while (ranges.size() > max_ranges) {
    size_t best = 0;
    for (size_t i = 1; i + 1 < ranges.size(); ++i)
      if (ranges[i + 1].begin - ranges[i].end < ranges[best + 1].begin - ranges[best].end) best = i;
    ranges[best].end = ranges[best + 1].end;
    ranges.erase(ranges.begin() + static_cast<std::ptrdiff_t>(best) + 1);
  }
}

trace_recorder::trace_recorder(bool on, uint32_t block_idx) : on_(on) {
  trace_.block_idx = block_idx;
  last_on_.fill(no_index);
}

void trace_recorder::reserve(size_t instructions) {
  if (on_) trace_.instructions.reserve(instructions);
}

void trace_recorder::set_core(core_kind kind, uint32_t group) {
  trace_.kind = kind;
  trace_.group = group;
}

uint32_t trace_recorder::push(instruction in) {
  if (trace_.kind == core_kind::aiv && is_cube_class(in.cls)) {
    if (!serving_group_cube_) {
      throw sim_error("unsupported",
                      kernel::where(in.api, aopt_sim::rt::call_site(in.line)) +
                          ": cube work on an AIV; in a MIX kernel the cube instructions run on "
                          "the AIC (guard them with ASCEND_IS_AIC)");
    }
    in.on_group_cube = true;
  }
  if (trace_.kind == core_kind::aic && is_vector_class(in.cls)) {
    throw sim_error("unsupported",
                    kernel::where(in.api, aopt_sim::rt::call_site(in.line)) +
                        ": vector work on an AIC; in a MIX kernel the vector instructions run on "
                        "the AIVs (guard them with ASCEND_IS_AIV)");
  }
  if (!on_) return no_index;
  const auto index = static_cast<uint32_t>(trace_.instructions.size());
  last_on_[static_cast<size_t>(in.on)] = index;
  trace_.instructions.push_back(std::move(in));
  return index;
}

uint32_t trace_recorder::next_index() const {
  return on_ ? static_cast<uint32_t>(trace_.instructions.size()) : no_index;
}

uint32_t trace_recorder::add(instruction in) {
  open_ub_ = no_index;
  open_gm_ = no_index;
  return push(std::move(in));
}

uint32_t trace_recorder::add_sync(pipe p, op_class cls, const char* api, uint32_t line,
                                  uint32_t dep) {
  if (!on_) return no_index;
  instruction in;
  in.on = p;
  in.cls = cls;
  in.api = api;
  in.line = line;
  if (dep != no_index) in.deps.push_back(dep);
  return add(std::move(in));
}

void trace_recorder::scalar_ub(const char* api, uint32_t line, ub_range r, bool write) {
  if (!on_) return;
  if (open_ub_ == no_index) {
    instruction in;
    in.on = pipe::s;
    in.cls = op_class::scalar_ub;
    in.api = api;
    in.line = line;
    in.count = 0;
    open_ub_ = push(std::move(in));
  }
  instruction& in = trace_.instructions[open_ub_];
  rename(in, api, mixed_local);
  in.count += scalar_accesses(r.end - r.begin);
  in.bytes += r.end - r.begin;
  merge_range(write ? in.writes : in.reads, r, max_scalar_ranges);
}

void trace_recorder::scalar_gm(const char* api, uint32_t line, uint32_t bytes, bool write) {
  count_gm(write ? 0 : bytes, write ? bytes : 0);
  if (!on_) return;
  if (open_gm_ == no_index) {
    instruction in;
    in.on = pipe::s;
    in.cls = op_class::scalar_gm;
    in.api = api;
    in.line = line;
    in.count = 0;
    open_gm_ = push(std::move(in));
  }
  instruction& in = trace_.instructions[open_gm_];
  rename(in, api, mixed_global);
  in.count += scalar_accesses(bytes);
  in.bytes += bytes;
}

void trace_recorder::count_gm(uint64_t read_bytes, uint64_t write_bytes) {
  trace_.gm_read_bytes += read_bytes;
  trace_.gm_write_bytes += write_bytes;
}

void trace_recorder::gm_written(gm_write w) {
  if (w.bursts == 0 || w.burst_bytes == 0) return;
  std::vector<gm_write>& all = trace_.gm_writes;
  // Merged only when no write of any block came between (seq consecutive), so that replaying
  // the writes in seq order stays exact.
  if (!all.empty() && w.bursts == 1) {
    gm_write& last = all.back();
    if (last.bursts == 1 && last.region == w.region && last.offset + last.burst_bytes == w.offset &&
        last.seq + 1 == w.seq && last.instruction == w.instruction &&
        last.data.empty() == w.data.empty() &&
        uint64_t{last.burst_bytes} + w.burst_bytes <= UINT32_MAX) {
      last.burst_bytes += w.burst_bytes;
      last.seq = w.seq;
      if (byte_arena::extend(last.data, w.data)) return;
      std::vector<uint8_t>& data = last.data.mutable_bytes();
      data.insert(data.end(), w.data.begin(), w.data.end());
      return;
    }
  }
  all.push_back(std::move(w));
}

void trace_recorder::note_ub_use(uint64_t end) {
  trace_.ub_high_water_bytes = std::max(trace_.ub_high_water_bytes, end);
}

void trace_recorder::note_ub_carve(const ub_carve& carve) {
  trace_.ub_carves.push_back(carve);
}

void trace_recorder::gm_read_from(uint32_t region, uint64_t offset, const uint8_t* first,
                                  uint64_t stride, uint32_t burst_bytes, uint32_t bursts,
                                  uint64_t seq, uint32_t by) {
  if (!on_ || bursts == 0 || burst_bytes == 0) return;
  std::vector<gm_read>& all = trace_.gm_reads;
  if (read_open_ && bursts == 1) {
    gm_read& last = all.back();
    if (last.region == region && last.offset + last.burst_bytes == offset && last.seq + 1 == seq &&
        last.instruction == by && uint64_t{last.burst_bytes} + burst_bytes <= UINT32_MAX) {
      open_read_.add(first, 0, burst_bytes, 1);
      last.burst_bytes += burst_bytes;
      last.seq = seq;
      last.digest = open_read_.value();
      return;
    }
  }
  gm_read r;
  r.region = region;
  r.offset = offset;
  r.stride = stride;
  r.burst_bytes = burst_bytes;
  r.bursts = bursts;
  r.seq = seq;
  r.instruction = by;
  open_read_.reset();
  open_read_.add(first, stride, burst_bytes, bursts);
  r.digest = open_read_.value();
  read_open_ = bursts == 1;
  all.push_back(r);
}

core_trace trace_recorder::take() {
  read_open_ = false;
  open_ub_ = no_index;
  open_gm_ = no_index;
  last_on_.fill(no_index);
  core_trace fresh;
  fresh.block_idx = trace_.block_idx;
  fresh.kind = trace_.kind;
  fresh.group = trace_.group;
  return std::exchange(trace_, std::move(fresh));
}

}  // namespace aopt::sim
