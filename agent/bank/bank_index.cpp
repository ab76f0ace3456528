#include "agent/bank/bank_index.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdint>

#include <hnswlib/hnswlib.h>

namespace aopt::agent {
namespace {

// hnswlib graph parameters: defaults of the library's examples; ef bounds the candidate list
// of a search, so it must be >= k.
constexpr size_t graph_m = 16;
constexpr size_t graph_ef_construction = 200;
constexpr size_t graph_ef_search = 128;
constexpr size_t graph_initial_capacity = 1024;
constexpr size_t graph_seed = 100;

// FNV-1a: stable across platforms and runs, unlike std::hash.
uint64_t fnv1a(const std::string& s) {
  uint64_t h = 1469598103934665603ull;
  for (unsigned char c : s) {
    h ^= c;
    h *= 1099511628211ull;
  }
  return h;
}

float dot(const std::vector<float>& a, const std::vector<float>& b) {
  float s = 0;
  for (size_t i = 0; i < a.size(); ++i) s += a[i] * b[i];
  return s;
}

}  // namespace

std::vector<float> lexical_embedding(const std::string& text, size_t dims) {
  std::vector<float> v(dims, 0.0f);
  std::string word;
  auto flush = [&] {
    if (word.empty()) return;
    const uint64_t h = fnv1a(word);
    v[h % dims] += (h >> 63) != 0 ? -1.0f : 1.0f;
    word.clear();
  };
  for (char c : text) {
    if (std::isalnum(static_cast<unsigned char>(c)) || c == '_') {
      word += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    } else {
      flush();
    }
  }
  flush();
  const float norm = std::sqrt(dot(v, v));
  if (norm > 0) {
    for (float& x : v) x /= norm;
  }
  return v;
}

bank_index::bank_index(config::index_kind kind, size_t dims) : kind_(kind), dims_(dims) {
  if (kind_ == config::index_kind::hnsw) {
    space_ = std::make_unique<hnswlib::InnerProductSpace>(dims_);
    graph_ = std::make_unique<hnswlib::HierarchicalNSW<float>>(
        space_.get(), graph_initial_capacity, graph_m, graph_ef_construction, graph_seed);
    graph_->setEf(graph_ef_search);
  }
}

bank_index::~bank_index() = default;

std::string bank_index::name() const {
  return kind_ == config::index_kind::hnsw ? "hnsw-index" : "linear-index";
}

status bank_index::add(const std::string& id, const std::vector<float>& embedding) {
  if (embedding.size() != dims_) {
    return invalid_argument("tuple " + id + ": embedding has " + std::to_string(embedding.size()) +
                            " dimensions, the index " + std::to_string(dims_));
  }
  if (graph_) {
    if (graph_->cur_element_count == graph_->max_elements_) {
      graph_->resizeIndex(2 * graph_->max_elements_);
    }
    graph_->addPoint(embedding.data(), ids_.size());
  } else {
    vectors_.push_back(embedding);
  }
  ids_.push_back(id);
  return {};
}

status bank_index::add(const experience_tuple& t) {
  if (t.embedding && t.embedding->size() == dims_) return add(t.id, *t.embedding);
  return add(t.id, lexical_embedding(t.bottleneck, dims_));
}

std::vector<retrieval_hit> bank_index::top_k(const std::string& query, size_t k) const {
  return nearest(lexical_embedding(query, dims_), k);
}

std::vector<retrieval_hit> bank_index::nearest(const std::vector<float>& query, size_t k) const {
  std::vector<retrieval_hit> hits;
  if (query.size() != dims_ || ids_.empty() || k == 0) return hits;
  if (graph_) {
    auto found = graph_->searchKnn(query.data(), std::min(k, ids_.size()));
    while (!found.empty()) {
      // InnerProductSpace distance is 1 - <a, b>.
      hits.push_back({ids_[found.top().second], 1.0 - found.top().first});
      found.pop();
    }
  } else {
    for (size_t i = 0; i < ids_.size(); ++i) hits.push_back({ids_[i], dot(query, vectors_[i])});
  }
  hits.erase(std::remove_if(hits.begin(), hits.end(),
                            [](const retrieval_hit& h) { return h.score <= 1e-6; }),
             hits.end());
  std::sort(hits.begin(), hits.end(), [](const retrieval_hit& a, const retrieval_hit& b) {
    return a.score != b.score ? a.score > b.score : a.id < b.id;
  });
  if (hits.size() > k) hits.resize(k);
  return hits;
}

index_retriever_policy::index_retriever_policy(config::index_kind kind,
                                               const std::vector<experience_tuple>& bank)
    : index_(kind) {
  for (const experience_tuple& t : bank) {
    if (!tuples_.emplace(t.id, t).second) continue;
    // A lexical embedding has index_.dims(), so add() cannot fail.
    (void)index_.add(t.id, lexical_embedding(t.bottleneck, index_.dims()));
  }
}

std::string index_retriever_policy::name() const {
  return "heuristic-lexical-" + index_.name();
}

result<std::vector<tuple_ref>> index_retriever_policy::retrieve(const diagnosis& query,
                                                                uint32_t top_k) {
  std::vector<tuple_ref> out;
  for (const retrieval_hit& hit : index_.top_k(query.query, top_k)) {
    out.push_back({hit.id, hit.score, nlohmann::json(tuples_.at(hit.id))});
  }
  return out;
}

}  // namespace aopt::agent
