// Element-wise vector instructions of the kernel shim: binary, tensor-scalar, unary and
// activation ops, Duplicate and Axpy, plus GM atomic accumulation. Each (op, element type) pair
// is one loop instantiated here, so kernels run them at native speed.
#include <algorithm>
#include <cmath>

#include "half_convert.hpp"
#include "kernel_numeric.hpp"
#include "kernel_vector.hpp"
#include "vector_libm.hpp"

namespace aopt::sim::kernel {
namespace {

using aopt_sim::rt::dtype;
using aopt_sim::rt::vop;

template <typename S>
constexpr bool is_int = std::is_integral_v<S>;

// ---- operations on the computation type (float, or int64 for integers) ----------------------
struct op_add {
  template <typename C>
  C operator()(C a, C b) const {
    return a + b;
  }
};
struct op_sub {
  template <typename C>
  C operator()(C a, C b) const {
    return a - b;
  }
};
struct op_mul {
  template <typename C>
  C operator()(C a, C b) const {
    return a * b;
  }
};
struct op_div {
  template <typename C>
  C operator()(C a, C b) const {
    if constexpr (std::is_integral_v<C>)
      return b == 0 ? 0 : a / b;  // no trap on the vector unit
    else
      return a / b;
  }
};
struct op_max {
  template <typename C>
  C operator()(C a, C b) const {
    return a > b ? a : b;
  }
};
struct op_min {
  template <typename C>
  C operator()(C a, C b) const {
    return a < b ? a : b;
  }
};
struct op_and {
  template <typename C>
  C operator()(C a, C b) const {
    return a & b;
  }
};
struct op_or {
  template <typename C>
  C operator()(C a, C b) const {
    return a | b;
  }
};
struct op_add_relu {
  template <typename C>
  C operator()(C a, C b) const {
    const C sum = a + b;
    return sum > 0 ? sum : C{0};
  }
};
struct op_leaky_relu {
  template <typename C>
  C operator()(C a, C alpha) const {
    return a >= 0 ? a : a * alpha;
  }
};
struct op_shift_left {
  template <typename C>
  C operator()(C a, C n) const {
    return n >= 64 || n < 0 ? 0 : static_cast<C>(static_cast<uint64_t>(a) << n);
  }
};
struct op_shift_right {
  template <typename C>
  C operator()(C a, C n) const {
    if (n < 0) return a;
    return a >>
           (n > 63 ? 63 : n);  // arithmetic for signed types (sign-extended), logical otherwise
  }
};

// Unary ops; float-only ones are marked so integer instantiations are refused.
struct op_abs {
  template <typename C>
  C operator()(C a) const {
    return a < 0 ? -a : a;
  }
};
struct op_relu {
  template <typename C>
  C operator()(C a) const {
    return a > 0 ? a : 0;
  }
};
struct op_not {
  static constexpr bool integer_only = true;
  template <typename C>
  C operator()(C a) const {
    return ~a;
  }
};
#define AOPT_FLOAT_UNARY(name, expr)                 \
  struct name {                                      \
    static constexpr bool float_only = true;         \
    float operator()(float x) const { return expr; } \
  };
// Ops that call libm's transcendental functions, run through their vector variants
// (vector_libm.hpp).
#define AOPT_LIBM_UNARY(name, expr)                  \
  struct name {                                      \
    static constexpr bool float_only = true;         \
    static constexpr bool calls_libm = true;         \
    float operator()(float x) const { return expr; } \
  };
AOPT_LIBM_UNARY(op_exp, std::exp(x))
AOPT_LIBM_UNARY(op_ln, std::log(x))
AOPT_FLOAT_UNARY(op_sqrt, std::sqrt(x))
AOPT_FLOAT_UNARY(op_rsqrt, 1.0f / std::sqrt(x))
AOPT_FLOAT_UNARY(op_reciprocal, 1.0f / x)
AOPT_LIBM_UNARY(op_tanh, std::tanh(x))
AOPT_LIBM_UNARY(op_sigmoid, 1.0f / (1.0f + std::exp(-x)))
AOPT_LIBM_UNARY(op_sin, std::sin(x))
AOPT_LIBM_UNARY(op_cos, std::cos(x))
AOPT_LIBM_UNARY(op_erf, std::erf(x))
AOPT_LIBM_UNARY(op_silu, x / (1.0f + std::exp(-x)))
// The tanh approximation of GELU.
AOPT_LIBM_UNARY(op_gelu, 0.5f * x * (1.0f + std::tanh(0.7978845608f * (x + 0.044715f * x * x * x))))
AOPT_FLOAT_UNARY(op_floor, std::floor(x))
AOPT_FLOAT_UNARY(op_ceil, std::ceil(x))
AOPT_FLOAT_UNARY(op_round, std::round(x))
AOPT_FLOAT_UNARY(op_trunc, std::trunc(x))
#undef AOPT_LIBM_UNARY
#undef AOPT_FLOAT_UNARY

template <typename Op, typename = void>
struct float_only : std::false_type {};
template <typename Op>
struct float_only<Op, std::void_t<decltype(Op::float_only)>> : std::true_type {};
template <typename Op, typename = void>
struct calls_libm : std::false_type {};
template <typename Op>
struct calls_libm<Op, std::void_t<decltype(Op::calls_libm)>> : std::true_type {};
template <typename Op, typename = void>
struct integer_only : std::false_type {};
template <typename Op>
struct integer_only<Op, std::void_t<decltype(Op::integer_only)>> : std::true_type {};

// ---- the loops ------------------------------------------------------------------------------
// Half operands are converted in bulk, a chunk at a time (half_convert.hpp), and computed in
// float as the element forms do; the chunk stays in L1 beside its operands. `compute(at, m, out)`
// writes the float results of elements [at, at + m) to `out`; they are stored to `dst` as halves.
// Inlined into each loop's clones, so the float arithmetic is vectorised for each instruction set.
constexpr size_t half_chunk = 512;

template <typename Compute>
__attribute__((always_inline)) inline void in_float_chunks(f16s* dst, size_t n, Compute compute) {
  float out[half_chunk];
  for (size_t at = 0; at < n; at += half_chunk) {
    const size_t m = std::min(half_chunk, n - at);
    compute(at, m, out);
    floats_to_halves(out, &dst[at].bits, m);
  }
}

template <typename S, typename Op>
AOPT_SIM_VECTOR_LOOP void binary_loop(uint8_t* d, const uint8_t* a, const uint8_t* b, size_t n,
                                      const chunk_args&) {
  S* __restrict dst = reinterpret_cast<S*>(d);
  const S* __restrict x = reinterpret_cast<const S*>(a);
  const S* __restrict y = reinterpret_cast<const S*>(b);
  const Op op;
  if constexpr (std::is_same_v<S, f16s>) {
    in_float_chunks(
        dst, n, [&](size_t at, size_t m, float* u) __attribute__((always_inline)) {
          float v[half_chunk];
          halves_to_floats(&x[at].bits, u, m);
          halves_to_floats(&y[at].bits, v, m);
          for (size_t i = 0; i < m; ++i) u[i] = op(u[i], v[i]);
        });
    return;
  }
  for (size_t i = 0; i < n; ++i)
    dst[i] = elem<S>::store(op(elem<S>::load(x[i]), elem<S>::load(y[i])));
}

template <typename S, typename Op>
AOPT_SIM_VECTOR_LOOP void scalar_loop(uint8_t* d, const uint8_t* a, const uint8_t*, size_t n,
                                      const chunk_args& args) {
  using C = typename elem<S>::calc;
  S* __restrict dst = reinterpret_cast<S*>(d);
  const S* __restrict x = reinterpret_cast<const S*>(a);
  const C s = static_cast<C>(args.scalar);
  const Op op;
  if constexpr (std::is_same_v<S, f16s>) {
    in_float_chunks(
        dst, n, [&](size_t at, size_t m, float* u) __attribute__((always_inline)) {
          halves_to_floats(&x[at].bits, u, m);
          for (size_t i = 0; i < m; ++i) u[i] = op(u[i], s);
        });
    return;
  }
  for (size_t i = 0; i < n; ++i) dst[i] = elem<S>::store(op(elem<S>::load(x[i]), s));
}

template <typename S, typename Op>
__attribute__((always_inline)) inline void unary_elements(uint8_t* d, const uint8_t* a, size_t n) {
  S* __restrict dst = reinterpret_cast<S*>(d);
  const S* __restrict x = reinterpret_cast<const S*>(a);
  const Op op;
  if constexpr (std::is_same_v<S, f16s>) {
    in_float_chunks(
        dst, n, [&](size_t at, size_t m, float* u) __attribute__((always_inline)) {
          halves_to_floats(&x[at].bits, u, m);
          for (size_t i = 0; i < m; ++i) u[i] = op(u[i]);
        });
    return;
  }
  for (size_t i = 0; i < n; ++i) dst[i] = elem<S>::store(op(elem<S>::load(x[i])));
}

template <typename S, typename Op>
AOPT_SIM_VECTOR_LOOP void unary_loop(uint8_t* d, const uint8_t* a, const uint8_t*, size_t n,
                                     const chunk_args&) {
  unary_elements<S, Op>(d, a, n);
}

template <typename S, typename Op>
AOPT_SIM_LIBM_LOOP void unary_libm_loop(uint8_t* d, const uint8_t* a, const uint8_t*, size_t n,
                                        const chunk_args&) {
  unary_elements<S, Op>(d, a, n);
}

template <typename S>
AOPT_SIM_VECTOR_LOOP void duplicate_loop(uint8_t* d, const uint8_t*, const uint8_t*, size_t n,
                                         const chunk_args& args) {
  using C = typename elem<S>::calc;
  S* __restrict dst = reinterpret_cast<S*>(d);
  const S v = elem<S>::store(static_cast<C>(args.scalar));
  std::fill(dst, dst + n, v);
}

// dst = dst + src * scalar in float; `d` is read and written.
template <typename D, typename S>
AOPT_SIM_VECTOR_LOOP void axpy_loop(uint8_t* d, const uint8_t* a, const uint8_t*, size_t n,
                                    const chunk_args& args) {
  D* __restrict dst = reinterpret_cast<D*>(d);
  const S* __restrict x = reinterpret_cast<const S*>(a);
  const auto s = static_cast<float>(args.scalar);
  for (size_t i = 0; i < n; ++i)
    dst[i] = elem<D>::store(elem<D>::load(dst[i]) + elem<S>::load(x[i]) * s);
}

// FusedMulAdd (dst = src0 * dst + src1) and MulAddDst (dst = src0 * src1 + dst).
template <typename S, bool DstIsFactor>
AOPT_SIM_VECTOR_LOOP void mul_add_loop(uint8_t* d, const uint8_t* a, const uint8_t* b, size_t n,
                                       const chunk_args&) {
  S* __restrict dst = reinterpret_cast<S*>(d);
  const S* __restrict x = reinterpret_cast<const S*>(a);
  const S* __restrict y = reinterpret_cast<const S*>(b);
  for (size_t i = 0; i < n; ++i) {
    const auto acc = elem<S>::load(dst[i]);
    const auto u = elem<S>::load(x[i]);
    const auto v = elem<S>::load(y[i]);
    dst[i] = elem<S>::store(DstIsFactor ? u * acc + v : u * v + acc);
  }
}

template <typename S, typename Op>
chunk_fn unary_if_supported() {
  if constexpr (float_only<Op>::value && is_int<S>)
    return nullptr;
  else if constexpr (integer_only<Op>::value && !is_int<S>)
    return nullptr;
  else if constexpr (calls_libm<Op>::value)
    return &unary_libm_loop<S, Op>;
  else
    return &unary_loop<S, Op>;
}

template <typename S>
chunk_fn binary_for(vop op) {
  switch (op) {
    case vop::add:
      return &binary_loop<S, op_add>;
    case vop::sub:
      return &binary_loop<S, op_sub>;
    case vop::mul:
      return &binary_loop<S, op_mul>;
    case vop::div:
      return &binary_loop<S, op_div>;
    case vop::max:
      return &binary_loop<S, op_max>;
    case vop::min:
      return &binary_loop<S, op_min>;
    case vop::bit_and:
      if constexpr (is_int<S>) return &binary_loop<S, op_and>;
      return nullptr;
    case vop::bit_or:
      if constexpr (is_int<S>) return &binary_loop<S, op_or>;
      return nullptr;
    case vop::add_relu:
      return &binary_loop<S, op_add_relu>;
    default:
      return nullptr;
  }
}

template <typename S>
chunk_fn scalar_for(vop op) {
  switch (op) {
    case vop::adds:
      return &scalar_loop<S, op_add>;
    case vop::muls:
      return &scalar_loop<S, op_mul>;
    case vop::maxs:
      return &scalar_loop<S, op_max>;
    case vop::mins:
      return &scalar_loop<S, op_min>;
    case vop::leaky_relu:
      return &scalar_loop<S, op_leaky_relu>;
    case vop::shift_left:
      if constexpr (is_int<S>) return &scalar_loop<S, op_shift_left>;
      return nullptr;
    case vop::shift_right:
      if constexpr (is_int<S>) return &scalar_loop<S, op_shift_right>;
      return nullptr;
    default:
      return nullptr;
  }
}

template <typename S>
chunk_fn unary_for(vop op) {
  switch (op) {
#define AOPT_CASE(code, Op) \
  case vop::code:           \
    return unary_if_supported<S, Op>();
    AOPT_CASE(abs, op_abs)
    AOPT_CASE(relu, op_relu)
    AOPT_CASE(bit_not, op_not)
    AOPT_CASE(exp, op_exp)
    AOPT_CASE(ln, op_ln)
    AOPT_CASE(sqrt, op_sqrt)
    AOPT_CASE(rsqrt, op_rsqrt)
    AOPT_CASE(reciprocal, op_reciprocal)
    AOPT_CASE(tanh, op_tanh)
    AOPT_CASE(sigmoid, op_sigmoid)
    AOPT_CASE(sin, op_sin)
    AOPT_CASE(cos, op_cos)
    AOPT_CASE(erf, op_erf)
    AOPT_CASE(silu, op_silu)
    AOPT_CASE(gelu, op_gelu)
    AOPT_CASE(floor, op_floor)
    AOPT_CASE(ceil, op_ceil)
    AOPT_CASE(round, op_round)
    AOPT_CASE(trunc, op_trunc)
#undef AOPT_CASE
    default:
      return nullptr;
  }
}

// Calls f.template operator()<S>() for the storage type of `t`; returns nullptr for types the
// vector unit does not compute with.
template <typename F>
chunk_fn by_type(dtype t, F&& f) {
  switch (t) {
    case dtype::f32:
      return f(static_cast<float*>(nullptr));
    case dtype::f16:
      return f(static_cast<f16s*>(nullptr));
    case dtype::bf16:
      return f(static_cast<bf16s*>(nullptr));
    case dtype::i8:
      return f(static_cast<int8_t*>(nullptr));
    case dtype::u8:
      return f(static_cast<uint8_t*>(nullptr));
    case dtype::i16:
      return f(static_cast<int16_t*>(nullptr));
    case dtype::u16:
      return f(static_cast<uint16_t*>(nullptr));
    case dtype::i32:
      return f(static_cast<int32_t*>(nullptr));
    case dtype::u32:
      return f(static_cast<uint32_t*>(nullptr));
    default:
      return nullptr;
  }
}

[[noreturn]] void unsupported(const char* api, aopt_sim::rt::call_site site, dtype t) {
  fail("bad_argument", cat(where(api, site), ": not supported for ", dtype_name(t), " tensors"));
}

vec_operand operand(const aopt_sim::rt::local_ref& ref, dtype t, int slot, bool read, bool write,
                    const char* name) {
  vec_operand op;
  op.ref = &ref;
  op.size = dtype_size(t);
  op.slot = slot;
  op.read = read;
  op.write = write;
  op.name = name;
  return op;
}

template <typename S, typename Op>
void accumulate_loop(uint8_t* gm, const uint8_t* ub, size_t n) {
  S* dst = reinterpret_cast<S*>(gm);
  const S* src = reinterpret_cast<const S*>(ub);
  const Op op;
  for (size_t i = 0; i < n; ++i)
    dst[i] = elem<S>::store(op(elem<S>::load(dst[i]), elem<S>::load(src[i])));
}

template <typename S>
void accumulate_as(aopt_sim::rt::atomic_op op, uint8_t* gm, const uint8_t* ub, size_t n) {
  switch (op) {
    case aopt_sim::rt::atomic_op::add:
      return accumulate_loop<S, op_add>(gm, ub, n);
    case aopt_sim::rt::atomic_op::max:
      return accumulate_loop<S, op_max>(gm, ub, n);
    case aopt_sim::rt::atomic_op::min:
      return accumulate_loop<S, op_min>(gm, ub, n);
    case aopt_sim::rt::atomic_op::none:
      break;
  }
}

}  // namespace

void accumulate(aopt_sim::rt::atomic_op op, dtype t, uint8_t* gm, const uint8_t* ub, size_t n) {
  switch (t) {
    case dtype::f32:
      return accumulate_as<float>(op, gm, ub, n);
    case dtype::f16:
      return accumulate_as<f16s>(op, gm, ub, n);
    case dtype::bf16:
      return accumulate_as<bf16s>(op, gm, ub, n);
    case dtype::i8:
      return accumulate_as<int8_t>(op, gm, ub, n);
    case dtype::u8:
      return accumulate_as<uint8_t>(op, gm, ub, n);
    case dtype::i16:
      return accumulate_as<int16_t>(op, gm, ub, n);
    case dtype::u16:
      return accumulate_as<uint16_t>(op, gm, ub, n);
    case dtype::i32:
      return accumulate_as<int32_t>(op, gm, ub, n);
    case dtype::u32:
      return accumulate_as<uint32_t>(op, gm, ub, n);
    default:
      break;
  }
}

}  // namespace aopt::sim::kernel

namespace aopt_sim::rt {

using namespace aopt::sim::kernel;  // NOLINT(google-build-using-namespace): implementation file
using aopt::sim::op_class;

void vec_binary(vop op, dtype t, const local_ref& dst, const local_ref& a, const local_ref& b,
                const vec_shape& s, const char* api, call_site site) {
  const chunk_fn fn =
      by_type(t, [op](auto* tag) { return binary_for<std::remove_pointer_t<decltype(tag)>>(op); });
  if (fn == nullptr) unsupported(api, site, t);
  vec_operand ops[] = {operand(dst, t, 0, false, true, "dst"),
                       operand(a, t, 1, true, false, "src0"),
                       operand(b, t, 2, true, false, "src1")};
  elementwise_call(class_of(op), api, site, s, ops, 3, fn, chunk_args{});
}

void vec_unary(vop op, dtype t, const local_ref& dst, const local_ref& src, const vec_shape& s,
               const char* api, call_site site) {
  const chunk_fn fn =
      by_type(t, [op](auto* tag) { return unary_for<std::remove_pointer_t<decltype(tag)>>(op); });
  if (fn == nullptr) unsupported(api, site, t);
  vec_operand ops[] = {operand(dst, t, 0, false, true, "dst"),
                       operand(src, t, 1, true, false, "src")};
  elementwise_call(class_of(op), api, site, s, ops, 2, fn, chunk_args{});
}

void vec_scalar(vop op, dtype t, const local_ref& dst, const local_ref& src, double scalar,
                const vec_shape& s, const char* api, call_site site) {
  const chunk_fn fn =
      by_type(t, [op](auto* tag) { return scalar_for<std::remove_pointer_t<decltype(tag)>>(op); });
  if (fn == nullptr) unsupported(api, site, t);
  vec_operand ops[] = {operand(dst, t, 0, false, true, "dst"),
                       operand(src, t, 1, true, false, "src")};
  chunk_args args;
  args.scalar = scalar;
  elementwise_call(class_of(op), api, site, s, ops, 2, fn, args);
}

void vec_duplicate(dtype t, const local_ref& dst, double value, const vec_shape& s, const char* api,
                   call_site site) {
  const chunk_fn fn = by_type(t, [](auto* tag) -> chunk_fn {
    return &duplicate_loop<std::remove_pointer_t<decltype(tag)>>;
  });
  if (fn == nullptr) unsupported(api, site, t);
  vec_operand ops[] = {operand(dst, t, 0, false, true, "dst")};
  chunk_args args;
  args.scalar = value;
  elementwise_call(op_class::vec_simple, api, site, s, ops, 1, fn, args);
}

void vec_axpy(dtype dst_t, dtype src_t, const local_ref& dst, const local_ref& src, double scalar,
              const vec_shape& s, const char* api, call_site site) {
  chunk_fn fn = nullptr;
  if (dst_t == dtype::f32 && src_t == dtype::f32) fn = &axpy_loop<float, float>;
  if (dst_t == dtype::f32 && src_t == dtype::f16) fn = &axpy_loop<float, f16s>;
  if (dst_t == dtype::f16 && src_t == dtype::f16) fn = &axpy_loop<f16s, f16s>;
  if (dst_t == dtype::bf16 && src_t == dtype::bf16) fn = &axpy_loop<bf16s, bf16s>;
  if (fn == nullptr) {
    fail("bad_argument", cat(where(api, site), ": not supported from ", dtype_name(src_t), " into ",
                             dtype_name(dst_t), " (half, float, half into float, bfloat16_t)"));
  }
  vec_operand ops[] = {operand(dst, dst_t, 0, true, true, "dst"),
                       operand(src, src_t, 1, true, false, "src")};
  chunk_args args;
  args.scalar = scalar;
  elementwise_call(op_class::vec_mul, api, site, s, ops, 2, fn, args);
}

void vec_mul_add(bool dst_is_factor, dtype t, const local_ref& dst, const local_ref& a,
                 const local_ref& b, const vec_shape& s, const char* api, call_site site) {
  chunk_fn fn = nullptr;
  if (t == dtype::f32)
    fn = dst_is_factor ? &mul_add_loop<float, true> : &mul_add_loop<float, false>;
  if (t == dtype::f16) fn = dst_is_factor ? &mul_add_loop<f16s, true> : &mul_add_loop<f16s, false>;
  if (fn == nullptr) unsupported(api, site, t);
  vec_operand ops[] = {operand(dst, t, 0, true, true, "dst"), operand(a, t, 1, true, false, "src0"),
                       operand(b, t, 2, true, false, "src1")};
  elementwise_call(op_class::vec_mul, api, site, s, ops, 3, fn, chunk_args{});
}

}  // namespace aopt_sim::rt
