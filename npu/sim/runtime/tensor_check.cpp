#include "tensor_check.hpp"

#include <cfloat>
#include <cmath>
#include <cstdio>
#include <cstring>

#include "element_codec.hpp"
#include "tolerance_scan.hpp"

namespace aopt::sim {

std::string format_value(double v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  char text[32];
  std::snprintf(text, sizeof(text), "%.7g", v);
  return text;
}

std::string describe_index(const npu::tensor_spec& t, uint64_t flat_index) {
  std::string text = std::to_string(flat_index);
  if (t.shape.size() <= 1) return text;
  std::vector<uint64_t> coords(t.shape.size());
  uint64_t rest = flat_index;
  for (size_t d = t.shape.size(); d-- > 0;) {
    const auto extent = static_cast<uint64_t>(t.shape[d]);
    coords[d] = extent == 0 ? 0 : rest % extent;
    rest = extent == 0 ? 0 : rest / extent;
  }
  text += " [";
  for (size_t d = 0; d < coords.size(); ++d) {
    if (d > 0) text += ", ";
    text += std::to_string(coords[d]);
  }
  return text + "]";
}

namespace {

// Whether every element of `actual` (n raw elements of type T, turned into values by `decode`) is
// within atol + rtol * |expected| of a finite expected value. One loop per element type, without
// branches, so the compiler vectorises it. A poison pattern, NaN or infinity never passes it: only
// a tensor with no element outside can, and for that tensor the exact check below finds no bad
// element either.
template <class T, class Decode>
bool all_within(const uint8_t* actual, const double* expected, uint64_t n, double atol, double rtol,
                Decode decode) {
  uint64_t outside = 0;
  for (uint64_t i = 0; i < n; ++i) {
    T raw;
    std::memcpy(&raw, actual + i * sizeof(T), sizeof(T));
    const double a = decode(raw);
    const double e = expected[i];
    const bool within = std::fabs(a - e) <= atol + rtol * std::fabs(e);
    const bool finite = std::fabs(e) <= DBL_MAX;
    outside += static_cast<uint64_t>(!(within & finite));
  }
  return outside == 0;
}

bool all_within_tolerance(const npu::tensor_spec& output, const uint8_t* actual, const double* e,
                          const npu::tolerance& tol) {
  const uint64_t n = output.numel();
  if (const std::optional<bool> fast =
          all_within_vectorised(output.type, actual, e, n, tol.atol, tol.rtol)) {
    return *fast;
  }
  const auto value = [](auto raw) { return static_cast<double>(raw); };
  switch (output.type) {
    case npu::dtype::float32:
      return all_within<float>(actual, e, n, tol.atol, tol.rtol, value);
    case npu::dtype::float16:
      return all_within<uint16_t>(actual, e, n, tol.atol, tol.rtol, [](uint16_t h) {
        return static_cast<double>(element_detail::float16_to_float(h));
      });
    case npu::dtype::bfloat16:
      return all_within<uint16_t>(actual, e, n, tol.atol, tol.rtol, [](uint16_t h) {
        return static_cast<double>(element_detail::float_of(static_cast<uint32_t>(h) << 16));
      });
    case npu::dtype::int8:
      return all_within<int8_t>(actual, e, n, tol.atol, tol.rtol, value);
    case npu::dtype::uint8:
    case npu::dtype::boolean:
      return all_within<uint8_t>(actual, e, n, tol.atol, tol.rtol, value);
    case npu::dtype::int16:
      return all_within<int16_t>(actual, e, n, tol.atol, tol.rtol, value);
    case npu::dtype::int32:
      return all_within<int32_t>(actual, e, n, tol.atol, tol.rtol, value);
    case npu::dtype::int64:
      return all_within<int64_t>(actual, e, n, tol.atol, tol.rtol, value);
  }
  return false;
}

}  // namespace

std::optional<check_failure> compare_output(const npu::tensor_spec& output, const uint8_t* actual,
                                            const std::vector<double>& expected,
                                            const npu::tolerance& tol, uint32_t poison_variant) {
  return compare_output(output, actual, expected.data(), tol, poison_variant);
}

std::optional<check_failure> compare_output(const npu::tensor_spec& output, const uint8_t* actual,
                                            const double* expected, const npu::tolerance& tol,
                                            uint32_t poison_variant) {
  if (all_within_tolerance(output, actual, expected, tol)) return std::nullopt;
  const uint64_t n = output.numel();
  const uint32_t size = npu::dtype_size(output.type);
  const bool floating = is_floating(output.type);
  uint64_t bad = 0;
  uint64_t unwritten = 0;
  uint64_t first_bad = n;
  uint64_t first_unwritten = n;
  bool non_finite = false;
  for (uint64_t i = 0; i < n; ++i) {
    const uint8_t* element = actual + i * size;
    const double a = decode_element(element, output.type);
    const double e = expected[i];
    bool ok;
    if (floating && is_poison(element, output.type, poison_variant)) {
      ok = false;  // the poison NaN is never a computed value
    } else if (std::isnan(e)) {
      ok = std::isnan(a);
    } else if (std::isinf(e)) {
      ok = a == e;
    } else if (!std::isfinite(a)) {
      ok = false;
      non_finite = true;
    } else {
      ok = std::fabs(a - e) <= tol.atol + tol.rtol * std::fabs(e);
    }
    if (ok) continue;
    if (bad++ == 0) first_bad = i;
    if (is_poison(element, output.type, poison_variant) && unwritten++ == 0) first_unwritten = i;
  }
  if (bad == 0) return std::nullopt;
  const bool too_many = static_cast<double>(bad) > tol.max_error_ratio * static_cast<double>(n);
  if (!too_many && !non_finite && unwritten == 0) return std::nullopt;

  char ratio[64];
  std::snprintf(ratio, sizeof(ratio), "%.4g%%",
                100.0 * static_cast<double>(bad) / static_cast<double>(n));
  if (unwritten > 0) {
    const uint64_t i = first_unwritten;
    return check_failure{
        "unwritten_output",
        "output " + output.name + ": " + std::to_string(unwritten) + " of " + std::to_string(n) +
            " elements were never written (poison left), first at index " +
            describe_index(output, i) + ": expected " +
            format_value(round_to_element(expected[i], output.type)) + ", actual " +
            format_value(decode_element(actual + i * size, output.type)) + " (poison)"};
  }
  const uint64_t i = first_bad;
  char limits[128];
  std::snprintf(limits, sizeof(limits), "rtol %g, atol %g, max error ratio %g", tol.rtol, tol.atol,
                tol.max_error_ratio);
  return check_failure{"mismatch",
                       "output " + output.name + ": " + std::to_string(bad) + " of " +
                           std::to_string(n) + " elements (" + ratio + ") outside " + limits +
                           ", first at index " + describe_index(output, i) + ": expected " +
                           format_value(round_to_element(expected[i], output.type)) + ", actual " +
                           format_value(decode_element(actual + i * size, output.type))};
}

std::optional<check_failure> check_input_unchanged(const npu::tensor_spec& input,
                                                   const uint8_t* original, const uint8_t* after) {
  const uint64_t bytes = input.bytes();
  if (std::memcmp(original, after, bytes) == 0) return std::nullopt;
  const uint32_t size = npu::dtype_size(input.type);
  uint64_t changed = 0;
  uint64_t first = 0;
  const uint64_t n = input.numel();
  for (uint64_t i = 0; i < n; ++i) {
    if (std::memcmp(original + i * size, after + i * size, size) != 0 && changed++ == 0) first = i;
  }
  return check_failure{
      "input_modified",
      "input " + input.name + " was modified by the kernel: " + std::to_string(changed) +
          " elements changed, first at index " + describe_index(input, first) + ": was " +
          format_value(decode_element(original + first * size, input.type)) + ", now " +
          format_value(decode_element(after + first * size, input.type))};
}

}  // namespace aopt::sim
