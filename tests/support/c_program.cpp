#include "support/c_program.hpp"

#include <fstream>

#include <doctest/doctest.h>

#include "base/subprocess.hpp"

namespace aopt::testing {

std::string compile_c_program(const std::filesystem::path& dir, const std::string& name,
                              const std::string& source) {
  std::filesystem::path src = dir / (name + ".c");
  std::ofstream(src) << source;
  std::string exe = (dir / name).string();
  subprocess_options o;
  o.argv = {"/usr/bin/cc", "-O1", "-pthread", "-o", exe, src.string()};
  o.limits.wall_seconds = 60;
  auto r = run_subprocess(o);
  REQUIRE_MESSAGE(r.ok(), r.error().to_string());
  REQUIRE_MESSAGE(r->succeeded(), r->stderr_text);
  return exe;
}

}  // namespace aopt::testing
