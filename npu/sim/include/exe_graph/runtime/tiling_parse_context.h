// aopt simulator: host-side CANN API shim (clean-room, from public documentation).
// gert::TilingParseContext: what a TilingParse function (registered with
// IMPL_OP_OPTILING(op).TilingParse<CompileInfo>(f)) reads and fills: the platform, the compiled
// operator's JSON (empty in the simulator) and the CompileInfo that TilingContext::GetCompileInfo
// later hands to the tiling function.
#pragma once

#include <string>

#include "platform/platform_infos_def.h"

namespace gert {

class TilingParseContext {
 public:
  // ---- aopt (not CANN) ----
  // The node type defaults to the node name: the simulator runs one operator, named by its type.
  TilingParseContext(fe::PlatFormInfos* platform, void* compile_info, std::string node_name,
                     std::string node_type = "")
      : platform_(platform),
        compile_info_(compile_info),
        node_name_(std::move(node_name)),
        node_type_(node_type.empty() ? node_name_ : std::move(node_type)) {}

  // ---- CANN API ----
  fe::PlatFormInfos* GetPlatformInfo() const { return platform_; }
  // The compiled operator's JSON: the simulator compiles no .o, so it is an empty object.
  const char* GetCompiledJson() const { return "{}"; }
  template <typename T>
  T* GetCompiledInfo() const {
    return static_cast<T*>(compile_info_);
  }
  const char* GetNodeName() const { return node_name_.c_str(); }
  const char* GetNodeType() const { return node_type_.c_str(); }

 private:
  fe::PlatFormInfos* platform_;
  void* compile_info_;
  std::string node_name_;
  std::string node_type_;
};

}  // namespace gert
