// What a tiling probe process delivers (issue 16: feasibility before the device): the unchecked
// outcome of the candidate's tiling function on the operator's first input set (tiling_call,
// driver.hpp). The probe judges nothing: the trusted side decides from these bytes whether the
// candidate is worth compiling and running.
//
// Wire format (driver_codec.hpp): "AOPTPRB1", exception, status, block dim, tiling key,
// workspace bytes, data size, the tiling bytes (at most data size of them), "AOPTEND1".
#pragma once

#include <string>

#include "driver.hpp"

namespace aopt::sim {

std::string encode_tiling_probe(const tiling_call& call);
// Throws malformed_delivery naming the field. `data` holds the delivered bytes only (no poison).
tiling_call decode_tiling_probe(const std::string& bytes);

}  // namespace aopt::sim
