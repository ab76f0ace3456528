// An accepted improvement counts only as its cold re-evaluation confirms it (issue 17).
#include "agent/episode/improvement_confirmation.hpp"

#include <doctest/doctest.h>

using aopt::agent::confirmed_result;
namespace npu = aopt::npu;

namespace {

npu::eval_result ok(double us) {
  npu::eval_result r;
  r.status = npu::eval_status::ok;
  r.latency_us = us;
  return r;
}

}  // namespace

TEST_CASE("a cold re-evaluation that fails turns the improvement into its failure") {
  npu::eval_result cold;
  cold.status = npu::eval_status::precision_error;
  cold.error_kind = "mismatch";
  cold.message = "z[3]: 1 != 2";
  const npu::eval_result r = confirmed_result(ok(5.0), cold);
  CHECK(r.status == npu::eval_status::precision_error);
  CHECK(r.error_kind == "unconfirmed");
  CHECK_FALSE(r.confirmed);
  CHECK(r.message.find("precision_error/mismatch: z[3]: 1 != 2") != std::string::npos);
  CHECK(r.message.find("the first evaluation: ok, 5 us") != std::string::npos);
}

TEST_CASE("of two ok runs the slower one counts, and a disagreement is noted") {
  npu::eval_result first = ok(2.0);
  first.from_cache = true;
  const npu::eval_result r = confirmed_result(first, ok(3.0));
  CHECK(r.ok());
  CHECK(r.latency_us == 3.0);
  CHECK_FALSE(r.from_cache);
  CHECK(r.confirmed);
  REQUIRE(r.diagnostics.size() == 1);
  CHECK(r.diagnostics[0].find("measured 3 us against 2 us") != std::string::npos);

  CHECK(confirmed_result(ok(4.0), ok(3.0)).latency_us == 4.0);
}

TEST_CASE("two ok runs that agree confirm the improvement without a note") {
  const npu::eval_result r = confirmed_result(ok(2.0), ok(2.0));
  CHECK(r.ok());
  CHECK(r.latency_us == 2.0);
  CHECK(r.diagnostics.empty());
  CHECK(r.confirmed);
}
