// op.json completed from the OpDef and a msOpST-style test case (issue 34): what op.json says
// wins, the rest comes from what the project already says, and a field nothing says (or that
// the OpDef leaves ambiguous or contradicts) is an error naming it. The first cases run on
// hand-written OpDef descriptions (no compile); the last read real host sources.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

#include "npu/op_json_completion.hpp"
#include "npu/op_package.hpp"
#include "npu/protocol/op_spec.hpp"
#include "support/temp_dir.hpp"

namespace fs = std::filesystem;
using json = nlohmann::json;

namespace {

// An OpDef as read_op_defs prints it: x and y in, z out, float16 or float32 (parallel lists),
// an optional bias input, an int attribute with a default.
const json add_defs = json::parse(R"([{"op_type": "AddCustom",
  "inputs": [
    {"name": "x", "param_type": "required", "dtypes": ["float16", "float32"], "formats": [2, 2]},
    {"name": "y", "param_type": "required", "dtypes": ["float16", "float32"], "formats": [2, 2]},
    {"name": "bias", "param_type": "optional", "dtypes": ["float16", "float32"]}],
  "outputs": [
    {"name": "z", "param_type": "required", "dtypes": ["float16", "float32"], "formats": [2, 2]}],
  "attrs": [{"name": "alpha", "param_type": "optional", "type": "int", "value": 3}]}])");

struct completion {
  aopt::result<json> spec;
  std::vector<std::string> assumptions;
  int reads = 0;
};

completion complete_with(const json& op_json, const fs::path& dir, const json& defs = add_defs) {
  completion c{json(), {}, 0};
  aopt::npu::op_defs_reader read = [&]() -> aopt::result<json> {
    ++c.reads;
    return defs;
  };
  c.spec = aopt::npu::complete_op_json(op_json, dir, read, "op.json", c.assumptions);
  return c;
}

std::string completion_error(const completion& c) {
  REQUIRE_FALSE(c.spec.ok());
  return c.spec.error().message();
}

const json shaped_op = json::parse(R"({"name": "add_custom",
  "inputs": [{"name": "x", "shape": [8, 64]}, {"name": "y", "dtype": "float32", "shape": [8, 64]}],
  "outputs": [{"name": "z", "shape": [8, 64]}]})");

}  // namespace

TEST_SUITE("npu") {
  TEST_CASE("an op.json that lists every tensor's dtype and shape does not read the OpDef") {
    json full = shaped_op;
    full["inputs"][0]["dtype"] = "float16";  // disagrees with y: op.json wins, no error
    full["outputs"][0]["dtype"] = "float16";
    aopt::testing::temp_dir dir;
    const completion c = complete_with(full, dir.path());
    REQUIRE(c.spec.ok());
    CHECK(*c.spec == full);
    CHECK(c.reads == 0);
  }

  TEST_CASE("a dtype op.json leaves out comes from the OpDef combination its others agree with") {
    aopt::testing::temp_dir dir;
    const completion c = complete_with(shaped_op, dir.path());
    REQUIRE_MESSAGE(c.spec.ok(), c.spec.error().message());
    CHECK((*c.spec)["inputs"][0]["dtype"] == "float32");
    CHECK((*c.spec)["outputs"][0]["dtype"] == "float32");
    CHECK((*c.spec)["inputs"].size() == 2);  // op.json's list stands: no optional bias added
    // op.json names no attributes: the OpDef's, with their defaults.
    CHECK((*c.spec)["attrs"] == json::parse(R"([{"name": "alpha", "type": "int", "value": 3}])"));
    CHECK(c.reads == 1);
    CHECK(aopt::npu::parse_op_spec(*c.spec).ok());
  }

  TEST_CASE("a dtype the OpDef leaves open, or contradicts, is an error naming the field") {
    aopt::testing::temp_dir dir;
    json open = shaped_op;
    open["inputs"][1].erase("dtype");
    const std::string ambiguous = completion_error(complete_with(open, dir.path()));
    CHECK(ambiguous.find("op.json: inputs[0] ('x').dtype: missing") == 0);
    CHECK(ambiguous.find("allows float16 or float32") != std::string::npos);

    json contradicting = shaped_op;
    contradicting["inputs"][1]["dtype"] = "int32";
    const std::string conflict = completion_error(complete_with(contradicting, dir.path()));
    CHECK(conflict.find("inputs[0] ('x').dtype: missing, and no dtype combination") !=
          std::string::npos);
    CHECK(conflict.find("y int32") != std::string::npos);
    CHECK(conflict.find("(bias float16, x float16, y float16, z float16)") != std::string::npos);

    json unknown = shaped_op;
    unknown["inputs"][0]["name"] = "w";
    CHECK(completion_error(complete_with(unknown, dir.path())).find("declares no input 'w'") !=
          std::string::npos);

    // Lists that are not parallel (two dtypes for x, three for z) cannot be read as combinations.
    json defs = add_defs;
    defs[0]["outputs"][0]["dtypes"] = {"float16", "float32", "bfloat16"};
    CHECK(completion_error(complete_with(shaped_op, dir.path(), defs)).find("not parallel") !=
          std::string::npos);
  }

  TEST_CASE("several OpDefs and none named after the operator is an error listing them") {
    aopt::testing::temp_dir dir;
    json defs = json::array({add_defs[0], add_defs[0]});
    defs[0]["op_type"] = "AddOne";
    defs[1]["op_type"] = "AddTwo";
    const std::string message = completion_error(complete_with(shaped_op, dir.path(), defs));
    CHECK(message.find("2 OpDefs (AddOne, AddTwo) and none named after the operator") !=
          std::string::npos);
    // Named after it (ignoring case and underscores), it is found among several.
    defs[1]["op_type"] = "AddCustom";
    CHECK(complete_with(shaped_op, dir.path(), defs).spec.ok());
  }

  TEST_CASE("tensor lists left out come from the OpDef, shapes and dtypes from a test case") {
    aopt::testing::temp_dir dir;
    const json bare = json::parse(R"({"name": "add_custom"})");
    // Without a test case, nothing gives x a shape.
    const std::string no_shape = completion_error(complete_with(bare, dir.path()));
    CHECK(no_shape.find("op.json: inputs[0] ('x').shape: missing") == 0);
    CHECK(no_shape.find("msOpST") != std::string::npos);

    std::ofstream(dir.path() / "AddCustom_case.json") << R"([{"case_name": "Test_001",
      "input_desc": [
        {"name": "x", "type": ["float"], "shape": [4, 32], "value_range": [[-2.0, 2.0]]},
        {"name": "y", "type": ["float"], "shape": [4, 32]}],
      "output_desc": [{"type": ["float"], "shape": [4, 32]}],
      "attr": [{"name": "alpha", "type": "int", "value": 5}]}])";
    const completion c = complete_with(bare, dir.path());
    REQUIRE_MESSAGE(c.spec.ok(), c.spec.error().message());
    const json& s = *c.spec;
    REQUIRE(s["inputs"].size() == 3);
    CHECK(s["inputs"][0] ==
          json::parse(
              R"({"name": "x", "shape": [4, 32], "dtype": "float32", "range": [-2.0, 2.0]})"));
    CHECK(s["inputs"][1]["dtype"] == "float32");
    CHECK(s["inputs"][2]["absent"] == true);  // the optional bias no one gives a shape
    REQUIRE(c.assumptions.size() == 1);
    CHECK(c.assumptions[0].find("'bias' is left absent") != std::string::npos);
    CHECK(s["outputs"][0]["shape"] == json({4, 32}));
    // The test case's value of the attribute wins over the OpDef's default.
    CHECK(s["attrs"] == json::parse(R"([{"name": "alpha", "type": "int", "value": 5}])"));
    auto spec = aopt::npu::parse_op_spec(s);
    REQUIRE_MESSAGE(spec.ok(), spec.error().message());
    CHECK(spec->inputs[0].range_lo == -2.0);
    CHECK(spec->inputs[2].absent);
  }

  TEST_CASE("a required attribute without a default must be given when attrs are left out") {
    aopt::testing::temp_dir dir;
    json defs = add_defs;
    defs[0]["attrs"][0]["param_type"] = "required";
    defs[0]["attrs"][0]["value"] = nullptr;
    json op = shaped_op;
    op.erase("inputs");
    op.erase("outputs");
    std::ofstream(dir.path() / "cases.json") << R"([{"input_desc": [
        {"type": "float", "shape": [4]}, {"type": "float", "shape": [4]}],
        "output_desc": [{"type": "float", "shape": [4]}]}])";
    CHECK(completion_error(complete_with(op, dir.path(), defs))
              .find("attrs: missing, and the OpDef's attribute 'alpha' is required") !=
          std::string::npos);
    op["attrs"] = json::parse(R"([{"name": "alpha", "type": "int", "value": 1}])");
    CHECK(complete_with(op, dir.path(), defs).spec.ok());
    // Or the test case gives it (a value of another type is not taken).
    op.erase("attrs");
    std::ofstream(dir.path() / "cases.json", std::ios::trunc) << R"([{"input_desc": [
        {"type": "float", "shape": [4]}, {"type": "float", "shape": [4]}],
        "output_desc": [{"type": "float", "shape": [4]}],
        "attr": [{"name": "alpha", "type": "float", "value": 0.5}]}])";
    CHECK_FALSE(complete_with(op, dir.path(), defs).spec.ok());
    std::ofstream(dir.path() / "cases.json", std::ios::trunc) << R"([{"input_desc": [
        {"type": "float", "shape": [4]}, {"type": "float", "shape": [4]}],
        "output_desc": [{"type": "float", "shape": [4]}],
        "attr": [{"name": "alpha", "type": "int", "value": 2}]}])";
    const completion given = complete_with(op, dir.path(), defs);
    REQUIRE_MESSAGE(given.spec.ok(), given.spec.error().message());
    CHECK((*given.spec)["attrs"][0]["value"] == 2);
  }

  TEST_CASE("a malformed op.json is refused naming the field, before the OpDef is read") {
    aopt::testing::temp_dir dir;
    // shaped_op leaves x's dtype out, so each would be completed from the OpDef were it sound.
    struct malformed {
      const char* pointer;  // where the wrong value goes
      json value;
      const char* error;
    };
    const malformed cases[] = {
        {"/inputs/1/dtype", 5, "op.json: inputs[1].dtype: expected a string, got a number"},
        {"/inputs/0/name", 7, "op.json: inputs[0].name: expected a string, got a number"},
        {"/inputs", {{"x", 1}}, "op.json: inputs: expected an array, got an object"},
        {"/outputs/0", "z", "op.json: outputs[0]: expected an object, got a string"},
        {"/outputs/0/shape", "8x64", "op.json: outputs[0].shape: expected an array, got a string"},
        {"/inputs/0/absent", "yes", "op.json: inputs[0].absent: expected true or false"},
        {"/inputs/0/range", json::object(), "op.json: inputs[0].range: expected [lo, hi]"},
        {"/attrs", {{"alpha", 1}}, "op.json: attrs: expected an array, got an object"},
        {"/name", 3, "op.json: name: expected a string, got a number"},
        {"/tolerance", "loose", "op.json: tolerance: expected an object, got a string"},
        {"/inputs/0/unknown", 1, "op.json: inputs[0].unknown: unknown key"},
    };
    for (const malformed& m : cases) {
      json op = shaped_op;
      op[json::json_pointer(m.pointer)] = m.value;
      const completion c = complete_with(op, dir.path());
      const std::string where = m.pointer;
      CAPTURE(where);
      // Completion refuses it, or (lists that are no lists: nothing to complete) leaves it to
      // parse_op_spec, as loading does.
      const std::string error = c.spec.ok() ? aopt::npu::parse_op_spec(*c.spec).error().message()
                                            : c.spec.error().message();
      CHECK(error.find(m.error) == 0);
      CHECK(c.reads == 0);
    }
    // The lists left out altogether, and something else malformed: refused as it is too.
    json bare = json::parse(R"({"name": "add_custom", "seed": "many"})");
    const completion c = complete_with(bare, dir.path());
    CHECK(completion_error(c) == "op.json: seed: expected a non-negative integer, got \"many\"");
    CHECK(c.reads == 0);
    // A validation shape for a tensor the OpDef is to give is checked once it did.
    bare = json::parse(R"({"name": "add_custom", "validation_shapes": [{"x": [4, 32]}]})");
    std::ofstream(dir.path() / "cases.json") << R"([{"input_desc": [
        {"type": "float", "shape": [8, 64]}, {"type": "float", "shape": [8, 64]}],
        "output_desc": [{"type": "float", "shape": [8, 64]}]}])";
    const completion shaped = complete_with(bare, dir.path());
    REQUIRE_MESSAGE(shaped.spec.ok(), shaped.spec.error().message());
    CHECK(aopt::npu::parse_op_spec(*shaped.spec).ok());
    bare["validation_shapes"][0]["x"] = {4};  // of the wrong rank for the completed x
    const completion wrong_rank = complete_with(bare, dir.path());
    REQUIRE(wrong_rank.spec.ok());
    CHECK(aopt::npu::parse_op_spec(*wrong_rank.spec).error().message() ==
          "op.json: validation_shapes[0].x: expected a shape of rank 2, got [4]");
  }

  TEST_CASE("a malformed OpDef or test case is an error naming its field, never an exception") {
    aopt::testing::temp_dir dir;
    json defs = add_defs;
    defs[0]["inputs"][0]["name"] = 5;
    CHECK(completion_error(complete_with(shaped_op, dir.path(), defs))
              .find("the OpDef's inputs[0].name: expected a string, got a number") !=
          std::string::npos);
    defs = add_defs;
    defs[0]["outputs"] = {{"z", 1}};
    CHECK(completion_error(complete_with(shaped_op, dir.path(), defs))
              .find("the OpDef's outputs: expected an array, got an object") != std::string::npos);
    defs = add_defs;
    defs[0]["inputs"][1]["dtypes"] = {"float16", 32};
    CHECK(completion_error(complete_with(shaped_op, dir.path(), defs))
              .find("the OpDef's inputs[1].dtypes[1]: expected a string, got a number") !=
          std::string::npos);
    defs = add_defs;
    defs[0]["op_type"] = 12;  // matches no name, and is the only one
    CHECK(completion_error(complete_with(shaped_op, dir.path(), defs))
              .find("the OpDef's op_type: expected a string, got a number") != std::string::npos);

    const json bare = json::parse(R"({"name": "add_custom"})");
    std::ofstream(dir.path() / "cases.json") << R"([{"input_desc": [
        {"name": 3, "type": "float", "shape": [4]}, {"type": "float", "shape": [4]}],
        "output_desc": [{"type": "float", "shape": [4]}]}])";
    CHECK(completion_error(complete_with(bare, dir.path())) ==
          "op.json: cases.json case 1: input_desc[0].name: expected a string, got a number");
    std::ofstream(dir.path() / "cases.json", std::ios::trunc) << R"([{"input_desc": [
        {"type": "float", "shape": [4]}, {"type": "float", "shape": [4]}],
        "output_desc": {"z": 1}}])";
    CHECK(completion_error(complete_with(bare, dir.path())) ==
          "op.json: cases.json case 1: output_desc: expected an array, got an object");
    std::ofstream(dir.path() / "cases.json", std::ios::trunc) << R"([{"input_desc": [
        {"type": "float", "shape": [4]}, {"type": "float", "shape": [4]}],
        "output_desc": [{"type": "float", "shape": [4]}], "attr": [{"name": ["alpha"]}]}])";
    CHECK(completion_error(complete_with(bare, dir.path())) ==
          "op.json: cases.json case 1: attr[0].name: expected a string, got an array");
  }

  TEST_CASE("loading a malformed op.json that leaves tensors out compiles nothing") {
    aopt::testing::temp_dir dir;
    const fs::path pkg = dir.path() / "team_layout_add";
    fs::copy(fs::path(AOPT_TEST_DATA_DIR) / "ops" / "team_layout_add", pkg,
             fs::copy_options::recursive);
    json spec = json::parse(std::ifstream(pkg / "op.json"));
    spec["inputs"][1].erase("dtype");
    spec["inputs"][0]["dtype"] = 32;
    std::ofstream(pkg / "op.json", std::ios::trunc) << spec.dump(2);
    aopt::npu::package_load_options load;
    load.op_def_work_dir = dir.path() / "opdef-work";
    auto op = aopt::npu::load_op_package(pkg, load);
    REQUIRE_FALSE(op.ok());
    CHECK(op.error().message() ==
          (pkg / "op.json").string() + ": inputs[0].dtype: expected a string, got a number");
    // The OpDef reader's work dir was never made: nothing was compiled.
    CHECK_FALSE(fs::exists(load.op_def_work_dir));
  }

  TEST_CASE("where the OpDef is not read (an upload), a dtype op.json leaves out is an error") {
    aopt::testing::temp_dir dir;
    const fs::path pkg = dir.path() / "team_layout_add";
    fs::copy(fs::path(AOPT_TEST_DATA_DIR) / "ops" / "team_layout_add", pkg,
             fs::copy_options::recursive);
    json spec = json::parse(std::ifstream(pkg / "op.json"));
    spec["inputs"][1].erase("dtype");
    std::ofstream(pkg / "op.json", std::ios::trunc) << spec.dump(2);
    aopt::npu::package_load_options load;
    load.read_op_def = false;
    auto op = aopt::npu::load_op_package(pkg, load);
    REQUIRE_FALSE(op.ok());
    CHECK(op.error().message().find("inputs[1] ('y').dtype: missing, and the OpDef is not read") !=
          std::string::npos);
  }

  TEST_CASE("a package whose op.json has no tensors loads as its full op.json does") {
    // The spec completed from the OpDef and the test case is the one the package's own op.json
    // says in full, which tests/npu/package_layout_test.cpp evaluates ok: equal specs of the same
    // sources evaluate alike, so this compares them rather than evaluating again. The OpDef is
    // read in load_op_package's default work dir, where other tests and runs cache it.
    aopt::testing::temp_dir dir;
    const fs::path original = fs::path(AOPT_TEST_DATA_DIR) / "ops" / "team_layout_add";
    const fs::path pkg = dir.path() / "team_layout_add";
    fs::copy(original, pkg, fs::copy_options::recursive);
    json spec = json::parse(std::ifstream(pkg / "op.json"));
    spec.erase("inputs");
    spec.erase("attrs");
    // The output starts at zeros, which only op.json can say: a partial output entry.
    spec["outputs"] = json::parse(R"([{"name": "z", "init": "zeros"}])");
    std::ofstream(pkg / "op.json", std::ios::trunc) << spec.dump(2);
    std::ofstream(pkg / "TeamLayoutAdd_case.json") << R"([{"case_name": "Test_001",
      "input_desc": [
        {"format": ["ND"], "type": ["float"], "shape": [8, 1024], "value_range": [[-2.0, 2.0]]},
        {"format": ["ND"], "type": ["float"], "shape": [8, 1024], "value_range": [[-2.0, 2.0]]}],
      "output_desc": [{"format": ["ND"], "type": ["float"], "shape": [8, 1024]}]}])";
    auto op = aopt::npu::load_op_package(pkg);
    REQUIRE_MESSAGE(op.ok(), op.error().message());
    REQUIRE(op->spec.inputs.size() == 2);
    CHECK(op->spec.inputs[1].name == "y");
    CHECK(op->spec.inputs[1].type == aopt::npu::dtype::float32);
    CHECK(op->spec.outputs[0].shape == std::vector<int64_t>{8, 1024});
    REQUIRE(op->spec.attrs.size() == 1);
    CHECK(op->spec.attrs[0].value == true);  // the OpDef's default
    auto full = aopt::npu::load_op_package(original);
    REQUIRE_MESSAGE(full.ok(), full.error().message());
    CHECK(json(op->spec) == json(full->spec));
    CHECK(op->host_source == full->host_source);
    CHECK(op->kernel_source == full->kernel_source);
    CHECK(op->other_files == full->other_files);
  }

  TEST_CASE("a wild package's dtypes and attributes read from its OpDef equal its op.json's") {
    const fs::path wild = fs::path(AOPT_SOURCE_DIR) / ".." / "shared" / "wild" / "ds_box_iou";
    if (!fs::exists(wild / "op.json")) {
      MESSAGE("skipped: ../shared/wild is absent");
      return;
    }
    aopt::testing::temp_dir dir;
    const fs::path pkg = dir.path() / "ds_box_iou";
    fs::copy(wild, pkg, fs::copy_options::recursive);  // a scratch copy, never the package
    json spec = json::parse(std::ifstream(pkg / "op.json"));
    for (const char* list : {"inputs", "outputs"}) {
      for (json& t : spec[list]) t.erase("dtype");
    }
    const json original_attrs = spec["attrs"];
    spec.erase("attrs");
    std::ofstream(pkg / "op.json", std::ios::trunc) << spec.dump(2);
    auto completed = aopt::npu::load_op_package(pkg);
    auto original = aopt::npu::load_op_package(wild);
    REQUIRE_MESSAGE(completed.ok(), completed.error().message());
    REQUIRE(original.ok());
    json a = completed->spec;
    json b = original->spec;
    CHECK(a["inputs"] == b["inputs"]);
    CHECK(a["outputs"] == b["outputs"]);
    // Every attribute op.json gives is one the OpDef declares, with the same type.
    for (const json& attr : original_attrs) {
      bool found = false;
      for (const json& read : a["attrs"]) {
        found = found || (read["name"] == attr["name"] && read["type"] == attr["type"]);
      }
      CHECK_MESSAGE(found, attr.dump());
    }
  }
}
