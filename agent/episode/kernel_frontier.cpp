#include "agent/episode/kernel_frontier.hpp"

#include <algorithm>

#include "base/content_hash.hpp"

namespace aopt::agent {
namespace {

std::string key_of(const std::string& tiling, const std::string& kernel) {
  return content_hash({tiling, kernel});
}

}  // namespace

kernel_frontier::kernel_frontier(size_t capacity) : capacity_(std::max<size_t>(1, capacity)) {}

void kernel_frontier::add(const program& p) {
  if (refined(p.tiling, p.kernel)) return;
  insert_ranked(open_, p, capacity_);
}

void kernel_frontier::mark_refined(const std::string& tiling, const std::string& kernel) {
  refined_.insert(key_of(tiling, kernel));
  open_.erase(
      std::remove_if(open_.begin(), open_.end(),
                     [&](const program& p) { return p.tiling == tiling && p.kernel == kernel; }),
      open_.end());
}

bool kernel_frontier::refined(const std::string& tiling, const std::string& kernel) const {
  return refined_.count(key_of(tiling, kernel)) != 0;
}

std::optional<program> kernel_frontier::take_next(const std::string& tiling) {
  current_.reset();
  for (auto it = open_.begin(); it != open_.end(); ++it) {
    if (it->tiling != tiling || refined(it->tiling, it->kernel)) continue;
    current_ = std::move(*it);
    open_.erase(it);
    break;
  }
  return current_;
}

nlohmann::json kernel_frontier::save() const {
  return {{"open", open_},
          {"refined", refined_},
          {"current", current_ ? nlohmann::json(*current_) : nlohmann::json()}};
}

result<kernel_frontier> kernel_frontier::load(const nlohmann::json& j, size_t capacity) {
  kernel_frontier f(capacity);
  if (j.is_null()) return f;
  if (!j.is_object()) return invalid_argument("kernel frontier state: not an object");
  try {
    f.open_ = j.at("open").get<std::vector<program>>();
    f.refined_ = j.at("refined").get<std::set<std::string>>();
    if (!j.at("current").is_null()) f.current_ = j.at("current").get<program>();
  } catch (const nlohmann::json::exception& e) {
    return invalid_argument(std::string("kernel frontier state: ") + e.what());
  }
  return f;
}

}  // namespace aopt::agent
