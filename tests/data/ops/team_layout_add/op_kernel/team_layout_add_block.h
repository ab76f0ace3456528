// The kernel's class, in a header of its own beside the entry.
#ifndef TEAM_LAYOUT_ADD_BLOCK_H
#define TEAM_LAYOUT_ADD_BLOCK_H
#include "kernel_operator.h"
#include "../op_host/team_layout_add_consts.h"

class TeamLayoutAddBlock {
 public:
  __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, GM_ADDR z, uint32_t total, uint32_t tile) {
    const uint32_t perCore = total / kTeamLayoutBlocks;
    const uint32_t first = perCore * AscendC::GetBlockIdx();
    tile_ = tile;
    tiles_ = perCore / tile;
    x_.SetGlobalBuffer(reinterpret_cast<__gm__ float*>(x) + first, perCore);
    y_.SetGlobalBuffer(reinterpret_cast<__gm__ float*>(y) + first, perCore);
    z_.SetGlobalBuffer(reinterpret_cast<__gm__ float*>(z) + first, perCore);
    pipe_.InitBuffer(in_, 1, tile * sizeof(float));
    pipe_.InitBuffer(out_, 1, tile * sizeof(float));
  }

  // z starts at zeros (op.json "init"): adding x and then y atomically leaves x + y.
  __aicore__ inline void Process() {
    AscendC::SetAtomicAdd<float>();
    for (uint32_t t = 0; t < tiles_; ++t) {
      Accumulate(x_, t);
      Accumulate(y_, t);
    }
    AscendC::SetAtomicNone();
  }

 private:
  __aicore__ inline void Accumulate(AscendC::GlobalTensor<float>& src, uint32_t t) {
    auto a = in_.AllocTensor<float>();
    AscendC::DataCopy(a, src[t * tile_], tile_);
    in_.EnQue(a);
    a = in_.DeQue<float>();
    auto b = out_.AllocTensor<float>();
    AscendC::Adds(b, a, 0.0f, tile_);
    out_.EnQue(b);
    in_.FreeTensor(a);
    b = out_.DeQue<float>();
    AscendC::DataCopy(z_[t * tile_], b, tile_);
    out_.FreeTensor(b);
  }

  AscendC::TPipe pipe_;
  AscendC::TQue<AscendC::QuePosition::VECIN, 1> in_;
  AscendC::TQue<AscendC::QuePosition::VECOUT, 1> out_;
  AscendC::GlobalTensor<float> x_, y_, z_;
  uint32_t tile_ = 0;
  uint32_t tiles_ = 0;
};
#endif
