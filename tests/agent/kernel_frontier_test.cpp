#include "agent/episode/kernel_frontier.hpp"

#include <doctest/doctest.h>

using namespace aopt;
using namespace aopt::agent;

namespace {

program kernel(const std::string& k, double latency, const std::string& tiling = "T") {
  program p;
  p.tiling = tiling;
  p.kernel = k;
  p.latency_us = latency;
  p.result.status = npu::eval_status::ok;
  p.result.latency_us = latency;
  return p;
}

}  // namespace

TEST_CASE("the kernel frontier hands out its fastest open kernel of the tiling, once") {
  kernel_frontier f;
  f.add(kernel("slow", 12));
  f.add(kernel("fast", 9));
  f.add(kernel("other-tiling", 1, "T2"));
  f.add(kernel("fast", 9));  // already there
  CHECK(f.open_count() == 3);
  std::optional<program> first = f.take_next("T");
  REQUIRE(first);
  CHECK(first->kernel == "fast");
  REQUIRE(f.current());
  CHECK(f.current()->kernel == "fast");
  std::optional<program> second = f.take_next("T");
  REQUIRE(second);
  CHECK(second->kernel == "slow");
  CHECK_FALSE(f.take_next("T"));
  CHECK_FALSE(f.current());
  CHECK(f.open_count() == 1);
}

TEST_CASE("a refined kernel never reopens and the frontier keeps only its fastest") {
  kernel_frontier f(2);
  f.mark_refined("T", "done");
  f.add(kernel("done", 1));
  CHECK(f.open_count() == 0);
  f.add(kernel("a", 3));
  f.add(kernel("b", 2));
  f.add(kernel("c", 4));  // slower than both kept: dropped
  CHECK(f.open_count() == 2);
  f.mark_refined("T", "b");
  CHECK(f.refined("T", "b"));
  CHECK(f.open_count() == 1);
  std::optional<program> next = f.take_next("T");
  REQUIRE(next);
  CHECK(next->kernel == "a");
}

TEST_CASE("the kernel frontier survives a save and load, its current parent included") {
  kernel_frontier f;
  f.add(kernel("a", 3));
  f.add(kernel("b", 2));
  f.mark_refined("T", "r");
  REQUIRE(f.take_next("T"));
  result<kernel_frontier> back = kernel_frontier::load(f.save());
  REQUIRE(back.ok());
  REQUIRE(back->current());
  CHECK(back->current()->kernel == "b");
  CHECK(back->current()->result.latency_us == doctest::Approx(2));
  CHECK(back->refined("T", "r"));
  CHECK(back->open_count() == 1);

  CHECK(kernel_frontier::load(nlohmann::json()).ok());
  result<kernel_frontier> bad = kernel_frontier::load(nlohmann::json{{"open", 3}});
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.error().code() == status_code::invalid_argument);
  CHECK(bad.error().message().find("kernel frontier state") == 0);
}
