// aopt simulator: CANN's kernel_tiling/kernel_tiling.h, the kernel-side definitions of the
// library APIs' tiling structs (UnPadTiling, PadTiling, ...). The operator's own tiling data is
// force-included by the build, as CANN's build generates it into this header.
#pragma once

#include "aopt_sim/library_tiling.h"
