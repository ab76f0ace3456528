// Loading simulated-chip profiles from config/hardware/<name>.toml.
//
// A profile file holds every field of sim::hw_profile under its own name: `name` at the top
// level, the rest grouped in tables [core], [dma], [vector], [scalar] and [launch]
// (hardware_profile_tables() gives the grouping). Every field must be present, so no constant
// silently falls back to a built-in default; unknown keys and keys in the wrong table are errors.
//
// Thread-safety: free functions without shared state.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "base/status.hpp"
#include "npu/sim/runtime/hw_profile.hpp"

namespace aopt::npu {

struct hardware_profile_table {
  std::string table;                // "core"
  std::vector<std::string> fields;  // hw_profile field names that belong in it
};

const std::vector<hardware_profile_table>& hardware_profile_tables();

// Errors: not_found if the file does not exist; invalid_argument naming the file and the key
// for a syntax error, an unknown, misplaced, missing, mistyped or out-of-range key.
result<sim::hw_profile> load_hardware_profile(const std::filesystem::path& toml_file);

// `name_or_path` is a profile name ("ascend910b4" -> <hardware_dir>/ascend910b4.toml, whose
// `name` must match) or, when it contains a '/' or ends in ".toml", a path to a profile file.
// Errors: as load_hardware_profile; not_found lists the profiles available in hardware_dir.
result<sim::hw_profile> find_hardware_profile(const std::string& name_or_path,
                                              const std::filesystem::path& hardware_dir);

// Names of the *.toml profiles in `hardware_dir`, sorted; empty if the folder is missing.
std::vector<std::string> list_hardware_profiles(const std::filesystem::path& hardware_dir);

}  // namespace aopt::npu
