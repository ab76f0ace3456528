// The byte layout of an operator's tiling data, read from its tiling header, so that the trusted
// side can read the values a tiling function saved (issue 16: feasibility before the device).
//
// The shim's BEGIN_TILING_DATA_DEF class (register/tilingdata_base.h) holds its fields as plain
// members in declaration order, so each field sits at the next offset aligned to its size:
//   TILING_DATA_FIELD_DEF(type, name)             a scalar
//   TILING_DATA_FIELD_DEF_ARR(type, n, name)      n scalars
//   TILING_DATA_FIELD_DEF_STRUCT(struct, name)    a nested class: it and the fields after it are
//                                                 left out (their offsets need its layout)
// Scalar types: [u]int8/16/32/64_t, int, unsigned, float, double, bool. A field of another type
// ends the layout the same way. The class read is the one REGISTER_TILING_DATA_CLASS names, else
// the last one defined.
//
// Thread-safety: pure functions.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "base/status.hpp"

namespace aopt::agent {

struct tiling_field {
  std::string name;
  std::string type;
  uint32_t size = 0;    // bytes of one element
  uint64_t offset = 0;  // from the start of the tiling data
  uint32_t count = 1;   // > 1 for arrays
  bool is_integer = true;
};

struct tiling_data_layout {
  std::string class_name;
  std::vector<tiling_field> fields;  // the fields whose offsets are known
};

// not_found when `header` defines no tiling data class.
result<tiling_data_layout> parse_tiling_layout(const std::string& header);

// The value of every integer scalar field that lies within `data` (little-endian, as the
// simulator writes it). Arrays and floating-point fields are left out.
std::map<std::string, int64_t> read_integer_fields(const tiling_data_layout& layout,
                                                   const std::vector<uint8_t>& data);

}  // namespace aopt::agent
