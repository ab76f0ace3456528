// The interface of a tuple retriever: ranks the bank's tuples for a diagnostic query. The
// lexical bm25_retriever implements it; a dense (embedding) retriever can be added beside it.
//
// Thread-safety: implementations state their own.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace aopt::agent {

struct retrieval_hit {
  std::string id;    // tuple id
  double score = 0;  // larger is more relevant; comparable only within one retriever
};

class retriever {
 public:
  virtual ~retriever() = default;
  virtual std::string name() const = 0;
  // At most `k` hits, best first, ties broken by ascending id; only hits with a positive score.
  virtual std::vector<retrieval_hit> top_k(const std::string& query, size_t k) const = 0;
  virtual size_t size() const = 0;
};

}  // namespace aopt::agent
