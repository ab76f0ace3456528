#include "runtime/progress_view.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace aopt::runtime {

progress_view::progress_view(std::FILE* out, bool interactive, uint64_t total_budget,
                             size_t operators)
    : out_(out),
      interactive_(interactive),
      total_budget_(std::max<uint64_t>(1, total_budget)),
      operators_(operators),
      start_(std::chrono::steady_clock::now()),
      last_draw_(start_) {}

progress_view::~progress_view() {
  close();
}

void progress_view::close() {
  std::lock_guard<std::mutex> lock(mutex_);
  if (!interactive_ || drawn_lines_ == 0) return;
  fmt::print(out_, "\x1b[{}F\x1b[J", drawn_lines_);
  drawn_lines_ = 0;
  std::fflush(out_);
}

void progress_view::publish(const agent::campaign_event& e) {
  std::lock_guard<std::mutex> lock(mutex_);
  op_progress& p = ops_[e.op];
  if (e.type == agent::campaign_event::kind::candidate_evaluated && e.candidates > p.candidates) {
    done_candidates_ += e.candidates - p.candidates;
  }
  p.candidates = std::max(p.candidates, e.candidates);
  p.budget = e.budget;
  p.stage = e.stage;
  p.round = e.round;
  p.baseline_us = e.baseline_us;
  p.best_us = e.best_us;
  if (e.type == agent::campaign_event::kind::episode_finished && !p.finished) {
    p.finished = true;
    finished_ops_++;
    // An operator that ends early (nothing left to try) frees the rest of its budget.
    done_candidates_ += p.budget - std::min(p.budget, p.candidates);
  }
  if (!interactive_) {
    log_line(e);
    return;
  }
  if (e.type == agent::campaign_event::kind::episode_finished) {
    // A finished operator leaves a line above the bars: its outcome and why.
    if (drawn_lines_ > 0) fmt::print(out_, "\x1b[{}F\x1b[J", drawn_lines_);
    drawn_lines_ = 0;
    log_line(e);
  }
  const auto now = std::chrono::steady_clock::now();
  const bool milestone = e.type != agent::campaign_event::kind::candidate_evaluated;
  if (milestone || now - last_draw_ > std::chrono::milliseconds(100)) {
    last_draw_ = now;
    redraw();
  }
}

void progress_view::log_line(const agent::campaign_event& e) {
  const double speedup = e.best_us > 0 ? e.baseline_us / e.best_us : 1.0;
  switch (e.type) {
    case agent::campaign_event::kind::episode_started:
      fmt::print(out_, "[start] {}\n", e.op);
      break;
    case agent::campaign_event::kind::candidate_evaluated:
      fmt::print(out_, "[eval]  {} round {} stage {} {}/{} {} {}{} best {:.2f} us ({:.3f}x)\n",
                 e.op, e.round + 1, e.stage, e.candidates, e.budget, e.status, e.origin,
                 e.accepted ? " [kept]" : "", e.best_us, speedup);
      break;
    case agent::campaign_event::kind::episode_finished:
      fmt::print(
          out_, "[done]  {} {} best {:.2f} us baseline {:.2f} us ({:.3f}x) [{}/{} operators]{}{}\n",
          e.op, e.status, e.best_us, e.baseline_us, speedup, finished_ops_, operators_,
          e.origin.empty() ? "" : ": ", e.origin);
      break;
    default:
      break;
  }
  std::fflush(out_);
}

std::string progress_view::bar(double fraction, int width) const {
  const int filled = static_cast<int>(std::clamp(fraction, 0.0, 1.0) * width);
  return std::string(filled, '#') + std::string(width - filled, '.');
}

void progress_view::redraw() {
  std::string screen;
  if (drawn_lines_ > 0) screen += fmt::format("\x1b[{}F\x1b[J", drawn_lines_);
  int lines = 0;
  for (const auto& [name, p] : ops_) {
    if (p.finished) continue;
    const double fraction = p.budget ? static_cast<double>(p.candidates) / p.budget : 0;
    const double speedup = p.best_us > 0 ? p.baseline_us / p.best_us : 1.0;
    screen += fmt::format("{:<28.28} [{}] {:>3}/{:<3} round {} stage {}  best {:.3f}x\n", name,
                          bar(fraction, 24), p.candidates, p.budget, p.round + 1,
                          p.stage == 1 ? "I " : "II", speedup);
    ++lines;
  }
  const double fraction = static_cast<double>(done_candidates_) / total_budget_;
  const double elapsed =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  const std::string eta = fraction > 0.01
                              ? fmt::format("{:.0f}s", elapsed * (1 - fraction) / fraction)
                              : std::string("?");
  screen +=
      fmt::format("{:<28} [{}] {:>5.1f}%  {}/{} operators  elapsed {:.0f}s  ETA {}\n", "campaign",
                  bar(fraction, 24), 100 * fraction, finished_ops_, operators_, elapsed, eta);
  ++lines;
  drawn_lines_ = lines;
  std::fputs(screen.c_str(), out_);
  std::fflush(out_);
}

}  // namespace aopt::runtime
