// The functional checks a candidate must pass on every input set: outputs within tolerance of
// the reference, no output element left unwritten, inputs unchanged.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "driver_spec.hpp"

namespace aopt::sim {

struct check_failure {
  std::string kind;     // "mismatch", "unwritten_output", "input_modified"
  std::string message;  // names the tensor, the first bad index, expected and actual values
};

// Compares an output's bytes with the reference's values: element i is bad when
// |actual - expected| > atol + rtol * |expected| (NaN matches only NaN, infinities only
// themselves); the output fails when more than max_error_ratio of its elements are bad or any
// element is NaN/Inf where a finite value is expected. A bad element still holding the poison
// pattern (of `poison_variant`, see fill_poison) makes the failure "unwritten_output".
std::optional<check_failure> compare_output(const npu::tensor_spec& output, const uint8_t* actual,
                                            const std::vector<double>& expected,
                                            const npu::tolerance& tol, uint32_t poison_variant = 0);
// The same, against output.numel() expected values at `expected` (a mapped delivery's).
std::optional<check_failure> compare_output(const npu::tensor_spec& output, const uint8_t* actual,
                                            const double* expected, const npu::tolerance& tol,
                                            uint32_t poison_variant = 0);

// Compares an input's bytes after the run with the bytes the kernel was given.
std::optional<check_failure> check_input_unchanged(const npu::tensor_spec& input,
                                                   const uint8_t* original, const uint8_t* after);

// "17" for a 1-D tensor, "4113 [2, 17]" otherwise.
std::string describe_index(const npu::tensor_spec& t, uint64_t flat_index);
// A value for messages: up to 7 significant digits, "nan", "inf".
std::string format_value(double v);

}  // namespace aopt::sim
