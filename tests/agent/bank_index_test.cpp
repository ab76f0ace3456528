#include "agent/bank/bank_index.hpp"

#include <doctest/doctest.h>

#include "agent/heuristics/heuristic_policies.hpp"

using namespace aopt;
using namespace aopt::agent;

namespace {

experience_tuple make_tuple(const std::string& id, const std::string& bottleneck) {
  experience_tuple t;
  t.id = id;
  t.title = "fix " + id;
  t.bottleneck = bottleneck;
  t.code_diff = "-" + id + "\n+" + id + " fixed\n";
  t.embedding = lexical_embedding(bottleneck);
  return t;
}

std::string top(retriever_policy& policy, const std::string& query) {
  result<std::vector<tuple_ref>> hits = policy.retrieve({query, {}}, 3);
  REQUIRE_MESSAGE(hits.ok(), hits.error().to_string());
  return hits->empty() ? std::string() : hits->front().id;
}

}  // namespace

TEST_CASE("retrieval through the hnsw index finds the same top tuple as the linear paths") {
  const std::vector<experience_tuple> bank = {
      make_tuple("single_buffer", "copies and compute do not overlap: single buffered queues"),
      make_tuple("scalar_loop", "scalar GetValue SetValue loop dominates the vector pipe"),
      make_tuple("pipe_all", "PipeBarrier PIPE_ALL after every stage stalls the pipeline"),
      make_tuple("small_bursts", "element-wise DataCopy issues many small DMA bursts"),
      make_tuple("gm_round_trip", "an extra GM round trip doubles the global memory traffic"),
      make_tuple("naive_split", "naive split leaves vector cores idle and unbalanced"),
  };
  index_retriever_policy hnsw(config::index_kind::hnsw, bank);
  index_retriever_policy linear(config::index_kind::linear, bank);
  bm25_retriever_policy bm25(bank);
  CHECK(hnsw.name() == "heuristic-lexical-hnsw-index");
  const std::vector<std::pair<std::string, std::string>> queries = {
      {"mte2 and vector do not overlap, queues single buffered", "single_buffer"},
      {"scalar GetValue loop instead of vector instructions", "scalar_loop"},
      {"PipeBarrier PIPE_ALL stalls", "pipe_all"},
      {"many small DMA bursts from element-wise copies", "small_bursts"},
      {"global memory traffic of an extra round trip", "gm_round_trip"},
      {"cores idle after a naive split", "naive_split"},
  };
  for (const auto& [query, expected] : queries) {
    CAPTURE(query);
    CHECK(top(hnsw, query) == expected);
    CHECK(top(linear, query) == expected);
    CHECK(top(bm25, query) == expected);
  }
  result<std::vector<tuple_ref>> hits = hnsw.retrieve({"PipeBarrier PIPE_ALL stalls", {}}, 2);
  REQUIRE(hits.ok());
  REQUIRE_FALSE(hits->empty());
  CHECK(hits->front().tuple.at("title") == "fix pipe_all");
}
