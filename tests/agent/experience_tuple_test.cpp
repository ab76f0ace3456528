#include "agent/bank/experience_tuple.hpp"

#include <doctest/doctest.h>

using namespace aopt;
using namespace aopt::agent;

TEST_SUITE("agent") {
  TEST_CASE("an experience tuple survives a JSON round trip") {
    experience_tuple t;
    t.title = "Double buffering";
    t.description = "two buffers per queue";
    t.bottleneck = "no overlap between MTE2 and vector";
    t.code_diff = "@@ -1,1 +1,1 @@\n-a\n+b\n";
    t.category = "pipelining";
    t.tags = {"no_overlap"};
    t.provenance = {
        "addcmul_custom",         2, 31.5, 20.25, {{"mte2.ratio", -0.2}}, "heuristic-rewind",
        "double_to_single_buffer"};
    t.embedding = std::vector<float>{0.5f, -1.0f};
    t.id = derive_tuple_id(t);
    nlohmann::json j = t;
    result<experience_tuple> back = experience_tuple_from_json(nlohmann::json::parse(j.dump()));
    REQUIRE(back.ok());
    CHECK(nlohmann::json(*back) == j);
    CHECK(back->provenance.profile_deltas.at("mte2.ratio") == doctest::Approx(-0.2));
    CHECK(back->embedding == t.embedding);
  }

  TEST_CASE("a tuple without embedding has no embedding key and ids follow content") {
    experience_tuple a;
    a.bottleneck = "x";
    a.code_diff = "d";
    experience_tuple b = a;
    b.title = "another title";
    CHECK(derive_tuple_id(a) == derive_tuple_id(b));
    b.code_diff = "e";
    CHECK(derive_tuple_id(a) != derive_tuple_id(b));
    a.id = derive_tuple_id(a);
    nlohmann::json j = a;
    CHECK_FALSE(j.contains("embedding"));
    result<experience_tuple> back = experience_tuple_from_json(j);
    REQUIRE(back.ok());
    CHECK_FALSE(back->embedding.has_value());
  }

  TEST_CASE("malformed tuples are rejected with the field named") {
    result<experience_tuple> missing = experience_tuple_from_json({{"id", "x"}, {"code_diff", ""}});
    REQUIRE_FALSE(missing.ok());
    CHECK(missing.error().message().find("bottleneck") != std::string::npos);
    result<experience_tuple> wrong = experience_tuple_from_json(
        {{"id", "x"}, {"code_diff", ""}, {"bottleneck", ""}, {"tags", 3}});
    CHECK_FALSE(wrong.ok());
  }

}  // TEST_SUITE
