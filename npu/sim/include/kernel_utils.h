// aopt simulator: CANN's kernel_utils.h. Kernels include it for the scalar helpers and constants
// (AlignUp, DivCeil, Ceil, AscendCUtils, FULL_MASK, B32_DATA_NUM_PER_BLOCK, likely/unlikely,
// ...), which kernel_operator.h already provides (aopt_sim/kernel/scalar_utils.h).
#pragma once

#include "kernel_operator.h"
