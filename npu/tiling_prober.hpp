// A device that can run a candidate's tiling function alone (issue 16: feasibility before the
// device): the host unit only, against the operator's shapes, sandboxed like a candidate, far
// cheaper than compiling and running the kernel. It reports what the tiling function decided and
// judges nothing: the caller decides whether the candidate is worth an evaluation.
//
// Implementations: sim_device. Thread-safety: probe_tiling() may be called from several threads.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "npu/op_package.hpp"

namespace aopt::npu {

struct tiling_probe_result {
  enum class kind {
    ran,            // the fields below hold what the tiling function decided
    compile_error,  // the tiling program does not build (error_kind "compile", "forbidden", ...)
    crashed,        // the probe process died (signal, exit code) or ran out of time
    unavailable,    // the probe could not run for reasons of the machine: judge nothing
  };
  kind result = kind::unavailable;
  std::string error_kind;
  std::string message;  // one line

  // kind::ran. Unchecked: a hostile tiling program can only make its own candidate rejected.
  std::string exception;  // what the tiling function threw, empty when it returned
  uint32_t status = 0;    // its ge::graphStatus (0: success)
  uint32_t block_dim = 0;
  uint64_t tiling_key = 0;
  uint64_t workspace_bytes = 0;
  uint64_t data_size = 0;            // as the tiling function set it
  std::vector<uint8_t> tiling_data;  // the bytes saved, at most data_size
  double seconds = 0;                // build + run
};

class tiling_prober {
 public:
  virtual ~tiling_prober() = default;
  virtual tiling_probe_result probe_tiling(const op_package& op,
                                           const std::string& tiling_source) = 0;
};

}  // namespace aopt::npu
