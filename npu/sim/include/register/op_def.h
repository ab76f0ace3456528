// aopt simulator: host-side CANN API shim (clean-room, from public documentation).
// ops::OpDef, the operator prototype registration. The simulator takes inputs, outputs and
// attributes from op.json, so every call here is a no-op that only has to compile:
//
//   class AddCustom : public OpDef {
//    public:
//     explicit AddCustom(const char* name) : OpDef(name) {
//       this->Input("x").ParamType(REQUIRED).DataType({ge::DT_FLOAT16}).Format({ge::FORMAT_ND});
//       this->Output("z").ParamType(REQUIRED).DataType({ge::DT_FLOAT16}).Format({ge::FORMAT_ND});
//       this->Attr("alpha").AttrType(OPTIONAL).Float(1.0);
//       this->SetInferShape(ge::InferShape).SetInferDataType(ge::InferDataType);
//       this->AICore().SetTiling(optiling::TilingFunc).AddConfig("ascend910b");
//     }
//   };
//   OP_ADD(AddCustom);
#pragma once

#include <cstdint>
#include <vector>

#include "graph/types.h"

namespace ops {

enum Option { IGNORE = 0, OPTIONAL = 1, REQUIRED = 2, DYNAMIC = 3, VIRTUAL = 4 };
enum class DependScope : uint32_t { ALL = 0, TILING = 1 };
enum class FollowType : uint32_t { ALL = 0, DTYPE = 1, FORMAT = 2, SHAPE = 3 };

class OpParamDef {
 public:
  OpParamDef& ParamType(Option) { return *this; }
  OpParamDef& DataType(const std::vector<ge::DataType>&) { return *this; }
  OpParamDef& DataTypeList(const std::vector<ge::DataType>&) { return *this; }
  OpParamDef& Format(const std::vector<ge::Format>&) { return *this; }
  OpParamDef& FormatList(const std::vector<ge::Format>&) { return *this; }
  OpParamDef& UnknownShapeFormat(const std::vector<ge::Format>&) { return *this; }
  OpParamDef& ValueDepend(Option) { return *this; }
  OpParamDef& ValueDepend(Option, DependScope) { return *this; }
  OpParamDef& IgnoreContiguous() { return *this; }
  OpParamDef& AutoContiguous() { return *this; }
  OpParamDef& Scalar() { return *this; }
  OpParamDef& ScalarList() { return *this; }
  OpParamDef& To(ge::DataType) { return *this; }
  OpParamDef& To(const char*) { return *this; }
  OpParamDef& Follow(const char*) { return *this; }
  OpParamDef& Follow(const char*, FollowType) { return *this; }
  OpParamDef& InitValue(uint64_t) { return *this; }
  OpParamDef& OutputShapeDependOnCompute() { return *this; }
  OpParamDef& Version(uint32_t) { return *this; }
  OpParamDef& Comment(const char*) { return *this; }
};

class OpAttrDef {
 public:
  OpAttrDef& AttrType(Option) { return *this; }
  OpAttrDef& Bool(bool = false) { return *this; }
  OpAttrDef& Float(float = 0.0f) { return *this; }
  OpAttrDef& Int(int64_t = 0) { return *this; }
  OpAttrDef& String(const char* = "") { return *this; }
  OpAttrDef& ListBool(const std::vector<bool>& = {}) { return *this; }
  OpAttrDef& ListFloat(const std::vector<float>& = {}) { return *this; }
  OpAttrDef& ListInt(const std::vector<int64_t>& = {}) { return *this; }
  OpAttrDef& ListListInt(const std::vector<std::vector<int64_t>>& = {}) { return *this; }
  OpAttrDef& Version(uint32_t) { return *this; }
  OpAttrDef& Comment(const char*) { return *this; }
};

class OpAICoreConfig {
 public:
  OpAICoreConfig() = default;
  explicit OpAICoreConfig(const char*) {}
  OpParamDef& Input(const char*) { return param_; }
  OpParamDef& Output(const char*) { return param_; }
  OpAICoreConfig& DynamicCompileStaticFlag(bool) { return *this; }
  OpAICoreConfig& DynamicFormatFlag(bool) { return *this; }
  OpAICoreConfig& DynamicRankSupportFlag(bool) { return *this; }
  OpAICoreConfig& DynamicShapeSupportFlag(bool) { return *this; }
  OpAICoreConfig& NeedCheckSupportFlag(bool) { return *this; }
  OpAICoreConfig& PrecisionReduceFlag(bool) { return *this; }
  OpAICoreConfig& ExtendCfgInfo(const char*, const char*) { return *this; }

 private:
  OpParamDef param_;
};

class OpAICoreDef {
 public:
  template <typename F>
  OpAICoreDef& SetTiling(F) {
    return *this;
  }
  template <typename F>
  OpAICoreDef& SetTilingParse(F) {
    return *this;
  }
  template <typename F>
  OpAICoreDef& SetCheckSupport(F) {
    return *this;
  }
  template <typename F>
  OpAICoreDef& SetOpSelectFormat(F) {
    return *this;
  }
  template <typename F>
  OpAICoreDef& SetOpSupportInfo(F) {
    return *this;
  }
  template <typename F>
  OpAICoreDef& SetOpSpecInfo(F) {
    return *this;
  }
  OpAICoreDef& AddConfig(const char*) { return *this; }
  OpAICoreDef& AddConfig(const char*, OpAICoreConfig&) { return *this; }
};

class OpDef {
 public:
  explicit OpDef(const char*) {}
  OpParamDef& Input(const char*) { return param_; }
  OpParamDef& Output(const char*) { return param_; }
  OpAttrDef& Attr(const char*) { return attr_; }
  template <typename F>
  OpDef& SetInferShape(F) {
    return *this;
  }
  template <typename F>
  OpDef& SetInferShapeRange(F) {
    return *this;
  }
  template <typename F>
  OpDef& SetInferDataType(F) {
    return *this;
  }
  OpDef& Comment(const char*) { return *this; }
  OpAICoreDef& AICore() { return aicore_; }

 private:
  OpParamDef param_;
  OpAttrDef attr_;
  OpAICoreDef aicore_;
};

}  // namespace ops

// Checks that the operator class exists; registers nothing.
#define OP_ADD(op_type, ...) static_assert(sizeof(op_type) > 0, "OP_ADD")
