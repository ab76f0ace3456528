// Buffers on the cube's positions (kernel_cube.hpp).
#include "kernel_cube.hpp"

namespace aopt::sim::kernel {

bool is_cube_position(AscendC::TPosition p) {
  using AscendC::TPosition;
  switch (p) {
    case TPosition::A1:
    case TPosition::B1:
    case TPosition::C1:
    case TPosition::A2:
    case TPosition::B2:
    case TPosition::C2:
    case TPosition::CO1:
    case TPosition::CO2:
      return true;
    default:
      return false;
  }
}

const char* cube_position_name(AscendC::TPosition p) {
  using AscendC::TPosition;
  switch (p) {
    case TPosition::A1:
      return "A1";
    case TPosition::B1:
      return "B1";
    case TPosition::C1:
      return "C1";
    case TPosition::A2:
      return "A2";
    case TPosition::B2:
      return "B2";
    case TPosition::C2:
      return "C2";
    case TPosition::CO1:
      return "CO1";
    case TPosition::CO2:
      return "CO2";
    default:
      return "an unsupported position";
  }
}

pipe cube_producer_of(AscendC::TPosition p) {
  using AscendC::TPosition;
  switch (p) {
    case TPosition::A1:
    case TPosition::B1:
    case TPosition::C1:
      return pipe::mte2;
    case TPosition::A2:
    case TPosition::B2:
    case TPosition::C2:
      return pipe::mte1;
    case TPosition::CO1:
      return pipe::m;
    default:  // CO2
      return pipe::fix;
  }
}

pipe cube_consumer_of(AscendC::TPosition p) {
  using AscendC::TPosition;
  switch (p) {
    case TPosition::A1:
    case TPosition::B1:
    case TPosition::C1:
      return pipe::mte1;
    case TPosition::A2:
    case TPosition::B2:
    case TPosition::C2:
      return pipe::m;
    case TPosition::CO1:
      return pipe::fix;
    default:  // CO2
      return pipe::mte3;
  }
}

void allocate_cube(state& s, AscendC::TPosition pos, uint32_t num, uint32_t bytes, int32_t queue,
                   bool in_pool, const char* api, aopt_sim::rt::call_site site) {
  const mem_space space = space_of(pos);
  if (in_pool) {
    fail("unsupported",
         cat(where(api, site), ": a TBufPool buffer on position ", cube_position_name(pos),
             " is not simulated (docs/ascendc-api-coverage.md, row \"TBufPool\")"));
  }
  if (s.buffers.size() + num > max_pipe_buffers) {
    fail("too_many_buffers",
         cat(where(api, site), ": ", num, " more buffer(s) would make ", s.buffers.size() + num,
             " in the TPipe; at most ", max_pipe_buffers, " are allowed"));
  }
  const auto i = static_cast<size_t>(space);
  const uint32_t align = space == mem_space::l1 || space == mem_space::bt ? 32 : 512;
  const uint64_t each = align_up(bytes, align);
  const uint64_t next = align_up(s.space_next[i], align);
  const uint64_t end = next + each * num;
  if (end > s.mem.size[i]) {
    fail("ub_overflow",
         cat(where(api, site), ": ", num, " buffer(s) of ", bytes, " bytes on ",
             cube_position_name(pos),
             each != bytes ? cat(" (", each, " after ", align, "-byte alignment)") : std::string(),
             " need ", space_name(space), " [", next, ", ", end, ") but ", space_name(space),
             " holds ", s.mem.size[i], " bytes (", s.space_next[i], " already taken)"));
  }
  const uint32_t base = s.mem.base[i];
  for (uint32_t k = 0; k < num; ++k) {
    ub_buffer b;
    b.begin = static_cast<uint32_t>(base + next + each * k);
    b.end = static_cast<uint32_t>(b.begin + each);
    b.queue = queue;
    if (queue >= 0)
      s.queues[static_cast<size_t>(queue)].buffers.push_back(
          static_cast<int32_t>(s.buffers.size()));
    s.buffers.push_back(b);
  }
  s.space_next[i] = static_cast<uint32_t>(end);
}

pipe local_copy_pipe(const state& s, const aopt_sim::rt::local_ref& dst,
                     const aopt_sim::rt::local_ref& src, const char* api,
                     aopt_sim::rt::call_site site) {
  const mem_space to = s.mem.space_at(dst.buf_begin);
  const mem_space from = s.mem.space_at(src.buf_begin);
  if (to == mem_space::ub && from == mem_space::ub) return pipe::v;
  if (to == mem_space::bt && from == mem_space::l1) return pipe::mte1;
  fail("unsupported",
       cat(where(api, site), ": a DataCopy from ", space_name(from), " to ", space_name(to),
           " is not simulated (docs/ascendc-api-coverage.md, row \"DataCopy\"); "
           "the cube moves data with LoadData (L1 -> L0A/L0B) and Fixpipe (L0C ->)"));
}

}  // namespace aopt::sim::kernel
