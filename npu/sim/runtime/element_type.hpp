// Element types of operator tensors as the candidate-side driver handles them: parsing op.json
// names, rounding doubles into a tensor's bytes and back, and the poison pattern that marks
// output bytes the kernel never wrote.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace aopt::sim {

enum class element_type { float32, float16, bfloat16, int8, uint8, int16, int32, int64, boolean };

// Accepts the op.json names and their aliases ("float32", "float", "fp32", "half", "bf16", ...).
bool parse_element_type(const std::string& text, element_type& out);
const char* to_string(element_type t);  // the canonical op.json name
uint32_t element_size(element_type t);
bool is_floating(element_type t);
// The representable range of an integer type ([0, 1] for bool); +-infinity for floats.
double lowest_value(element_type t);
double highest_value(element_type t);

// Rounds `value` to the nearest value of type `t` (ties to even; integers saturate, NaN -> 0)
// and writes its bytes to `out`.
void encode_element(double value, element_type t, void* out);
double decode_element(const void* in, element_type t);
// `value` after a round trip through type `t`.
double round_to_element(double value, element_type t);

// Fills `count` elements with the poison pattern: a NaN bit pattern for floats, 0x5A bytes for
// integers and bool (0xA5 for odd `variant`s). An integer poison can equal a correct value, so
// consecutive input sets use alternating variants: an element the kernel never writes then
// differs from the expected value in at least one set.
void fill_poison(void* out, element_type t, size_t count, uint32_t variant = 0);
bool is_poison(const void* element, element_type t, uint32_t variant = 0);

}  // namespace aopt::sim
