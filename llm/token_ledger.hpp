// token_ledger: LLM token accounting per (campaign, operator, role), with totals and an
// optional price table for cost.
//
// Two counts per entry, on purpose:
//   used   - tokens of every answer the campaign consumed, replayed from the cache or not.
//            The budget is charged on this, so a resumed campaign (whose answers replay from
//            the cache) reaches its budget at the same step as an uninterrupted run.
//   billed - tokens the endpoint reported for calls actually sent (answers and billed failures
//            such as truncation). This is what the endpoint charged; cost is computed on it.
//
// Thread-safety: a value type, not synchronised; the gateway keeps it under its lock and hands
// out copies.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <tuple>

#include "llm/chat_types.hpp"

namespace aopt::llm {

// Who made a call: the campaign, the operator being optimized and the agent role.
struct call_context {
  std::string campaign;
  std::string op;
  std::string role;
};

inline bool operator<(const call_context& a, const call_context& b) {
  return std::tie(a.campaign, a.op, a.role) < std::tie(b.campaign, b.op, b.role);
}
inline bool operator==(const call_context& a, const call_context& b) {
  return std::tie(a.campaign, a.op, a.role) == std::tie(b.campaign, b.op, b.role);
}

// Prices per 1000 tokens, in the user's currency; all zero = no cost reported.
struct price_table {
  double per_1k_prompt = 0;
  double per_1k_completion = 0;

  bool empty() const { return per_1k_prompt == 0 && per_1k_completion == 0; }
  double cost(const token_usage& usage) const {
    return static_cast<double>(usage.prompt_tokens) / 1000.0 * per_1k_prompt +
           static_cast<double>(usage.completion_tokens) / 1000.0 * per_1k_completion;
  }
};

struct ledger_entry {
  uint64_t calls = 0;       // answers delivered (including cache hits)
  uint64_t cache_hits = 0;  // of which served from the cache
  uint64_t failures = 0;    // calls that ended in an error (refusals included)
  token_usage used;
  token_usage billed;

  // One delivered answer; `from_cache` answers count as used but not billed.
  static ledger_entry answer(const token_usage& usage, bool from_cache);
  // One failed call; `billed` is what the endpoint charged for it (zero for most failures).
  static ledger_entry failure(const token_usage& billed);

  ledger_entry& operator+=(const ledger_entry& other);
};

class token_ledger {
 public:
  explicit token_ledger(price_table prices = {}) : prices_(prices) {}

  void record_answer(const call_context& who, const token_usage& usage, bool from_cache) {
    add(who, ledger_entry::answer(usage, from_cache));
  }
  void record_failure(const call_context& who, const token_usage& billed) {
    add(who, ledger_entry::failure(billed));
  }
  // Adds a whole entry (usage persisted by an earlier run of the campaign).
  void add(const call_context& who, const ledger_entry& entry) { entries_[who] += entry; }
  // Adds every entry of `other`.
  void add(const token_ledger& other);
  // Removes the entries of operator `op` in `campaign` (every role) and returns them.
  token_ledger take(const std::string& campaign, const std::string& op);
  // Makes the entries of `campaign` those that `from` has for it.
  void replace_campaign(const std::string& campaign, const token_ledger& from);

  const std::map<call_context, ledger_entry>& entries() const { return entries_; }
  ledger_entry total() const;
  ledger_entry campaign_total(const std::string& campaign) const;
  // The billed cost of an entry; 0 without prices.
  double cost(const ledger_entry& entry) const { return prices_.cost(entry.billed); }
  const price_table& prices() const { return prices_; }

 private:
  price_table prices_;
  std::map<call_context, ledger_entry> entries_;
};

}  // namespace aopt::llm
