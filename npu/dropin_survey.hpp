// The drop-in survey (issue 34): every operator package under a folder (the wild set,
// ../shared/wild, by default) evaluated with its own sources, as a new user would drop it in,
// and summarised per package (status, the first line of the reason, latency) with the share
// that reaches `ok`. The drop-in bench prints it; a ctest holds its count of `ok` to a floor.
//
// Thread-safety: survey_packages runs `jobs` evaluations at once on one device, which must allow
// concurrent evaluate() calls (sim_device does).
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "npu/device.hpp"
#include "npu/op_package.hpp"

namespace aopt::npu {

struct dropin_row {
  std::string package;  // the folder's name
  std::string status;   // eval status, or "load_error" when the package did not load
  std::string error_kind;
  std::string reason;  // the first line of the message
  double latency_us = 0;
  bool ok() const { return status == "ok"; }
};

// The package folders (holding op.json) directly under `root`, sorted.
std::vector<std::filesystem::path> dropin_packages(const std::filesystem::path& root);

// Loads (with `load`) and evaluates each package of `dirs`, `jobs` at a time.
std::vector<dropin_row> survey_packages(const std::vector<std::filesystem::path>& dirs,
                                        device& target, const eval_options& options, uint32_t jobs,
                                        const package_load_options& load = {});

size_t count_ok(const std::vector<dropin_row>& rows);

// The Markdown table and the drop-in rate line ("drop-in rate: 7 of 25 ok (28 %)").
std::string dropin_table(const std::vector<dropin_row>& rows);

}  // namespace aopt::npu
