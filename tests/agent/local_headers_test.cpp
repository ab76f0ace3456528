// A split kernel is read with the headers beside it that it includes, each once, transitively;
// headers elsewhere are not read.
#include "agent/kernel_text/local_headers.hpp"

#include <doctest/doctest.h>

#include <fstream>

#include "support/temp_dir.hpp"

namespace {

void write(const std::filesystem::path& path, const std::string& text) {
  std::ofstream out(path);
  out << text;
  REQUIRE(out.good());
}

}  // namespace

TEST_SUITE("agent") {
  TEST_CASE("a kernel is read with the headers beside it that it includes, each once") {
    aopt::testing::temp_dir dir;
    const std::string kernel =
        "#include \"kernel_operator.h\"\n#include \"split.h\"\n  # include \"split.h\"\n";
    write(dir.path() / "op.cpp", kernel);
    write(dir.path() / "split.h", "#include \"deeper.h\"\nclass Split { /* split body */ };\n");
    write(dir.path() / "deeper.h", "#include \"split.h\"\n// deeper body\n");
    const std::string whole = aopt::agent::with_local_headers(kernel, dir.path() / "op.cpp");
    CHECK(whole.rfind(kernel, 0) == 0);
    CHECK(whole.find("/* split body */") != std::string::npos);
    CHECK(whole.find("// deeper body") != std::string::npos);
    CHECK(whole.find("/* split body */") == whole.rfind("/* split body */"));
    // No path, no headers: the kernel alone (kernel_operator.h is the shim's, never read).
    CHECK(aopt::agent::with_local_headers(kernel, {}) == kernel);
  }
}
