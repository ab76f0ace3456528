// Builds one core's instruction trace (trace.hpp) as the kernel API shim executes: one
// instruction per API call in program order, the last instruction of each pipe (for barriers),
// and the coalescing of scalar accesses.
//
// Scalar coalescing: while nothing but scalar accesses run, all LocalTensor accesses share one
// scalar_ub instruction and all GlobalTensor accesses one scalar_gm instruction (count, bytes and
// UB ranges accumulate), so an element-wise GetValue/SetValue loop costs one or two entries.
// Every other instruction ends the run. All of it is on the scalar pipe, which executes in
// order, so merging changes neither the ordering against other pipes nor the total work.
//
// With recording off, add() returns no_index and keeps nothing; callers still run every check.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "runs_digest.hpp"
#include "trace.hpp"

namespace aopt::sim {

class trace_recorder {
 public:
  static constexpr uint32_t no_index = 0xffffffffu;

  trace_recorder(bool on, uint32_t block_idx);

  bool on() const { return on_; }

  // The unit this core is (launch_layout.hpp). On an AIC of a MIX launch vector work is refused,
  // on an AIV cube work, each as sim_error "unsupported" naming the call: the unit is not there.
  void set_core(core_kind kind, uint32_t group);
  // Room for `instructions` before the trace must grow (recording on only).
  void reserve(size_t instructions);
  // While on, cube work on an AIV is a Matmul object's request to its group's AIC
  // (instruction::on_group_cube) rather than refused.
  void serve_group_cube(bool on) { serving_group_cube_ = on; }

  // Appends `in` (closing any scalar run) and returns its index.
  uint32_t add(instruction in);
  // An instruction on `p` with deps = {dep} when dep is not no_index.
  uint32_t add_sync(pipe p, op_class cls, const char* api, uint32_t line, uint32_t dep);

  void scalar_ub(const char* api, uint32_t line, ub_range r, bool write);
  void scalar_gm(const char* api, uint32_t line, uint32_t bytes, bool write);

  uint32_t last_on(pipe p) const { return last_on_[static_cast<size_t>(p)]; }
  size_t instruction_count() const { return trace_.instructions.size(); }
  // The index the next add() gets (no_index with recording off): the owner of the GM accesses an
  // API records before the instruction that makes them (gm_runs::instruction).
  uint32_t next_index() const;
  // The coalesced GlobalTensor access instruction scalar_gm() last opened or extended.
  uint32_t scalar_gm_index() const { return open_gm_; }

  void count_gm(uint64_t read_bytes, uint64_t write_bytes);
  // Records a GM write (recording on or off); a single burst continuing the previous one of the
  // same region and instruction, with no write of another block between, extends it, so an
  // element-wise SetValue loop stays one entry.
  void gm_written(gm_write w);
  // Records (recording on only) a GM read of region `region` at `offset` by instruction `by`:
  // `bursts` runs of `burst_bytes` every `stride` bytes starting at `first`, hashed now. A single
  // burst of the same instruction that continues the previous read with `seq` next after its own
  // extends it, so an element-wise GetValue loop stays one entry.
  void gm_read_from(uint32_t region, uint64_t offset, const uint8_t* first, uint64_t stride,
                    uint32_t burst_bytes, uint32_t bursts, uint64_t seq, uint32_t by);
  void note_ub_use(uint64_t end);
  void note_ub_carve(const ub_carve& carve);

  core_trace take();

 private:
  uint32_t push(instruction in);

  bool on_;
  bool serving_group_cube_ = false;
  core_trace trace_;
  std::array<uint32_t, pipe_count> last_on_;
  uint32_t open_ub_ = no_index;
  uint32_t open_gm_ = no_index;
  // The digest of the last gm_reads entry while a later burst may still extend it.
  runs_digest open_read_;
  bool read_open_ = false;
};

// Adds `r` to the sorted, disjoint list `ranges`, merging touching ranges. Keeps at most
// `max_ranges` entries by joining the pair with the smallest gap.
void merge_range(std::vector<ub_range>& ranges, ub_range r, size_t max_ranges);

}  // namespace aopt::sim
