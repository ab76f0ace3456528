// Composite vector instructions (runtime_api.h vec_composite): bounds, alignment and the trace
// entry; the numerics run in the shim header that called it.
#include <algorithm>

#include "kernel_state.hpp"
#include "kernel_vector.hpp"

namespace {

aopt::sim::op_class class_of(aopt_sim::rt::vec_class c) {
  using aopt::sim::op_class;
  using aopt_sim::rt::vec_class;
  switch (c) {
    case vec_class::mul:
      return op_class::vec_mul;
    case vec_class::div_transcendental:
      return op_class::vec_div_transcendental;
    case vec_class::reduce:
      return op_class::vec_reduce;
    case vec_class::cast:
      return op_class::vec_cast;
    case vec_class::compare_select:
      return op_class::vec_compare_select;
    case vec_class::simple:
      break;
  }
  return op_class::vec_simple;
}

}  // namespace

namespace aopt_sim::rt {

using namespace aopt::sim::kernel;  // NOLINT(google-build-using-namespace): implementation file

void vec_composite(vec_class cls, const vec_span* spans, size_t n, uint8_t** out,
                   uint64_t work_bytes, const char* api, call_site site) {
  state& s = current();
  aopt::sim::instruction in;
  in.on = aopt::sim::pipe::v;
  in.cls = class_of(cls);
  in.api = api;
  in.line = site.line;
  // The work is at least what the operands span: a caller's own figure can add to it, never take
  // the price of touching the operands away (a zero work size would make the call free).
  uint64_t operand_bytes = 0;
  for (size_t i = 0; i < n; ++i) {
    const vec_span& sp = spans[i];
    check_ub_aligned(*sp.ref, api, site, sp.name);
    const uint64_t begin = uint64_t{sp.ref->addr} + sp.offset;
    check_ub_range(*sp.ref, begin, sp.bytes, api, site,
                   [&sp] { return cat(sp.name, sp.write ? " writes" : " reads"); });
    // No bytes, no pointer: a span of nothing is not a way into the UB.
    out[i] = sp.bytes == 0 ? nullptr : s.ub.get() + begin;
    if (sp.bytes == 0) continue;
    operand_bytes = std::max(operand_bytes, sp.bytes);
    const aopt::sim::ub_range r{static_cast<uint32_t>(begin),
                                static_cast<uint32_t>(begin + sp.bytes)};
    if (sp.read) in.reads.push_back(r);
    if (sp.write) in.writes.push_back(r);
  }
  in.bytes = std::max(work_bytes, operand_bytes);
  in.repeats = static_cast<uint32_t>(std::max<uint64_t>(1, (in.bytes + 255) / 256));
  s.rec.add(std::move(in));
}

void set_mrg_sort_result(const uint16_t* counts) {
  std::copy(counts, counts + 4, current().mrg_sort_counts.begin());
}

void mrg_sort_result(uint16_t* counts) {
  const state& s = current();
  std::copy(s.mrg_sort_counts.begin(), s.mrg_sort_counts.end(), counts);
}

}  // namespace aopt_sim::rt
