// One whole-operator program: a (T, K) pair with the evaluation that measured it. The unit the
// evolve strategy's program database and Stage II's kernel frontier keep, with its JSON form
// (persisted inside the episode state).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "npu/protocol/eval_result.hpp"

namespace aopt::agent {

struct program {
  std::string tiling;
  std::string kernel;
  double latency_us = 0;
  uint64_t seq = 0;         // the candidate it was evaluated as
  npu::eval_result result;  // its profile, which the diagnoser reads
};

void to_json(nlohmann::json& j, const program& p);
// Throws nlohmann::json::exception when a field is missing or has the wrong type.
void from_json(const nlohmann::json& j, program& p);

// Inserts `p` into `list` (fastest first) unless the same (T, K) is there; keeps `limit`.
void insert_ranked(std::vector<program>& list, const program& p, size_t limit);

}  // namespace aopt::agent
