// What the parent hands a candidate process: the operator (op.json's object, the keys described
// in npu/op_spec.hpp, parsed here again because the candidate side links nothing of aopt_npu),
// the hardware profile and the evaluation settings.
//
//   {"op": {...op.json...}, "hw": {...hw_profile...}, "input_sets": 3, "detect_races": true,
//    "noise_stddev_fraction": 0, "noise_seed": 0, "repetitions": 1}
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "element_type.hpp"
#include "hw_profile.hpp"

namespace aopt::sim {

struct driver_tensor {
  std::string name;
  element_type type = element_type::float32;
  std::vector<int64_t> shape;
  double range_lo = -1.0;  // inputs only: values drawn uniformly from [lo, hi]
  double range_hi = 1.0;

  uint64_t numel() const;
  uint64_t bytes() const;
};

struct driver_attr {
  std::string name;
  std::string type;  // "float", "int", "bool", "list_int", "list_float", "string"
  nlohmann::json value;
};

struct driver_tolerance {
  double rtol = 1e-3;
  double atol = 1e-3;
  double max_error_ratio = 1e-3;
};

// CANN-style per-dtype defaults, as npu::default_tolerance: float32 1e-4, float16 1e-3,
// bfloat16 4e-3, integers and bool exact.
driver_tolerance default_tolerance(element_type t);

struct driver_op {
  std::string name;
  std::string category;  // op.json "category": "data_movement" operators may copy without computing
  std::string tiling_func = "TilingFunc";
  std::string kernel_entry;
  std::vector<driver_tensor> inputs;
  std::vector<driver_tensor> outputs;
  std::vector<driver_attr> attrs;
  bool has_tolerance = false;
  driver_tolerance tol;
  uint64_t seed = 1;

  driver_tolerance tolerance_for(const driver_tensor& output) const;
  uint64_t io_bytes() const;  // inputs + outputs: the minimal GM traffic
};

struct driver_spec {
  driver_op op;
  hw_profile hw;
  uint32_t input_sets = 3;
  bool detect_races = true;
  double noise_stddev_fraction = 0;  // latency *= 1 + N(0, this) per repetition
  uint64_t noise_seed = 0;
  uint32_t repetitions = 1;  // noisy latency samples drawn from the one simulated latency
};

// Throws std::invalid_argument naming the field ("op.inputs[1].dtype: unknown dtype 'f8'").
driver_spec parse_driver_spec(const nlohmann::json& j);

}  // namespace aopt::sim
