#include "cube_memory.hpp"

namespace aopt::sim::kernel {
namespace {

// One vector repeat of slack after each memory keeps block-granular loops in bounds; the checks
// still stop at the memory's size.
constexpr uint32_t slack = 256;

// Each memory starts on 512 bytes, so alignment rules (L0 operands on 512) hold for offsets
// into the memory and for addresses into the core's array alike.
uint32_t align512(uint32_t v) {
  return (v + 511) / 512 * 512;
}

}  // namespace

mem_space space_of(AscendC::TPosition p) {
  using AscendC::TPosition;
  switch (p) {
    case TPosition::A1:
    case TPosition::B1:
    case TPosition::C1:
      return mem_space::l1;
    case TPosition::A2:
      return mem_space::l0a;
    case TPosition::B2:
      return mem_space::l0b;
    case TPosition::CO1:
      return mem_space::l0c;
    case TPosition::C2:
      return mem_space::bt;
    default:
      return mem_space::ub;
  }
}

const char* space_name(mem_space s) {
  switch (s) {
    case mem_space::ub:
      return "UB";
    case mem_space::l1:
      return "L1";
    case mem_space::l0a:
      return "L0A";
    case mem_space::l0b:
      return "L0B";
    case mem_space::l0c:
      return "L0C";
    case mem_space::bt:
      return "the bias table (C2)";
  }
  return "?";
}

mem_space memory_map::space_at(uint32_t addr) const {
  for (size_t i = mem_space_count; i-- > 1;)
    if (addr >= base[i]) return static_cast<mem_space>(i);
  return mem_space::ub;
}

memory_map memory_map_of(const hw_profile& hw) {
  memory_map m;
  const std::array<uint32_t, mem_space_count> sizes = {
      hw.ub_bytes, hw.l1_bytes, hw.l0a_bytes, hw.l0b_bytes, hw.l0c_bytes, hw.bias_table_bytes};
  uint32_t next = 0;
  for (size_t i = 0; i < mem_space_count; ++i) {
    m.base[i] = next;
    m.size[i] = sizes[i];
    next = align512(next + sizes[i] + slack);
  }
  m.total = next;
  return m;
}

}  // namespace aopt::sim::kernel
