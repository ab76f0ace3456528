#include "agent/bank/experience_tuple.hpp"

#include "base/content_hash.hpp"

namespace aopt::agent {

void to_json(nlohmann::json& j, const tuple_provenance& p) {
  j = {{"expert_op", p.expert_op},
       {"step", p.step},
       {"latency_before_us", p.latency_before_us},
       {"latency_after_us", p.latency_after_us},
       {"profile_deltas", p.profile_deltas},
       {"policy", p.policy},
       {"rule", p.rule}};
}

void to_json(nlohmann::json& j, const experience_tuple& t) {
  j = {{"id", t.id},
       {"title", t.title},
       {"description", t.description},
       {"bottleneck", t.bottleneck},
       {"code_diff", t.code_diff},
       {"category", t.category},
       {"tags", t.tags},
       {"provenance", t.provenance}};
  if (t.embedding) j["embedding"] = *t.embedding;
}

result<experience_tuple> experience_tuple_from_json(const nlohmann::json& j) {
  if (!j.is_object()) return invalid_argument("experience tuple: expected an object");
  for (const char* key : {"id", "bottleneck", "code_diff"}) {
    if (!j.contains(key) || !j[key].is_string()) {
      return invalid_argument(std::string("experience tuple: ") + key +
                              ": missing or not a string");
    }
  }
  try {
    experience_tuple t;
    t.id = j.at("id").get<std::string>();
    t.bottleneck = j.at("bottleneck").get<std::string>();
    t.code_diff = j.at("code_diff").get<std::string>();
    t.title = j.value("title", "");
    t.description = j.value("description", "");
    t.category = j.value("category", "");
    t.tags = j.value("tags", std::vector<std::string>{});
    if (j.contains("provenance")) {
      const nlohmann::json& p = j.at("provenance");
      if (!p.is_object())
        return invalid_argument("experience tuple: provenance: expected an object");
      t.provenance.expert_op = p.value("expert_op", "");
      t.provenance.step = p.value("step", 0u);
      t.provenance.latency_before_us = p.value("latency_before_us", 0.0);
      t.provenance.latency_after_us = p.value("latency_after_us", 0.0);
      t.provenance.profile_deltas = p.value("profile_deltas", std::map<std::string, double>{});
      t.provenance.policy = p.value("policy", "");
      t.provenance.rule = p.value("rule", "");
    }
    if (j.contains("embedding") && !j.at("embedding").is_null()) {
      t.embedding = j.at("embedding").get<std::vector<float>>();
    }
    return t;
  } catch (const nlohmann::json::exception& e) {
    return invalid_argument(std::string("experience tuple ") + j.value("id", "?") + ": " +
                            e.what());
  }
}

std::string derive_tuple_id(const experience_tuple& t) {
  return content_hash({"experience-tuple-v1", t.bottleneck, t.code_diff}).substr(0, 16);
}

}  // namespace aopt::agent
