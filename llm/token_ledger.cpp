#include "llm/token_ledger.hpp"

namespace aopt::llm {

ledger_entry& ledger_entry::operator+=(const ledger_entry& other) {
  calls += other.calls;
  cache_hits += other.cache_hits;
  failures += other.failures;
  used += other.used;
  billed += other.billed;
  return *this;
}

void token_ledger::record_answer(const call_context& who, const token_usage& usage,
                                 bool from_cache) {
  ledger_entry& entry = entries_[who];
  ++entry.calls;
  entry.used += usage;
  if (from_cache)
    ++entry.cache_hits;
  else
    entry.billed += usage;
}

void token_ledger::record_failure(const call_context& who, const token_usage& billed) {
  ledger_entry& entry = entries_[who];
  ++entry.failures;
  entry.used += billed;
  entry.billed += billed;
}

ledger_entry token_ledger::total() const {
  ledger_entry sum;
  for (const auto& [who, entry] : entries_) sum += entry;
  return sum;
}

ledger_entry token_ledger::campaign_total(const std::string& campaign) const {
  ledger_entry sum;
  for (auto it = entries_.lower_bound(call_context{campaign, "", ""});
       it != entries_.end() && it->first.campaign == campaign; ++it)
    sum += it->second;
  return sum;
}

}  // namespace aopt::llm
