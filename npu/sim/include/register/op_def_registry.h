// aopt simulator: host-side CANN API shim (clean-room, from public documentation).
// What an operator's host source includes: OpDef registration and the tiling/InferShape contexts.
#pragma once

#include "exe_graph/runtime/infer_datatype_context.h"
#include "exe_graph/runtime/infer_shape_context.h"
#include "exe_graph/runtime/tiling_context.h"
#include "graph/types.h"
#include "register/op_def.h"
#include "register/op_impl_registry.h"
