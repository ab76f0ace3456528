// aopt simulator: host-side CANN API shim (clean-room, from public documentation).
// ops::OpDef, the operator prototype registration. The simulator takes inputs, outputs and
// attributes from op.json; the OpDef records what it declares (aopt_sim/op_def_records.h: what
// `aopt init` reads) and AICore().SetTiling registers the tiling function; every other call
// only has to compile:
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
#include <cstdio>
#include <deque>
#include <string>
#include <vector>

#include "aopt_sim/op_def_records.h"
#include "aopt_sim/tiling_function_registry.h"
#include "graph/types.h"

namespace ops {

enum Option { IGNORE = 0, OPTIONAL = 1, REQUIRED = 2, DYNAMIC = 3, VIRTUAL = 4 };
enum class DependScope : uint32_t { ALL = 0, TILING = 1 };
enum class FollowType : uint32_t { ALL = 0, DTYPE = 1, FORMAT = 2, SHAPE = 3 };

class OpParamDef {
 public:
  // The recording members are out of line (runtime/host_op_def.cpp): compiled once into the
  // simulator library instead of in every host unit.
  OpParamDef();
  explicit OpParamDef(const char* name);
  OpParamDef(const OpParamDef&);
  OpParamDef& operator=(const OpParamDef&);
  ~OpParamDef();
  OpParamDef& ParamType(Option o);
  OpParamDef& DataType(const std::vector<ge::DataType>& types);
  OpParamDef& DataTypeList(const std::vector<ge::DataType>& types);
  OpParamDef& Format(const std::vector<ge::Format>& formats);
  OpParamDef& FormatList(const std::vector<ge::Format>& formats);
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

  const aopt_sim::op_param_record& aopt_record() const { return record_; }

 private:
  aopt_sim::op_param_record record_;
};

class OpAttrDef {
 public:
  OpAttrDef();
  explicit OpAttrDef(const char* name);
  OpAttrDef(const OpAttrDef&);
  OpAttrDef& operator=(const OpAttrDef&);
  ~OpAttrDef();
  OpAttrDef& AttrType(Option o);
  OpAttrDef& Bool(bool value = false);
  OpAttrDef& Float(float value = 0.0f);
  OpAttrDef& Int(int64_t value = 0);
  OpAttrDef& String(const char* value = "");
  OpAttrDef& ListBool(const std::vector<bool>& values = {});
  OpAttrDef& ListFloat(const std::vector<float>& values = {});
  OpAttrDef& ListInt(const std::vector<int64_t>& values = {});
  OpAttrDef& ListListInt(const std::vector<std::vector<int64_t>>& values = {});
  OpAttrDef& Version(uint32_t) { return *this; }
  OpAttrDef& Comment(const char*) { return *this; }

  const aopt_sim::op_attr_record& aopt_record() const { return record_; }

 private:
  OpAttrDef& typed(const char* type, std::string value);
  aopt_sim::op_attr_record record_;
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
  OpAICoreDef();
  explicit OpAICoreDef(const char* op_type);
  OpAICoreDef(const OpAICoreDef&);
  OpAICoreDef& operator=(const OpAICoreDef&);
  ~OpAICoreDef();
  template <typename F>
  OpAICoreDef& SetTiling(F tiling) {
    aopt_sim::register_tiling_function(op_type_, tiling);
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

 private:
  std::string op_type_;
};

class OpDef {
 public:
  explicit OpDef(const char* op_type);
  OpDef(const OpDef&) = delete;
  OpDef& operator=(const OpDef&) = delete;
  ~OpDef();
  OpParamDef& Input(const char* name);
  OpParamDef& Output(const char* name);
  OpAttrDef& Attr(const char* name);
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

  // What the constructor declared (aopt_sim/op_def_records.h).
  aopt_sim::op_def_description aopt_description() const;

 private:
  std::string op_type_;
  std::deque<OpParamDef> inputs_;  // a deque: the references Input() returns stay valid
  std::deque<OpParamDef> outputs_;
  std::deque<OpAttrDef> attrs_;
  OpAICoreDef aicore_;
};

}  // namespace ops

namespace aopt_sim {
// Adds what `def` declared to op_def_descriptions(); out of line (runtime/host_op_def.cpp), so a
// host unit's OP_ADD instantiates no vector of descriptions.
void record_op_def(const ops::OpDef& def);
}  // namespace aopt_sim

// Records how to construct the operator's OpDef, which registers its tiling function
// (aopt_sim/tiling_function_registry.h); the OpDef is constructed at the first lookup, inside
// the launch, not before main.
#define AOPT_OP_ADD_CONCAT_INNER(a, b) a##b
#define AOPT_OP_ADD_CONCAT(a, b) AOPT_OP_ADD_CONCAT_INNER(a, b)
#define OP_ADD(op_type, ...)                                                             \
  [[maybe_unused]] static ::aopt_sim::op_def_record AOPT_OP_ADD_CONCAT(aopt_op_add_,     \
                                                                       __COUNTER__)([] { \
    op_type def(#op_type);                                                               \
    ::aopt_sim::record_op_def(def);                                                      \
  })
