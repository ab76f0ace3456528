// aopt simulator, kernel side: the LocalTensor operators of AscendC ("整个tensor参与计算", the
// whole tensor takes part): `dst = src0 + src1` (- * / & | likewise) is Add/Sub/Mul/Div/And/Or
// over src0.GetSize() elements, and `dst = src0 < src1` (> <= >= == != likewise) is Compare
// into the bit mask dst over src0.GetSize() elements. Each is the same traced, priced vector
// instruction as the named call.
#pragma once

#include <cstdint>

#include "aopt_sim/kernel/tensor.h"
#include "aopt_sim/kernel/vector_ops.h"
#include "aopt_sim/kernel/vector_reduce.h"

namespace AscendC {
namespace detail {

enum class tensor_op : uint8_t { add, sub, mul, div, bit_and, bit_or, lt, gt, le, ge, eq, ne };

// `src0 op src1`, evaluated when assigned to a LocalTensor.
template <typename T>
struct tensor_expr {
  using aopt_tensor_expr = void;
  tensor_op op;
  LocalTensor<T> a;
  LocalTensor<T> b;

  template <typename D>
  void assign_to(const LocalTensor<D>& dst, site_t site) const {
    const uint32_t n = a.GetSize();
    switch (op) {
      case tensor_op::lt:
        return Compare(dst, a, b, CMPMODE::LT, n, site);
      case tensor_op::gt:
        return Compare(dst, a, b, CMPMODE::GT, n, site);
      case tensor_op::le:
        return Compare(dst, a, b, CMPMODE::LE, n, site);
      case tensor_op::ge:
        return Compare(dst, a, b, CMPMODE::GE, n, site);
      case tensor_op::eq:
        return Compare(dst, a, b, CMPMODE::EQ, n, site);
      case tensor_op::ne:
        return Compare(dst, a, b, CMPMODE::NE, n, site);
      default:
        break;
    }
    if constexpr (std::is_same_v<D, T>) {
      const int32_t count = static_cast<int32_t>(n);
      switch (op) {
        case tensor_op::add:
          return Add(dst, a, b, count, site);
        case tensor_op::sub:
          return Sub(dst, a, b, count, site);
        case tensor_op::mul:
          return Mul(dst, a, b, count, site);
        case tensor_op::div:
          return Div(dst, a, b, count, site);
        case tensor_op::bit_and:
          return And(dst, a, b, count, site);
        case tensor_op::bit_or:
          return Or(dst, a, b, count, site);
        default:
          return;
      }
    } else {
      aopt_sim::rt::kernel_assert_failed(
          "the destination of a tensor arithmetic operator has the operands' type", "operator",
          site.line);
    }
  }
};

}  // namespace detail

#define AOPT_SIM_TENSOR_OPERATOR(sym, code)                                               \
  template <typename T>                                                                   \
  detail::tensor_expr<T> operator sym(const LocalTensor<T>& a, const LocalTensor<T>& b) { \
    return detail::tensor_expr<T>{code, a, b};                                            \
  }

AOPT_SIM_TENSOR_OPERATOR(+, detail::tensor_op::add)
AOPT_SIM_TENSOR_OPERATOR(-, detail::tensor_op::sub)
AOPT_SIM_TENSOR_OPERATOR(*, detail::tensor_op::mul)
AOPT_SIM_TENSOR_OPERATOR(/, detail::tensor_op::div)
AOPT_SIM_TENSOR_OPERATOR(&, detail::tensor_op::bit_and)
AOPT_SIM_TENSOR_OPERATOR(|, detail::tensor_op::bit_or)
AOPT_SIM_TENSOR_OPERATOR(<, detail::tensor_op::lt)
AOPT_SIM_TENSOR_OPERATOR(>, detail::tensor_op::gt)
AOPT_SIM_TENSOR_OPERATOR(<=, detail::tensor_op::le)
AOPT_SIM_TENSOR_OPERATOR(>=, detail::tensor_op::ge)
AOPT_SIM_TENSOR_OPERATOR(==, detail::tensor_op::eq)
AOPT_SIM_TENSOR_OPERATOR(!=, detail::tensor_op::ne)
#undef AOPT_SIM_TENSOR_OPERATOR

}  // namespace AscendC
