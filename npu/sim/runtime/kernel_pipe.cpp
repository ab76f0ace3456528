// TPipe, TQue/TQueBind and TBuf of the kernel API shim: UB allocation with its checks, and the
// hidden synchronisation of queues (docs/ascendc-reference.md §3) recorded as set/wait pairs.
#include <utility>

#include "kernel_cube.hpp"
#include "kernel_state.hpp"

namespace aopt::sim::kernel {
namespace {

// The pipe that fills a buffer of this position before EnQue, and the one that reads it after
// DeQue. VECCALC buffers are produced and consumed by the vector pipe: no hidden flags.
// Cube positions: kernel_cube_alloc.cpp.
pipe producer_of(AscendC::TPosition p) {
  if (is_cube_position(p)) return cube_producer_of(p);
  return p == AscendC::TPosition::VECIN ? pipe::mte2 : pipe::v;
}
pipe consumer_of(AscendC::TPosition p) {
  if (is_cube_position(p)) return cube_consumer_of(p);
  return p == AscendC::TPosition::VECOUT ? pipe::mte3 : pipe::v;
}

const char* position_name(AscendC::TPosition p) {
  switch (p) {
    case AscendC::TPosition::VECIN:
      return "VECIN";
    case AscendC::TPosition::VECOUT:
      return "VECOUT";
    case AscendC::TPosition::VECCALC:
      return "VECCALC";
    default:
      return cube_position_name(p);
  }
}

std::string queue_name(const tensor_queue& q) {
  if (q.src == q.dst) return cat("TQue<", position_name(q.src), ">");
  return cat("TQueBind<", position_name(q.src), ", ", position_name(q.dst), ">");
}

// Carves `num` buffers of `bytes` (rounded up to 32) for queue `queue` out of UB, or out of
// pool `pool` (>= 0) when a TBufPool allocates them.
void allocate(state& s, AscendC::TPosition pos, uint32_t num, uint32_t bytes, int32_t queue,
              int32_t pool, const char* api, aopt_sim::rt::call_site site) {
  if (bytes == 0) fail("bad_argument", cat(where(api, site), ": a buffer length of 0 bytes"));
  if (space_of(pos) != mem_space::ub) {
    allocate_cube(s, pos, num, bytes, queue, pool >= 0, api, site);
    return;
  }
  if (s.buffers.size() + num > max_pipe_buffers) {
    fail("too_many_buffers",
         cat(where(api, site), ": ", num, " more buffer(s) would make ", s.buffers.size() + num,
             " in the TPipe; at most ", max_pipe_buffers, " are allowed"));
  }
  buffer_pool* bp = pool >= 0 ? &s.pools[static_cast<size_t>(pool)] : nullptr;
  if (bp != nullptr && bp->buffers + num > bp->max_buffers) {
    fail("too_many_buffers",
         cat(where(api, site), ": ", num, " more buffer(s) would make ", bp->buffers + num,
             " in the TBufPool; its bufIDSize allows ", bp->max_buffers));
  }
  const uint64_t each = align_up(bytes, ub_block);
  const uint64_t next = bp != nullptr ? bp->next : s.ub_next;
  const uint64_t limit = bp != nullptr ? bp->end : s.ub_bytes;
  const uint64_t end = next + each * num;
  if (end > limit) {
    fail("ub_overflow",
         cat(where(api, site), ": ", num, " buffer(s) of ", bytes, " bytes",
             each != bytes ? cat(" (", each, " after 32-byte alignment)") : std::string(),
             " need UB [", next, ", ", end, ") but ",
             bp != nullptr ? cat("the TBufPool holds UB [", bp->begin, ", ", bp->end, ")")
                           : cat("the Unified Buffer holds ", s.ub_bytes, " bytes (", s.ub_next,
                                 " already taken by ", s.buffers.size(), " buffer(s))")));
  }
  for (uint32_t i = 0; i < num; ++i) {
    ub_buffer b;
    b.begin = static_cast<uint32_t>(next + each * i);
    b.end = static_cast<uint32_t>(b.begin + each);
    b.queue = queue;
    if (queue >= 0)
      s.queues[static_cast<size_t>(queue)].buffers.push_back(
          static_cast<int32_t>(s.buffers.size()));
    s.buffers.push_back(b);
  }
  if (bp != nullptr) {
    bp->next = static_cast<uint32_t>(end);
    bp->buffers += num;
  } else {
    s.ub_next = static_cast<uint32_t>(end);
    s.rec.note_ub_carve({site.line, num, each});
  }
  s.rec.note_ub_use(end);
}

buffer_pool& pool_of(state& s, const aopt_sim::rt::queue_handle& h, const char* api,
                     aopt_sim::rt::call_site site) {
  if (h.id < 0)
    fail("bad_argument",
         cat(where(api, site), ": the TBufPool was never given memory by InitBufPool"));
  if (h.generation != s.generation || static_cast<size_t>(h.id) >= s.pools.size()) {
    fail("bad_argument", cat(where(api, site),
                             ": the TBufPool's memory was released by TPipe::Reset or the "
                             "TPipe's destruction; call InitBufPool again"));
  }
  return s.pools[static_cast<size_t>(h.id)];
}

tensor_queue& lookup(state& s, const aopt_sim::rt::queue_handle& h, const char* api,
                     aopt_sim::rt::call_site site) {
  if (h.id < 0)
    fail("bad_argument",
         cat(where(api, site), ": the queue was never given buffers by TPipe::InitBuffer"));
  if (h.generation != s.generation || static_cast<size_t>(h.id) >= s.queues.size()) {
    fail("bad_argument",
         cat(where(api, site),
             ": the queue's buffers were released by TPipe::Reset or the TPipe's destruction; "
             "call InitBuffer again"));
  }
  return s.queues[static_cast<size_t>(h.id)];
}

ub_buffer& buffer_of(state& s, int32_t queue_id, const tensor_queue& q,
                     const aopt_sim::rt::local_ref& t, const char* api,
                     aopt_sim::rt::call_site site) {
  if (t.buffer < 0 || static_cast<size_t>(t.buffer) >= s.buffers.size() ||
      s.buffers[static_cast<size_t>(t.buffer)].queue != queue_id ||
      s.buffers[static_cast<size_t>(t.buffer)].begin != t.buf_begin) {
    fail("bad_argument",
         cat(where(api, site), ": the tensor (UB ", t.addr, ") was not allocated from this ",
             queue_name(q), " (AllocTensor/DeQue of the same queue)"));
  }
  return s.buffers[static_cast<size_t>(t.buffer)];
}

// The buffer FreeTensor releases. A tensor of another queue between the same positions, freed
// through this one (DrivingSDK's points_in_box frees its two VECIN tensors through each other's
// queues at the end), is released by the buffer the tensor names, with the same flags, and
// reported as a warning; between other positions its release would signal the wrong pipes.
ub_buffer& freed_buffer(state& s, int32_t queue_id, const tensor_queue& q,
                        const aopt_sim::rt::local_ref& t, aopt_sim::rt::call_site site) {
  if (t.buffer >= 0 && static_cast<size_t>(t.buffer) < s.buffers.size()) {
    ub_buffer& b = s.buffers[static_cast<size_t>(t.buffer)];
    if (b.queue >= 0 && b.queue != queue_id && b.begin == t.buf_begin) {
      const tensor_queue& owner = s.queues[static_cast<size_t>(b.queue)];
      if (owner.src == q.src && owner.dst == q.dst) {
        warn(s, cat(where("FreeTensor", site), ": the tensor (UB ", t.buf_begin,
                    ") was allocated from another ", queue_name(owner),
                    " and freed through this one; its buffer is released all the same"));
        return b;
      }
    }
  }
  return buffer_of(s, queue_id, q, t, "FreeTensor", site);
}

aopt_sim::rt::local_ref ref_of(const ub_buffer& b, int32_t index) {
  aopt_sim::rt::local_ref r;
  r.addr = b.begin;
  r.buf_begin = b.begin;
  r.buf_end = b.end;
  r.buffer = index;
  return r;
}

// Remembers the first queue tensor still allocated when the TPipe's buffers go away.
void note_unfreed(state& s, const char* why) {
  if (!s.unfreed.empty()) return;
  for (const ub_buffer& b : s.buffers) {
    if (b.queue < 0 || b.st == ub_buffer::state::idle) continue;
    s.unfreed =
        cat("the tensor allocated from a TQue by AllocTensor",
            b.alloc_line != 0 ? cat(" at line ", b.alloc_line) : std::string(), " (UB [", b.begin,
            ", ", b.end, ")) was never freed with FreeTensor before ", why,
            b.st == ub_buffer::state::queued ? " (it is still enqueued: EnQue without DeQue)" : "");
    return;
  }
}

void release_all(state& s) {
  s.buffers.clear();
  s.queues.clear();
  s.pools.clear();
  s.ub_next = 0;
  s.space_next.fill(0);
  ++s.generation;
}

}  // namespace
}  // namespace aopt::sim::kernel

namespace aopt_sim::rt {

using namespace aopt::sim::kernel;  // NOLINT(google-build-using-namespace): implementation file
using aopt::sim::op_class;
using aopt::sim::pipe;

void pipe_attach(void* p) {
  state& s = current();
  if (s.pipe_object == nullptr) s.pipe_object = p;
}

// Runs in TPipe's destructor, which must not throw.
void pipe_detach(void* p) noexcept {
  if (!aopt::sim::core_context::running()) return;
  state& s = current();
  if (s.pipe_object != p) return;
  note_unfreed(s, "the TPipe was destroyed");
  release_all(s);
  s.pipe_object = nullptr;
}

void* current_pipe() {
  return current().pipe_object;
}

void pipe_reset(call_site site) {
  state& s = current();
  note_unfreed(
      s, cat("TPipe::Reset", site.line != 0 ? cat(" at line ", site.line) : std::string()).c_str());
  release_all(s);
}

queue_handle pipe_init_queue(AscendC::TPosition src, AscendC::TPosition dst, int32_t depth,
                             uint32_t num, uint32_t bytes, call_site site) {
  return pool_init_queue(queue_handle{}, src, dst, depth, num, bytes, site);
}

queue_handle pool_init_queue(const queue_handle& pool, AscendC::TPosition src,
                             AscendC::TPosition dst, int32_t depth, uint32_t num, uint32_t bytes,
                             call_site site) {
  state& s = current();
  const char* api = pool.id < 0 ? "TPipe::InitBuffer" : "TBufPool::InitBuffer";
  if (pool.id >= 0) pool_of(s, pool, api, site);
  if (num == 0) fail("bad_argument", cat(where(api, site), ": a queue with 0 buffers"));
  tensor_queue q;
  q.src = src;
  q.dst = dst;
  q.producer = producer_of(src);
  q.consumer = consumer_of(dst);
  q.depth = depth;
  q.init_line = site.line;
  const auto id = static_cast<int32_t>(s.queues.size());
  s.queues.push_back(std::move(q));
  try {
    allocate(s, src, num, bytes, id, pool.id, api, site);
  } catch (...) {
    s.queues.pop_back();
    throw;
  }
  return queue_handle{id, s.generation};
}

local_ref pipe_init_tbuf(AscendC::TPosition pos, uint32_t bytes, call_site site) {
  return pool_init_tbuf(queue_handle{}, pos, bytes, site);
}

local_ref pool_init_tbuf(const queue_handle& pool, AscendC::TPosition pos, uint32_t bytes,
                         call_site site) {
  state& s = current();
  const char* api = pool.id < 0 ? "TPipe::InitBuffer" : "TBufPool::InitBuffer";
  if (pool.id >= 0) pool_of(s, pool, api, site);
  allocate(s, pos, 1, bytes, -1, pool.id, api, site);
  const auto index = static_cast<int32_t>(s.buffers.size() - 1);
  return ref_of(s.buffers.back(), index);
}

// InitBufPool of the TPipe (parent.id < 0) or of a pool. Without a share pool the new pool takes
// the next `bytes` (rounded up to 32) of its parent; with one it aliases the share pool's start
// and must fit in its length (InitBufPool documentation).
queue_handle pool_init_pool(const queue_handle& parent, const queue_handle& share,
                            uint32_t max_buffers, uint32_t bytes, call_site site) {
  state& s = current();
  const char* api = parent.id < 0 ? "TPipe::InitBufPool" : "TBufPool::InitBufPool";
  if (bytes == 0) fail("bad_argument", cat(where(api, site), ": a pool length of 0 bytes"));
  if (max_buffers == 0 || max_buffers > 16)
    fail("bad_argument", cat(where(api, site), ": bufIDSize ", max_buffers,
                             " is outside 1..16 (TBufPool documentation)"));
  const uint32_t each = static_cast<uint32_t>(align_up(bytes, ub_block));
  buffer_pool p;
  p.max_buffers = max_buffers;
  if (share.id >= 0) {
    const buffer_pool& shared = pool_of(s, share, api, site);
    if (each > shared.end - shared.begin)
      fail("ub_overflow",
           cat(where(api, site), ": a pool of ", each, " bytes cannot share a TBufPool of ",
               shared.end - shared.begin, " bytes (UB [", shared.begin, ", ", shared.end, "))"));
    p.begin = shared.begin;
  } else {
    uint32_t& next = parent.id < 0 ? s.ub_next : pool_of(s, parent, api, site).next;
    const uint64_t limit = parent.id < 0 ? s.ub_bytes : s.pools[static_cast<size_t>(parent.id)].end;
    if (next + uint64_t{each} > limit)
      fail("ub_overflow",
           cat(where(api, site), ": a pool of ", each, " bytes needs UB [", next, ", ",
               next + uint64_t{each}, ") but ",
               parent.id < 0 ? "the Unified Buffer" : "the parent TBufPool", " ends at ", limit));
    p.begin = next;
    next += each;
    s.rec.note_ub_use(next);
    if (parent.id < 0) s.rec.note_ub_carve({site.line, 1, each});
  }
  p.end = p.begin + each;
  p.next = p.begin;
  s.pools.push_back(p);
  return queue_handle{static_cast<int32_t>(s.pools.size() - 1), s.generation};
}

// TBufPool::Reset "ends the events the pool is processing" before another pool reuses its memory:
// its buffers stay allocated, so it is a full barrier (and costs one).
void pool_reset(const queue_handle& pool, call_site site) {
  pool_of(current(), pool, "TBufPool::Reset", site);
  pipe_barrier(PIPE_ALL, site);
}

local_ref queue_alloc(const queue_handle& h, call_site site) {
  state& s = current();
  tensor_queue& q = lookup(s, h, "AllocTensor", site);
  const size_t n = q.buffers.size();
  for (size_t k = 0; k < n; ++k) {
    const size_t slot = (q.next + k) % n;
    const int32_t index = q.buffers[slot];
    ub_buffer& b = s.buffers[static_cast<size_t>(index)];
    if (b.st != ub_buffer::state::idle) continue;
    q.next = (slot + 1) % n;
    b.st = ub_buffer::state::allocated;
    b.alloc_line = site.line;
    if (b.freed_before && q.synchronised())
      s.rec.add_sync(q.producer, op_class::wait_flag, "AllocTensor", site.line, b.free_set);
    return ref_of(b, index);
  }
  fail("deadlock", cat(where("AllocTensor", site), ": all ", n, " buffer(s) of the ", queue_name(q),
                       q.init_line != 0 ? cat(" initialised at line ", q.init_line) : std::string(),
                       " are in use (", q.fifo.size(), " enqueued, ", n - q.fifo.size(),
                       " allocated or dequeued) and nothing can free one in a sequential program: "
                       "a FreeTensor is missing, or more tensors are allocated at once than the "
                       "queue has buffers"));
}

void queue_enque(const queue_handle& h, const local_ref& t, call_site site) {
  state& s = current();
  tensor_queue& q = lookup(s, h, "EnQue", site);
  ub_buffer& b = buffer_of(s, h.id, q, t, "EnQue", site);
  if (b.st == ub_buffer::state::queued)
    fail("bad_argument",
         cat(where("EnQue", site), ": the tensor (UB ", t.buf_begin, ") is already in the queue"));
  if (b.st == ub_buffer::state::idle)
    fail("bad_argument",
         cat(where("EnQue", site), ": the tensor (UB ", t.buf_begin, ") was freed by FreeTensor"));
  b.st = ub_buffer::state::queued;
  q.fifo.push_back(t.buffer);
  if (q.synchronised())
    b.enque_set = s.rec.add_sync(q.producer, op_class::set_flag, "EnQue", site.line, no_index);
}

local_ref queue_deque(const queue_handle& h, call_site site) {
  state& s = current();
  tensor_queue& q = lookup(s, h, "DeQue", site);
  if (q.fifo.empty()) {
    fail("empty_queue",
         cat(where("DeQue", site), ": the ", queue_name(q),
             q.init_line != 0 ? cat(" initialised at line ", q.init_line) : std::string(),
             " is empty: every EnQue has been dequeued already, so this DeQue would wait forever"));
  }
  const int32_t index = q.fifo.front();
  q.fifo.pop_front();
  ub_buffer& b = s.buffers[static_cast<size_t>(index)];
  b.st = ub_buffer::state::dequeued;
  if (q.synchronised())
    s.rec.add_sync(q.consumer, op_class::wait_flag, "DeQue", site.line, b.enque_set);
  return ref_of(b, index);
}

void queue_free(const queue_handle& h, const local_ref& t, call_site site) {
  state& s = current();
  tensor_queue& q = lookup(s, h, "FreeTensor", site);
  ub_buffer& b = freed_buffer(s, h.id, q, t, site);
  if (b.st == ub_buffer::state::queued) {
    fail("bad_argument", cat(where("FreeTensor", site), ": the tensor (UB ", t.buf_begin,
                             ") is still in the queue (EnQue without DeQue)"));
  }
  if (b.st == ub_buffer::state::idle)
    fail("bad_argument",
         cat(where("FreeTensor", site), ": the tensor (UB ", t.buf_begin, ") was already freed"));
  b.st = ub_buffer::state::idle;
  b.freed_before = true;
  if (q.synchronised())
    b.free_set = s.rec.add_sync(q.consumer, op_class::set_flag, "FreeTensor", site.line, no_index);
}

int32_t queue_count(const queue_handle& h) {
  state& s = current();
  return static_cast<int32_t>(lookup(s, h, "TQue", call_site(0)).fifo.size());
}

int32_t queue_idle_buffers(const queue_handle& h) {
  state& s = current();
  const tensor_queue& q = lookup(s, h, "TQue", call_site(0));
  int32_t idle = 0;
  for (int32_t index : q.buffers)
    if (s.buffers[static_cast<size_t>(index)].st == ub_buffer::state::idle) ++idle;
  return idle;
}

int32_t queue_depth(const queue_handle& h) {
  state& s = current();
  return lookup(s, h, "TQue", call_site(0)).depth;
}

AscendC::TEventID event_alloc(AscendC::HardEvent e, call_site site) {
  state& s = current();
  uint8_t& used = s.allocated_ids.at(static_cast<size_t>(e));
  for (int32_t id = 0; id < event_ids; ++id) {
    if ((used & (1u << id)) == 0) {
      used = static_cast<uint8_t>(used | (1u << id));
      return static_cast<AscendC::TEventID>(id);
    }
  }
  fail("flag_misuse",
       cat(where("AllocEventID", site), ": all ", event_ids,
           " event ids of HardEvent::", event_name(e), " are allocated (missing ReleaseEventID)"));
}

AscendC::TEventID event_fetch(AscendC::HardEvent e, call_site site) {
  state& s = current();
  const uint8_t used = s.allocated_ids.at(static_cast<size_t>(e));
  for (int32_t id = 0; id < event_ids; ++id)
    if ((used & (1u << id)) == 0) return static_cast<AscendC::TEventID>(id);
  fail("flag_misuse", cat(where("FetchEventID", site), ": all ", event_ids,
                          " event ids of HardEvent::", event_name(e), " are allocated"));
}

void event_release(AscendC::HardEvent e, int32_t id, call_site site) {
  state& s = current();
  uint8_t& used = s.allocated_ids.at(static_cast<size_t>(e));
  if (id < 0 || id >= event_ids || (used & (1u << id)) == 0) {
    fail("flag_misuse", cat(where("ReleaseEventID", site), ": event id ", id, " of HardEvent::",
                            event_name(e), " was not allocated with AllocEventID"));
  }
  used = static_cast<uint8_t>(used & ~(1u << id));
}

}  // namespace aopt_sim::rt
