// ge::Operator as graph-mode shape functions use it: a broadcast-add shape function written with
// IMPLEMT_COMMON_INFERFUNC reads input descriptions and attributes by name and updates the
// output description; checked against the shape computed in plain C++ on three input sets.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "graph/operator_reg.h"

namespace host_shim_operator_test {

// What REG_OP(AddScaled).INPUT(x1).INPUT(x2).OUTPUT(y).ATTR(scale) declares.
class AddScaled : public ge::Operator {
 public:
  AddScaled() : ge::Operator(ge::AscendString("add0"), ge::AscendString("AddScaled")) {
    InputRegister("x1");
    InputRegister("x2");
    OutputRegister("y");
  }
};

IMPLEMT_COMMON_INFERFUNC(BroadcastInferShape) {
  const ge::TensorDesc x1 = op.GetInputDescByName("x1");
  const ge::TensorDesc x2 = op.GetInputDesc("x2");
  float scale = 0;
  if (op.GetAttr("scale", scale) != ge::GRAPH_SUCCESS) return ge::GRAPH_FAILED;
  std::vector<int64_t> a = x1.GetShape().GetDims();
  std::vector<int64_t> b = x2.GetShape().GetDims();
  if (a.size() < b.size()) std::swap(a, b);
  b.insert(b.begin(), a.size() - b.size(), 1);
  for (size_t i = 0; i < a.size(); ++i) {
    if (a[i] != b[i] && a[i] != 1 && b[i] != 1) return ge::GRAPH_FAILED;
    a[i] = std::max(a[i], b[i]);
  }
  ge::TensorDesc y = op.GetOutputDescByName("y");
  y.SetShape(ge::Shape(a));
  y.SetDataType(x1.GetDataType());
  y.SetFormat(x1.GetFormat());
  return op.UpdateOutputDesc("y", y);
}
COMMON_INFER_FUNC_REG(AddScaled, BroadcastInferShape);

TEST_SUITE("sim") {
  TEST_CASE("ge::Operator: a shape function reads descs and attrs by name, updates its output") {
    struct sample {
      std::vector<int64_t> x1, x2, y;
    };
    const sample samples[] = {
        {{8, 1, 16}, {4, 16}, {8, 4, 16}}, {{3}, {2, 5, 3}, {2, 5, 3}}, {{1, 7}, {6, 1}, {6, 7}}};
    for (const sample& s : samples) {
      AddScaled op;
      CHECK(op.UpdateInputDesc("x1", ge::TensorDesc(ge::Shape(s.x1), ge::FORMAT_ND,
                                                    ge::DT_FLOAT16)) == ge::GRAPH_SUCCESS);
      CHECK(op.UpdateInputDesc("x2", ge::TensorDesc(ge::Shape(s.x2))) == ge::GRAPH_SUCCESS);
      CHECK(BroadcastInferShape(op) == ge::GRAPH_FAILED);  // the attribute is not set yet
      op.SetAttr("scale", 0.5f);
      REQUIRE(BroadcastInferShape(op) == ge::GRAPH_SUCCESS);
      const ge::TensorDesc y = op.GetOutputDesc(0u);
      CHECK(y.GetShape().GetDims() == s.y);
      int64_t size = 1;
      for (int64_t d : s.y) size *= d;
      CHECK(y.GetShape().GetShapeSize() == size);
      CHECK(y.GetDataType() == ge::DT_FLOAT16);
      CHECK(op.GetOutputDesc("y").GetShape().GetDimNum() == s.y.size());
    }
  }

  TEST_CASE("ge::Operator: unknown ports, wrong attribute types and names") {
    AddScaled op;
    ge::AscendString name, type;
    CHECK(op.GetName(name) == ge::GRAPH_SUCCESS);
    CHECK(op.GetOpType(type) == ge::GRAPH_SUCCESS);
    CHECK(std::string(name.GetString()) == "add0");
    CHECK(std::string(type.GetString()) == "AddScaled");
    CHECK(op.GetInputsSize() == 2);
    CHECK(op.GetOutputsSize() == 1);
    CHECK(op.UpdateOutputDesc("z", ge::TensorDesc()) == ge::GRAPH_FAILED);
    CHECK(op.GetInputDesc(5).GetShape().GetDimNum() == 0);
    op.SetAttr("axes", std::vector<int64_t>{0, 2}).SetAttr("mode", "mean").SetAttr("k", int64_t{3});
    std::vector<int64_t> axes;
    std::string mode;
    int32_t k = 0;
    float wrong = 0;
    CHECK(op.GetAttr("axes", axes) == ge::GRAPH_SUCCESS);
    CHECK(axes == std::vector<int64_t>{0, 2});
    CHECK(op.GetAttr("mode", mode) == ge::GRAPH_SUCCESS);
    CHECK(mode == "mean");
    CHECK(op.GetAttr("k", k) == ge::GRAPH_SUCCESS);
    CHECK(k == 3);
    CHECK(op.GetAttr("k", wrong) == ge::GRAPH_FAILED);
  }
}

}  // namespace host_shim_operator_test
