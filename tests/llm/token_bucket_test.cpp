#include <chrono>

#include <doctest/doctest.h>

#include "llm/token_bucket.hpp"

namespace llm = aopt::llm;
using namespace std::chrono_literals;

TEST_SUITE("llm") {
  TEST_CASE("token_bucket starts full, refills at its rate and never beyond its capacity") {
    std::chrono::steady_clock::time_point now{};
    llm::token_bucket bucket(60, 3, [&] { return now; });  // one token per second
    CHECK(bucket.try_acquire());
    CHECK(bucket.try_acquire());
    CHECK(bucket.try_acquire());
    CHECK_FALSE(bucket.try_acquire());
    CHECK(bucket.time_until_available() == 1s);

    now += 500ms;
    CHECK_FALSE(bucket.try_acquire());
    CHECK(bucket.time_until_available() == 500ms);
    now += 500ms;
    CHECK(bucket.time_until_available() == 0s);
    CHECK(bucket.try_acquire());
    CHECK_FALSE(bucket.try_acquire());

    now += 1h;  // a long idle spell refills to the capacity only
    CHECK(bucket.try_acquire());
    CHECK(bucket.try_acquire());
    CHECK(bucket.try_acquire());
    CHECK_FALSE(bucket.try_acquire());
  }

  TEST_CASE("token_bucket ignores a clock that goes backwards") {
    std::chrono::steady_clock::time_point now = std::chrono::steady_clock::time_point{} + 10s;
    llm::token_bucket bucket(6, 1, [&] { return now; });
    CHECK(bucket.try_acquire());
    now -= 5s;
    CHECK_FALSE(bucket.try_acquire());
    now += 5s + 15s;
    CHECK(bucket.try_acquire());
  }

}  // TEST_SUITE
