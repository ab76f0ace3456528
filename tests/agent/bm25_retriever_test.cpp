#include "agent/bank/bm25_retriever.hpp"

#include <doctest/doctest.h>

#include "agent/motifs/bottleneck_phrases.hpp"

using namespace aopt::agent;

namespace {

experience_tuple tuple(const std::string& id, const std::string& bottleneck,
                       const std::string& title = {}) {
  experience_tuple t;
  t.id = id;
  t.bottleneck = bottleneck;
  t.title = title;
  return t;
}

}  // namespace

TEST_SUITE("agent") {
  TEST_CASE("tokenize splits code identifiers, drops noise and stems") {
    CHECK(tokenize("PipeBarrier<PIPE_ALL> stalls the pipes") ==
          std::vector<std::string>{"pipe", "barrier", "pipe", "all", "stall", "pipe"});
    CHECK(tokenize("Small DMA bursts of 256 bytes, buffering") ==
          std::vector<std::string>{"small", "dma", "burst", "byte", "buffer"});
    CHECK(tokenize("GetValue/SetValue on MTE2") ==
          std::vector<std::string>{"get", "value", "set", "value", "mte2"});
  }

  TEST_CASE("bm25 ranks the tuple whose bottleneck matches the diagnosis first") {
    bm25_retriever r;
    r.add(tuple("a", bottleneck_text({"no_overlap", "mte2_bound"})));
    r.add(tuple("b", bottleneck_text({"scalar_heavy"})));
    r.add(tuple("c", bottleneck_text({"barrier_stall"})));
    r.add(tuple("d", bottleneck_text({"small_bursts", "mte2_bound"})));
    auto hits = r.top_k(bottleneck_text({"scalar_heavy"}), 2);
    REQUIRE(!hits.empty());
    CHECK(hits[0].id == "b");
    hits = r.top_k(bottleneck_text({"barrier_stall"}), 4);
    CHECK(hits[0].id == "c");
    hits = r.top_k(bottleneck_text({"small_bursts"}), 1);
    REQUIRE(hits.size() == 1);
    CHECK(hits[0].id == "d");
    for (size_t i = 1; i < hits.size(); ++i) CHECK(hits[i - 1].score >= hits[i].score);
  }

  TEST_CASE("bm25 breaks ties by id and returns only positive scores") {
    bm25_retriever r;
    r.add(tuple("z", "vector bound"));
    r.add(tuple("m", "vector bound"));
    r.add(tuple("q", "launch overhead"));
    auto hits = r.top_k("vector", 5);
    REQUIRE(hits.size() == 2);
    CHECK(hits[0].id == "m");
    CHECK(hits[1].id == "z");
    CHECK(hits[0].score == doctest::Approx(hits[1].score));
    CHECK(r.top_k("nothing matches here", 3).empty());
  }

  TEST_CASE("bm25 indexes incrementally, replaces by id and removes") {
    bm25_retriever r;
    r.add(tuple("a", "scalar loop"));
    CHECK(r.top_k("barrier", 1).empty());
    r.add(tuple("a", "full barrier"));
    CHECK(r.size() == 1);
    CHECK(r.top_k("barrier", 1).at(0).id == "a");
    CHECK(r.top_k("scalar", 1).empty());
    r.add(tuple("b", "other", "barrier title"));
    CHECK(r.top_k("barrier", 2).size() == 2);
    CHECK(r.remove("a"));
    CHECK_FALSE(r.remove("a"));
    CHECK(r.top_k("barrier", 2).size() == 1);
  }

  TEST_CASE("bm25 is usable through the retriever interface") {
    bm25_retriever bm25;
    bm25.add(tuple("a", "MTE3 bound copy-out"));
    const retriever& r = bm25;
    CHECK(r.name() == "heuristic-bm25");
    CHECK(r.size() == 1);
    CHECK(r.top_k("mte3", 1).size() == 1);
  }

}  // TEST_SUITE
