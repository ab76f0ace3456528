// aopt simulator: the AscendC kernel API for operators compiled with g++ and run on the CPU
// (DESIGN §6.1). A kernel written for CANN includes this header unchanged:
//
//   #include "kernel_operator.h"
//   using namespace AscendC;
//   extern "C" __global__ __aicore__ void add_custom(GM_ADDR x, GM_ADDR y, GM_ADDR z,
//                                                    GM_ADDR workspace, GM_ADDR tiling) { ... }
//
// Each block of the kernel runs on a simulated core (aopt::sim::core_context) that checks every
// call and records the per-core instruction trace. The API subset is listed in
// ascendc-reference.md §2; it is written from the public documentation only.
#pragma once

#include "aopt_sim/kernel/cross_core_sync.h"
#include "aopt_sim/kernel/data_copy.h"
#include "aopt_sim/kernel/defs.h"
#include "aopt_sim/kernel/dtypes.h"
#include "aopt_sim/kernel/identity.h"
#include "aopt_sim/kernel/inter_block_sync.h"
#include "aopt_sim/kernel/pipe.h"
#include "aopt_sim/kernel/runtime_api.h"
#include "aopt_sim/kernel/sync.h"
#include "aopt_sim/kernel/tensor.h"
#include "aopt_sim/kernel/vector_ops.h"
#include "aopt_sim/kernel/vector_reduce.h"
#include "aopt_sim/tiling_data.h"
// The API groups added for operators written against CANN (docs/ascendc-api-coverage.md).
#include "aopt_sim/kernel/vector_arith.h"
#include "aopt_sim/kernel/vector_gather_mask.h"
#include "aopt_sim/kernel/vector_rearrange.h"
#include "aopt_sim/kernel/vector_scan.h"
#include "aopt_sim/kernel/vector_sort.h"
// Helpers, constants and APIs real operators use beyond those (issue 34).
#include "aopt_sim/kernel/scalar_utils.h"
#include "aopt_sim/kernel/tensor_operators.h"
#include "aopt_sim/kernel/vector_layernorm.h"
#include "aopt_sim/kernel/vector_math.h"
#include "aopt_sim/kernel/vector_quant.h"
#include "aopt_sim/kernel/vector_rmsnorm.h"
#include "aopt_sim/kernel/vector_softmax.h"
#include "aopt_sim/library_tiling.h"
// The cube unit (L1/L0 positions, LoadData, Mmad, Fixpipe).
#include "aopt_sim/kernel/cube.h"
// Last: it redefines assert for the kernel.
#include "aopt_sim/kernel/system_api.h"
