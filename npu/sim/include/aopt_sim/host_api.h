// aopt simulator: every host-side header of the shim plus the standard headers that tiling
// programs and references commonly use, in one header that the build precompiles. Host and
// reference units are compiled with `-include aopt_sim/host_api.h`, so their compile parses
// none of this again (a Stage I step recompiles only the host unit).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <limits>
#include <map>
#include <string>
#include <vector>

#include "aopt/reference.h"
#include "aopt_sim/driver_entry.h"
#include "aopt_sim/lifted_constants.h"
#include "exe_graph/runtime/tiling_context.h"
#include "graph/operator_reg.h"
#include "graph/types.h"
#include "graph/utils/type_utils.h"
#include "register/op_def_registry.h"
#include "register/op_impl_registry.h"
#include "register/tilingdata_base.h"
#include "tiling/platform/platform_ascendc.h"
#include "tiling/tiling_api.h"

// Host code may say `using namespace AscendC;` (CANN's host tiling API lives there) before
// naming anything of it.
namespace AscendC {}
