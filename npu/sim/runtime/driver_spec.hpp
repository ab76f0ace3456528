// What the parent hands a candidate process in spec.json: the operator (op.json's object, read
// by the one op.json parser, npu/protocol/op_spec.hpp), the hardware profile and the evaluation
// settings.
//
//   {"op": {...op.json...}, "hw": {...hw_profile...}, "input_sets": 3, "detect_races": true,
//    "noise_stddev_fraction": 0, "noise_seed": 0, "repetitions": 1, "input_fds": [3, 4, 5],
//    "set_threads": 2}
//
// The parent passes the spec to a process as a descriptor of a sealed memfd (argument "fd:<n>"),
// never as a file in the process's scratch directory, which the candidate could rewrite before
// another process reads it (issue 30). A path argument is read as a file (tests, by hand).
//
// "input_fds" is optional: the descriptors holding input sets 0, 1, ... as the parent drew them
// (shared_inputs.hpp); a set without one is drawn by the process itself. "set_threads" (optional,
// default 1) is how many input sets the process may run at once: the parent gives it a core
// the machine has free (the report is the same either way).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "hw_profile.hpp"
#include "npu/protocol/op_spec.hpp"

namespace aopt::sim {

struct driver_spec {
  npu::op_spec op;
  hw_profile hw;
  uint32_t input_sets = 3;
  bool detect_races = true;
  double noise_stddev_fraction = 0;  // latency *= 1 + N(0, this) per repetition
  uint64_t noise_seed = 0;
  uint32_t repetitions = 1;    // noisy latency samples drawn from the one simulated latency
  std::vector<int> input_fds;  // input set k in descriptor input_fds[k] (shared_inputs.hpp)
  uint32_t set_threads = 1;    // input sets run at once (driver.hpp)
};

// Throws std::invalid_argument naming the field ("op.inputs[1].dtype: unknown dtype 'f8'").
driver_spec parse_driver_spec(const nlohmann::json& j);
// Throws std::invalid_argument naming the setting out of its range (input_sets 1..100,
// repetitions 1..10000, noise_stddev_fraction [0, 1), input_fds at most input_sets descriptors,
// each >= 3, set_threads 1..64): parse_driver_spec checks them, and so does
// the parent before it writes spec.json.
void check_settings(const driver_spec& s);
// The spec a process was handed as its argument: "fd:<n>" reads descriptor n from offset 0
// (pread: the offset is shared with the parent's copy), anything else is a file path. Throws
// std::invalid_argument for an unreadable source or a spec parse_driver_spec refuses.
driver_spec read_driver_spec(const std::string& argument);
// The argument read_driver_spec reads descriptor `fd` from.
std::string spec_fd_argument(int fd);
// spec.json as the parent writes it.
void to_json(nlohmann::json& j, const driver_spec& s);

}  // namespace aopt::sim
