// The host-side API a TilingFunc, InferShape and OpDef use, exercised the way CANN operator
// host code calls it.
#include <doctest/doctest.h>

#include <cstring>

#include <cstdint>
#include <string>
#include <vector>

#include "graph/utils/type_utils.h"
#include "register/op_def_registry.h"
#include "tiling/platform/platform_ascendc.h"
#include "tiling/tiling_api.h"

namespace host_shim_test {

ge::graphStatus InferShape(gert::InferShapeContext* context) {
  const gert::Shape* x = context->GetInputShape(0);
  gert::Shape* y = context->GetOutputShape(0);
  *y = *x;
  y->SetDim(y->GetDimNum() - 1, 1);  // a reduction over the last axis
  return ge::GRAPH_SUCCESS;
}

ge::graphStatus InferDataType(gert::InferDataTypeContext* context) {
  return context->SetOutputDataType(0, context->GetInputDataType(0));
}

ge::graphStatus TilingFunc(gert::TilingContext*) {
  return ge::GRAPH_SUCCESS;
}

}  // namespace host_shim_test

namespace ops {

// An OpDef exactly as CANN host sources write one; it must compile, and do nothing.
class HostShimReduce : public OpDef {
 public:
  explicit HostShimReduce(const char* name) : OpDef(name) {
    this->Input("x")
        .ParamType(REQUIRED)
        .DataType({ge::DT_FLOAT16, ge::DT_FLOAT, ge::DT_BF16})
        .Format({ge::FORMAT_ND, ge::FORMAT_ND, ge::FORMAT_ND})
        .UnknownShapeFormat({ge::FORMAT_ND, ge::FORMAT_ND, ge::FORMAT_ND});
    this->Input("bias").ParamType(OPTIONAL).DataType({ge::DT_FLOAT}).FormatList({ge::FORMAT_ND});
    this->Output("y")
        .ParamType(REQUIRED)
        .Follow("x")
        .DataType({ge::DT_FLOAT16})
        .Format({ge::FORMAT_ND});
    this->Attr("alpha").AttrType(OPTIONAL).Float(1.0);
    this->Attr("axes").AttrType(REQUIRED).ListInt({-1});
    this->Attr("keep_dims").AttrType(OPTIONAL).Bool();
    this->SetInferShape(host_shim_test::InferShape).SetInferDataType(host_shim_test::InferDataType);
    OpAICoreConfig config;
    config.DynamicCompileStaticFlag(true).DynamicShapeSupportFlag(true).ExtendCfgInfo(
        "opFile.value", "x");
    this->AICore()
        .SetTiling(host_shim_test::TilingFunc)
        .AddConfig("ascend910b")
        .AddConfig("ascend910_93", config);
  }
};
OP_ADD(HostShimReduce);

}  // namespace ops

IMPL_OP_OPTILING(HostShimReduce).Tiling(host_shim_test::TilingFunc);

namespace {

// A context like the driver builds for x: float16 [8, 2048], y: float32 [8, 1].
gert::TilingContext make_context(const std::vector<uint16_t>& x_data) {
  gert::TilingContext ctx("host_shim_reduce", "HostShimReduce");
  ctx.add_input(ge::DT_FLOAT16, gert::Shape{8, 2048}, x_data.data());
  ctx.add_output(ge::DT_FLOAT, gert::Shape{8, 1});
  gert::RuntimeAttrs& attrs = ctx.mutable_attrs();
  attrs.add_float(0.5f);
  attrs.add_list_int({0, -1});
  attrs.add_bool(true);
  attrs.add_int(-7);
  attrs.add_string("mean");
  attrs.add_list_float({1.5f, 2.5f});
  fe::PlatFormInfos& platform = ctx.mutable_platform();
  platform.core_num_aiv = 48;
  platform.core_num_aic = 24;
  platform.ub_bytes = 192 * 1024;
  return ctx;
}

}  // namespace

TEST_SUITE("sim") {
  TEST_CASE("gert::Shape counts elements, bounds its dims and compares by value") {
    gert::Shape s{4, 5, 6};
    CHECK(s.GetDimNum() == 3);
    CHECK(s.GetDim(1) == 5);
    CHECK(s.GetDim(3) == gert::Shape::kInvalidDimValue);
    CHECK(s.GetShapeSize() == 120);
    CHECK(s.SetDim(3, 1) == ge::GRAPH_FAILED);
    s.SetDimNum(4);
    CHECK(s.SetDim(3, 2) == ge::GRAPH_SUCCESS);
    CHECK(s.GetShapeSize() == 240);
    CHECK(gert::Shape().GetShapeSize() == 1);  // a scalar
    CHECK(gert::Shape().IsScalar());
    CHECK(gert::Shape{2, 3} == gert::Shape().AppendDim(2).AppendDim(3));
    CHECK(gert::Shape{2, 3} != gert::Shape{3, 2});
  }

  TEST_CASE("TilingContext hands a TilingFunc shapes, dtypes, input data and counts") {
    const std::vector<uint16_t> x(8 * 2048, 0x3C00);  // 1.0 in float16
    gert::TilingContext ctx = make_context(x);
    CHECK(std::string(ctx.GetNodeName()) == "host_shim_reduce");
    CHECK(std::string(ctx.GetNodeType()) == "HostShimReduce");
    CHECK(ctx.GetComputeNodeInputNum() == 1);
    CHECK(ctx.GetComputeNodeOutputNum() == 1);
    REQUIRE(ctx.GetInputShape(0) != nullptr);
    CHECK(ctx.GetInputShape(0)->GetOriginShape().GetShapeSize() == 16384);
    CHECK(ctx.GetInputShape(0)->GetStorageShape().GetDim(1) == 2048);
    // Every op.json input is present: the required and optional spellings see the same shapes.
    CHECK(ctx.GetRequiredInputShape(0) == ctx.GetInputShape(0));
    CHECK(ctx.GetOptionalInputShape(0) == ctx.GetInputShape(0));
    CHECK(ctx.GetRequiredInputTensor(0) == ctx.GetInputTensor(0));
    CHECK(ctx.GetInputShape(1) == nullptr);
    CHECK(ctx.GetOutputShape(0)->GetStorageShape() == gert::Shape{8, 1});
    CHECK(ctx.GetInputDesc(0)->GetDataType() == ge::DT_FLOAT16);
    CHECK(ctx.GetInputDesc(0)->GetStorageFormat() == ge::FORMAT_ND);
    CHECK(ctx.GetOutputDesc(0)->GetDataType() == ge::DT_FLOAT);
    CHECK(ctx.GetInputDesc(3) == nullptr);
    const gert::Tensor* tensor = ctx.GetInputTensor(0);
    REQUIRE(tensor != nullptr);
    CHECK(tensor->GetShapeSize() == 16384);
    CHECK(tensor->GetData<uint16_t>()[100] == 0x3C00);
  }

  TEST_CASE("an absent optional input is null by its prototype index and skipped by instance") {
    const std::vector<float> x(4, 1.0f), stage(4, 2.0f);
    gert::TilingContext ctx("host_shim_optional", "HostShimOptional");
    ctx.add_input(ge::DT_FLOAT, gert::Shape{4}, x.data());
    ctx.add_absent_input(ge::DT_FLOAT16);
    ctx.add_input(ge::DT_FLOAT, gert::Shape{2, 2}, stage.data());
    CHECK(ctx.GetComputeNodeInputNum() == 2);
    // By the prototype index: the absent one is null, the others are where the OpDef put them.
    CHECK(ctx.GetOptionalInputShape(1) == nullptr);
    CHECK(ctx.GetOptionalInputTensor(1) == nullptr);
    CHECK(ctx.GetOptionalInputDesc(1) == nullptr);
    REQUIRE(ctx.GetOptionalInputShape(2) != nullptr);
    CHECK(ctx.GetOptionalInputShape(2)->GetOriginShape() == gert::Shape{2, 2});
    CHECK(ctx.GetRequiredInputShape(0)->GetOriginShape() == gert::Shape{4});
    // By the instance index the call's inputs are 0 and 1: stage is input 1, nothing is at 2.
    REQUIRE(ctx.GetInputShape(1) != nullptr);
    CHECK(ctx.GetInputShape(1)->GetOriginShape() == gert::Shape{2, 2});
    CHECK(ctx.GetInputTensor(1)->GetData<float>()[3] == 2.0f);
    CHECK(ctx.GetInputDesc(1)->GetDataType() == ge::DT_FLOAT);
    CHECK(ctx.GetInputShape(2) == nullptr);
    CHECK(ctx.GetInputTensor(2) == nullptr);
  }

  TEST_CASE(
      "attributes read back by index with their CANN types; another scalar type reads the "
      "storage") {
    const std::vector<uint16_t> x(8 * 2048);
    gert::TilingContext ctx = make_context(x);
    const gert::RuntimeAttrs* attrs = ctx.GetAttrs();
    CHECK(attrs->GetAttrNum() == 6);
    REQUIRE(attrs->GetAttrPointer<float>(0) != nullptr);
    CHECK(*attrs->GetAttrPointer<float>(0) == 0.5f);
    const auto* axes = attrs->GetAttrPointer<gert::ContinuousVector>(1);
    REQUIRE(axes != nullptr);
    CHECK(axes->GetSize() == 2);
    CHECK(static_cast<const int64_t*>(axes->GetData())[1] == -1);
    CHECK(attrs->GetListInt(1)->GetData()[0] == 0);
    CHECK(*attrs->GetAttrPointer<bool>(2));
    CHECK(*attrs->GetAttrPointer<int64_t>(3) == -7);
    CHECK(*attrs->GetInt(3) == -7);
    CHECK(*attrs->GetAttrPointer<int32_t>(3) == -7);  // a narrower read sees the low bytes
    CHECK(std::string(attrs->GetAttrPointer<char>(4)) == "mean");
    CHECK(std::string(attrs->GetStr(4)) == "mean");
    CHECK(attrs->GetListFloat(5)->GetData()[1] == 2.5f);

    // CANN's context answers a typed read of a scalar attribute with the attribute's storage,
    // whatever type it was declared with (issue 34: a bool attribute read as uint32_t).
    CHECK(*attrs->GetAttrPointer<uint32_t>(2) == 1u);
    REQUIRE(attrs->GetAttrPointer<int64_t>(0) != nullptr);  // the float's bits, zero-extended
    CHECK(*attrs->GetAttrPointer<int64_t>(0) == 0x3F000000);
    REQUIRE(attrs->GetAttrPointer<float>(3) != nullptr);  // an Int's bytes read as float
    uint32_t low_bits = 0;
    std::memcpy(&low_bits, attrs->GetAttrPointer<float>(3), sizeof(low_bits));
    CHECK(low_bits == 0xFFFFFFF9u);
    // Lists and strings keep their kinds.
    CHECK(attrs->GetListInt(5) == nullptr);
    CHECK(attrs->GetAttrPointer<char>(0) == nullptr);
    CHECK(attrs->GetAttrPointer<float>(6) == nullptr);  // past the end
  }

  TEST_CASE("TilingContext records block dim, tiling key and workspace sizes") {
    const std::vector<uint16_t> x(8 * 2048);
    gert::TilingContext ctx = make_context(x);
    CHECK(ctx.GetBlockDim() == 0);
    ctx.SetBlockDim(8);
    ctx.SetTilingKey(3);
    CHECK(ctx.GetBlockDim() == 8);
    CHECK(ctx.GetTilingKey() == 3);
    CHECK(ctx.workspace_bytes() == 0);
    size_t* sizes = ctx.GetWorkspaceSizes(2);
    REQUIRE(sizes != nullptr);
    CHECK(sizes[0] == 0);
    sizes[0] = 4096;
    sizes[1] = 1024;
    CHECK(ctx.GetWorkspaceNum() == 2);
    CHECK(ctx.workspace_bytes() == 5120);
    CHECK(ctx.GetWorkspaceSizes(100) == nullptr);
    CHECK(ctx.GetRawTilingData()->GetCapacity() == gert::TilingContext::kDefaultTilingCapacity);
    CHECK(ctx.GetLocalMemorySize() == 0);
    CHECK(ctx.SetLocalMemorySize(32 * 1024) == ge::GRAPH_SUCCESS);
    CHECK(ctx.GetLocalMemorySize() == 32 * 1024);
  }

  TEST_CASE("PlatformAscendC reports the profile's cores, memories and SoC family") {
    const std::vector<uint16_t> x(8 * 2048);
    gert::TilingContext ctx = make_context(x);
    auto platform = platform_ascendc::PlatformAscendC(ctx.GetPlatformInfo());
    CHECK(platform.GetCoreNum() == 48);
    CHECK(platform.GetCoreNumAiv() == 48);
    CHECK(platform.GetCoreNumAic() == 24);
    uint64_t ub = 0;
    platform.GetCoreMemSize(platform_ascendc::CoreMemType::UB, ub);
    CHECK(ub == 192 * 1024);
    uint64_t l1 = 0;
    platform.GetCoreMemSize(platform_ascendc::CoreMemType::L1, l1);
    CHECK(l1 == 512 * 1024);
    CHECK(platform.GetSocVersion() == platform_ascendc::SocVersion::ASCEND910B);
    CHECK(platform.GetLibApiWorkSpaceSize() == 0);
    CHECK(platform.CalcTschBlockDim(40, 0, 48) == 40);
    CHECK(platform.CalcTschBlockDim(40, 24, 48) == 20);
    std::string soc;
    CHECK(ctx.GetPlatformInfo()->GetPlatformRes("version", "Short_SoC_version", soc));
    CHECK(soc == "Ascend910B");
    CHECK_FALSE(ctx.GetPlatformInfo()->GetPlatformRes("version", "nothing", soc));
  }

  TEST_CASE("ge::TypeUtils gives element sizes and fails on types without one") {
    uint32_t length = 0;
    CHECK(ge::TypeUtils::GetDataTypeLength(ge::DT_FLOAT16, length));
    CHECK(length == 2);
    CHECK(ge::TypeUtils::GetDataTypeLength(ge::DT_BF16, length));
    CHECK(length == 2);
    CHECK(ge::TypeUtils::GetDataTypeLength(ge::DT_INT64, length));
    CHECK(length == 8);
    CHECK(ge::TypeUtils::GetDataTypeLength(ge::DT_BOOL, length));
    CHECK(length == 1);
    CHECK_FALSE(ge::TypeUtils::GetDataTypeLength(ge::DT_UNDEFINED, length));
    CHECK(ge::GetSizeByDataType(ge::DT_FLOAT) == 4);
    CHECK(ge::TypeUtils::DataTypeToSerialString(ge::DT_INT8) == "DT_INT8");
  }

  TEST_CASE("an operator's InferShape and InferDataType run against the shim's contexts") {
    gert::InferShapeContext shapes;
    shapes.add_input(gert::Shape{4, 128});
    shapes.add_output();
    CHECK(host_shim_test::InferShape(&shapes) == ge::GRAPH_SUCCESS);
    CHECK(*shapes.GetOutputShape(0) == gert::Shape{4, 1});

    gert::InferDataTypeContext types;
    types.add_input(ge::DT_BF16);
    types.add_output();
    CHECK(host_shim_test::InferDataType(&types) == ge::GRAPH_SUCCESS);
    CHECK(types.GetOutputDataType(0) == ge::DT_BF16);
    CHECK(types.SetOutputDataType(1, ge::DT_FLOAT) == ge::GRAPH_FAILED);
    // The required-input spellings see op.json's inputs, all of which are present.
    CHECK(types.GetRequiredInputDataType(0) == ge::DT_BF16);
    CHECK(shapes.GetRequiredInputShape(0) == shapes.GetInputShape(0));
  }

  TEST_CASE("an OpDef records what it declares, for aopt init") {
    ops::HostShimReduce def("HostShimReduce");
    const aopt_sim::op_def_description d = def.aopt_description();
    CHECK(d.op_type == "HostShimReduce");
    REQUIRE_FALSE(d.inputs.empty());
    REQUIRE_FALSE(d.outputs.empty());
    CHECK(d.inputs[0].name == "x");
    CHECK(d.inputs[0].dtypes.size() == 3);
    CHECK(d.inputs[1].param_type == ops::OPTIONAL);
    CHECK(d.outputs[0].dtypes == std::vector<ge::DataType>{ge::DT_FLOAT16});
    REQUIRE_FALSE(d.attrs.empty());
    CHECK(d.attrs[0].name == "alpha");
    CHECK(d.attrs[0].type == "float");
    CHECK(d.attrs[0].value == "1");
    // Each declaration is its own record.
    CHECK(&def.Input("a") != &def.Output("b"));
    CHECK(def.aopt_description().inputs.back().name == "a");
    CHECK(def.aopt_description().outputs.back().name == "b");
  }
}
