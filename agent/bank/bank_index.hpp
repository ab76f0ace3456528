// A nearest-neighbour index over tuple embeddings, for banks too large for BM25 over every tuple
// or when tuples carry dense (LLM) embeddings: "linear" scans every vector exactly, "hnsw" uses
// hnswlib's approximate graph (bank.index). Scores are inner products of L2-normalized vectors
// (cosine similarity).
//
// Without an embedding endpoint, tuples get lexical_embedding(): hashed, signed bag-of-words
// vectors of the Bottleneck text (a lexical embedding, not a learned one).
//
// index_retriever_policy is the Stage II retriever over this index (bank.index = "hnsw").
//
// Thread-safety: const methods may run concurrently; add() needs exclusive access.
#pragma once

#include <cstddef>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "agent/bank/experience_tuple.hpp"
#include "agent/bank/retriever.hpp"
#include "agent/episode/roles.hpp"
#include "base/status.hpp"
#include "config/aopt_config.hpp"

namespace hnswlib {
template <typename T>
class HierarchicalNSW;
class InnerProductSpace;
}  // namespace hnswlib

namespace aopt::agent {

constexpr size_t lexical_embedding_dims = 512;

// L2-normalized feature-hashed word counts of `text`; all zeros for a text without words.
std::vector<float> lexical_embedding(const std::string& text, size_t dims = lexical_embedding_dims);

class bank_index final : public retriever {
 public:
  bank_index(config::index_kind kind, size_t dims = lexical_embedding_dims);
  ~bank_index() override;
  bank_index(const bank_index&) = delete;
  bank_index& operator=(const bank_index&) = delete;

  std::string name() const override;
  // invalid_argument when the vector's size is not dims().
  status add(const std::string& id, const std::vector<float>& embedding);
  // The tuple's embedding, or lexical_embedding(bottleneck) when it has none of size dims().
  status add(const experience_tuple& t);

  // Embeds `query` lexically.
  std::vector<retrieval_hit> top_k(const std::string& query, size_t k) const override;
  std::vector<retrieval_hit> nearest(const std::vector<float>& query, size_t k) const;
  size_t size() const override { return ids_.size(); }
  size_t dims() const { return dims_; }

 private:
  config::index_kind kind_;
  size_t dims_;
  std::vector<std::string> ids_;
  std::vector<std::vector<float>> vectors_;  // linear index
  std::unique_ptr<hnswlib::InnerProductSpace> space_;
  std::unique_ptr<hnswlib::HierarchicalNSW<float>> graph_;
};

// Stage II retrieval through a bank_index over lexical embeddings: the query and every tuple's
// Bottleneck are embedded with lexical_embedding, so both sides share one vector space whatever
// embedding a stored tuple carries (a dense LLM embedding cannot be compared with a lexical
// query). Hashed word counts without IDF weighting: it ranks like BM25 on near-verbatim queries
// and may differ on others. Thread-safe: the bank is fixed at construction.
class index_retriever_policy final : public retriever_policy {
 public:
  index_retriever_policy(config::index_kind kind, const std::vector<experience_tuple>& bank);
  std::string name() const override;  // "heuristic-lexical-hnsw", "heuristic-lexical-linear"
  result<std::vector<tuple_ref>> retrieve(const diagnosis& query, uint32_t top_k) override;

 private:
  bank_index index_;
  std::map<std::string, experience_tuple> tuples_;
};

}  // namespace aopt::agent
