// Cast of the kernel shim: every pair of the simulated element types under every RoundMode.
// Values go through double (exact for all of them) and are rounded once into the destination;
// the frequent exact or round-to-nearest pairs have direct loops. int32 -> half scales by the
// DEQSCALE register (SetDeqScale), as the documented s322f16 conversion does.
#include "half_convert.hpp"
#include "kernel_numeric.hpp"
#include "kernel_vector.hpp"

namespace aopt::sim::kernel {
namespace {

using aopt_sim::rt::dtype;
using AscendC::RoundMode;

template <typename D, typename S>
AOPT_SIM_VECTOR_LOOP void cast_loop(uint8_t* d, const uint8_t* a, const uint8_t*, size_t n,
                                    const chunk_args& args) {
  D* __restrict dst = reinterpret_cast<D*>(d);
  const S* __restrict src = reinterpret_cast<const S*>(a);
  const RoundMode mode = args.mode;
  if constexpr (std::is_same_v<D, S>) {
    // Same type: round to an integral value (floats); CAST_NONE copies.
    for (size_t i = 0; i < n; ++i) {
      dst[i] = mode == RoundMode::CAST_NONE
                   ? src[i]
                   : elem<D>::from_double(round_integral(elem<S>::to_double(src[i]), mode),
                                          RoundMode::CAST_RINT);
    }
  } else if constexpr (std::is_same_v<D, float> &&
                       (std::is_same_v<S, f16s> || std::is_same_v<S, bf16s>)) {
    if constexpr (std::is_same_v<S, f16s>) {
      halves_to_floats(&src[0].bits, dst, n);  // exact
    } else {
      for (size_t i = 0; i < n; ++i) dst[i] = elem<S>::load(src[i]);  // exact
    }
  } else if constexpr (std::is_same_v<S, float> &&
                       (std::is_same_v<D, f16s> || std::is_same_v<D, bf16s>)) {
    if (mode == RoundMode::CAST_NONE || mode == RoundMode::CAST_RINT) {
      if constexpr (std::is_same_v<D, f16s>) {
        floats_to_halves(src, &dst[0].bits, n);
        return;
      }
      for (size_t i = 0; i < n; ++i) dst[i] = elem<D>::store(src[i]);
    } else {
      for (size_t i = 0; i < n; ++i) dst[i] = elem<D>::from_double(src[i], mode);
    }
  } else if constexpr (std::is_same_v<D, f16s> && std::is_same_v<S, int32_t>) {
    // s322f16 reads DEQSCALE (args.scalar); the product is exact in double, so one rounding.
    for (size_t i = 0; i < n; ++i)
      dst[i] = elem<D>::from_double(static_cast<double>(src[i]) * args.scalar, mode);
  } else {
    for (size_t i = 0; i < n; ++i) dst[i] = elem<D>::from_double(elem<S>::to_double(src[i]), mode);
  }
}

template <typename D>
chunk_fn cast_from(dtype src) {
  switch (src) {
    case dtype::f32:
      return &cast_loop<D, float>;
    case dtype::f16:
      return &cast_loop<D, f16s>;
    case dtype::bf16:
      return &cast_loop<D, bf16s>;
    case dtype::i8:
      return &cast_loop<D, int8_t>;
    case dtype::u8:
      return &cast_loop<D, uint8_t>;
    case dtype::i16:
      return &cast_loop<D, int16_t>;
    case dtype::u16:
      return &cast_loop<D, uint16_t>;
    case dtype::i32:
      return &cast_loop<D, int32_t>;
    case dtype::u32:
      return &cast_loop<D, uint32_t>;
    case dtype::i64:
      return &cast_loop<D, int64_t>;
    default:
      return nullptr;
  }
}

chunk_fn cast_fn(dtype dst, dtype src) {
  switch (dst) {
    case dtype::f32:
      return cast_from<float>(src);
    case dtype::f16:
      return cast_from<f16s>(src);
    case dtype::bf16:
      return cast_from<bf16s>(src);
    case dtype::i8:
      return cast_from<int8_t>(src);
    case dtype::u8:
      return cast_from<uint8_t>(src);
    case dtype::i16:
      return cast_from<int16_t>(src);
    case dtype::u16:
      return cast_from<uint16_t>(src);
    case dtype::i32:
      return cast_from<int32_t>(src);
    case dtype::u32:
      return cast_from<uint32_t>(src);
    case dtype::i64:
      return cast_from<int64_t>(src);
    default:
      return nullptr;
  }
}

bool is_integer(dtype t) {
  return t != dtype::f32 && t != dtype::f16 && t != dtype::bf16;
}

}  // namespace
}  // namespace aopt::sim::kernel

namespace aopt_sim::rt {

using namespace aopt::sim::kernel;  // NOLINT(google-build-using-namespace): implementation file

void vec_cast(dtype dst_t, dtype src_t, AscendC::RoundMode mode, const local_ref& dst,
              const local_ref& src, const vec_shape& s, const char* api, call_site site) {
  const chunk_fn fn = cast_fn(dst_t, src_t);
  if (fn == nullptr) {
    fail("bad_argument", cat(where(api, site), ": no conversion from ", dtype_name(src_t), " to ",
                             dtype_name(dst_t)));
  }
  if (mode == AscendC::RoundMode::CAST_ODD && is_integer(dst_t)) {
    fail("bad_argument",
         cat(where(api, site), ": CAST_ODD rounds to a floating type, not to ", dtype_name(dst_t)));
  }
  vec_operand ops[2];
  ops[0].ref = &dst;
  ops[0].size = dtype_size(dst_t);
  ops[0].slot = 0;
  ops[0].write = true;
  ops[0].name = "dst";
  ops[1].ref = &src;
  ops[1].size = dtype_size(src_t);
  ops[1].slot = 1;
  ops[1].read = true;
  ops[1].name = "src";
  chunk_args args;
  args.mode = mode;
  if (dst_t == dtype::f16 && src_t == dtype::i32) args.scalar = current().deq_scale;
  elementwise_call(aopt::sim::op_class::vec_cast, api, site, s, ops, 2, fn, args);
}

}  // namespace aopt_sim::rt
