// aopt simulator, host side: the Matmul tiling API (matmul_tiling::MatmulApiTiling and
// MultiCoreMatmulTiling), written from the public AscendC documentation of its calls.
//
// GetTiling fills a TCubeTiling by these rules (the documented constraints, our own search):
//   * the shape is split over SetDim cores as an mDim x nDim grid that keeps each core's block
//     closest to square, singleCoreM/N rounded up to 16;
//   * baseM x baseN is the largest pair of powers of two (16..256, each at most the core's block
//     rounded up to 16) whose float result fits L0C (half of it when it fits twice: dbL0C);
//   * baseK the largest power of two (16..256 elements, at most K rounded up) whose A and B tiles
//     fit L0A/L0B twice (dbL0A/dbL0B double buffering);
//   * stepKa/stepKb and depthA1/depthB1: as many base tiles of A and B in L1 as the L1 space
//   allows,
//     up to 2 each (double buffering), stepM = stepN = 1.
// SetFixSplit fixes baseM/baseN/baseK instead. GetTiling returns -1 when no tiling fits.
#pragma once

#include <algorithm>
#include <cstdint>

#include "aopt_sim/cube_tiling.h"
#include "tiling/platform/platform_ascendc.h"

namespace matmul_tiling {

enum class TPosition : int32_t {
  GM = 0,
  A1,
  A2,
  B1,
  B2,
  C1,
  C2,
  CO1,
  CO2,
  VECIN,
  VECOUT,
  VECCALC,
  TSCM
};
enum class CubeFormat : int32_t { ND = 0, NZ, ZN, ZZ, NN, ND_ALIGN, SCALAR, VECTOR };
enum class DataType : int32_t {
  DT_FLOAT = 0,
  DT_FLOAT16 = 1,
  DT_INT8 = 2,
  DT_INT32 = 3,
  DT_UINT8 = 4,
  DT_INT16 = 6,
  DT_BF16 = 27,
};

class MatmulApiTiling {
 public:
  MatmulApiTiling() = default;
  explicit MatmulApiTiling(const platform_ascendc::PlatformAscendC& platform) {
    uint64_t v = 0;
    platform.GetCoreMemSize(platform_ascendc::CoreMemType::L1, v);
    l1_ = static_cast<int64_t>(v);
    platform.GetCoreMemSize(platform_ascendc::CoreMemType::L0_A, v);
    l0a_ = static_cast<int64_t>(v);
    platform.GetCoreMemSize(platform_ascendc::CoreMemType::L0_B, v);
    l0b_ = static_cast<int64_t>(v);
    platform.GetCoreMemSize(platform_ascendc::CoreMemType::L0_C, v);
    l0c_ = static_cast<int64_t>(v);
  }
  virtual ~MatmulApiTiling() = default;

  int32_t SetAType(TPosition pos, CubeFormat format, DataType type, bool isTrans = false) {
    a_type_ = type;
    a_trans_ = isTrans;
    (void)pos;
    (void)format;
    return 0;
  }
  int32_t SetBType(TPosition pos, CubeFormat format, DataType type, bool isTrans = false) {
    b_type_ = type;
    b_trans_ = isTrans;
    (void)pos;
    (void)format;
    return 0;
  }
  int32_t SetCType(TPosition, CubeFormat, DataType type) {
    c_type_ = type;
    return 0;
  }
  int32_t SetBiasType(TPosition, CubeFormat, DataType) { return 0; }
  int32_t SetShape(int32_t m, int32_t n, int32_t k) {
    m_ = m;
    n_ = n;
    k_ = k;
    if (org_m_ <= 0) SetOrgShape(m, n, k);
    return 0;
  }
  int32_t SetOrgShape(int32_t orgM, int32_t orgN, int32_t orgK) {
    return SetOrgShape(orgM, orgN, orgK, orgK);
  }
  int32_t SetOrgShape(int32_t orgM, int32_t orgN, int32_t orgKa, int32_t orgKb) {
    org_m_ = orgM;
    org_n_ = orgN;
    org_ka_ = orgKa;
    org_kb_ = orgKb;
    return 0;
  }
  int32_t SetBias(bool isBiasIn = false) {
    bias_ = isBiasIn;
    return 0;
  }
  // -1 keeps the whole memory of the profile.
  int32_t SetBufferSpace(int32_t l1Size = -1, int32_t l0CSize = -1, int32_t ubSize = -1,
                         int32_t btSize = -1) {
    if (l1Size >= 0) l1_ = l1Size;
    if (l0CSize >= 0) l0c_ = l0CSize;
    (void)ubSize;
    (void)btSize;
    return 0;
  }
  int32_t SetFixSplit(int32_t baseMIn = -1, int32_t baseNIn = -1, int32_t baseKIn = -1) {
    fix_m_ = baseMIn;
    fix_n_ = baseNIn;
    fix_k_ = baseKIn;
    return 0;
  }
  int32_t SetTraverse(int32_t order) {
    order_ = order;
    return 0;
  }

  int64_t GetTiling(optiling::TCubeTiling& tiling) { return Compute(tiling, 1); }

 protected:
  static int32_t Align16(int32_t v) { return (v + 15) / 16 * 16; }
  static int32_t Size(DataType t) {
    switch (t) {
      case DataType::DT_INT8:
      case DataType::DT_UINT8:
        return 1;
      case DataType::DT_FLOAT:
      case DataType::DT_INT32:
        return 4;
      default:
        return 2;
    }
  }
  static int32_t FloorPow2(int32_t v, int32_t lo, int32_t hi) {
    int32_t p = lo;
    while (p * 2 <= std::min(v, hi)) p *= 2;
    return p;
  }

  // `cores` blocks in an mDim x nDim grid (singleCoreM/N set by the caller when > 0).
  int64_t Compute(optiling::TCubeTiling& t, int32_t cores) {
    if (m_ <= 0 || n_ <= 0 || k_ <= 0 || cores <= 0) return -1;
    const int32_t in = Size(a_type_);
    const int32_t c0 = 32 / in;
    int32_t m_dim = 1;
    int32_t n_dim = 1;
    if (single_m_ > 0 && single_n_ > 0) {
      m_dim = (m_ + single_m_ - 1) / single_m_;
      n_dim = (n_ + single_n_ - 1) / single_n_;
    } else {
      // The grid whose per-core block is closest to square among the divisors of `cores`.
      double best = -1;
      for (int32_t md = 1; md <= cores; ++md) {
        if (cores % md != 0) continue;
        const int32_t nd = cores / md;
        const double bm = static_cast<double>(m_) / md;
        const double bn = static_cast<double>(n_) / nd;
        const double score = std::min(bm, bn) / std::max(bm, bn);
        if (md <= m_ && nd <= n_ && score > best) {
          best = score;
          m_dim = md;
          n_dim = nd;
        }
      }
    }
    const int32_t single_m = single_m_ > 0 ? single_m_ : Align16((m_ + m_dim - 1) / m_dim);
    const int32_t single_n = single_n_ > 0 ? single_n_ : Align16((n_ + n_dim - 1) / n_dim);
    int32_t base_m = fix_m_ > 0 ? fix_m_ : FloorPow2(Align16(single_m), 16, 256);
    int32_t base_n = fix_n_ > 0 ? fix_n_ : FloorPow2(Align16(single_n), 16, 256);
    while (fix_m_ <= 0 && fix_n_ <= 0 && int64_t{base_m} * base_n * 4 > l0c_) {
      if (base_m >= base_n)
        base_m /= 2;
      else
        base_n /= 2;
    }
    if (int64_t{base_m} * base_n * 4 > l0c_) return -1;
    const bool db_l0c = int64_t{base_m} * base_n * 4 * 2 <= l0c_;
    const int32_t k_aligned = (k_ + c0 - 1) / c0 * c0;
    int32_t base_k = fix_k_ > 0 ? fix_k_ : FloorPow2(k_aligned, c0, 256 * 2 / in);
    while (fix_k_ <= 0 && base_k > c0 &&
           (int64_t{base_m} * base_k * in * 2 > l0a_ || int64_t{base_k} * base_n * in * 2 > l0b_))
      base_k /= 2;
    if (int64_t{base_m} * base_k * in > l0a_ || int64_t{base_k} * base_n * in > l0b_) return -1;
    const int64_t a_tile = int64_t{base_m} * base_k * in;
    const int64_t b_tile = int64_t{base_k} * base_n * in;
    const int32_t depth = a_tile * 2 + b_tile * 2 <= l1_ ? 2 : 1;
    if (a_tile * depth + b_tile * depth > l1_) return -1;

    t.set_usedCoreNum(m_dim * n_dim);
    t.set_M(m_);
    t.set_N(n_);
    t.set_Ka(k_);
    t.set_Kb(k_);
    t.set_singleCoreM(std::min(single_m, m_));
    t.set_singleCoreN(std::min(single_n, n_));
    t.set_singleCoreK(k_);
    t.set_baseM(base_m);
    t.set_baseN(base_n);
    t.set_baseK(base_k);
    t.set_depthA1(depth);
    t.set_depthB1(depth);
    t.set_stepM(1);
    t.set_stepN(1);
    t.set_stepKa(1);
    t.set_stepKb(1);
    t.set_isBias(bias_ ? 1 : 0);
    t.set_iterateOrder(order_);
    t.set_dbL0A(int64_t{base_m} * base_k * in * 2 <= l0a_ ? 2 : 1);
    t.set_dbL0B(int64_t{base_k} * base_n * in * 2 <= l0b_ ? 2 : 1);
    t.set_dbL0C(db_l0c ? 2 : 1);
    return 0;
  }

  int32_t m_ = 0, n_ = 0, k_ = 0;
  int32_t org_m_ = 0, org_n_ = 0, org_ka_ = 0, org_kb_ = 0;
  int32_t single_m_ = -1, single_n_ = -1;
  int32_t fix_m_ = -1, fix_n_ = -1, fix_k_ = -1;
  int32_t order_ = 0;
  bool bias_ = false;
  bool a_trans_ = false, b_trans_ = false;
  DataType a_type_ = DataType::DT_FLOAT16, b_type_ = DataType::DT_FLOAT16,
           c_type_ = DataType::DT_FLOAT;
  int64_t l1_ = 524288, l0a_ = 65536, l0b_ = 65536, l0c_ = 131072;
};

class MultiCoreMatmulTiling : public MatmulApiTiling {
 public:
  MultiCoreMatmulTiling() = default;
  explicit MultiCoreMatmulTiling(const platform_ascendc::PlatformAscendC& platform)
      : MatmulApiTiling(platform) {}

  int32_t SetDim(int32_t dim) {
    dim_ = dim;
    return 0;
  }
  int32_t SetSingleShape(int32_t singleMIn = -1, int32_t singleNIn = -1, int32_t singleKIn = -1) {
    single_m_ = singleMIn;
    single_n_ = singleNIn;
    (void)singleKIn;
    return 0;
  }
  int64_t GetTiling(optiling::TCubeTiling& tiling) { return Compute(tiling, dim_); }
  int32_t GetSingleShape(int32_t& shapeM, int32_t& shapeN, int32_t& shapeK) const {
    shapeM = single_m_;
    shapeN = single_n_;
    shapeK = k_;
    return 0;
  }

 private:
  int32_t dim_ = 1;
};

}  // namespace matmul_tiling
