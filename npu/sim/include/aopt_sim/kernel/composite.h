// aopt simulator, kernel side: the helper behind the composite vector APIs (Gather, Sort32,
// Transpose, CumSum, ...). The API template names its operands as contiguous element spans;
// composite_call has the runtime check and trace them (runtime_api.h vec_composite) and hands
// back typed pointers into the simulated UB, on which the template computes the result.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <initializer_list>

#include "aopt_sim/kernel/runtime_api.h"
#include "aopt_sim/kernel/tensor.h"

namespace AscendC {
namespace detail {

struct composite_operand {
  const aopt_sim::rt::local_ref* ref;
  uint64_t offset_bytes;
  uint64_t bytes;
  bool read;
  bool write;
  const char* name;
};

template <typename T>
composite_operand reads(const LocalTensor<T>& t, uint64_t elements, const char* name = "src",
                        uint64_t first = 0) {
  return {&t.aopt_ref(), first * sizeof(T), elements * sizeof(T), true, false, name};
}
template <typename T>
composite_operand writes(const LocalTensor<T>& t, uint64_t elements, const char* name = "dst",
                         uint64_t first = 0) {
  return {&t.aopt_ref(), first * sizeof(T), elements * sizeof(T), false, true, name};
}
template <typename T>
composite_operand updates(const LocalTensor<T>& t, uint64_t elements, const char* name = "dst") {
  return {&t.aopt_ref(), 0, elements * sizeof(T), true, true, name};
}

// Checks and traces the operands; ptrs[i] receives operand i's first byte. At most 8 operands.
inline void composite_call(aopt_sim::rt::vec_class cls,
                           std::initializer_list<composite_operand> ops, uint8_t** ptrs,
                           uint64_t work_bytes, const char* api, aopt_sim::rt::call_site site) {
  aopt_sim::rt::vec_span spans[8];
  size_t n = 0;
  for (const composite_operand& o : ops) {
    if (n == 8) break;
    spans[n].ref = o.ref;
    spans[n].offset = o.offset_bytes;
    spans[n].bytes = o.bytes;
    spans[n].read = o.read;
    spans[n].write = o.write;
    spans[n].name = o.name;
    ++n;
  }
  aopt_sim::rt::vec_composite(cls, spans, n, ptrs, work_bytes, api, site);
}

// Element arithmetic in float for the 16-bit float types, natively otherwise.
template <typename T>
struct calc {
  using type = T;
};
template <>
struct calc<half> {
  using type = float;
};
template <>
struct calc<bfloat16_t> {
  using type = float;
};
template <typename T>
using calc_t = typename calc<T>::type;

template <typename T>
calc_t<T> load(const uint8_t* p, uint64_t i) {
  T v;
  std::memcpy(&v, p + i * sizeof(T), sizeof(T));
  return static_cast<calc_t<T>>(v);
}
template <typename T>
void store(uint8_t* p, uint64_t i, calc_t<T> v) {
  const T t = static_cast<T>(v);
  std::memcpy(p + i * sizeof(T), &t, sizeof(T));
}

}  // namespace detail
}  // namespace AscendC
