// Compiles a small C test program with the system compiler (cc), for tests that need a real
// child process doing a particular thing (forking, calling ptrace, printing its environment).
#pragma once

#include <filesystem>
#include <string>

namespace aopt::testing {

// Writes <dir>/<name>.c, builds <dir>/<name> with -pthread and returns its path. Fails the
// current test (REQUIRE) when the compiler does.
std::string compile_c_program(const std::filesystem::path& dir, const std::string& name,
                              const std::string& source);

}  // namespace aopt::testing
