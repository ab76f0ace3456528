#include "trace.hpp"

namespace aopt::sim {

const char* to_string(pipe p) {
  switch (p) {
    case pipe::s:
      return "S";
    case pipe::v:
      return "V";
    case pipe::mte2:
      return "MTE2";
    case pipe::mte3:
      return "MTE3";
    case pipe::mte1:
      return "MTE1";
    case pipe::m:
      return "M";
    case pipe::fix:
      return "FIX";
  }
  return "?";
}

const char* to_string(core_kind k) {
  switch (k) {
    case core_kind::whole:
      return "core";
    case core_kind::aic:
      return "AIC";
    case core_kind::aiv:
      return "AIV";
  }
  return "?";
}

bool is_vector_class(op_class c) {
  switch (c) {
    case op_class::dma_local:
    case op_class::vec_simple:
    case op_class::vec_mul:
    case op_class::vec_div_transcendental:
    case op_class::vec_reduce:
    case op_class::vec_cast:
    case op_class::vec_compare_select:
      return true;
    default:
      return false;
  }
}

bool is_cube_class(op_class c) {
  return c == op_class::cube_load || c == op_class::cube_mmad || c == op_class::cube_fixpipe ||
         c == op_class::cube_fixpipe_local;
}

bool gm_runs::inside(uint64_t size) const {
  if (bursts == 0) return true;
  if (offset > size || burst_bytes > size) return false;
  if (bursts > 1 && stride > (size - offset) / (bursts - 1)) return false;
  const uint64_t last = offset + stride * (bursts - 1);
  return burst_bytes <= size - last;
}

}  // namespace aopt::sim
