// A failed evaluation with its status and kind ("runtime_error", "bad_block_dim"): thrown where
// the failure is found, caught where the driver (candidate side) or the judge (trusted side)
// turns it into a report or a result. Also the bounds both sides enforce.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <utility>

namespace aopt::sim {

constexpr uint64_t max_workspace_bytes = uint64_t{1} << 30;
constexpr uint32_t max_block_dim = 65535;  // CANN's limit on logical blocks per launch

class evaluation_failure : public std::runtime_error {
 public:
  evaluation_failure(std::string status, std::string kind, const std::string& message)
      : std::runtime_error(message), status_(std::move(status)), kind_(std::move(kind)) {}
  const std::string& status() const { return status_; }
  const std::string& kind() const { return kind_; }

 private:
  std::string status_;
  std::string kind_;
};

[[noreturn]] inline void fail(const std::string& status, const std::string& kind,
                              const std::string& message) {
  throw evaluation_failure(status, kind, message);
}

}  // namespace aopt::sim
