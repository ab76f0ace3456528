// aopt simulator: host-side CANN API shim (clean-room, from public documentation).
// Status codes returned by tiling, InferShape and InferDataType functions.
#pragma once

#include <cstdint>

namespace ge {

using graphStatus = uint32_t;
constexpr graphStatus GRAPH_SUCCESS = 0;
constexpr graphStatus GRAPH_FAILED = 0xFFFFFFFFu;
constexpr graphStatus GRAPH_PARAM_INVALID = 50331649u;

}  // namespace ge
