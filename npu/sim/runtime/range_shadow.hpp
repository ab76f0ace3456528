// The shadow memory of the race detectors (hazard_detector.hpp, gm_cross_core_race.hpp): per byte
// of an address space the last accesses to it, kept as disjoint runs of bytes whose state is
// equal, so that a copy of a megabyte costs a few map entries rather than a million.
#pragma once

#include <algorithm>
#include <cstdint>
#include <iterator>
#include <map>

namespace aopt::sim {

// Bytes [begin, end) of the address space.
struct key_range {
  uint64_t begin = 0;
  uint64_t end = 0;
};

// State: default-constructible (the state of bytes nobody touched), with
// `bool operator==(const State&) const`.
template <class State>
class range_shadow {
 public:
  struct run {
    uint64_t end = 0;
    State state;
  };
  using runs = std::map<uint64_t, run>;  // keyed by first byte; entries are disjoint
  using iterator = typename runs::iterator;

  // Makes [begin, end) a union of whole runs, adding runs of the untouched state where no access
  // was, and returns the first of them.
  iterator cover(uint64_t begin, uint64_t end) {
    split_at(begin);
    split_at(end);
    uint64_t pos = begin;
    auto it = runs_.lower_bound(begin);
    while (pos < end) {
      if (it == runs_.end() || it->first > pos) {
        const uint64_t gap_end = it == runs_.end() ? end : std::min(end, it->first);
        it = runs_.emplace_hint(it, pos, run{gap_end, State{}});
      }
      pos = it->second.end;
      ++it;
    }
    return runs_.find(begin);
  }

  // The run after the last of [.., end) once covered.
  iterator past(uint64_t end) { return runs_.lower_bound(end); }
  iterator end() { return runs_.end(); }

  // Gives the covered bytes [begin, end) one state.
  void assign(uint64_t begin, uint64_t end, const State& state) {
    runs_.erase(runs_.lower_bound(begin), runs_.lower_bound(end));
    runs_.emplace(begin, run{end, state});
  }

  // Merges runs with equal state in and next to [begin, end) so the map stays small.
  void coalesce(uint64_t begin, uint64_t end) {
    auto it = runs_.upper_bound(begin);
    if (it != runs_.begin()) --it;
    if (it != runs_.begin()) --it;
    while (it != runs_.end() && it->first <= end) {
      auto next = std::next(it);
      if (next != runs_.end() && next->first == it->second.end &&
          it->second.state == next->second.state) {
        it->second.end = next->second.end;
        runs_.erase(next);
      } else {
        it = next;
      }
    }
  }

 private:
  void split_at(uint64_t pos) {
    auto it = runs_.upper_bound(pos);
    if (it == runs_.begin()) return;
    --it;
    if (it->first < pos && pos < it->second.end) {
      run tail = it->second;
      it->second.end = pos;
      runs_.emplace_hint(std::next(it), pos, tail);
    }
  }

  runs runs_;
};

}  // namespace aopt::sim
