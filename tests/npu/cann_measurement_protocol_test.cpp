// The hardware measurement protocol as a plain class, with synthetic noisy targets: no NPU.
#include "npu/cann/measurement_protocol.hpp"

#include <cmath>
#include <random>

#include <doctest/doctest.h>

#include "npu/cann/signed_rank_interval.hpp"

using namespace aopt::npu;

namespace {

// A kernel whose every launch takes true_us * (1 + N(0, noise)), from a shared seeded stream (so
// the two sides of a comparison draw interleaved values, as on one device).
class noisy_target : public measurement_target {
 public:
  noisy_target(double true_us, double noise, std::mt19937_64& rng)
      : true_us_(true_us), noise_(0.0, noise), rng_(rng) {}
  aopt::result<latency_sample> sample() override {
    ++launches;
    latency_sample s;
    s.latency_us = true_us_ * (1 + noise_(rng_));
    s.context = {"0", "8.0.RC1", "24.1.rc2", 1500};
    return s;
  }
  double true_us_;
  uint32_t launches = 0;

 private:
  std::normal_distribution<double> noise_;
  std::mt19937_64& rng_;
};

// A clock that never advances: sample counts, not the machine's speed, end every loop.
double frozen_clock() {
  return 0;
}

// A clock whose every reading is a minute later: the time budget ends each loop as soon as the
// minimum count is reached (slow launches on a real NPU).
double slow_clock() {
  static thread_local double now = 0;
  return now += 60;
}

// Accepted comparisons out of 100 seeded trials of a candidate truly `gain` times faster.
int accepted_of_100(double gain, double (*clock)() = frozen_clock) {
  int accepted = 0;
  for (uint64_t seed = 1; seed <= 100; ++seed) {
    std::mt19937_64 rng(seed);
    noisy_target best(100.0, 0.05, rng);
    noisy_target candidate(100.0 / gain, 0.05, rng);
    measurement_protocol protocol({}, nullptr, clock);
    auto e = protocol.compare(candidate, best);
    REQUIRE_MESSAGE(e.ok(), e.error().to_string());
    REQUIRE(e->pairs == (clock == frozen_clock ? 30u : 10u));
    accepted += e->accepted ? 1 : 0;
  }
  return accepted;
}

}  // namespace

TEST_CASE("under 5 % noise a true 2 % gain is rejected and a true 20 % gain accepted (defaults)") {
  REQUIRE(validate(protocol_settings{}).ok());
  const int small = accepted_of_100(1.02);
  const int large = accepted_of_100(1.20);
  MESSAGE("accepted of 100: 2 % gain " << small << ", 20 % gain " << large);
  CHECK(small <= 5);
  CHECK(large >= 95);
  // With only min_samples pairs (the budget spent), the same holds.
  const int small_min = accepted_of_100(1.02, slow_clock);
  const int large_min = accepted_of_100(1.20, slow_clock);
  MESSAGE("at min_samples: 2 % gain " << small_min << ", 20 % gain " << large_min);
  CHECK(small_min <= 5);
  CHECK(large_min >= 95);
}

TEST_CASE(
    "compare interleaves the two sides, flushes before every timed launch, warms up untimed") {
  std::mt19937_64 rng(7);
  std::vector<char> order;
  struct recording : noisy_target {
    recording(double us, std::mt19937_64& rng, std::vector<char>& order, char name)
        : noisy_target(us, 0.01, rng), order_(order), name_(name) {}
    aopt::result<latency_sample> sample() override {
      order_.push_back(name_);
      return noisy_target::sample();
    }
    std::vector<char>& order_;
    char name_;
  };
  recording a(50, rng, order, 'A');
  recording b(100, rng, order, 'B');
  int flushes = 0;
  protocol_settings s;
  s.warmup_runs = 1;
  s.min_samples = s.max_samples = 4;
  measurement_protocol protocol(
      s,
      [&] {
        order.push_back('f');
        ++flushes;
        return aopt::status{};
      },
      frozen_clock);
  auto e = protocol.compare(a, b);
  REQUIRE(e.ok());
  CHECK(std::string(order.begin(), order.end()) == "ABfAfBfAfBfAfBfAfB");
  CHECK(flushes == 8);
  CHECK(e->pairs == 4);
  CHECK(e->speedup == doctest::Approx(2.0).epsilon(0.05));
  CHECK(e->candidate.n == 4);
  CHECK(e->candidate.samples.front().context.cann_version == "8.0.RC1");
  CHECK(e->best.median_us == doctest::Approx(100).epsilon(0.05));
}

TEST_CASE("measure stops at the time budget once it has the minimum, and at the maximum") {
  std::mt19937_64 rng(3);
  noisy_target t(10, 0.05, rng);
  double now = 0;
  protocol_settings s;
  s.warmup_runs = 2;
  s.min_samples = 5;
  s.max_samples = 50;
  s.time_budget_s = 10;
  measurement_protocol protocol(s, nullptr, [&] { return now += 1; });
  auto m = protocol.measure(t);
  REQUIRE(m.ok());
  // Each clock reading advances a second and the clock is read only once the minimum is met:
  // start = 1, then readings 2..10 allow one more sample each (10 - 1 < 10 is the last).
  CHECK(m->n == 14);
  CHECK(t.launches == m->n + 2);
  CHECK(m->q1_us <= m->median_us);
  CHECK(m->median_us <= m->q3_us);
  CHECK(m->iqr_us == doctest::Approx(m->q3_us - m->q1_us));

  measurement_protocol unbounded(s, nullptr, frozen_clock);
  auto all = unbounded.measure(t);
  REQUIRE(all.ok());
  CHECK(all->n == 50);
  auto finalist = measurement_protocol(s, nullptr, frozen_clock).measure(t, true);
  REQUIRE(finalist.ok());
  CHECK(finalist->n == 150);
}

TEST_CASE("the baseline drift alarm fires beyond the threshold, only when due") {
  std::mt19937_64 rng(11);
  noisy_target baseline(100, 0.01, rng);
  noisy_target other(100, 0.01, rng);
  protocol_settings s;
  s.baseline_every = 2;
  measurement_protocol protocol(s, nullptr, frozen_clock);
  CHECK(protocol.baseline_due());
  auto first = protocol.check_baseline(baseline);
  REQUIRE(first.ok());
  CHECK_FALSE(first->alarm);
  CHECK_FALSE(protocol.baseline_due());
  REQUIRE(protocol.compare(other, baseline).ok());
  CHECK_FALSE(protocol.baseline_due());
  REQUIRE(protocol.compare(other, baseline).ok());
  CHECK(protocol.baseline_due());
  baseline.true_us_ = 110;  // the device got 10 % slower (thermal throttling, a clock change)
  auto drifted = protocol.check_baseline(baseline);
  REQUIRE(drifted.ok());
  CHECK(drifted->alarm);
  CHECK(drifted->ratio == doctest::Approx(1.10).epsilon(0.02));
  REQUIRE(protocol.last_drift());
  CHECK(protocol.last_drift()->alarm);
}

TEST_CASE("a failing launch or flush is an error naming the step") {
  struct broken : measurement_target {
    aopt::result<latency_sample> sample() override { return aopt::internal_error("msprof died"); }
  } t;
  measurement_protocol protocol({}, nullptr, frozen_clock);
  auto m = protocol.measure(t);
  REQUIRE_FALSE(m.ok());
  CHECK(m.error().message().find("warm-up") != std::string::npos);
  std::mt19937_64 rng(1);
  noisy_target ok(10, 0.01, rng);
  measurement_protocol no_flush(
      {}, [] { return aopt::internal_error("flush command failed"); }, frozen_clock);
  auto f = no_flush.measure(ok);
  REQUIRE_FALSE(f.ok());
  CHECK(f.error().message().find("L2 flush") != std::string::npos);
  protocol_settings bad;
  bad.max_samples = 3;
  CHECK_FALSE(validate(bad).ok());
}

TEST_CASE("the signed-rank interval has its exact textbook critical values") {
  // n = 6 at 95 %: only the extremes of the Walsh averages (coverage 1 - 2/64).
  auto six = signed_rank_interval({1, 2, 3, 4, 5, 6}, 0.95);
  CHECK(six.low == 1);
  CHECK(six.high == 6);
  CHECK(six.coverage == doctest::Approx(1 - 2.0 / 64));
  CHECK(six.estimate == 3.5);
  // n = 10 at 95 %: the critical value is 8 (P(T <= 8) = 25/1024), so the interval is
  // [W_(9), W_(47)] of the 55 sorted Walsh averages.
  std::vector<double> x;
  for (int i = 1; i <= 10; ++i) x.push_back(i);
  auto ten = signed_rank_interval(x, 0.95);
  CHECK(ten.coverage == doctest::Approx(1 - 2 * 25.0 / 1024));
  CHECK(ten.low == 3);  // Walsh averages of 1..10 sorted: 1, 1.5, 2, 2, 2.5, 2.5, 3, 3, 3, ...
  CHECK(ten.high == 8);
  // Small n: no interval reaches the confidence; the extremes and their real coverage.
  auto three = signed_rank_interval({1, 2, 3}, 0.95);
  CHECK(three.low == 1);
  CHECK(three.high == 3);
  CHECK(three.coverage == doctest::Approx(0.75));
}
