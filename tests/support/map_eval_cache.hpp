// The evaluation cache as a map, for tests: entries are put by the test, as the episode journal
// would put them with a transition.
#pragma once

#include <map>
#include <optional>
#include <string>

#include "agent/evaluation/evaluation_service.hpp"

namespace aopt::testing {

class map_eval_cache final : public agent::eval_cache {
 public:
  std::optional<npu::eval_result> lookup(const std::string& key) override {
    auto it = entries.find(key);
    if (it == entries.end()) return std::nullopt;
    return it->second;
  }
  std::map<std::string, npu::eval_result> entries;
};

}  // namespace aopt::testing
