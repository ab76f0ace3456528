// Build step (CMakeLists.txt): writes the AST screen's precompiled shim headers and the shim's
// names into the folder given, so that no aopt process parses the shim for its screen again.
#include <cstdio>

#include "npu/sim/device/ast_screen.hpp"
#include "npu/sim/device/candidate_builder.hpp"

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s <output folder>\n", argv[0]);
    return 2;
  }
  const aopt::status s =
      aopt::npu::ast_screen::prebuild(aopt::npu::default_sim_toolchain(), argv[1]);
  if (!s.ok()) {
    std::fprintf(stderr, "%s\n", s.to_string().c_str());
    return 1;
  }
  return 0;
}
