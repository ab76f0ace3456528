// aopt simulator, host side: the TilingParse functions that IMPL_OP_OPTILING(op)
// .TilingParse<CompileInfo>(f) registers, by op type, as CANN's static registration does. The
// first TilingContext::GetCompileInfo of a launch runs the op's function on a fresh CompileInfo.
// The registry lives in the candidate process only (one operator per process).
#pragma once

#include <functional>
#include <memory>
#include <string>

#include "exe_graph/runtime/tiling_parse_context.h"
#include "graph/ge_error_codes.h"

namespace aopt_sim {

// Runs the parse function on a new CompileInfo for `platform`; nullptr when it fails.
using tiling_parse_fn =
    std::function<std::shared_ptr<void>(fe::PlatFormInfos* platform, const std::string& node)>;

// Out of line (runtime/host_registry.cpp), so that a host unit instantiates no map.
void add_tiling_parse(const std::string& op_type, tiling_parse_fn parse);
// The parse function registered for `op_type`, or nullptr.
const tiling_parse_fn* registered_tiling_parse(const std::string& op_type);

template <typename CompileInfo, typename F>
void register_tiling_parse(const std::string& op_type, F parse) {
  add_tiling_parse(op_type,
                   [parse, op_type](fe::PlatFormInfos* platform,
                                    const std::string& node) -> std::shared_ptr<void> {
                     auto info = std::make_shared<CompileInfo>();
                     gert::TilingParseContext ctx(platform, info.get(), node, op_type);
                     if (parse(&ctx) != ge::GRAPH_SUCCESS) return nullptr;
                     return info;
                   });
}

}  // namespace aopt_sim
