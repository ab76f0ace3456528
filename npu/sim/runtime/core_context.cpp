#include "core_context.hpp"

#include <cstring>
#include <utility>

#include "auto_sync.hpp"
#include "core_memory_pool.hpp"
#include "kernel_state.hpp"

namespace aopt::sim {
namespace {

// The core the calling thread runs (see core_context.hpp for why this is thread-local).
thread_local core_context* running_core = nullptr;

// Uninitialised UB reads as this byte: a large finite value in every float type (float32
// 1.3e36, float16 63328, bfloat16 1.3e36) and a large positive integer. Finite, so that the
// common idiom of zeroing stale contents with Muls(x, x, 0) gives zero as on the hardware; large,
// so that an uninitialised value that reaches an output still mismatches. The checker names
// the instructions that read such bytes as warnings (driver_trace_check.hpp).
constexpr uint8_t ub_poison = 0x7b;

}  // namespace

core_context::impl::impl(const kernel_launch& l, uint32_t core_index)
    : launch(l),
      core(core_index),
      id(l.layout().identity(core_index)),
      block_idx(id.block_idx),
      ub_bytes(l.hw.ub_bytes),
      mem(kernel::memory_map_of(l.hw)),
      rec(l.record_trace, core_index) {
  rec.set_core(id.kind, id.group);
  if (l.recorded_instructions != nullptr) rec.reserve(l.recorded_instructions->load());
  // Room for one vector repeat past the end of each memory keeps block-granular loops in bounds;
  // the checks still stop at ub_bytes (cube_memory.hpp).
  core_memory_pool* pool = l.core_memory;
  if (pool == nullptr || pool->bytes() != mem.total) {
    own_memory = std::make_unique<core_memory_pool>(mem.total, ub_poison);
    pool = own_memory.get();
  }
  ub = pool->acquire();
}

std::unique_ptr<core_memory_pool> make_core_memory_pool(const hw_profile& hw) {
  return std::make_unique<core_memory_pool>(kernel::memory_map_of(hw).total, ub_poison);
}

core_context::core_context(const kernel_launch& launch, uint32_t core)
    : impl_(std::make_unique<impl>(launch, core)) {}

core_context::~core_context() {
  if (running_core == this) running_core = nullptr;
}

core_context& core_context::current() {
  if (running_core == nullptr)
    throw sim_error("bad_argument", "an AscendC kernel API was called outside a simulated core");
  return *running_core;
}

bool core_context::running() {
  return running_core != nullptr;
}

uint32_t core_context::block_idx() const {
  return impl_->block_idx;
}
uint32_t core_context::block_num() const {
  return impl_->launch.block_num;
}
const core_identity& core_context::identity() const {
  return impl_->id;
}
const hw_profile& core_context::hw() const {
  return impl_->launch.hw;
}

void core_context::finish() {
  impl& s = *impl_;
  for (size_t e = 0; e < s.flags.size(); ++e) {
    for (int32_t id = 0; id < kernel::event_ids; ++id) {
      const kernel::flag_slot& slot = s.flags[e][static_cast<size_t>(id)];
      if (!slot.pending) continue;
      const char* name = kernel::event_name(static_cast<AscendC::HardEvent>(e));
      kernel::fail("flag_misuse",
                   kernel::cat("SetFlag<HardEvent::", name, ">(", id, ")",
                               slot.line != 0 ? kernel::cat(" at line ", slot.line) : std::string(),
                               " has no matching WaitFlag<HardEvent::", name, ">(", id,
                               ") before the kernel returned: the flag stays set and corrupts the "
                               "next kernel on this core"));
    }
  }
  kernel::flush_scalar_write(s);
  // A queue tensor held to the end is legal on the hardware (the next kernel starts with a
  // fresh TPipe), so it is a warning, not a failure.
  if (!s.unfreed.empty()) kernel::warn(s, s.unfreed);
  for (size_t b = 0; b < s.buffers.size(); ++b) {
    const kernel::ub_buffer& buf = s.buffers[b];
    if (buf.queue < 0 || buf.st == kernel::ub_buffer::state::idle) continue;
    kernel::warn(
        s, kernel::cat(
               "the tensor allocated from a TQue by AllocTensor",
               buf.alloc_line != 0 ? kernel::cat(" at line ", buf.alloc_line) : std::string(),
               " (UB [", buf.begin, ", ", buf.end, ")) is still held when the kernel returns",
               buf.st == kernel::ub_buffer::state::queued ? " (still enqueued: EnQue without DeQue)"
                                                          : " (never freed with FreeTensor)"));
  }
}

std::vector<std::string> core_context::take_warnings() {
  return std::exchange(impl_->warnings, {});
}

core_trace core_context::take_trace() {
  core_trace trace = impl_->rec.take();
  if (impl_->launch.hw.auto_sync) insert_auto_sync(trace);
  return trace;
}

scoped_core::scoped_core(core_context& core) : previous_(running_core) {
  running_core = &core;
}

scoped_core::~scoped_core() {
  running_core = previous_;
}

}  // namespace aopt::sim

namespace aopt_sim::rt {

using aopt::sim::kernel::current;

uint64_t tiling_key() {
  return current().launch.tiling_key;
}
int64_t block_idx() {
  return current().block_idx;
}
int64_t block_num() {
  return current().launch.block_num;
}
uint8_t* ub_base() {
  return current().ub.get();
}

uint8_t* ub_scalar(const local_ref& t, uint64_t offset_bytes, uint32_t bytes, bool write,
                   const char* api, call_site site) {
  aopt::sim::core_context::impl& s = current();
  const uint64_t begin = uint64_t{t.addr} + offset_bytes;
  if (begin < t.buf_begin || begin + bytes > t.buf_end) {
    aopt::sim::kernel::check_ub_range(
        t, begin, bytes, api, site,
        aopt::sim::kernel::cat(write ? "writes element " : "reads element ",
                               offset_bytes / (bytes == 0 ? 1 : bytes), ","));
  }
  s.rec.scalar_ub(
      api, site.line,
      aopt::sim::ub_range{static_cast<uint32_t>(begin), static_cast<uint32_t>(begin + bytes)},
      write);
  return s.ub.get() + begin;
}

void gm_scalar(uint8_t* address, uint32_t bytes, bool write, void* value, const char* api,
               call_site site) {
  aopt::sim::core_context::impl& s = current();
  const aopt::sim::gm_window open(s.launch.guard);
  // The previous scalar store has happened by now: its bytes are recorded before this access.
  aopt::sim::kernel::flush_scalar_write(s);
  aopt::sim::kernel::check_gm_range(s, address, bytes, api, site, write ? "writes" : "reads",
                                    write);
  s.rec.scalar_gm(api, site.line, bytes, write);
  if (!write) aopt::sim::kernel::record_gm_read(s, address, 0, bytes, 1, s.rec.scalar_gm_index());
  if (bytes != 0) std::memcpy(write ? address : value, write ? value : address, bytes);
  // The store is recorded (with its bytes) at the next GM access or when the block ends, so that
  // consecutive scalar accesses coalesce.
  if (write) s.pending_scalar_write = {address, bytes, s.last_region, s.rec.scalar_gm_index()};
}

}  // namespace aopt_sim::rt
