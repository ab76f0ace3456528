// Stage II's frontier when it is the operator's only stage (strategy stage2): the kernels it
// evaluated that were correct but not faster than the best, fastest first, and the kernels
// whose rewrites were all tried ("refined").
//
// Stage II refines the best kernel; when every rewrite the refiner proposes for it was tried
// and none was faster, the stage would end with budget left. With no other stage to hand the
// steps to, Stage II instead continues from the fastest frontier kernel not yet refined: a
// rewrite that did not pay alone may enable one that does (double buffering after a barrier is
// gone), so the search walks the rewrite graph best first and the budget is spent while
// untried rewrites remain (issue 18). Alternating hands unspent steps to Stage I instead.
//
// The state is plain JSON (save/load) persisted with the episode; the current parent is part of
// it, so a resumed episode continues from the same kernel.
//
// Thread-compatible: one thread at a time.
#pragma once

#include <cstddef>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "agent/episode/program.hpp"
#include "base/status.hpp"

namespace aopt::agent {

class kernel_frontier {
 public:
  static constexpr size_t default_capacity = 16;

  explicit kernel_frontier(size_t capacity = default_capacity);

  // Keeps `p` among the `capacity` fastest open programs, unless it was refined or is there.
  void add(const program& p);
  // Every rewrite of (tiling, kernel) was tried: it is never taken again.
  void mark_refined(const std::string& tiling, const std::string& kernel);
  bool refined(const std::string& tiling, const std::string& kernel) const;
  // The fastest open program with `tiling` not yet refined, removed from the open list and
  // made the current parent; nullopt (and no current parent) when none is left.
  std::optional<program> take_next(const std::string& tiling);
  // The parent Stage II refines instead of the best; none once the best improved.
  const std::optional<program>& current() const { return current_; }
  void clear_current() { current_.reset(); }

  size_t open_count() const { return open_.size(); }
  size_t refined_count() const { return refined_.size(); }

  nlohmann::json save() const;
  // An absent (null) state is an empty frontier; invalid_argument when `j` is not a saved one.
  static result<kernel_frontier> load(const nlohmann::json& j, size_t capacity = default_capacity);

 private:
  size_t capacity_;
  std::vector<program> open_;      // fastest first
  std::set<std::string> refined_;  // content hashes of (T, K)
  std::optional<program> current_;
};

}  // namespace aopt::agent
