// The dequantisation scale register of the kernel shim (SetDeqScale(half)) and AddDeqRelu, the
// instruction that reads it besides Cast int32 -> half (kernel_vector_cast.cpp).
#include "kernel_numeric.hpp"
#include "kernel_vector.hpp"

namespace aopt::sim::kernel {
namespace {

// dst = max(half((a + b) * scale), 0). The sum is exact (no int32 wrap) and the scaling is one
// rounding into half: the documented 2^-17 / 2^17 steps only keep the hardware's intermediate in
// range and leave the exact product unchanged.
AOPT_SIM_VECTOR_LOOP void add_deq_relu_loop(uint8_t* d, const uint8_t* a, const uint8_t* b,
                                            size_t n, const chunk_args& args) {
  f16s* __restrict dst = reinterpret_cast<f16s*>(d);
  const int32_t* __restrict x = reinterpret_cast<const int32_t*>(a);
  const int32_t* __restrict y = reinterpret_cast<const int32_t*>(b);
  for (size_t i = 0; i < n; ++i) {
    const double v = (static_cast<double>(x[i]) + static_cast<double>(y[i])) * args.scalar;
    dst[i] = elem<f16s>::from_double(v > 0 ? v : 0.0, AscendC::RoundMode::CAST_RINT);
  }
}

}  // namespace
}  // namespace aopt::sim::kernel

namespace aopt_sim::rt {

using namespace aopt::sim::kernel;  // NOLINT(google-build-using-namespace): implementation file

void set_deq_scale(float scale) {
  current().deq_scale = scale;
}

void vec_add_deq_relu(const local_ref& dst, const local_ref& a, const local_ref& b,
                      const vec_shape& s, const char* api, call_site site) {
  vec_operand ops[3];
  const local_ref* refs[3] = {&dst, &a, &b};
  const char* names[3] = {"dst", "src0", "src1"};
  for (int i = 0; i < 3; ++i) {
    ops[i].ref = refs[i];
    ops[i].size = i == 0 ? 2 : 4;  // half from int32
    ops[i].slot = i;
    ops[i].read = i != 0;
    ops[i].write = i == 0;
    ops[i].name = names[i];
  }
  chunk_args args;
  args.scalar = current().deq_scale;
  elementwise_call(aopt::sim::op_class::vec_cast, api, site, s, ops, 3, &add_deq_relu_loop, args);
}

}  // namespace aopt_sim::rt
