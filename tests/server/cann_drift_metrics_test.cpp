// /metrics carries the CANN devices' baseline drift checks.
#include <doctest/doctest.h>

#include "server/metrics.hpp"

TEST_CASE("prometheus_text writes the baseline drift ratio and alarm per operator and NPU") {
  aopt::server::metrics_snapshot m;
  const std::string none = aopt::server::prometheus_text(m);
  CHECK(none.find("# TYPE aopt_baseline_drift_alarm gauge\n") != std::string::npos);
  CHECK(none.find("aopt_baseline_drift_alarm{") == std::string::npos);
  m.drift = {{"add_custom", "0", 1.01, false}, {"softmax", "1", 1.2, true}};
  const std::string text = aopt::server::prometheus_text(m);
  CHECK(text.find("aopt_baseline_drift_ratio{operator=\"add_custom\",device=\"0\"} 1.01\n") !=
        std::string::npos);
  CHECK(text.find("aopt_baseline_drift_alarm{operator=\"add_custom\",device=\"0\"} 0\n") !=
        std::string::npos);
  CHECK(text.find("aopt_baseline_drift_alarm{operator=\"softmax\",device=\"1\"} 1\n") !=
        std::string::npos);
}
