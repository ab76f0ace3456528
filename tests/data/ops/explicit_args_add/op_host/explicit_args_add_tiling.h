#ifndef EXPLICIT_ARGS_ADD_TILING_H
#define EXPLICIT_ARGS_ADD_TILING_H
#include "register/tilingdata_base.h"

namespace optiling {
BEGIN_TILING_DATA_DEF(ExplicitArgsAddTilingData)
TILING_DATA_FIELD_DEF(uint32_t, totalLength);
TILING_DATA_FIELD_DEF(uint32_t, tileLength);
END_TILING_DATA_DEF;

REGISTER_TILING_DATA_CLASS(ExplicitArgsAdd, ExplicitArgsAddTilingData)
}  // namespace optiling
#endif
