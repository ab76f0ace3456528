// A repository as DrivingSDK lays one out, around tests/data/ops/team_layout_add: the package is
// <root>/kernels/team_layout_add and its tiling helper lives in <root>/include instead
// (tiling_helpers/tile_math.h), so the package evaluates only with that folder named.
// Thread-safety: one owner.
#pragma once

#include <filesystem>

#include "support/temp_dir.hpp"

namespace aopt::testing {

struct team_layout_repository {
  temp_dir root;
  std::filesystem::path package = root.path() / "kernels" / "team_layout_add";
  std::filesystem::path include = root.path() / "include";

  team_layout_repository() {
    namespace fs = std::filesystem;
    fs::create_directories(package.parent_path());
    fs::create_directories(include / "tiling_helpers");
    fs::copy(fs::path(AOPT_TEST_DATA_DIR) / "ops" / "team_layout_add", package,
             fs::copy_options::recursive);
    fs::rename(package / "op_host" / "tiling_helpers" / "tile_math.h",
               include / "tiling_helpers" / "tile_math.h");
    fs::remove(package / "op_host" / "tiling_helpers");
  }
};

}  // namespace aopt::testing
