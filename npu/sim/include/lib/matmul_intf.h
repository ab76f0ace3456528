// aopt simulator, kernel side: the high-level Matmul API (matmul::Matmul, MatmulType,
// REGIST_MATMUL_OBJ), written from the public AscendC documentation of its calls and built on the
// simulated cube instructions (aopt_sim/kernel/cube.h): every Iterate moves its operands GM -> L1
// (ND -> NZ), L1 -> L0A/L0B and runs Mmad over K in baseK steps, and GetTensorC runs the Fixpipe,
// so the trace, the timing and the race checks see exactly the work the object does.
//
// Supported: A and B in GM, ND, half/bfloat16_t/float (float accumulate) or int8_t (int32
// accumulate, B transposed); A and B each transposed or not for 16- and 32-bit types (a
// transposed A is K x M in GM, by its MatmulType or SetTensorA; 4-byte operands that need a
// transpose reach L0 through the library's transposing move, cube.h); a float bias in GM; C into GM
// (ND) or into a local tensor (enSequentialWrite: the baseM x baseN block row-major); tails
// (SetTail, blocks at the edge of the shape). Anything else ends the run as "unsupported" naming
// the Matmul row of docs/ascendc-api-coverage.md.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "aopt_sim/cube_tiling.h"
#include "kernel_operator.h"

enum class CubeFormat : int32_t { ND = 0, NZ, ZN, ZZ, NN, ND_ALIGN, SCALAR, VECTOR };
enum class LayoutMode : int32_t { NONE = 0, BSNGD, SBNGD, BNGS1S2, NORMAL };

namespace aopt_sim::mm {
// The cube work of one Matmul call: on an AIV of a MIX launch it is a request to the group's AIC.
struct cube_request {
  cube_request() { aopt_sim::rt::matmul_request(true); }
  ~cube_request() { aopt_sim::rt::matmul_request(false); }
  cube_request(const cube_request&) = delete;
  cube_request& operator=(const cube_request&) = delete;
};
}  // namespace aopt_sim::mm

namespace matmul {

// The public Matmul samples write `using namespace matmul;` alone and then call GetBlockIdx(),
// GetSysWorkSpacePtr() and the like unqualified, which compiles with CANN: the AscendC names are
// visible through matmul.
using namespace AscendC;

// The documented parameters in full: the batch layouts (LAYOUT) reorder a batched product's
// operands, which the simulated object does not, so a kernel naming one fails to compile rather
// than compute another product; IBSHARE (operands shared in L1 between cores) changes no result.
template <AscendC::TPosition POSITION, CubeFormat FORMAT, typename TYPE, bool ISTRANS = false,
          LayoutMode LAYOUT = LayoutMode::NONE, bool IBSHARE = false>
struct MatmulType {
  static_assert(LAYOUT == LayoutMode::NONE || LAYOUT == LayoutMode::NORMAL,
                "aopt simulator: MatmulType's batch layouts (BSNGD, SBNGD, BNGS1S2) are not "
                "simulated (docs/ascendc-api-coverage.md, Matmul)");
  constexpr static AscendC::TPosition pos = POSITION;
  constexpr static CubeFormat format = FORMAT;
  using T = TYPE;
  constexpr static bool isTrans = ISTRANS;
  constexpr static LayoutMode layout = LAYOUT;
  constexpr static bool ibShare = IBSHARE;
};

struct MatmulConfig {
  bool doNorm = true;
};
constexpr MatmulConfig CFG_NORM = {true};
constexpr MatmulConfig CFG_MDL = {true};
// The documented config builders; the simulated Matmul computes the same product under each,
// so each accepts its documented option arguments and returns a config Matmul takes.
template <typename... Options>
constexpr MatmulConfig GetNormalConfig(Options...) {
  return CFG_NORM;
}
template <typename... Options>
constexpr MatmulConfig GetMDLConfig(Options...) {
  return CFG_MDL;
}
template <typename... Options>
constexpr MatmulConfig GetSpecialMDLConfig(Options...) {
  return CFG_MDL;
}
template <typename... Options>
constexpr MatmulConfig GetIBShareNormConfig(Options...) {
  return CFG_NORM;
}

template <class A_TYPE, class B_TYPE, class C_TYPE, class BIAS_TYPE = C_TYPE,
          const MatmulConfig& MM_CFG = CFG_NORM>
class Matmul {
  using SrcT = typename A_TYPE::T;
  using DstT = typename C_TYPE::T;
  using BiasT = typename BIAS_TYPE::T;
  using L0cT = std::conditional_t<std::is_same<SrcT, int8_t>::value, int32_t, float>;
  static constexpr uint32_t kC0 = 32 / sizeof(SrcT);

 public:
  Matmul() = default;

  template <class Tiling>
  void Init(const Tiling* tiling, AscendC::TPipe* tpipe = nullptr) {
    tiling_ = *reinterpret_cast<const optiling::TCubeTiling*>(tiling);
    pipe_ = tpipe != nullptr ? tpipe : AscendC::GetTPipePtr();
    if (pipe_ == nullptr) unsupported("Matmul::Init without a TPipe");
    base_m_ = static_cast<uint32_t>(tiling_.baseM);
    base_n_ = static_cast<uint32_t>(tiling_.baseN);
    base_k_ = static_cast<uint32_t>(tiling_.baseK);
    single_m_ = static_cast<uint32_t>(tiling_.singleCoreM);
    single_n_ = static_cast<uint32_t>(tiling_.singleCoreN);
    single_k_ = static_cast<uint32_t>(tiling_.singleCoreK);
    org_m_ = static_cast<uint32_t>(tiling_.M);
    org_n_ = static_cast<uint32_t>(tiling_.N);
    org_ka_ = static_cast<uint32_t>(tiling_.Ka);
    org_kb_ = static_cast<uint32_t>(tiling_.Kb);
    const uint32_t depth = tiling_.depthA1 >= 2 ? 2 : 1;
    // An L1 block holds whole 16-row column blocks: for a K x M (A transposed) or K x N block
    // of 4-byte elements, baseK (a multiple of 8) rounds up to 16 rows.
    pipe_->InitBuffer(qa1_, depth, Align16(base_m_) * Align16(base_k_) * sizeof(SrcT));
    pipe_->InitBuffer(qb1_, depth, Align16(base_k_) * Align16(base_n_) * sizeof(SrcT));
    pipe_->InitBuffer(qa2_, 1, base_m_ * base_k_ * sizeof(SrcT));
    pipe_->InitBuffer(qb2_, 1, base_k_ * base_n_ * sizeof(SrcT));
    pipe_->InitBuffer(qc_, 1, base_m_ * base_n_ * sizeof(L0cT));
    if (tiling_.isBias != 0) {
      pipe_->InitBuffer(qbias1_, 1, base_n_ * sizeof(float));
      pipe_->InitBuffer(qbias2_, 1, base_n_ * sizeof(float));
    }
  }
  void SetSubBlockIdx(uint8_t) {}

  void SetTensorA(const AscendC::GlobalTensor<SrcT>& gm, bool isTransposeA = false) {
    a_trans_ = isTransposeA || A_TYPE::isTrans;
    // 16-bit fractals transpose in the 2D load, 4-byte ones in the library's own transposing
    // move; an int8 A transposed is not simulated.
    if (a_trans_ && sizeof(SrcT) == 1) unsupported("an int8 A that is transposed");
    a_ = gm;
    Restart();
  }
  void SetTensorB(const AscendC::GlobalTensor<SrcT>& gm, bool isTransposeB = false) {
    b_ = gm;
    b_trans_ = isTransposeB || B_TYPE::isTrans;
    if (!b_trans_ && sizeof(SrcT) == 1) unsupported("an int8 B that is not transposed");
    Restart();
  }
  void SetBias(const AscendC::GlobalTensor<BiasT>& gm) {
    bias_ = gm;
    has_bias_ = true;
    Restart();
  }
  void DisableBias() { has_bias_ = false; }
  void SetOrgShape(int orgM, int orgN, int orgK) { SetOrgShape(orgM, orgN, orgK, orgK); }
  void SetOrgShape(int orgM, int orgN, int orgKa, int orgKb, int orgKc = 0) {
    org_m_ = static_cast<uint32_t>(orgM);
    org_n_ = static_cast<uint32_t>(orgN);
    org_ka_ = static_cast<uint32_t>(orgKa);
    org_kb_ = static_cast<uint32_t>(orgKb);
    if (orgKc > 0) org_n_ = static_cast<uint32_t>(orgKc);
  }
  void SetSingleShape(int singleM, int singleN, int singleK) {
    single_m_ = static_cast<uint32_t>(singleM);
    single_n_ = static_cast<uint32_t>(singleN);
    single_k_ = static_cast<uint32_t>(singleK);
    Restart();
  }
  void SetTail(int tailM = -1, int tailN = -1, int tailK = -1) {
    if (tailM > 0) single_m_ = static_cast<uint32_t>(tailM);
    if (tailN > 0) single_n_ = static_cast<uint32_t>(tailN);
    if (tailK > 0) single_k_ = static_cast<uint32_t>(tailK);
    Restart();
  }

  // Computes the next baseM x baseN block of this core's singleCoreM x singleCoreN result (M
  // first when iterateOrder is 0); false when every block is done.
  template <bool sync = true>
  bool Iterate(bool enPartialSum = false) {
    (void)enPartialSum;
    if (pending_) unsupported("Iterate before GetTensorC fetched the previous block");
    const uint32_t blocks_m = (single_m_ + base_m_ - 1) / base_m_;
    const uint32_t blocks_n = (single_n_ + base_n_ - 1) / base_n_;
    if (next_ >= blocks_m * blocks_n) return false;
    if (tiling_.iterateOrder == 0) {
      cur_m_ = next_ % blocks_m;
      cur_n_ = next_ / blocks_m;
    } else {
      cur_n_ = next_ % blocks_n;
      cur_m_ = next_ / blocks_n;
    }
    ++next_;
    {
      const aopt_sim::mm::cube_request on_the_cube;
      Compute();
    }
    pending_ = true;
    return true;
  }

  // The current block into C in GM, at its place in the result; enAtomic 1, 2 or 3 adds it to,
  // or keeps the larger or smaller of it and, what GM holds there (SetAtomicAdd/Max/Min around
  // the fixpipe).
  template <bool sync = true>
  void GetTensorC(const AscendC::GlobalTensor<DstT>& gm, uint8_t enAtomic = 0,
                  bool enSequentialWrite = false) {
    if (enAtomic > 3) unsupported("GetTensorC with an enAtomic other than 0 to 3");
    const uint64_t offset =
        enSequentialWrite ? 0 : uint64_t{cur_m_} * base_m_ * org_n_ + uint64_t{cur_n_} * base_n_;
    if (enAtomic == 1) AscendC::SetAtomicAdd<DstT>();
    if (enAtomic == 2) AscendC::SetAtomicMax<DstT>();
    if (enAtomic == 3) AscendC::SetAtomicMin<DstT>();
    Out(gm[offset], enSequentialWrite ? tn_ : org_n_);
    if (enAtomic != 0) AscendC::SetAtomicNone();
  }

  // The current block into a local tensor (row-major, baseN elements per row).
  template <bool sync = true>
  void GetTensorC(const AscendC::LocalTensor<DstT>& local, uint8_t enAtomic = 0,
                  bool enSequentialWrite = false) {
    (void)enSequentialWrite;
    if (enAtomic != 0) unsupported("GetTensorC into a local tensor with enAtomic (GM only)");
    if (!pending_) unsupported("GetTensorC without a block from Iterate");
    // The call is synchronous: the library's client takes the block once the vector core's pipes
    // are done with `local` (its previous contents may still be in use), and the block is there
    // when the call returns, so the vector side reads it with no synchronisation of its own.
    AscendC::PipeBarrier<PIPE_ALL>();
    {
      const aopt_sim::mm::cube_request on_the_cube;
      AscendC::LocalTensor<L0cT> c1 = qc_.template DeQue<L0cT>();
      AscendC::Fixpipe(local, c1, FixParams(base_n_));
      qc_.FreeTensor(c1);
    }
    pending_ = false;
    AscendC::PipeBarrier<PIPE_ALL>();
  }

  template <bool sync = true>
  void IterateAll(const AscendC::GlobalTensor<DstT>& gm, uint8_t enAtomic = 0,
                  bool enSequentialWrite = false, bool waitIterateAll = false,
                  bool fakeMsg = false) {
    (void)waitIterateAll;
    (void)fakeMsg;
    while (Iterate()) GetTensorC(gm, enAtomic, enSequentialWrite);
  }

  void WaitIterateAll() {}
  void End() {}
  void ClearBias() { has_bias_ = false; }

 private:
  [[noreturn]] static void unsupported(const char* what) {
    aopt_sim::rt::kernel_unsupported("Matmul", what);
  }

  void Restart() {
    next_ = 0;
    pending_ = false;
  }

  static uint32_t Align16(uint32_t v) { return (v + 15) / 16 * 16; }

  AscendC::FixpipeParamsV220 FixParams(uint32_t dst_stride) const {
    AscendC::FixpipeParamsV220 p;
    p.nSize = static_cast<uint16_t>(tn_);
    p.mSize = static_cast<uint16_t>(tm_);
    p.srcStride = static_cast<uint16_t>(Align16(tm_));
    p.dstStride = dst_stride;
    if (std::is_same<DstT, half>::value && std::is_same<L0cT, float>::value)
      p.quantPre = QuantMode_t::F322F16;
    else if (std::is_same<DstT, bfloat16_t>::value)
      p.quantPre = QuantMode_t::F322BF16;
    else
      p.quantPre = QuantMode_t::NoQuant;
    return p;
  }

  void Out(const AscendC::GlobalTensor<DstT>& dst, uint32_t dst_stride) {
    if (!pending_) unsupported("GetTensorC without a block from Iterate");
    const aopt_sim::mm::cube_request on_the_cube;
    AscendC::LocalTensor<L0cT> c1 = qc_.template DeQue<L0cT>();
    AscendC::Fixpipe(dst, c1, FixParams(dst_stride));
    qc_.FreeTensor(c1);
    pending_ = false;
  }

  void Compute() {
    tm_ = std::min(base_m_, single_m_ - cur_m_ * base_m_);
    tn_ = std::min(base_n_, single_n_ - cur_n_ * base_n_);
    const uint32_t row = cur_m_ * base_m_;
    const uint32_t col = cur_n_ * base_n_;
    const uint32_t tm16 = Align16(tm_);
    const uint32_t tn16 = Align16(tn_);
    AscendC::LocalTensor<L0cT> c1 = qc_.template AllocTensor<L0cT>();
    bool first = true;
    if (has_bias_) {
      AscendC::LocalTensor<float> b1 = qbias1_.template AllocTensor<float>();
      AscendC::DataCopy(b1, bias_[col], tn16);
      qbias1_.EnQue(b1);
      b1 = qbias1_.template DeQue<float>();
      AscendC::LocalTensor<float> b2 = qbias2_.template AllocTensor<float>();
      AscendC::DataCopy(b2, b1, tn16);
      qbias2_.EnQue(b2);
      qbias1_.FreeTensor(b1);
    }
    for (uint32_t ko = 0; ko < single_k_; ko += base_k_) {
      const uint32_t tk = std::min(base_k_, single_k_ - ko);
      const uint32_t tkc = (tk + kC0 - 1) / kC0 * kC0;
      // GM -> L1 (ND -> NZ). A transposed is K x M in GM: its tk x tm block, as B's is.
      AscendC::LocalTensor<SrcT> a1 = qa1_.template AllocTensor<SrcT>();
      if (a_trans_)
        AscendC::DataCopy(a1, a_[uint64_t{ko} * org_m_ + row],
                          AscendC::Nd2NzParams(1, tk, tm_, 0, org_m_, Align16(tk), 1, 0));
      else
        AscendC::DataCopy(a1, a_[uint64_t{row} * org_ka_ + ko],
                          AscendC::Nd2NzParams(1, tm_, tk, 0, org_ka_, tm16, 1, 0));
      qa1_.EnQue(a1);
      AscendC::LocalTensor<SrcT> b1 = qb1_.template AllocTensor<SrcT>();
      if (b_trans_)
        AscendC::DataCopy(b1, b_[uint64_t{col} * org_kb_ + ko],
                          AscendC::Nd2NzParams(1, tn_, tk, 0, org_kb_, tn16, 1, 0));
      else
        AscendC::DataCopy(b1, b_[uint64_t{ko} * org_n_ + col],
                          AscendC::Nd2NzParams(1, tk, tn_, 0, org_n_, Align16(tk), 1, 0));
      qb1_.EnQue(b1);
      // L1 -> L0A: row block by row block. A transposed holds the row block's k fractals one
      // after another in a column of its NZ, each the transpose of A's.
      a1 = qa1_.template DeQue<SrcT>();
      AscendC::LocalTensor<SrcT> a2 = qa2_.template AllocTensor<SrcT>();
      const uint32_t mb = tm16 / 16, kb = tkc / kC0, nb = tn16 / 16;
      if (a_trans_ && sizeof(SrcT) == 4) {
        aopt_sim::rt::cube_load_transposed_b32(a2.aopt_ref(), a1.aopt_ref(),
                                               {tm_, tk, Align16(tk), kb, 1},
                                               aopt_sim::rt::call_site(__builtin_LINE()));
      }
      for (uint32_t i = 0; i < mb && !(a_trans_ && sizeof(SrcT) == 4); ++i) {
        if (a_trans_)
          AscendC::LoadData(a2[i * 16 * tkc], a1[i * 16 * tkc],
                            AscendC::LoadData2DParams(0, kb, 1, 0, 0, true, 0));
        else
          AscendC::LoadData(a2[i * 16 * tkc], a1[i * 16 * kC0],
                            AscendC::LoadData2DParams(0, kb, mb, 0, 0, false, 0));
      }
      qa2_.EnQue(a2);
      qa1_.FreeTensor(a1);
      // L1 -> L0B: the NZ of B^T is already ZN; B itself is transposed per 16 x 16 fractal.
      b1 = qb1_.template DeQue<SrcT>();
      AscendC::LocalTensor<SrcT> b2 = qb2_.template AllocTensor<SrcT>();
      if (!b_trans_ && sizeof(SrcT) == 4) {
        aopt_sim::rt::cube_load_transposed_b32(b2.aopt_ref(), b1.aopt_ref(),
                                               {tn_, tk, Align16(tk), 1, nb},
                                               aopt_sim::rt::call_site(__builtin_LINE()));
      } else if (b_trans_) {
        for (uint32_t i = 0; i < kb; ++i)
          AscendC::LoadData(b2[i * kC0 * tn16], b1[i * kC0 * tn16],
                            AscendC::LoadData2DParams(0, nb, 1, 0, 0, false, 0));
      } else {
        const uint32_t kb16 = Align16(tk) / 16;
        for (uint32_t i = 0; i < kb16; ++i)
          AscendC::LoadData(b2[i * 16 * tn16], b1[i * 256],
                            AscendC::LoadData2DParams(0, nb, kb16, 0, 0, true, 0));
      }
      qb2_.EnQue(b2);
      qb1_.FreeTensor(b1);
      // Mmad: the first step starts from zero (or the bias), the others accumulate.
      a2 = qa2_.template DeQue<SrcT>();
      b2 = qb2_.template DeQue<SrcT>();
      AscendC::MmadParams p;
      p.m = static_cast<uint16_t>(tm_);
      p.n = static_cast<uint16_t>(tn_);
      p.k = static_cast<uint16_t>(tk);
      p.cmatrixInitVal = first;
      if (first && has_bias_) {
        AscendC::LocalTensor<float> b2b = qbias2_.template DeQue<float>();
        AscendC::Mmad(c1, a2, b2, b2b, p);
        qbias2_.FreeTensor(b2b);
      } else {
        AscendC::Mmad(c1, a2, b2, p);
      }
      first = false;
      qa2_.FreeTensor(a2);
      qb2_.FreeTensor(b2);
    }
    qc_.EnQue(c1);
  }

  optiling::TCubeTiling tiling_{};
  AscendC::TPipe* pipe_ = nullptr;
  AscendC::TQue<AscendC::TPosition::A1, 2> qa1_;
  AscendC::TQue<AscendC::TPosition::B1, 2> qb1_;
  AscendC::TQue<AscendC::TPosition::A2, 1> qa2_;
  AscendC::TQue<AscendC::TPosition::B2, 1> qb2_;
  AscendC::TQue<AscendC::TPosition::CO1, 1> qc_;
  AscendC::TQue<AscendC::TPosition::C1, 1> qbias1_;
  AscendC::TQue<AscendC::TPosition::C2, 1> qbias2_;
  AscendC::GlobalTensor<SrcT> a_;
  AscendC::GlobalTensor<SrcT> b_;
  AscendC::GlobalTensor<BiasT> bias_;
  bool has_bias_ = false;
  bool a_trans_ = false;
  bool b_trans_ = false;
  bool pending_ = false;
  uint32_t base_m_ = 0, base_n_ = 0, base_k_ = 0;
  uint32_t single_m_ = 0, single_n_ = 0, single_k_ = 0;
  uint32_t org_m_ = 0, org_n_ = 0, org_ka_ = 0, org_kb_ = 0;
  uint32_t next_ = 0, cur_m_ = 0, cur_n_ = 0, tm_ = 0, tn_ = 0;
};

}  // namespace matmul

// The Matmul config and its builders are AscendC names: kernels write
// `using namespace AscendC; constexpr MatmulConfig CFG = GetNormalConfig();` and then
// `matmul::Matmul<A, B, C, C, CFG>`.
namespace AscendC {
using matmul::GetIBShareNormConfig;
using matmul::GetMDLConfig;
using matmul::GetNormalConfig;
using matmul::GetSpecialMDLConfig;
using matmul::Matmul;
using matmul::MatmulConfig;
using matmul::MatmulType;
}  // namespace AscendC

// REGIST_MATMUL_OBJ(&pipe, workspace, mm1, &tiling1 [, mm2, &tiling2 ...]): initialises each
// Matmul object with its tiling (the simulator runs the cube work on the calling core).
namespace aopt_sim::mm {
template <class P>
inline void regist(P*) {}
template <class P, class M>
inline void regist(P*, M& mm) {  // Init follows separately
  mm.SetSubBlockIdx(0);
}
template <class P, class M, class T, class... Rest>
inline void regist(P* pipe, M& mm, const T* tiling, Rest&&... rest) {
  mm.SetSubBlockIdx(0);
  mm.Init(tiling, pipe);
  regist(pipe, rest...);
}
}  // namespace aopt_sim::mm
// In a MIX kernel the AIC serves the Matmul objects of its AIVs: there the kernel ends here,
// and the objects' cube work is timed on the AIC's pipes (kernel_cross_core.cpp).
#define REGIST_MATMUL_OBJ(tpipe, workspace, ...)        \
  do {                                                  \
    (void)(workspace);                                  \
    if (::aopt_sim::rt::matmul_served_by_aic()) return; \
    ::aopt_sim::mm::regist(tpipe, __VA_ARGS__);         \
  } while (0)
