// aopt simulator, kernel side: which block (core) the kernel runs as, the launch's tiling key,
// and the debugging helpers of AscendC (printf to stderr, DumpTensor as a no-op).
#pragma once

#include <cstdint>
#include <cstdio>

#include "aopt_sim/kernel/defs.h"
#include "aopt_sim/kernel/runtime_api.h"
#include "aopt_sim/kernel/tensor.h"

// True when the running launch's tiling key (TilingContext::SetTilingKey) equals `key`.
#define TILING_KEY_IS(key) (::aopt_sim::rt::tiling_key() == static_cast<uint64_t>(key))

namespace AscendC {

inline int64_t GetBlockIdx() {
  return aopt_sim::rt::block_idx();
}
inline int64_t GetBlockNum() {
  return aopt_sim::rt::block_num();
}
// In a MIX launch an AIV's place in its group and the AIVs per AIC; otherwise 0 and 1.
inline int64_t GetSubBlockIdx() {
  return aopt_sim::rt::sub_block_idx();
}
inline int64_t GetSubBlockNum() {
  return aopt_sim::rt::sub_block_num();
}
inline int64_t GetTaskRation() {
  return aopt_sim::rt::task_ration();
}

inline void SetKernelMode(KernelMode) {}

// A template so that an unqualified `printf` under `using namespace AscendC` picks this one over
// the C library's without ambiguity.
template <typename... Args>
void printf(const char* format, Args... args) {
  if constexpr (sizeof...(Args) == 0)
    std::fputs(format, stderr);
  else
    std::fprintf(stderr, format, args...);
}
template <typename... Args>
void PRINTF(const char* format, Args... args) {
  AscendC::printf(format, args...);
}

template <typename T>
void DumpTensor(const LocalTensor<T>&, uint32_t, uint32_t) {}
template <typename T>
void DumpTensor(const GlobalTensor<T>&, uint32_t, uint32_t) {}

}  // namespace AscendC
