// An operator package (DESIGN §7) as loaded from disk: op.json plus the four source files.
//
// op.json:
// {
//   "name": "add_custom", "level": 1, "category": "elementwise",
//   "kernel_entry": "add_custom",            // optional, default = name
//   "tiling_func": "TilingFunc",             // optional, function in namespace optiling
//   "inputs":  [{"name": "x", "dtype": "float16", "shape": [8, 2048], "range": [-1, 1]}],
//   "outputs": [{"name": "z", "dtype": "float16", "shape": [8, 2048]}],
//   "attrs":   [{"name": "alpha", "type": "float", "value": 0.5}],   //
//   float|int|bool|list_int|list_float "tolerance": {"rtol": 1e-3, "atol": 1e-3, "max_error_ratio":
//   1e-3},  // optional; per-dtype defaults "seed": 1234, "files": {"tiling_header":
//   "op_host/add_custom_tiling.h", "host": "op_host/add_custom.cpp",
//             "kernel": "op_kernel/add_custom.cpp", "reference": "reference.cpp"},
//   "kind": "baseline"                       // or "expert"
// }
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/status.hpp"

namespace aopt::npu {

// Element types the simulator executes. Names as in op.json.
enum class dtype { float32, float16, bfloat16, int8, uint8, int16, int32, int64, boolean };

const char* to_string(dtype t);
bool parse_dtype(const std::string& text, dtype& out);
uint32_t dtype_size(dtype t);

struct tensor_spec {
  std::string name;
  dtype type = dtype::float32;
  std::vector<int64_t> shape;
  double range_lo = -1.0;  // inputs are drawn uniformly from [lo, hi] (integers: inclusive)
  double range_hi = 1.0;
  int64_t numel() const;
  uint64_t bytes() const;
};

struct attr_spec {
  std::string name;
  std::string type;  // "float", "int", "bool", "list_int", "list_float", "string"
  nlohmann::json value;
};

struct tolerance {
  double rtol = 1e-3;
  double atol = 1e-3;
  double max_error_ratio = 1e-3;  // fraction of elements allowed outside rtol/atol
};

// CANN-style per-dtype defaults (float32 1e-4, float16 1e-3, bfloat16 4e-3, integers exact).
tolerance default_tolerance(dtype t);

struct op_files {
  std::string tiling_header;
  std::string host;
  std::string kernel;
  std::string reference;
};

// Tensor name -> shape: one of op.json's "validation_shapes" (validation_shapes.hpp).
using shape_set = std::map<std::string, std::vector<int64_t>>;

struct op_spec {
  std::string name;
  int level = 1;
  std::string category;
  std::string kind = "baseline";  // "baseline" or "expert"
  std::string kernel_entry;       // defaults to name
  std::string tiling_func = "TilingFunc";
  std::vector<tensor_spec> inputs;
  std::vector<tensor_spec> outputs;
  std::vector<attr_spec> attrs;
  bool has_tolerance = false;  // false: per-dtype defaults of each output
  tolerance tol;
  uint64_t seed = 1;
  op_files files;
  // Shapes the tuning never sees; the final best is checked on them (correctness only). Not
  // part of to_json(): they change no evaluation of the tuning shapes.
  std::vector<shape_set> validation_shapes;

  uint64_t io_bytes() const;  // sum of input and output bytes: the minimal GM traffic
  tolerance tolerance_for(const tensor_spec& output) const;
};

// Parses op.json text. Errors name the field ("op.json: inputs[1].shape: ...").
result<op_spec> parse_op_spec(const nlohmann::json& j);
void to_json(nlohmann::json& j, const op_spec& s);

// An operator package on disk with its sources loaded.
struct op_package {
  std::filesystem::path dir;
  op_spec spec;
  std::string tiling_header_source;
  std::string host_source;    // T: the tiling program
  std::string kernel_source;  // K: the device kernel
  std::string reference_source;
};

// Loads <dir>/op.json and the files it names, each opened without following links
// (read_file_beneath) and required to be UTF-8. Errors name the file and the reason;
// failed_precondition for a file that is a link (out of the package or not).
result<op_package> load_op_package(const std::filesystem::path& dir);

}  // namespace aopt::npu
