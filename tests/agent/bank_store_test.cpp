#include "agent/bank/bank_store.hpp"

#include <doctest/doctest.h>

#include <fstream>

#include "agent/bank/bank_index.hpp"
#include "support/temp_dir.hpp"

using namespace aopt;
using namespace aopt::agent;

namespace {

experience_tuple make_tuple(const std::string& op, const std::string& bottleneck,
                            const std::string& changed, const std::string& category) {
  experience_tuple t;
  t.title = "Double-buffer the queues of " + op;
  t.description = "two slots per queue let the copy of tile i+1 overlap the compute of tile i";
  t.bottleneck = bottleneck;
  t.code_diff = "--- a/kernel.cpp\n+++ b/kernel.cpp\n@@ -1,3 +1,3 @@\n ctx\n-" + changed +
                " 1;\n+" + changed + " 2;\n ctx\n";
  t.category = category;
  t.tags = {"no_overlap"};
  t.provenance.expert_op = op;
  t.provenance.step = 1;
  t.provenance.latency_before_us = 120;
  t.provenance.latency_after_us = 80;
  t.provenance.profile_deltas = {{"latency_us", -40}};
  t.provenance.policy = "heuristic-rewind";
  t.provenance.rule = "double_to_single_buffer";
  t.embedding = lexical_embedding(t.bottleneck);
  t.id = derive_tuple_id(t);
  return t;
}

std::unique_ptr<storage::store> open_store(const std::filesystem::path& dir) {
  result<std::unique_ptr<storage::store>> db = storage::store::open(dir);
  REQUIRE_MESSAGE(db.ok(), db.error().to_string());
  return std::move(*db);
}

}  // namespace

TEST_CASE("near-identical tuples are stored once and distinct ones are kept") {
  testing::temp_dir dir;
  auto db = open_store(dir.path() / "db");
  result<bank_writer> w = bank_writer::open(*db, 0.9);
  REQUIRE(w.ok());
  const experience_tuple a = make_tuple("add", "copies and compute do not overlap",
                                        "constexpr int BUFFER_NUM =", "pipelining");
  experience_tuple same_motif = a;
  same_motif.provenance.expert_op = "mul";  // other expert, same diff and bottleneck
  same_motif.id.clear();
  const experience_tuple other = make_tuple("mul", "scalar GetValue SetValue loop dominates",
                                            "pipe.InitBuffer(q, ", "vectorization");

  result<insert_outcome> first = w->insert(a);
  REQUIRE(first.ok());
  CHECK(first->added);
  result<insert_outcome> dup = w->insert(same_motif);
  REQUIRE(dup.ok());
  CHECK_FALSE(dup->added);
  CHECK(dup->id == a.id);
  result<insert_outcome> second = w->insert(other);
  REQUIRE(second.ok());
  CHECK(second->added);
  CHECK(*db->count_tuples() == 2);
  CHECK(tuple_similarity(a, same_motif) == doctest::Approx(1.0));
  CHECK(tuple_similarity(a, other) < 0.5);
}

TEST_CASE("an exported bank imports into another database unchanged and a re-import adds nothing") {
  testing::temp_dir dir;
  const auto file = dir.path() / "bank.jsonl";
  {
    auto db = open_store(dir.path() / "a");
    result<bank_writer> w = bank_writer::open(*db, 0.9);
    REQUIRE(w.ok());
    REQUIRE(w->insert(make_tuple("add", "copies and compute do not overlap",
                                 "constexpr int BUFFER_NUM =", "pipelining"))
                .ok());
    REQUIRE(w->insert(make_tuple("mul", "scalar GetValue SetValue loop dominates",
                                 "pipe.InitBuffer(q, ", "vectorization"))
                .ok());
    REQUIRE(record_rewind(*db, "key-add", "add", {1, 5, 1}).ok());
    REQUIRE(record_rewind(*db, "key-mul", "mul", {1, 4, 1}).ok());
    REQUIRE(export_bank(*db, file).ok());
  }
  auto a = open_store(dir.path() / "a");
  auto b = open_store(dir.path() / "b");
  result<import_counts> c = import_bank(*b, file, 0.9);
  REQUIRE_MESSAGE(c.ok(), c.error().to_string());
  CHECK(c->read == 2);
  CHECK(c->added == 2);
  result<std::vector<experience_tuple>> from_a = load_bank(*a);
  result<std::vector<experience_tuple>> from_b = load_bank(*b);
  REQUIRE(from_a.ok());
  REQUIRE(from_b.ok());
  REQUIRE(from_a->size() == from_b->size());
  for (size_t i = 0; i < from_a->size(); ++i) {
    CHECK(nlohmann::json((*from_a)[i]) == nlohmann::json((*from_b)[i]));
  }
  result<import_counts> again = import_bank(*b, file, 0.9);
  REQUIRE(again.ok());
  CHECK(again->added == 0);
  CHECK(again->duplicates == 2);

  result<nlohmann::json> stats = bank_stats(*a);
  REQUIRE(stats.ok());
  CHECK((*stats)["tuples"] == 2);
  CHECK((*stats)["by_category"]["pipelining"] == 1);
  CHECK((*stats)["trajectories"] == 2);
  CHECK((*stats)["steps_tried"] == 9);
  CHECK((*stats)["pairs_kept"] == 2);
}

TEST_CASE("a recorded rewind is counted once however often it is recorded") {
  testing::temp_dir dir;
  auto db = open_store(dir.path() / "db");
  result<bool> before = is_rewound(*db, "k1");
  REQUIRE(before.ok());
  CHECK_FALSE(*before);
  REQUIRE(record_rewind(*db, "k1", "add", {1, 7, 3}).ok());
  REQUIRE(record_rewind(*db, "k1", "add", {1, 7, 3}).ok());
  REQUIRE(record_rewind(*db, "k2", "mul", {1, 2, 0}).ok());
  result<bool> after = is_rewound(*db, "k1");
  REQUIRE(after.ok());
  CHECK(*after);
  result<bank_build_counts> c = read_build_counts(*db);
  REQUIRE(c.ok());
  CHECK(c->trajectories == 2);
  CHECK(c->steps_tried == 9);
  CHECK(c->pairs_kept == 3);
}

TEST_CASE("a malformed import line is refused with its line number") {
  testing::temp_dir dir;
  const auto file = dir.path() / "bad.jsonl";
  std::ofstream(file) << "{\"id\": \"x\"}\n";
  auto db = open_store(dir.path() / "db");
  result<import_counts> c = import_bank(*db, file, 0.9);
  REQUIRE_FALSE(c.ok());
  CHECK(c.error().message().find("bad.jsonl:1") != std::string::npos);
}

TEST_CASE("the hnsw index returns the same nearest tuples as the exact scan") {
  bank_index exact(config::index_kind::linear);
  bank_index graph(config::index_kind::hnsw);
  const std::vector<std::string> symptoms = {"copies and compute do not overlap single buffer",
                                             "scalar GetValue SetValue loop",
                                             "PipeBarrier PIPE_ALL stalls every stage",
                                             "small DMA bursts per tile",
                                             "extra GM round trip traffic",
                                             "cores underused naive split"};
  for (size_t i = 0; i < 300; ++i) {
    const std::string text = symptoms[i % symptoms.size()] + " variant " + std::to_string(i);
    REQUIRE(exact.add("t" + std::to_string(i), lexical_embedding(text)).ok());
    REQUIRE(graph.add("t" + std::to_string(i), lexical_embedding(text)).ok());
  }
  CHECK(graph.size() == 300);
  CHECK_FALSE(graph.add("bad", std::vector<float>(3, 1.0f)).ok());
  for (const std::string& q : symptoms) {
    const auto a = exact.top_k(q, 5);
    const auto b = graph.top_k(q, 5);
    REQUIRE(a.size() == 5);
    REQUIRE(b.size() == 5);
    CHECK(a.front().score == doctest::Approx(b.front().score));
  }
}
