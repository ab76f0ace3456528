// The functions every compiled candidate provides to the simulator's driver (driver_main.cpp).
// The build generates the first two around the operator's sources:
//
//   uint32_t aopt_tiling_entry(gert::TilingContext* context) {
//     return optiling::TilingFunc(context);            // op.json "tiling_func"
//   }
//   void aopt_kernel_entry(uint8_t* const* args) {     // inputs..., outputs..., workspace, tiling
//     add_custom(args[0], args[1], args[2], args[3], args[4]);   // op.json "kernel_entry"
//   }
//
// and the operator's reference.cpp defines aopt_reference (aopt/reference.h, not included here:
// the kernel unit includes this header, and the reference's standard headers (<map> among them)
// are not in the kernel's precompiled header, so parsing them cost a third of a kernel compile).
#pragma once

#include <cstdint>

namespace gert {
class TilingContext;
}

// Returns the ge::graphStatus of the operator's tiling function.
uint32_t aopt_tiling_entry(gert::TilingContext* context);

// `args` holds, in op.json order, one GM address per input, one per output, then the workspace
// (a valid address even when none was requested, as on CANN; no byte of it may then be
// accessed) and the tiling buffer.
void aopt_kernel_entry(uint8_t* const* args);
