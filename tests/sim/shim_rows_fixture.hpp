// Runs a one-tile kernel written in a test against the AscendC shim: an input tile of T copied
// into UB through a TQue, a compute step the test writes, an output tile of raw bytes copied back
// (what the library API tests of this folder share), and seeded inputs.
#pragma once

#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

#include "sim/shim_fixture.hpp"

namespace aopt::sim::testing {

// An [m, k] tile `x` of T in, `out_bytes` bytes out, through TQue buffers as public samples
// write kernels; `compute(out, x)` fills the output tile.
template <typename T, typename Compute>
std::vector<uint8_t> run_rows(const std::vector<T>& x, uint32_t out_bytes, Compute compute,
                              core_trace* trace = nullptr) {
  shim_run run;
  const uint32_t n = static_cast<uint32_t>(x.size());
  T* xg = run.gm<T>("x", n);
  uint8_t* zg = run.gm<uint8_t>("z", out_bytes);
  std::copy(x.begin(), x.end(), xg);
  core_trace t = run.run([&] {
    AscendC::TPipe pipe;
    AscendC::TQue<AscendC::QuePosition::VECIN, 1> inX;
    AscendC::TQue<AscendC::QuePosition::VECOUT, 1> outZ;
    AscendC::GlobalTensor<T> xGm, zGm;
    xGm.SetGlobalBuffer((__gm__ T*)xg, n);
    zGm.SetGlobalBuffer((__gm__ T*)zg, out_bytes / sizeof(T));
    pipe.InitBuffer(inX, 1, n * sizeof(T));
    pipe.InitBuffer(outZ, 1, out_bytes);
    AscendC::LocalTensor<T> xl = inX.AllocTensor<T>();
    AscendC::DataCopy(xl, xGm, n);
    inX.EnQue(xl);
    xl = inX.DeQue<T>();
    AscendC::LocalTensor<T> zl = outZ.AllocTensor<T>();
    compute(zl, xl);
    outZ.EnQue(zl);
    inX.FreeTensor(xl);
    zl = outZ.DeQue<T>();
    AscendC::DataCopy(zGm, zl, out_bytes / sizeof(T));
    outZ.FreeTensor(zl);
  });
  if (trace != nullptr) *trace = std::move(t);
  return std::vector<uint8_t>(zg, zg + out_bytes);
}

template <typename T>
float at(const std::vector<uint8_t>& bytes, uint64_t byte_offset, uint64_t i) {
  T v;
  std::memcpy(&v, bytes.data() + byte_offset + i * sizeof(T), sizeof(T));
  return static_cast<float>(v);
}

template <typename T>
std::vector<T> draw(uint64_t seed, size_t n, double lo, double hi) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> d(lo, hi);
  std::vector<T> v(n);
  for (T& e : v) e = static_cast<T>(static_cast<float>(d(rng)));
  return v;
}

}  // namespace aopt::sim::testing
