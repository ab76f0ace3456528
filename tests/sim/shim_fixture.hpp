// Runs kernels written in a test against the AscendC shim in-process: GM tensors over aligned
// host buffers, one simulated core per block, and helpers to read results back.
#pragma once

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "kernel_operator.h"
#include "npu/sim/runtime/core_context.hpp"

namespace aopt::sim::testing {

class shim_run {
 public:
  shim_run() = default;

  // A GM tensor of `count` elements of T (512-byte aligned, like the driver's), zero-filled.
  template <typename T>
  T* gm(const std::string& name, size_t count) {
    const size_t bytes = count * sizeof(T);
    const size_t rounded = (bytes + 511) / 512 * 512 + 512;
    buffers_.emplace_back(static_cast<uint8_t*>(std::aligned_alloc(512, rounded)));
    std::memset(buffers_.back().get(), 0, rounded);
    launch.gm.push_back(gm_region{name, buffers_.back().get(), bytes});
    return reinterpret_cast<T*>(buffers_.back().get());
  }

  // Runs `kernel` as block `block` on a fresh core; finish() checks run too. Returns the trace.
  core_trace run(const std::function<void()>& kernel, uint32_t block = 0) {
    core_context core(launch, block);
    {
      scoped_core scope(core);
      kernel();
    }
    core.finish();
    warnings = core.take_warnings();
    return core.take_trace();
  }

  kernel_launch launch;
  std::vector<std::string> warnings;  // of the last run

 private:
  struct free_deleter {
    void operator()(uint8_t* p) const { std::free(p); }
  };
  std::vector<std::unique_ptr<uint8_t, free_deleter>> buffers_;
};

// The kind of the sim_error `f` throws, or "" when it throws none; `message` receives what().
inline std::string error_kind(const std::function<void()>& f, std::string* message = nullptr) {
  try {
    f();
  } catch (const sim_error& e) {
    if (message != nullptr) *message = e.what();
    return e.kind();
  }
  return "";
}

inline float round_half(float v) {
  return static_cast<float>(static_cast<half>(v));
}
inline float round_bf16(float v) {
  return static_cast<float>(bfloat16_t(v));
}

}  // namespace aopt::sim::testing
