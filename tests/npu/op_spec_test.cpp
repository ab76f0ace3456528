#include "npu/op_package.hpp"

#include <fstream>

#include <doctest/doctest.h>

#include "base/scratch_dir.hpp"

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

json minimal_spec() {
  return json::parse(R"({
    "name": "add_custom", "level": 1, "category": "elementwise",
    "inputs": [{"name": "x", "dtype": "float16", "shape": [8, 2048], "range": [-2, 2]},
               {"name": "y", "dtype": "float16", "shape": [8, 2048]}],
    "outputs": [{"name": "z", "dtype": "float16", "shape": [8, 2048]}],
    "seed": 1234
  })");
}

std::string parse_error(const json& j) {
  auto r = aopt::npu::parse_op_spec(j);
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().code() == aopt::status_code::invalid_argument);
  return r.error().message();
}

aopt::scratch_dir make_dir() {
  auto dir = aopt::scratch_dir::create(fs::temp_directory_path(), "aopt-op-spec-");
  REQUIRE(dir.ok());
  return std::move(dir).value();
}

void write_file(const fs::path& path, const std::string& text) {
  fs::create_directories(path.parent_path());
  std::ofstream(path) << text;
}

void write_package(const fs::path& dir, const json& spec) {
  write_file(dir / "op.json", spec.dump(2));
  write_file(dir / "op_host/add_custom_tiling.h", "// tiling header\n");
  write_file(dir / "op_host/add_custom.cpp", "// host\n");
  write_file(dir / "op_kernel/add_custom.cpp", "// kernel\n");
  write_file(dir / "reference.cpp", "// reference\n");
}

}  // namespace

TEST_SUITE("npu") {
  TEST_CASE("a minimal op.json parses with defaults filled in") {
    auto r = aopt::npu::parse_op_spec(minimal_spec());
    REQUIRE_MESSAGE(r.ok(), r.error().to_string());
    const auto& s = *r;
    CHECK(s.name == "add_custom");
    CHECK(s.kernel_entry == "add_custom");
    CHECK(s.tiling_func == "TilingFunc");
    CHECK(s.kind == "baseline");
    CHECK(s.seed == 1234);
    REQUIRE(s.inputs.size() == 2);
    CHECK(s.inputs[0].type == aopt::npu::dtype::float16);
    CHECK(s.inputs[0].range_lo == -2);
    CHECK(s.inputs[1].range_hi == 1);
    CHECK(s.inputs[0].numel() == 8 * 2048);
    CHECK(s.inputs[0].bytes() == 8 * 2048 * 2);
    CHECK(s.io_bytes() == 3 * 8 * 2048 * 2);
    CHECK(s.files.tiling_header == "op_host/add_custom_tiling.h");
    CHECK(s.files.host == "op_host/add_custom.cpp");
    CHECK(s.files.kernel == "op_kernel/add_custom.cpp");
    CHECK(s.files.reference == "reference.cpp");
    CHECK_FALSE(s.has_tolerance);
    CHECK(s.tolerance_for(s.outputs[0]).rtol == doctest::Approx(1e-3));
  }

  TEST_CASE("an unknown dtype is reported with the field path") {
    json j = minimal_spec();
    j["inputs"][1]["dtype"] = "half16";
    CHECK(parse_error(j) == "op.json: inputs[1].dtype: unknown dtype 'half16'");
  }

  TEST_CASE("malformed fields are rejected with the field and the reason") {
    json j = minimal_spec();
    SUBCASE("missing name") {
      j.erase("name");
      CHECK(parse_error(j) == "op.json: name: missing");
    }
    SUBCASE("negative dimension") {
      j["outputs"][0]["shape"][1] = -4;
      CHECK(parse_error(j).find("op.json: outputs[0].shape[1]: expected a positive") == 0);
    }
    SUBCASE("zero dimension (nothing to compute; tiling programs divide by it)") {
      j["inputs"][0]["shape"][0] = 0;
      CHECK(parse_error(j) == "op.json: inputs[0].shape[0]: expected a positive integer, got 0");
    }
    SUBCASE("a tensor name used twice") {
      j["inputs"][1]["name"] = j["inputs"][0]["name"];
      CHECK(parse_error(j).find("op.json: inputs[1].name: tensor name") == 0);
      CHECK(parse_error(j).find("is used twice") != std::string::npos);
    }
    SUBCASE("a ref output (named like its input) of another shape") {
      j["outputs"][0]["name"] = j["inputs"][0]["name"];
      j["outputs"][0]["shape"] = {8, 1024};
      CHECK(parse_error(j).find("op.json: outputs[0].shape: differs from input 'x'") == 0);
    }
    SUBCASE("level out of range") {
      j["level"] = 7;
      CHECK(parse_error(j) == "op.json: level: expected 1, 2 or 3, got 7");
    }
    SUBCASE("misspelled key") {
      j["tolerence"] = json::object();
      CHECK(parse_error(j) == "op.json: tolerence: unknown key");
    }
    SUBCASE("inverted range") {
      j["inputs"][0]["range"] = {3, 1};
      CHECK(parse_error(j).find("op.json: inputs[0].range: lo is greater than hi") == 0);
    }
    SUBCASE("an unknown distribution, one on an output, a permutation of floats") {
      j["inputs"][0]["distribution"] = "zipf";
      CHECK(parse_error(j).find("op.json: inputs[0].distribution: expected \"uniform\"") == 0);
      j["inputs"][0]["distribution"] = "permutation";
      CHECK(parse_error(j).find("op.json: inputs[0].distribution: a permutation is of integers") ==
            0);
      j["inputs"][0].erase("distribution");
      j["outputs"][0]["distribution"] = "sorted";
      CHECK(parse_error(j) == "op.json: outputs[0].distribution: only inputs are drawn");
    }
    SUBCASE("attribute value of the wrong type") {
      j["attrs"] = json::parse(R"([{"name": "alpha", "type": "int", "value": 0.5}])");
      CHECK(parse_error(j) == "op.json: attrs[0].value: 0.5 is not a int");
    }
    SUBCASE("file outside the package") {
      j["files"] = {{"kernel", "../elsewhere.cpp"}};
      CHECK(parse_error(j).find("op.json: files.kernel:") == 0);
    }
    SUBCASE("no outputs") {
      j["outputs"] = json::array();
      CHECK(parse_error(j) == "op.json: outputs: an operator needs at least one output");
    }
  }

  TEST_CASE("dtype names, aliases and sizes") {
    aopt::npu::dtype t{};
    CHECK(aopt::npu::parse_dtype("half", t));
    CHECK(t == aopt::npu::dtype::float16);
    CHECK(std::string(aopt::npu::to_string(t)) == "float16");
    CHECK(aopt::npu::parse_dtype("bf16", t));
    CHECK(t == aopt::npu::dtype::bfloat16);
    CHECK_FALSE(aopt::npu::parse_dtype("float8", t));
    CHECK(aopt::npu::dtype_size(aopt::npu::dtype::int64) == 8);
    CHECK(aopt::npu::dtype_size(aopt::npu::dtype::bfloat16) == 2);
    CHECK(aopt::npu::dtype_size(aopt::npu::dtype::uint8) == 1);
  }

  TEST_CASE("default tolerances follow CANN's per-dtype defaults") {
    using aopt::npu::default_tolerance;
    using aopt::npu::dtype;
    CHECK(default_tolerance(dtype::float32).rtol == doctest::Approx(1e-4));
    CHECK(default_tolerance(dtype::float16).atol == doctest::Approx(1e-3));
    CHECK(default_tolerance(dtype::bfloat16).max_error_ratio == doctest::Approx(4e-3));
    CHECK(default_tolerance(dtype::int32).atol == 0);
    CHECK(default_tolerance(dtype::int8).max_error_ratio == 0);
  }

  TEST_CASE("an explicit tolerance overrides the per-dtype default") {
    json j = minimal_spec();
    j["tolerance"] = {{"rtol", 0.01}, {"atol", 0.02}};
    auto r = aopt::npu::parse_op_spec(j);
    REQUIRE(r.ok());
    CHECK(r->has_tolerance);
    auto t = r->tolerance_for(r->outputs[0]);
    CHECK(t.rtol == doctest::Approx(0.01));
    CHECK(t.atol == doctest::Approx(0.02));
    CHECK(t.max_error_ratio == doctest::Approx(1e-3));
  }

  TEST_CASE("an op_spec survives a JSON round trip") {
    json j = minimal_spec();
    j["attrs"] = json::parse(R"([{"name": "alpha", "type": "float", "value": 0.5},
                                 {"name": "axes", "type": "list_int", "value": [0, 1]}])");
    j["tolerance"] = {{"rtol", 0.01}, {"atol", 0.02}, {"max_error_ratio", 0.001}};
    j["kind"] = "expert";
    j["inputs"][0]["distribution"] = "normal";
    auto first = aopt::npu::parse_op_spec(j);
    REQUIRE(first.ok());
    json written = *first;
    auto second = aopt::npu::parse_op_spec(written);
    REQUIRE_MESSAGE(second.ok(), second.error().to_string());
    CHECK(json(*second) == written);
    CHECK(second->attrs.at(1).value == json({0, 1}));
    CHECK(second->kind == "expert");
    CHECK(second->inputs.at(0).draw == aopt::npu::tensor_spec::distribution::normal);
    // Each distribution is written back under its own name (the enum's order is no name's).
    for (const char* name : {"sorted", "offsets", "permutation", "mask"}) {
      json k = minimal_spec();
      k["inputs"][0]["dtype"] = "int32";
      k["inputs"][0]["distribution"] = name;
      auto parsed = aopt::npu::parse_op_spec(k);
      REQUIRE_MESSAGE(parsed.ok(), parsed.error().to_string());
      CHECK(json(*parsed)["inputs"][0]["distribution"] == name);
    }
    // The default is not written: an existing operator's spec (and its cache keys) reads as before.
    CHECK(json(*second)["inputs"][0].contains("distribution"));
    CHECK_FALSE(
        json(*aopt::npu::parse_op_spec(minimal_spec()))["inputs"][0].contains("distribution"));
  }

  TEST_CASE("load_op_package reads op.json and the four sources") {
    auto dir = make_dir();
    write_package(dir.path(), minimal_spec());
    auto pkg = aopt::npu::load_op_package(dir.path());
    REQUIRE_MESSAGE(pkg.ok(), pkg.error().to_string());
    CHECK(pkg->spec.name == "add_custom");
    CHECK(pkg->dir == dir.path());
    CHECK(pkg->tiling_header_source == "// tiling header\n");
    CHECK(pkg->host_source == "// host\n");
    CHECK(pkg->kernel_source == "// kernel\n");
    CHECK(pkg->reference_source == "// reference\n");
  }

  TEST_CASE("load_op_package names the missing file") {
    auto dir = make_dir();
    write_package(dir.path(), minimal_spec());
    fs::remove(dir.path() / "op_kernel/add_custom.cpp");
    auto pkg = aopt::npu::load_op_package(dir.path());
    REQUIRE_FALSE(pkg.ok());
    CHECK(pkg.error().code() == aopt::status_code::not_found);
    CHECK(pkg.error().message().find((dir.path() / "op_kernel/add_custom.cpp").string()) == 0);
  }

  TEST_CASE("load_op_package names op.json and the reason when it is broken") {
    auto dir = make_dir();
    write_package(dir.path(), minimal_spec());
    SUBCASE("invalid JSON") {
      write_file(dir.path() / "op.json", "{\"name\": ");
      auto pkg = aopt::npu::load_op_package(dir.path());
      REQUIRE_FALSE(pkg.ok());
      CHECK(pkg.error().code() == aopt::status_code::invalid_argument);
      CHECK(pkg.error().message().find((dir.path() / "op.json").string() + ": invalid JSON") == 0);
    }
    SUBCASE("invalid field") {
      json j = minimal_spec();
      j["inputs"][0]["dtype"] = "half16";
      write_file(dir.path() / "op.json", j.dump());
      auto pkg = aopt::npu::load_op_package(dir.path());
      REQUIRE_FALSE(pkg.ok());
      CHECK(pkg.error().message() ==
            (dir.path() / "op.json").string() + ": inputs[0].dtype: unknown dtype 'half16'");
    }
    SUBCASE("no op.json") {
      fs::remove(dir.path() / "op.json");
      auto pkg = aopt::npu::load_op_package(dir.path());
      REQUIRE_FALSE(pkg.ok());
      CHECK(pkg.error().code() == aopt::status_code::not_found);
      CHECK(pkg.error().message().find("op.json: no such file") != std::string::npos);
    }
  }

  TEST_CASE("load_op_package rejects a directory that does not exist") {
    auto pkg = aopt::npu::load_op_package("/nonexistent/aopt/op");
    REQUIRE_FALSE(pkg.ok());
    CHECK(pkg.error().code() == aopt::status_code::not_found);
    CHECK(pkg.error().message().find("/nonexistent/aopt/op") == 0);
  }
}
