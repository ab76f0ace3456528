// The operator's reference (reference.cpp, aopt/reference.h) on the host, for devices whose
// outputs come from elsewhere (the NPU): the same seeded inputs and the same comparison as the
// simulator's driver (npu/sim/runtime: input_generator, tensor_check), so a candidate passes on
// hardware exactly when it would pass in the simulator with the same outputs.
//
// reference.cpp is compiled once per distinct source with a small generated main into
// <cache_dir>/reference-<hash>/runner (the same compiler and flags as simulator candidates) and
// runs sandboxed like a candidate: it is operator-package code, not aopt's.
//
// Thread-safety: every member may be called from several threads at once.
#pragma once

#include <cstdint>
#include <filesystem>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "base/status.hpp"
#include "npu/op_package.hpp"
#include "npu/sim/device/candidate_builder.hpp"

namespace aopt::npu {

// One seeded input set: the bytes of each input, in op.json order.
struct input_set {
  uint32_t index = 0;
  uint64_t seed = 0;
  std::vector<std::vector<uint8_t>> inputs;
};

// Input set `index`: every input drawn as the simulator draws it (seed op.seed + index).
input_set make_input_set(const op_spec& op, uint32_t index);

// Writes input i as <dir>/<name>.bin (raw little-endian, the dtype's bytes, row-major).
status write_input_files(const op_spec& op, const input_set& set, const std::filesystem::path& dir);

struct output_check {
  bool ok = true;
  std::string kind;  // "mismatch", "unwritten_output"
  std::string message;
};

// Compares output `i`'s bytes with the expected values as the simulator does (tolerance of
// op.json or the dtype's default; NaN/Inf rules; poison detection of input set `set`).
output_check compare_output_bytes(const op_spec& op, size_t output_index,
                                  const std::vector<uint8_t>& actual,
                                  const std::vector<double>& expected, uint32_t set);

class reference_runner {
 public:
  reference_runner(sim_toolchain toolchain, std::filesystem::path cache_dir);

  // The expected value of every output on `set` (double precision, row-major). Runs in
  // <scratch>/reference. Errors: invalid_argument when reference.cpp does not compile or the
  // reference fails (both name the operator), internal for aopt's own failures.
  result<std::vector<std::vector<double>>> expected(const op_package& op, const input_set& set,
                                                    const std::filesystem::path& scratch,
                                                    double timeout_seconds);

 private:
  result<std::filesystem::path> runner_for(const op_package& op, double timeout_seconds);

  sim_toolchain toolchain_;
  std::filesystem::path cache_dir_;
  std::mutex build_mutex_;  // one compile of a given reference at a time
};

}  // namespace aopt::npu
