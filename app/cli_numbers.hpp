// CLI11 validators for whole-number options whose refusals read as sentences (issue 34 item 7):
// "--budget: -3 is not a whole number of 0 or more" rather than CLI11's range up to the largest
// double (a 309-digit number).
#pragma once

#include <cstdint>

#include <CLI/CLI.hpp>

namespace aopt::runtime {

// Accepts a whole number (decimal digits, no sign) of at least `minimum`.
CLI::Validator whole_number_at_least(uint64_t minimum);

}  // namespace aopt::runtime
