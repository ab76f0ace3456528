// An operator's op.json (docs/design.md §7): the one reading of it, by the daemon
// (npu/op_package.hpp loads a package from disk) and by the candidate-side driver
// (npu/sim/runtime/driver_spec.hpp reads it from the spec the parent hands it).
//
// op.json:
// {
//   "name": "add_custom", "level": 1, "category": "elementwise",
//   "kernel_entry": "add_custom",            // optional, default = name
//   "tiling_func": "TilingFunc",             // optional, function in namespace optiling
//   "inputs":  [{"name": "x", "dtype": "float16", "shape": [8, 2048], "range": [-1, 1]}],
//              (and optionally "distribution": "uniform" | "normal" | "sorted" |
//              "offsets" | "permutation" | "mask")
//   "outputs": [{"name": "z", "dtype": "float16", "shape": [8, 2048]}],
//   "attrs":   [{"name": "alpha", "type": "float", "value": 0.5}],
//               // type: float|int|bool|list_int|list_float|string
//   "tolerance": {"rtol": 1e-3, "atol": 1e-3, "max_error_ratio": 1e-3},  // optional;
//               // default: per-dtype (tolerance.hpp)
//   "seed": 1234,
//   "files": {"tiling_header": "op_host/add_custom_tiling.h", "host": "op_host/add_custom.cpp",
//             "kernel": "op_kernel/add_custom.cpp", "reference": "reference.cpp"},
//   "kind": "baseline",                      // or "expert"
//   "validation_shapes": [{"x": [1024, 2048], "z": [1024, 2048]}],  // optional
//   "least_work": {"cube_macs": {"output": "z", "reduce": {"input": "x", "axis": -1}}}  // optional
// }
//
// An output may say what it holds before the kernel runs (issue 34), as the framework
// allocates it for an operator that accumulates into it: "init": "zeros", "init": -1 (a
// constant), "init": "-inf" or "inf" (a running maximum or minimum; floating-point outputs
// only), "init": {"copy": "<input>"} (an input of the same dtype and size), or "init": "none"
// (poison, said explicitly). Without it the output starts as poison, or as zeros when the
// operator accumulates into its outputs (npu/accumulated_outputs.hpp).
//
// What the framework hands a kernel beyond fresh inputs and outputs (issue 34):
//   an input with "absent": true is an optional input the call leaves out: no shape, the kernel
//     gets a null address for it, the tiling context's Optional getters nullptr, and the
//     reference an empty tensor;
//   an input with "scratch": true is one the kernel may update (a buffer the caller passes and
//     does not read back): its contents after the run are not checked;
//   an input with "value_depend": true is one whose values the tiling function may read (CANN's
//     OpDef ValueDepend: a shape or index tensor); the tiling function of any other input sees
//     its shape and dtype only, so host code cannot compute outputs from the data;
//   an output with "inplace": "<input>" is that input updated in place (a ref output, as
//     ScatterAdd's var): the kernel has no argument of its own for it, its input's argument
//     points to the output, which starts as the input's contents; dtype and shape are the
//     input's (given, they must equal them). An operator may have only such outputs.
//     An output named like an input is that input's ref output as CANN's OpDef declares one
//     (Input("x") ... Output("x")): "inplace" is implied, and the kernel has an argument for it
//     too (add_relu(x, y, x_ref, workspace, tiling)), pointing at the same memory.
//
// "validation_shapes" (issue 17 item 6): shapes the tuning never sees, checked for correctness
// only on an operator's final best. Each entry maps tensor names (inputs and outputs) to a shape
// of the tensor's rank; a tensor not named keeps its shape.
//
// Links nothing but the standard library and nlohmann_json: the candidate process links it.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/status.hpp"
#include "npu/protocol/dtype.hpp"
#include "npu/protocol/tolerance.hpp"

namespace aopt::npu {

struct tensor_spec {
  std::string name;
  dtype type = dtype::float32;
  std::vector<int64_t> shape;
  double range_lo = -1.0;  // inputs are drawn from [lo, hi] (integers: inclusive)
  double range_hi = 1.0;
  // How an input's values are drawn (op.json "distribution"), for inputs that are not noise:
  //   uniform      uniformly in the range (the default)
  //   normal       around the range's middle, a sixth of its width per standard deviation,
  //                clipped to the range
  //   sorted       uniform in the range, each row (the last axis) ascending: offsets, bounds
  //   permutation  each row a shuffle of 0 .. n-1 (n the last axis): indices, the range unused
  //   mask         0 or 1, each with probability one half: a boolean mask, the range unused
  //   offsets      sorted as above, each row starting at the range's low end and ending at its
  //                high end: CSR / jagged offsets (0, ..., total) that partition [lo, hi]
  enum class distribution { uniform, normal, sorted, permutation, mask, offsets };
  distribution draw = distribution::uniform;
  // Outputs: what the output holds before the kernel runs, as the framework allocates it.
  //   none     poison (the default: an element the kernel never writes is caught), unless the
  //            operator accumulates into it (npu/accumulated_outputs.hpp: then zeros)
  //   poison   poison, said in so many words ("init": "none"): the framework leaves it as is
  //   value    every element `init_value` ("init": "zeros", a number, "inf" or "-inf")
  //   copy     the contents of the input `init_source` ("init": {"copy": "x"}), same bytes
  enum class initial { none, poison, value, copy };
  initial init = initial::none;
  double init_value = 0;
  std::string init_source{};
  // Inputs: left out by the call (op.json "absent"; numel() is 0), or updated by the kernel
  // (op.json "scratch").
  bool absent = false;
  bool scratch = false;
  bool value_depend = false;  // inputs: the tiling function may read the data (op.json)
  // Outputs: the input this output updates in place (op.json "inplace"); init is then a copy of
  // it, so every reader of initial contents handles the output unchanged.
  std::string inplace_of{};
  // Whether the kernel has an argument for this tensor. An output named like the input it
  // updates is CANN's ref output (every modified input needs an output of its name in the
  // OpDef): the kernel has an argument for it, pointing at the input's memory. An "inplace"
  // output of another name has none (its input's argument points at it).
  bool has_own_argument() const { return inplace_of.empty() || inplace_of == name; }
  int64_t numel() const;
  uint64_t bytes() const;
};

struct attr_spec {
  std::string name;
  std::string type;  // "float", "int", "bool", "list_int", "list_float", "string"
  nlohmann::json value;
};

struct op_files {
  std::string tiling_header;
  std::string host;
  std::string kernel;
  std::string reference;
};

// The least work the operator's outputs need (op.json "least_work", issue 30 item 4): what the
// roofline's compute bounds are made of (npu/sim/runtime/roofline.hpp), a property of the
// operator and never of a candidate's trace, so that no candidate can lower its own bound by
// doing (or tracing) less.
//   "least_work": {"vector_passes": 2,
//                  "cube_macs": {"output": "c", "reduce": {"input": "a", "axis": -1}}}
// vector_passes: passes of one simple vector repeat per 256 bytes over every output byte that
//   any implementation needs. Default: 1 for an operator that computes its outputs (they must
//   be computed, not filled or copied), 0 for a "data_movement" one or one with cube_macs (its
//   outputs may come from the cube alone).
// cube_macs: the multiply-accumulates of the operator's matrix products on the cube, one product
//   or an array of them. A product's result is an output ("output": its elements) or, for a
//   result the operator keeps inside (attention's QK^T), the extents of axes of its tensors
//   ("result": [{"input": "q", "axis": -2}, {"input": "k", "axis": -2}]); it is multiplied by
//   the length of `input`'s reduced axis (a matmul's K; negative counts from the last), at the
//   MAC rate of that input's dtype. Evaluated on the shapes of the run, so a validation shape
//   gets its own.
struct tensor_axis {
  std::string tensor;  // an input or an output
  int axis = -1;       // negative counts from the last
};

struct cube_product {
  std::string output;               // the result is this output, or else ...
  std::vector<tensor_axis> result;  // ... has these extents
  tensor_axis reduce;               // K: an axis of an input, whose dtype sets the MAC rate
};

struct least_work_spec {
  double vector_passes = -1;                // < 0: not declared (the default above)
  std::vector<cube_product> cube_products;  // empty: no cube work declared
};

// One product's least work on the current shapes.
struct cube_work {
  uint64_t macs = 0;
  dtype type = dtype::int8;
};

// Tensor name -> shape: one of op.json's "validation_shapes".
using shape_set = std::map<std::string, std::vector<int64_t>>;

struct op_spec {
  std::string name;
  int level = 1;
  std::string category;           // "data_movement" operators may copy without computing
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
  // Folders (relative to the package or absolute) of the operator's repository that hold helper
  // headers it includes but does not carry: a header found there joins the package's files when
  // it is loaded (npu/package_include_dirs.hpp), so it is screened and laid out like one. Not
  // part of to_json(): the joined files are, through the package's file digest.
  std::vector<std::string> include_dirs;
  least_work_spec least_work;

  uint64_t io_bytes() const;  // sum of input and output bytes: the minimal GM traffic
  // least_work on the current shapes: vector passes over the outputs (the default applied), and
  // each product's multiply-accumulates with the dtype they run at (none when none are declared).
  double least_vector_passes() const;
  std::vector<cube_work> least_cube_work() const;
  uint64_t least_cube_macs() const;  // summed over the products
  tolerance tolerance_for(const tensor_spec& output) const;
};

// Parses op.json's object. Errors (invalid_argument) name the file, the field and the reason:
// "op.json: inputs[1].shape: ...", "<file>: ..." for another `file`.
result<op_spec> parse_op_spec(const nlohmann::json& j, const std::string& file = "op.json");
// Checks op.json's object as parse_op_spec does, except that what loading completes from the
// package's OpDef and test case (npu/op_json_completion.hpp) may be left out: the "inputs" and
// "outputs" lists, a tensor's "dtype" and "shape". What depends on those (an in-place output or
// an initial copy against its input, a validation shape's rank) is left to parse_op_spec after
// completion. Errors as parse_op_spec's. Loading runs it before reading the OpDef, which compiles
// the host sources: a malformed op.json is refused at once, never completed.
status check_incomplete_op_spec(const nlohmann::json& j, const std::string& file = "op.json");
// The same object under `key` of another document (the driver spec's "op"): errors name the
// field from there ("op.inputs[1].shape: ...").
result<op_spec> parse_nested_op_spec(const nlohmann::json& j, const std::string& key);

void to_json(nlohmann::json& j, const op_spec& s);

}  // namespace aopt::npu
