// Hand-built core traces for the timing and hazard tests, shaped the way the kernel API shim
// records them (docs/ascendc-reference.md §3): TQue operations become set_flag/wait_flag pairs
// whose deps edges carry the hidden synchronisation, so the tests need no shim.
#pragma once

#include <array>
#include <cstdint>
#include <deque>
#include <initializer_list>
#include <vector>

#include "npu/sim/runtime/trace.hpp"

namespace aopt::sim::testing {

class trace_builder {
 public:
  uint32_t add(instruction in) {
    const auto index = static_cast<uint32_t>(trace_.instructions.size());
    if (in.cls == op_class::dma_in) trace_.gm_read_bytes += in.bytes;
    if (in.cls == op_class::dma_out) trace_.gm_write_bytes += in.bytes;
    last_on_[static_cast<size_t>(in.on)] = index;
    trace_.instructions.push_back(std::move(in));
    return index;
  }

  // DataCopy GM -> UB of `bytes` into [ub, ub + bytes), in `bursts` bursts.
  uint32_t copy_in(uint32_t ub, uint32_t bytes, uint32_t bursts = 1, bool gm_unaligned = false) {
    instruction in = dma(pipe::mte2, op_class::dma_in, bytes, bursts, gm_unaligned);
    in.writes = {{ub, ub + bytes}};
    return add(std::move(in));
  }

  // DataCopy UB -> GM of `bytes` from [ub, ub + bytes).
  uint32_t copy_out(uint32_t ub, uint32_t bytes, uint32_t bursts = 1) {
    instruction in = dma(pipe::mte3, op_class::dma_out, bytes, bursts, false);
    in.reads = {{ub, ub + bytes}};
    return add(std::move(in));
  }

  // A count-form vector op over `bytes` bytes per operand: dst = f(src0, src1).
  uint32_t vector(op_class cls, const char* api, uint32_t dst, std::initializer_list<uint32_t> srcs,
                  uint32_t bytes) {
    instruction in;
    in.on = pipe::v;
    in.cls = cls;
    in.api = api;
    in.bytes = bytes;
    in.repeats = (bytes + 255) / 256;
    for (uint32_t src : srcs) in.reads.push_back({src, src + bytes});
    in.writes = {{dst, dst + bytes}};
    return add(std::move(in));
  }

  // LocalTensor GetValue (reads) or SetValue (writes) on `count` consecutive elements.
  uint32_t scalar(const char* api, uint32_t ub, uint32_t element_bytes, uint32_t count,
                  bool write) {
    instruction in;
    in.on = pipe::s;
    in.cls = op_class::scalar_ub;
    in.api = api;
    in.count = count;
    (write ? in.writes : in.reads).push_back({ub, ub + element_bytes * count});
    return add(std::move(in));
  }

  uint32_t set_flag(pipe on) {
    instruction in;
    in.on = on;
    in.cls = op_class::set_flag;
    in.api = "SetFlag";
    return add(std::move(in));
  }

  uint32_t wait_flag(pipe on, uint32_t set_index) {
    instruction in;
    in.on = on;
    in.cls = op_class::wait_flag;
    in.api = "WaitFlag";
    in.deps = {set_index};
    return add(std::move(in));
  }

  // PipeBarrier<PIPE_ALL>: on S, depending on the last instruction of every pipe.
  uint32_t pipe_all_barrier() {
    instruction in;
    in.on = pipe::s;
    in.cls = op_class::barrier;
    in.all_pipes_barrier = true;
    in.api = "PipeBarrier<PIPE_ALL>";
    for (int64_t last : last_on_)
      if (last >= 0) in.deps.push_back(static_cast<uint32_t>(last));
    return add(std::move(in));
  }

  // A synchronisation between cores on S that waits for every pipe (SyncAll, IBSet, IBWait;
  // trace.hpp), `bytes` naming an inter-block flag.
  uint32_t cross_core_sync(op_class cls, const char* api, uint64_t bytes = 0) {
    instruction in;
    in.on = pipe::s;
    in.cls = cls;
    in.all_pipes_barrier = true;
    in.api = api;
    in.bytes = bytes;
    for (int64_t last : last_on_)
      if (last >= 0) in.deps.push_back(static_cast<uint32_t>(last));
    return add(std::move(in));
  }

  // The GM bytes [offset, offset + bytes) of kernel argument `region` that instruction `by` read
  // or wrote, as the shim records them (trace.hpp gm_read, gm_write), `seq` its place among the
  // launch's GM accesses.
  void gm(uint32_t by, bool write, uint32_t region, uint64_t offset, uint32_t bytes,
          uint64_t seq = 0) {
    gm_runs runs;
    runs.region = region;
    runs.offset = offset;
    runs.burst_bytes = bytes;
    runs.seq = seq;
    runs.instruction = by;
    add_gm(runs, write);
  }

  // As gm(), `bursts` runs of `bytes` every `stride` bytes.
  void gm_strided(uint32_t by, bool write, uint32_t region, uint64_t offset, uint32_t bytes,
                  uint32_t bursts, uint64_t stride, uint64_t seq = 0) {
    gm_runs runs;
    runs.region = region;
    runs.offset = offset;
    runs.burst_bytes = bytes;
    runs.bursts = bursts;
    runs.stride = stride;
    runs.seq = seq;
    runs.instruction = by;
    add_gm(runs, write);
  }

  const core_trace& trace() const { return trace_; }
  core_trace take() { return std::move(trace_); }

 private:
  static instruction dma(pipe on, op_class cls, uint32_t bytes, uint32_t bursts,
                         bool gm_unaligned) {
    instruction in;
    in.on = on;
    in.cls = cls;
    in.api = "DataCopy";
    in.bytes = bytes;
    in.bursts = bursts;
    in.min_burst_bytes = bytes / bursts;
    in.gm_unaligned = gm_unaligned;
    return in;
  }

  void add_gm(const gm_runs& runs, bool write) {
    if (write) {
      gm_write w;
      static_cast<gm_runs&>(w) = runs;
      trace_.gm_writes.push_back(w);
    } else {
      gm_read r;
      static_cast<gm_runs&>(r) = runs;
      trace_.gm_reads.push_back(r);
    }
  }

  core_trace trace_;
  std::array<int64_t, pipe_count> last_on_{-1, -1, -1, -1};
};

// A TQue of `depth` buffers of `buffer_bytes` at UB offset `base`, between a producer and a
// consumer pipe, recording the hidden flags of docs/ascendc-reference.md §3 into a trace_builder.
class hiddenqueueue {
 public:
  hiddenqueueue(trace_builder& b, pipe producer, pipe consumer, uint32_t base,
                uint32_t buffer_bytes, uint32_t depth)
      : b_(b),
        producer_(producer),
        consumer_(consumer),
        base_(base),
        buffer_bytes_(buffer_bytes),
        freed_(depth, -1) {}

  // AllocTensor: the UB offset of the next buffer; waits on the producer pipe for its last free.
  uint32_t alloc_tensor() {
    const size_t slot = next_++ % freed_.size();
    if (freed_[slot] >= 0) b_.wait_flag(producer_, static_cast<uint32_t>(freed_[slot]));
    held_.push_back(slot);
    return base_ + static_cast<uint32_t>(slot) * buffer_bytes_;
  }
  void enqueue() { enqueued_.push_back(b_.set_flag(producer_)); }
  void dequeue() {
    b_.wait_flag(consumer_, enqueued_.front());
    enqueued_.pop_front();
  }
  // FreeTensor of the oldest buffer in use, signalled from the consumer pipe.
  void free_tensor() {
    freed_[held_.front()] = b_.set_flag(consumer_);
    held_.pop_front();
  }

 private:
  trace_builder& b_;
  pipe producer_;
  pipe consumer_;
  uint32_t base_;
  uint32_t buffer_bytes_;
  std::vector<int64_t> freed_;
  std::deque<size_t> held_;
  std::deque<uint32_t> enqueued_;
  size_t next_ = 0;
};

struct elementwise_options {
  uint32_t tiles = 16;
  uint32_t tile_bytes = 16384;  // bytes per operand per tile
  uint32_t buffer_num = 2;      // TQue depth
  uint32_t vector_ops = 1;      // vector instructions per tile (a longer elementwise chain)
  op_class vector_class = op_class::vec_simple;
  bool barrier_each_tile = false;  // PipeBarrier<PIPE_ALL> at the end of each loop iteration
  bool scalar_compute = false;     // per-element GetValue/SetValue loop instead of vector ops
  uint32_t element_bytes = 4;
};

// The canonical tiled z = x + y kernel: CopyIn (Alloc x, y; DataCopy; EnQue), Compute (DeQue;
// Alloc z; op; EnQue z; Free x, y), CopyOut (DeQue z; DataCopy; Free z). With scalar_compute
// the compute stage runs on S, so the queues synchronise MTE2 -> S and S -> MTE3.
inline core_trace tiled_add_trace(const elementwise_options& o) {
  trace_builder b;
  const pipe compute = o.scalar_compute ? pipe::s : pipe::v;
  const uint32_t region = o.tile_bytes * o.buffer_num;
  hiddenqueueue in_x(b, pipe::mte2, compute, 0, o.tile_bytes, o.buffer_num);
  hiddenqueueue in_y(b, pipe::mte2, compute, region, o.tile_bytes, o.buffer_num);
  hiddenqueueue out_z(b, compute, pipe::mte3, 2 * region, o.tile_bytes, o.buffer_num);
  for (uint32_t t = 0; t < o.tiles; ++t) {
    const uint32_t x = in_x.alloc_tensor();
    const uint32_t y = in_y.alloc_tensor();
    b.copy_in(x, o.tile_bytes);
    b.copy_in(y, o.tile_bytes);
    in_x.enqueue();
    in_y.enqueue();

    in_x.dequeue();
    in_y.dequeue();
    const uint32_t z = out_z.alloc_tensor();
    if (o.scalar_compute) {
      const uint32_t n = o.tile_bytes / o.element_bytes;
      b.scalar("GetValue", x, o.element_bytes, n, false);
      b.scalar("GetValue", y, o.element_bytes, n, false);
      b.scalar("SetValue", z, o.element_bytes, n, true);
    } else {
      b.vector(o.vector_class, "Add", z, {x, y}, o.tile_bytes);
      for (uint32_t k = 1; k < o.vector_ops; ++k)
        b.vector(o.vector_class, "Add", z, {z, y}, o.tile_bytes);
    }
    out_z.enqueue();
    in_x.free_tensor();
    in_y.free_tensor();

    out_z.dequeue();
    b.copy_out(z, o.tile_bytes);
    out_z.free_tensor();
    if (o.barrier_each_tile) b.pipe_all_barrier();
  }
  return b.take();
}

}  // namespace aopt::sim::testing
