// Element types of operator tensors: the one enum of op.json's "dtype" names, shared by the
// daemon and the candidate-side driver (npu/sim/runtime).
#pragma once

#include <cstdint>
#include <string>

namespace aopt::npu {

// Element types the simulator executes. Names as in op.json.
enum class dtype { float32, float16, bfloat16, int8, uint8, int16, int32, int64, boolean };

// The canonical op.json name ("float16").
const char* to_string(dtype t);
// Accepts the canonical names and their aliases ("float", "fp32", "half", "bf16", ...).
bool parse_dtype(const std::string& text, dtype& out);
uint32_t dtype_size(dtype t);

}  // namespace aopt::npu
