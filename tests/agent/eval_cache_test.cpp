#include <doctest/doctest.h>

#include "agent/eval_cache.hpp"

TEST_CASE("only results that depend on the candidate alone go into the evaluation cache") {
  aopt::npu::eval_result r;
  r.status = aopt::npu::eval_status::ok;
  CHECK(aopt::agent::is_cacheable(r));
  r.status = aopt::npu::eval_status::compile_error;
  CHECK(aopt::agent::is_cacheable(r));

  r.status = aopt::npu::eval_status::timeout;
  r.error_kind = "cpu_time";
  CHECK(aopt::agent::is_cacheable(r));
  // A run killed at the wall-clock limit may only have been starved by a loaded machine.
  r.error_kind = "wall_clock";
  CHECK(!aopt::agent::is_cacheable(r));

  r.status = aopt::npu::eval_status::infra_error;
  r.error_kind = "sandbox";
  CHECK(!aopt::agent::is_cacheable(r));
  r.status = aopt::npu::eval_status::ok;
  r.error_kind.clear();
  r.from_cache = true;
  CHECK(!aopt::agent::is_cacheable(r));
}
