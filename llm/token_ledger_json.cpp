#include "llm/token_ledger_json.hpp"

namespace aopt::llm {
namespace {

nlohmann::json usage_json(const token_usage& u) {
  return {{"prompt_tokens", u.prompt_tokens}, {"completion_tokens", u.completion_tokens}};
}

token_usage usage_from(const nlohmann::json& j) {
  return {j.at("prompt_tokens").get<uint64_t>(), j.at("completion_tokens").get<uint64_t>()};
}

nlohmann::json entry_json(const token_ledger& ledger, const ledger_entry& e) {
  nlohmann::json j = {{"calls", e.calls},
                      {"cache_hits", e.cache_hits},
                      {"failures", e.failures},
                      {"used", usage_json(e.used)},
                      {"billed", usage_json(e.billed)}};
  if (!ledger.prices().empty()) j["cost"] = ledger.cost(e);
  return j;
}

}  // namespace

nlohmann::json to_json(const token_ledger& ledger) {
  nlohmann::json entries = nlohmann::json::array();
  for (const auto& [who, entry] : ledger.entries()) {
    nlohmann::json j = entry_json(ledger, entry);
    j["campaign"] = who.campaign;
    j["op"] = who.op;
    j["role"] = who.role;
    entries.push_back(std::move(j));
  }
  return {{"entries", std::move(entries)},
          {"total", entry_json(ledger, ledger.total())},
          {"prices",
           {{"per_1k_prompt", ledger.prices().per_1k_prompt},
            {"per_1k_completion", ledger.prices().per_1k_completion}}}};
}

result<token_ledger> token_ledger_from_json(const nlohmann::json& j) {
  try {
    price_table prices;
    if (j.contains("prices")) {
      prices.per_1k_prompt = j.at("prices").at("per_1k_prompt").get<double>();
      prices.per_1k_completion = j.at("prices").at("per_1k_completion").get<double>();
    }
    token_ledger ledger(prices);
    for (const nlohmann::json& e : j.at("entries")) {
      ledger_entry entry;
      entry.calls = e.at("calls").get<uint64_t>();
      entry.cache_hits = e.at("cache_hits").get<uint64_t>();
      entry.failures = e.at("failures").get<uint64_t>();
      entry.used = usage_from(e.at("used"));
      entry.billed = usage_from(e.at("billed"));
      ledger.add({e.at("campaign").get<std::string>(), e.at("op").get<std::string>(),
                  e.at("role").get<std::string>()},
                 entry);
    }
    return ledger;
  } catch (const nlohmann::json::exception& e) {
    return data_loss(std::string("llm usage: unreadable record: ") + e.what());
  }
}

}  // namespace aopt::llm
