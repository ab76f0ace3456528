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

ledger_entry ledger_entry::answer(const token_usage& usage, bool from_cache) {
  ledger_entry entry;
  entry.calls = 1;
  entry.used = usage;
  if (from_cache)
    entry.cache_hits = 1;
  else
    entry.billed = usage;
  return entry;
}

ledger_entry ledger_entry::failure(const token_usage& billed) {
  ledger_entry entry;
  entry.failures = 1;
  entry.used = billed;
  entry.billed = billed;
  return entry;
}

void token_ledger::add(const token_ledger& other) {
  for (const auto& [who, entry] : other.entries_) add(who, entry);
}

token_ledger token_ledger::take(const std::string& campaign, const std::string& op) {
  token_ledger taken(prices_);
  auto it = entries_.lower_bound(call_context{campaign, op, ""});
  while (it != entries_.end() && it->first.campaign == campaign && it->first.op == op) {
    taken.entries_.insert(*it);
    it = entries_.erase(it);
  }
  return taken;
}

void token_ledger::replace_campaign(const std::string& campaign, const token_ledger& from) {
  auto it = entries_.lower_bound(call_context{campaign, "", ""});
  while (it != entries_.end() && it->first.campaign == campaign) it = entries_.erase(it);
  for (auto f = from.entries_.lower_bound(call_context{campaign, "", ""});
       f != from.entries_.end() && f->first.campaign == campaign; ++f)
    entries_.insert(*f);
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
