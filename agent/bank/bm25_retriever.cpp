#include "agent/bank/bm25_retriever.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <set>

#include "agent/kernel_text/source_text.hpp"

namespace aopt::agent {

namespace {

const std::set<std::string>& stop_words() {
  static const std::set<std::string> words = {
      "a",     "an",    "and",   "are",  "as",    "at",    "be",   "by",      "for", "from",
      "has",   "have",  "in",    "into", "is",    "it",    "its",  "of",      "on",  "or",
      "that",  "the",   "their", "then", "there", "these", "this", "to",      "was", "were",
      "which", "while", "with",  "each", "every", "so",    "than", "instead", "one", "per"};
  return words;
}

std::string stem(std::string w) {
  auto ends_with = [&](std::string_view s) {
    return w.size() >= s.size() && w.compare(w.size() - s.size(), s.size(), s) == 0;
  };
  if (w.size() > 5 && ends_with("ing")) {
    w.resize(w.size() - 3);
    // "stalling" -> "stall", "copying" -> "copy"; "buffering" -> "buffer" already.
    if (w.size() > 2 && w[w.size() - 1] == w[w.size() - 2] && w.back() != 'l') w.pop_back();
    return w;
  }
  if (w.size() > 4 && ends_with("ed")) {
    w.resize(w.size() - 2);
    return w;
  }
  if (w.size() > 4 && ends_with("ies")) {
    w.resize(w.size() - 3);
    return w + "y";
  }
  if (w.size() > 5 && ends_with("sses")) {
    w.resize(w.size() - 2);
    return w;
  }
  if (w.size() > 3 && ends_with("s") && !ends_with("ss") && !ends_with("us")) w.pop_back();
  return w;
}

}  // namespace

std::vector<std::string> tokenize(std::string_view text) {
  std::vector<std::string> tokens;
  size_t i = 0;
  while (i < text.size()) {
    if (!std::isalnum(static_cast<unsigned char>(text[i]))) {
      ++i;
      continue;
    }
    size_t j = i;
    while (j < text.size() && std::isalnum(static_cast<unsigned char>(text[j]))) ++j;
    for (std::string& word : identifier_words(text.substr(i, j - i))) {
      if (word.size() < 2) continue;
      if (std::all_of(word.begin(), word.end(),
                      [](char c) { return std::isdigit(static_cast<unsigned char>(c)); })) {
        continue;
      }
      if (stop_words().count(word) != 0) continue;
      tokens.push_back(stem(std::move(word)));
    }
    i = j;
  }
  return tokens;
}

bm25_retriever::bm25_retriever(bm25_options options) : options_(options) {}

void bm25_retriever::add(const experience_tuple& t) {
  add_text(t.id, t.bottleneck, t.title);
}

void bm25_retriever::add_text(const std::string& id, const std::string& bottleneck,
                              const std::string& title) {
  remove(id);
  document doc;
  for (const std::string& token : tokenize(bottleneck)) {
    ++doc.tf[token];
    ++doc.length;
  }
  for (const std::string& token : tokenize(title)) {
    doc.tf[token] += options_.title_weight;
    doc.length += options_.title_weight;
  }
  for (const auto& [term, count] : doc.tf) {
    (void)count;
    ++df_[term];
  }
  total_length_ += doc.length;
  docs_.emplace(id, std::move(doc));
}

bool bm25_retriever::remove(const std::string& id) {
  auto it = docs_.find(id);
  if (it == docs_.end()) return false;
  for (const auto& [term, count] : it->second.tf) {
    (void)count;
    auto df = df_.find(term);
    if (df != df_.end() && --df->second == 0) df_.erase(df);
  }
  total_length_ -= it->second.length;
  docs_.erase(it);
  return true;
}

std::vector<retrieval_hit> bm25_retriever::top_k(const std::string& query, size_t k) const {
  std::vector<retrieval_hit> hits;
  if (docs_.empty() || k == 0) return hits;
  std::vector<std::string> terms = tokenize(query);
  std::sort(terms.begin(), terms.end());
  terms.erase(std::unique(terms.begin(), terms.end()), terms.end());
  const double n = static_cast<double>(docs_.size());
  const double avgdl = std::max(1.0, static_cast<double>(total_length_) / n);
  std::vector<std::pair<const std::string*, double>> idf;
  for (const std::string& term : terms) {
    auto it = df_.find(term);
    if (it == df_.end()) continue;
    double df = it->second;
    idf.emplace_back(&term, std::log(1.0 + (n - df + 0.5) / (df + 0.5)));
  }
  for (const auto& [id, doc] : docs_) {
    double score = 0;
    for (const auto& [term, weight] : idf) {
      auto tf_it = doc.tf.find(*term);
      if (tf_it == doc.tf.end()) continue;
      double tf = tf_it->second;
      double norm = options_.k1 * (1.0 - options_.b + options_.b * doc.length / avgdl);
      score += weight * tf * (options_.k1 + 1.0) / (tf + norm);
    }
    if (score > 0) hits.push_back({id, score});
  }
  // docs_ is ordered by id, so a stable sort by score leaves ties in ascending id order.
  std::stable_sort(hits.begin(), hits.end(), [](const retrieval_hit& a, const retrieval_hit& b) {
    return a.score > b.score;
  });
  if (hits.size() > k) hits.resize(k);
  return hits;
}

}  // namespace aopt::agent
