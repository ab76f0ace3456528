#include <chrono>

#include <doctest/doctest.h>

#include "llm/backoff.hpp"

namespace llm = aopt::llm;
using namespace std::chrono_literals;

TEST_SUITE("llm") {
  TEST_CASE("backoff doubles per retry, caps at its maximum and jitters into the upper half") {
    llm::backoff b(100ms, 1000ms, 7);
    const std::chrono::milliseconds full[] = {100ms, 200ms, 400ms, 800ms, 1000ms, 1000ms};
    for (uint32_t retry = 1; retry <= 6; ++retry) {
      const auto d = b.delay(retry);
      CHECK(d >= full[retry - 1] / 2);
      CHECK(d <= full[retry - 1]);
    }
  }

  TEST_CASE("backoff with the same seed gives the same delays") {
    llm::backoff a(50ms, 5000ms, 42);
    llm::backoff b(50ms, 5000ms, 42);
    llm::backoff c(50ms, 5000ms, 43);
    bool differs = false;
    for (uint32_t retry = 1; retry <= 8; ++retry) {
      const auto da = a.delay(retry);
      CHECK(da == b.delay(retry));
      differs = differs || da != c.delay(retry);
    }
    CHECK(differs);
  }

  TEST_CASE("parse_retry_after reads delta-seconds and rejects what is neither that nor a date") {
    CHECK(llm::parse_retry_after("7") == std::chrono::milliseconds(7000));
    CHECK(llm::parse_retry_after(" 2 ") == std::chrono::milliseconds(2000));
    CHECK(llm::parse_retry_after("0.5") == std::chrono::milliseconds(500));
    CHECK(llm::parse_retry_after("0") == std::chrono::milliseconds(0));
    CHECK_FALSE(llm::parse_retry_after(""));
    CHECK_FALSE(llm::parse_retry_after("-1"));
    CHECK_FALSE(llm::parse_retry_after("soon"));
    CHECK_FALSE(llm::parse_retry_after("Wed, 21 Oct 2015 07:28"));
  }

  TEST_CASE("parse_retry_after reads an HTTP-date as the time left until it") {
    const auto now = std::chrono::system_clock::from_time_t(1445412480);  // 07:28:00 GMT
    CHECK(llm::parse_retry_after("Wed, 21 Oct 2015 07:28:09 GMT", now) ==
          std::chrono::milliseconds(9000));
    CHECK(llm::parse_retry_after("Wed, 21 Oct 2015 07:27:00 GMT", now) ==
          std::chrono::milliseconds(0));
    CHECK_FALSE(llm::parse_retry_after("Wed, 21 Oct 2015 07:28:09 PST", now));
  }

}  // TEST_SUITE
