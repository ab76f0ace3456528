#include "agent/episode/program.hpp"

#include <algorithm>

namespace aopt::agent {

void to_json(nlohmann::json& j, const program& p) {
  j = {{"tiling", p.tiling},
       {"kernel", p.kernel},
       {"latency_us", p.latency_us},
       {"seq", p.seq},
       {"result", p.result}};
}

void from_json(const nlohmann::json& j, program& p) {
  p.tiling = j.at("tiling").get<std::string>();
  p.kernel = j.at("kernel").get<std::string>();
  p.latency_us = j.at("latency_us").get<double>();
  p.seq = j.at("seq").get<uint64_t>();
  p.result = j.at("result").get<npu::eval_result>();
}

void insert_ranked(std::vector<program>& list, const program& p, size_t limit) {
  for (const program& q : list) {
    if (q.tiling == p.tiling && q.kernel == p.kernel) return;
  }
  auto at = std::upper_bound(list.begin(), list.end(), p, [](const program& a, const program& b) {
    return a.latency_us < b.latency_us;
  });
  list.insert(at, p);
  if (list.size() > limit) list.resize(limit);
}

}  // namespace aopt::agent
