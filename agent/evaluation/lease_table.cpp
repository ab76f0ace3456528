#include "agent/evaluation/lease_table.hpp"

#include <algorithm>

namespace aopt::agent {

lease_table::lease_table(uint32_t local_slots) {
  owners_[local_owner].slots = local_slots;
}

bool lease_table::add_owner(const std::string& owner, uint32_t slots, lease_clock::time_point now) {
  if (owners_.count(owner) || departed_evaluated_.count(owner)) return false;
  owner_state& s = owners_[owner];
  s.slots = slots;
  s.last_heartbeat = now;
  return true;
}

std::vector<lease_id> lease_table::remove_owner(const std::string& owner) {
  auto it = owners_.find(owner);
  if (it == owners_.end() || owner == local_owner) return {};
  std::vector<lease_id> requeued;
  for (lease_id lease : it->second.held) {
    auto open = open_.find(lease);
    if (open == open_.end()) continue;
    open->second.holders.erase(owner);
    // Another owner holding it already evaluates it again; otherwise it waits first in line.
    if (open->second.holders.empty() && !open->second.queued) {
      open->second.queued = true;
      requeued.push_back(lease);
      ++requeued_;
    }
  }
  queue_.insert(queue_.begin(), requeued.begin(), requeued.end());
  departed_evaluated_[owner] = it->second.evaluated;
  owners_.erase(it);
  return requeued;
}

void lease_table::heartbeat(const std::string& owner, lease_clock::time_point now) {
  if (auto it = owners_.find(owner); it != owners_.end()) it->second.last_heartbeat = now;
}

std::vector<std::string> lease_table::silent_owners(lease_clock::time_point now,
                                                    lease_clock::duration timeout) const {
  std::vector<std::string> out;
  for (const auto& [name, s] : owners_) {
    if (name != local_owner && now - s.last_heartbeat > timeout) out.push_back(name);
  }
  return out;
}

lease_id lease_table::enqueue() {
  const lease_id id = next_id_++;
  open_[id].queued = true;
  queue_.push_back(id);
  return id;
}

std::optional<lease_assignment> lease_table::next_assignment() {
  if (queue_.empty()) return std::nullopt;
  auto best = owners_.end();
  uint32_t best_free = 0;
  for (auto it = owners_.begin(); it != owners_.end(); ++it) {
    const uint32_t idle = it->second.slots - it->second.busy;
    const bool local = it->first == local_owner;
    if (idle > best_free || (idle > 0 && idle == best_free && local)) {
      best = it;
      best_free = idle;
    }
  }
  if (best == owners_.end()) return std::nullopt;
  const lease_id lease = queue_.front();
  queue_.pop_front();
  lease_state& l = open_.at(lease);
  l.queued = false;
  l.holders.insert(best->first);
  best->second.busy++;
  best->second.held.insert(lease);
  return lease_assignment{lease, best->first};
}

void lease_table::release(owner_state& owner, lease_id lease) {
  if (owner.held.erase(lease)) owner.busy--;
}

bool lease_table::complete(lease_id lease, const std::string& owner) {
  auto o = owners_.find(owner);
  if (o != owners_.end()) release(o->second, lease);
  auto open = open_.find(lease);
  if (open == open_.end()) {
    if (lease > 0 && lease < next_id_) ++duplicates_;
    return false;
  }
  // The owners still holding it will report a duplicate; their slots are freed then.
  if (open->second.queued) queue_.erase(std::find(queue_.begin(), queue_.end(), lease));
  open_.erase(open);
  ++completed_;
  if (o != owners_.end()) {
    o->second.evaluated++;
  } else if (auto d = departed_evaluated_.find(owner); d != departed_evaluated_.end()) {
    d->second++;
  }
  return true;
}

lease_stats lease_table::stats() const {
  lease_stats s;
  for (const auto& [name, o] : owners_) {
    if (name != local_owner) s.workers++;
    s.slots += o.slots;
    s.in_flight += o.busy;
    s.owners.push_back({name, o.slots, o.busy, o.evaluated});
  }
  for (const auto& [name, evaluated] : departed_evaluated_)
    s.owners.push_back({name, 0, 0, evaluated});
  std::sort(s.owners.begin(), s.owners.end(),
            [](const auto& a, const auto& b) { return a.owner < b.owner; });
  s.queued = static_cast<uint32_t>(queue_.size());
  s.completed = completed_;
  s.requeued = requeued_;
  s.duplicates = duplicates_;
  return s;
}

}  // namespace aopt::agent
