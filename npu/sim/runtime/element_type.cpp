#include "element_type.hpp"

#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

namespace aopt::sim {
namespace {

struct type_name {
  const char* name;
  element_type type;
};

// Canonical names first: to_string returns the first name of each type.
constexpr type_name type_names[] = {
    {"float32", element_type::float32},   {"float16", element_type::float16},
    {"bfloat16", element_type::bfloat16}, {"int8", element_type::int8},
    {"uint8", element_type::uint8},       {"int16", element_type::int16},
    {"int32", element_type::int32},       {"int64", element_type::int64},
    {"bool", element_type::boolean},      {"float", element_type::float32},
    {"fp32", element_type::float32},      {"half", element_type::float16},
    {"fp16", element_type::float16},      {"bf16", element_type::bfloat16},
    {"boolean", element_type::boolean},
};

constexpr uint32_t float32_poison = 0x7FA5A5A5u;
constexpr uint16_t float16_poison = 0x7E5Au;
constexpr uint16_t bfloat16_poison = 0x7FA5u;
constexpr uint8_t integer_poison_bytes[2] = {0x5A, 0xA5};

// IEEE-style binary format with `exp_bits` exponent and `mant_bits` mantissa bits (binary16:
// 5/10, bfloat16: 8/7), rounded directly from double (to nearest, ties to even) to avoid double
// rounding through float. Generating and checking tensors converts every element, so this works
// on the double's bits instead of calling into libm.
uint32_t encode_small_float(double value, int exp_bits, int mant_bits) {
  const int bias = (1 << (exp_bits - 1)) - 1;
  const uint32_t max_exp = (1u << exp_bits) - 1;
  uint64_t d = 0;
  std::memcpy(&d, &value, sizeof d);
  const uint32_t sign = (d >> 63) != 0 ? 1u << (exp_bits + mant_bits) : 0u;
  const uint32_t infinity = max_exp << mant_bits;
  const int d_exp = static_cast<int>((d >> 52) & 0x7FF);
  const uint64_t d_mant = d & ((uint64_t{1} << 52) - 1);
  if (d_exp == 0x7FF) return sign | infinity | (d_mant != 0 ? 1u << (mant_bits - 1) : 0u);
  const int e = d_exp - 1023;  // |value| = 1.m * 2^e (or a double subnormal: far below ours)
  if (e < 1 - bias) {
    // Subnormal: a multiple of the smallest subnormal; rounding up to 1 << mant_bits yields the
    // smallest normal's bit pattern. Scaling by a power of two is exact.
    const double scale = std::ldexp(1.0, bias - 1 + mant_bits);
    return sign | static_cast<uint32_t>(std::nearbyint(std::fabs(value) * scale));
  }
  const int shift = 52 - mant_bits;
  uint64_t fraction = d_mant >> shift;
  const uint64_t rest = d_mant & ((uint64_t{1} << shift) - 1);
  const uint64_t half = uint64_t{1} << (shift - 1);
  if (rest > half || (rest == half && (fraction & 1) != 0)) ++fraction;
  // A fraction rounded up to 1 << mant_bits carries into the exponent, which is what adding does.
  const uint64_t bits = (static_cast<uint64_t>(e + bias) << mant_bits) + fraction;
  if (bits >= infinity) return sign | infinity;
  return sign | static_cast<uint32_t>(bits);
}

double decode_small_float_slow(uint32_t bits, int exp_bits, int mant_bits) {
  const int bias = (1 << (exp_bits - 1)) - 1;
  const uint32_t max_exp = (1u << exp_bits) - 1;
  const bool negative = (bits >> (exp_bits + mant_bits)) & 1u;
  const uint32_t e = (bits >> mant_bits) & max_exp;
  const uint32_t m = bits & ((1u << mant_bits) - 1);
  double magnitude;
  if (e == max_exp) {
    magnitude =
        m != 0 ? std::numeric_limits<double>::quiet_NaN() : std::numeric_limits<double>::infinity();
  } else if (e == 0) {
    magnitude = std::ldexp(static_cast<double>(m), 1 - bias - mant_bits);
  } else {
    magnitude = std::ldexp(1.0 + std::ldexp(static_cast<double>(m), -mant_bits),
                           static_cast<int>(e) - bias);
  }
  return negative ? -magnitude : magnitude;
}

// Every 16-bit pattern of a format decoded once (built on first use, read-only afterwards).
std::vector<double> decode_table(int exp_bits, int mant_bits) {
  std::vector<double> table(1u << 16);
  for (uint32_t bits = 0; bits < table.size(); ++bits) {
    table[bits] = decode_small_float_slow(bits, exp_bits, mant_bits);
  }
  return table;
}

double decode_float16(uint16_t bits) {
  static const std::vector<double> table = decode_table(5, 10);
  return table[bits];
}

double decode_bfloat16(uint16_t bits) {
  static const std::vector<double> table = decode_table(8, 7);
  return table[bits];
}

template <class T>
void store(void* out, T value) {
  std::memcpy(out, &value, sizeof(T));
}

template <class T>
T load(const void* in) {
  T value;
  std::memcpy(&value, in, sizeof(T));
  return value;
}

template <class T>
T saturate(double value) {
  if (std::isnan(value)) return 0;
  const double r = std::nearbyint(value);
  if (r <= static_cast<double>(std::numeric_limits<T>::lowest())) {
    return std::numeric_limits<T>::lowest();
  }
  if (r >= static_cast<double>(std::numeric_limits<T>::max())) return std::numeric_limits<T>::max();
  return static_cast<T>(r);
}

}  // namespace

bool parse_element_type(const std::string& text, element_type& out) {
  for (const auto& n : type_names) {
    if (text == n.name) {
      out = n.type;
      return true;
    }
  }
  return false;
}

const char* to_string(element_type t) {
  for (const auto& n : type_names) {
    if (n.type == t) return n.name;
  }
  return "unknown";
}

uint32_t element_size(element_type t) {
  switch (t) {
    case element_type::float32:
      return 4;
    case element_type::float16:
      return 2;
    case element_type::bfloat16:
      return 2;
    case element_type::int8:
      return 1;
    case element_type::uint8:
      return 1;
    case element_type::int16:
      return 2;
    case element_type::int32:
      return 4;
    case element_type::int64:
      return 8;
    case element_type::boolean:
      return 1;
  }
  return 1;
}

bool is_floating(element_type t) {
  return t == element_type::float32 || t == element_type::float16 || t == element_type::bfloat16;
}

double lowest_value(element_type t) {
  switch (t) {
    case element_type::int8:
      return std::numeric_limits<int8_t>::lowest();
    case element_type::uint8:
      return 0;
    case element_type::int16:
      return std::numeric_limits<int16_t>::lowest();
    case element_type::int32:
      return std::numeric_limits<int32_t>::lowest();
    case element_type::int64:
      return static_cast<double>(std::numeric_limits<int64_t>::lowest());
    case element_type::boolean:
      return 0;
    default:
      return -std::numeric_limits<double>::infinity();
  }
}

double highest_value(element_type t) {
  switch (t) {
    case element_type::int8:
      return std::numeric_limits<int8_t>::max();
    case element_type::uint8:
      return std::numeric_limits<uint8_t>::max();
    case element_type::int16:
      return std::numeric_limits<int16_t>::max();
    case element_type::int32:
      return std::numeric_limits<int32_t>::max();
    case element_type::int64:
      return static_cast<double>(std::numeric_limits<int64_t>::max());
    case element_type::boolean:
      return 1;
    default:
      return std::numeric_limits<double>::infinity();
  }
}

void encode_element(double value, element_type t, void* out) {
  switch (t) {
    case element_type::float32:
      store(out, static_cast<float>(value));
      break;
    case element_type::float16:
      store(out, static_cast<uint16_t>(encode_small_float(value, 5, 10)));
      break;
    case element_type::bfloat16:
      store(out, static_cast<uint16_t>(encode_small_float(value, 8, 7)));
      break;
    case element_type::int8:
      store(out, saturate<int8_t>(value));
      break;
    case element_type::uint8:
      store(out, saturate<uint8_t>(value));
      break;
    case element_type::int16:
      store(out, saturate<int16_t>(value));
      break;
    case element_type::int32:
      store(out, saturate<int32_t>(value));
      break;
    case element_type::int64:
      store(out, saturate<int64_t>(value));
      break;
    case element_type::boolean:
      store(out, static_cast<uint8_t>(value != 0 ? 1 : 0));
      break;
  }
}

double decode_element(const void* in, element_type t) {
  switch (t) {
    case element_type::float32:
      return load<float>(in);
    case element_type::float16:
      return decode_float16(load<uint16_t>(in));
    case element_type::bfloat16:
      return decode_bfloat16(load<uint16_t>(in));
    case element_type::int8:
      return load<int8_t>(in);
    case element_type::uint8:
      return load<uint8_t>(in);
    case element_type::int16:
      return load<int16_t>(in);
    case element_type::int32:
      return load<int32_t>(in);
    case element_type::int64:
      return static_cast<double>(load<int64_t>(in));
    case element_type::boolean:
      return load<uint8_t>(in);
  }
  return 0;
}

double round_to_element(double value, element_type t) {
  unsigned char bytes[8];
  encode_element(value, t, bytes);
  return decode_element(bytes, t);
}

void fill_poison(void* out, element_type t, size_t count, uint32_t variant) {
  auto* bytes = static_cast<unsigned char*>(out);
  switch (t) {
    case element_type::float32:
      for (size_t i = 0; i < count; ++i) store(bytes + 4 * i, float32_poison);
      break;
    case element_type::float16:
      for (size_t i = 0; i < count; ++i) store(bytes + 2 * i, float16_poison);
      break;
    case element_type::bfloat16:
      for (size_t i = 0; i < count; ++i) store(bytes + 2 * i, bfloat16_poison);
      break;
    default:
      std::memset(out, integer_poison_bytes[variant % 2], count * element_size(t));
      break;
  }
}

bool is_poison(const void* element, element_type t, uint32_t variant) {
  switch (t) {
    case element_type::float32:
      return load<uint32_t>(element) == float32_poison;
    case element_type::float16:
      return load<uint16_t>(element) == float16_poison;
    case element_type::bfloat16:
      return load<uint16_t>(element) == bfloat16_poison;
    default: {
      const auto* bytes = static_cast<const unsigned char*>(element);
      for (uint32_t i = 0; i < element_size(t); ++i) {
        if (bytes[i] != integer_poison_bytes[variant % 2]) return false;
      }
      return true;
    }
  }
}

}  // namespace aopt::sim
