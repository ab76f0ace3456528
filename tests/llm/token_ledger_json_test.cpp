// token_ledger's JSON form, as the campaign record stores it and the report prints it.
#include <doctest/doctest.h>

#include "llm/token_ledger_json.hpp"

namespace llm = aopt::llm;

TEST_CASE("a token ledger survives its JSON form, entries, totals and prices included") {
  llm::token_ledger ledger({1.5, 3.0});
  ledger.record_answer({"c1", "add_custom", "mutator"}, {120, 30}, false);
  ledger.record_answer({"c1", "add_custom", "mutator"}, {120, 30}, true);
  ledger.record_failure({"c1", "add_custom", "refiner"}, {100, 8192});

  const nlohmann::json j = llm::to_json(ledger);
  CHECK(j.at("total").at("billed").at("prompt_tokens") == 220);
  CHECK(j.at("total").at("used").at("prompt_tokens") == 340);
  CHECK(j.at("total").at("cost").get<double>() == doctest::Approx(0.22 * 1.5 + 8.222 * 3.0));

  auto back = llm::token_ledger_from_json(j);
  REQUIRE_MESSAGE(back.ok(), back.error().to_string());
  CHECK(back->entries().size() == 2);
  const llm::ledger_entry& m = back->entries().at({"c1", "add_custom", "mutator"});
  CHECK(m.calls == 2);
  CHECK(m.cache_hits == 1);
  CHECK(m.used == llm::token_usage{240, 60});
  CHECK(m.billed == llm::token_usage{120, 30});
  CHECK(back->entries().at({"c1", "add_custom", "refiner"}).failures == 1);
  CHECK(back->prices().per_1k_completion == 3.0);
  CHECK(llm::to_json(*back) == j);
}

TEST_CASE("a ledger without prices reports no cost, and a damaged record is data_loss") {
  llm::token_ledger ledger;
  ledger.record_answer({"c1", "op", "diagnoser"}, {5, 1}, false);
  CHECK_FALSE(llm::to_json(ledger).at("total").contains("cost"));

  auto damaged = llm::token_ledger_from_json({{"entries", {{{"campaign", "c1"}}}}});
  REQUIRE_FALSE(damaged.ok());
  CHECK(damaged.error().code() == aopt::status_code::data_loss);
}
