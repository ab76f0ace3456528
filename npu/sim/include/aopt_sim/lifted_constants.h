// aopt simulator: where a tiling program's lifted constants live. The device compiles a tiling
// program whose tunable block declares
//
//   constexpr uint32_t TILE_LENGTH = 2048;
//
// as
//
//   static const uint32_t& TILE_LENGTH = aopt_lifted::slot<uint32_t>[1];
//
// and hands the process the values (npu/sim/runtime/lifted_values.hpp), so that tilings which
// differ only in those values share one object and one executable. The reference is
// constant-initialized, and the runtime stores the values before any initializer of the
// candidate runs: every read sees the value, even one from another static initializer.
// The slots hold nothing but the program's own constants: no state of the simulator.
#pragma once

namespace aopt_lifted {

template <class T>
extern T slot[64];

}  // namespace aopt_lifted
