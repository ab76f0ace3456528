// llm_embedding_retriever_policy: dense retrieval (roles.retriever.policy = "llm") with the
// endpoint's embedding model (llm.embedding_model): tuples are ranked by the cosine similarity
// of their bottleneck text (the paper's retrieval key) to the diagnosis query.
//
// The bank's vectors are asked for once, in one embedding call, on the first retrieval (the
// response cache replays them on later runs); each query costs one more call. A failed call
// fails the retrieval, which the episode degrades to refinement without tuples. An empty bank
// answers an empty list without calling.
//
// Thread-safety: may be called from several threads at once.
#pragma once

#include <memory>
#include <mutex>
#include <vector>

#include "agent/bank/experience_tuple.hpp"
#include "agent/episode/roles.hpp"
#include "agent/llm_policies/llm_backend.hpp"

namespace aopt::agent {

class llm_embedding_retriever_policy final : public retriever_policy {
 public:
  // `campaign`: the campaign the embedding calls are accounted to.
  llm_embedding_retriever_policy(std::shared_ptr<llm_backend> llm,
                                 std::vector<experience_tuple> bank, std::string campaign);
  std::string name() const override { return "llm-embeddings"; }
  result<std::vector<tuple_ref>> retrieve(const diagnosis& query, uint32_t top_k) override;

 private:
  // The bank's vectors, embedding them on first use.
  result<std::vector<std::vector<float>>> bank_vectors();

  std::shared_ptr<llm_backend> llm_;
  const std::vector<experience_tuple> bank_;
  const llm::call_context context_;
  std::mutex mutex_;
  std::vector<std::vector<float>> vectors_;  // guarded by mutex_; empty until embedded
};

// The cosine similarity of two vectors; 0 when either is zero or their sizes differ.
double cosine_similarity(const std::vector<float>& a, const std::vector<float>& b);

}  // namespace aopt::agent
