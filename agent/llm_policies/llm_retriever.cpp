#include "agent/llm_policies/llm_retriever.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <utility>

namespace aopt::agent {
namespace {

std::string query_text(const diagnosis& query) {
  std::string text = query.query;
  for (const std::string& tag : query.tags) text += " " + tag;
  return text;
}

}  // namespace

double cosine_similarity(const std::vector<float>& a, const std::vector<float>& b) {
  if (a.size() != b.size() || a.empty()) return 0;
  double dot = 0, na = 0, nb = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    dot += static_cast<double>(a[i]) * b[i];
    na += static_cast<double>(a[i]) * a[i];
    nb += static_cast<double>(b[i]) * b[i];
  }
  if (na == 0 || nb == 0) return 0;
  return dot / (std::sqrt(na) * std::sqrt(nb));
}

llm_embedding_retriever_policy::llm_embedding_retriever_policy(std::shared_ptr<llm_backend> llm,
                                                               std::vector<experience_tuple> bank,
                                                               std::string campaign)
    : llm_(std::move(llm)),
      bank_(std::move(bank)),
      context_{std::move(campaign), "", "retriever"} {}

result<std::vector<std::vector<float>>> llm_embedding_retriever_policy::bank_vectors() {
  std::lock_guard<std::mutex> lock(mutex_);
  if (!vectors_.empty()) return vectors_;
  std::vector<std::string> keys;
  keys.reserve(bank_.size());
  for (const experience_tuple& t : bank_) keys.push_back(t.bottleneck);
  result<llm::embedding_response> answer = llm_->embed(context_, std::move(keys));
  if (!answer.ok()) return answer.error().with_context("embedding the experience bank");
  vectors_ = std::move(answer->vectors);
  return vectors_;
}

result<std::vector<tuple_ref>> llm_embedding_retriever_policy::retrieve(const diagnosis& query,
                                                                        uint32_t top_k) {
  if (bank_.empty() || top_k == 0) return std::vector<tuple_ref>{};
  result<std::vector<std::vector<float>>> vectors = bank_vectors();
  if (!vectors.ok()) return vectors.error();
  result<llm::embedding_response> q = llm_->embed(context_, {query_text(query)});
  if (!q.ok()) return q.error().with_context("embedding the query");

  std::vector<double> scores(bank_.size());
  for (size_t i = 0; i < bank_.size(); ++i)
    scores[i] = cosine_similarity(q->vectors.at(0), (*vectors)[i]);
  std::vector<size_t> order(bank_.size());
  std::iota(order.begin(), order.end(), 0);
  // Ties keep bank order (sorted by id), so the ranking is deterministic.
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return scores[a] > scores[b]; });
  order.resize(std::min<size_t>(order.size(), top_k));

  std::vector<tuple_ref> refs;
  for (size_t i : order) {
    nlohmann::json j = bank_[i];
    refs.push_back({bank_[i].id, scores[i], std::move(j)});
  }
  return refs;
}

}  // namespace aopt::agent
