// aopt simulator: host-side CANN API shim (clean-room, from public documentation).
// The host tiling API umbrella: tiling data classes, the tiling context and the platform.
// Library tiling helpers: UnPad, Pad, SoftMax, LayerNorm and RmsNorm
// (aopt_sim/host_library_tiling.h) and the math library's temporary-buffer sizes
// (aopt_sim/host_math_tmp_size.h); the Matmul tiling API (matmul_tiling::MultiCoreMatmulTiling,
// TCubeTiling) is in aopt_sim/matmul_tiling.h; other library tiling helpers (TopK, ...) are not
// simulated.
#pragma once

#include "aopt_sim/matmul_tiling.h"
#include "exe_graph/runtime/tiling_context.h"
#include "graph/types.h"
#include "graph/utils/type_utils.h"
#include "register/tilingdata_base.h"
#include "tiling/platform/platform_ascendc.h"
// Last: it uses the platform and ge::Shape.
#include "aopt_sim/host_library_tiling.h"
