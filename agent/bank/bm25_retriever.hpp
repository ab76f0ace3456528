// Lexical retrieval over the bank with Okapi BM25 (the heuristic counterpart of the paper's
// dense retriever), named "heuristic-bm25" in logs and reports.
//
// Each tuple is indexed by its Bottleneck field plus its Title (title terms count
// `title_weight` times). Score of a document d for a query q:
//   sum over distinct query terms t in d of
//     idf(t) * tf(t,d) * (k1 + 1) / (tf(t,d) + k1 * (1 - b + b * |d| / avgdl))
//   idf(t) = ln(1 + (N - df(t) + 0.5) / (df(t) + 0.5))   (never negative)
//
// Tokenization (tokenize()): identifiers are split into words as in code (camelCase, '_',
// "PipeBarrier<PIPE_ALL>" -> pipe, barrier, pipe, all), text is lowercased and split at every
// character that is not a letter or digit; tokens that are a single character, only digits, or
// common English stop words are dropped; a light suffix stripper maps plurals and -ing/-ed
// forms to one stem ("bursts" -> "burst", "buffering" -> "buffer", "stalled" -> "stall").
//
// Incremental: add() indexes one tuple (replacing one with the same id); statistics are kept
// up to date, so scores always reflect the current bank.
//
// Thread-safety: const methods may run concurrently; add()/remove() need exclusive access.
#pragma once

#include <cstddef>
#include <map>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "agent/bank/experience_tuple.hpp"
#include "agent/bank/retriever.hpp"

namespace aopt::agent {

std::vector<std::string> tokenize(std::string_view text);

struct bm25_options {
  double k1 = 1.2;
  double b = 0.75;
  uint32_t title_weight = 1;
};

class bm25_retriever final : public retriever {
 public:
  explicit bm25_retriever(bm25_options options = {});

  std::string name() const override { return "heuristic-bm25"; }

  void add(const experience_tuple& t);
  // Indexes arbitrary text under `id` (the retrieval key of something that is not a tuple).
  void add_text(const std::string& id, const std::string& bottleneck,
                const std::string& title = {});
  // Returns false when `id` is not indexed.
  bool remove(const std::string& id);

  std::vector<retrieval_hit> top_k(const std::string& query, size_t k) const override;
  size_t size() const override { return docs_.size(); }

 private:
  struct document {
    std::unordered_map<std::string, uint32_t> tf;
    uint32_t length = 0;
  };

  bm25_options options_;
  std::map<std::string, document> docs_;  // ordered by id: the tie-break order
  std::unordered_map<std::string, uint32_t> df_;
  uint64_t total_length_ = 0;
};

}  // namespace aopt::agent
