// The API coverage table stays honest: docs/ascendc-api-coverage.md lists exactly the entries of
// aopt::npu::ascendc_api_coverage(), and every API marked supported is used by at least one
// kernel or host program that the tests compile (tests/, corpus/). Plus the compile-error
// explainer that points kernel authors at the table.
#include <doctest/doctest.h>

#include <cctype>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "npu/ascendc_api_coverage.hpp"
#include "npu/compile_error_explainer.hpp"

namespace aopt::npu {
namespace {

namespace fs = std::filesystem;

std::string read(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream os;
  os << in.rdbuf();
  return os.str();
}

// "group/name" -> status, from the page's tables under "## group" headings.
std::map<std::string, std::string> page_entries(const std::string& page) {
  std::map<std::string, std::string> out;
  std::istringstream lines(page);
  std::string line, group;
  while (std::getline(lines, line)) {
    if (line.rfind("## ", 0) == 0) group = line.substr(3);
    if (line.rfind("| `", 0) != 0) continue;
    const size_t name_end = line.find('`', 3);
    const std::string name = line.substr(3, name_end - 3);
    const size_t status_begin = line.find("| ", name_end) + 2;
    const size_t status_end = line.find(" |", status_begin);
    out[group + "/" + name] = line.substr(status_begin, status_end - status_begin);
  }
  return out;
}

bool is_ident(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_';
}

// Whether `text` uses `name` as a whole identifier.
bool uses(const std::string& text, const std::string& name) {
  for (size_t at = text.find(name); at != std::string::npos; at = text.find(name, at + 1)) {
    const bool left = at == 0 || !is_ident(text[at - 1]);
    const bool right = at + name.size() == text.size() || !is_ident(text[at + name.size()]);
    if (left && right) return true;
  }
  return false;
}

// The compiled test programs: sources under tests/ (but not this file, which names no API) and
// the corpus operators the corpus tests build.
std::string compiled_test_sources() {
  std::string all;
  const fs::path root(AOPT_SOURCE_DIR);
  for (const char* dir : {"tests", "corpus"}) {
    for (const auto& e : fs::recursive_directory_iterator(root / dir)) {
      const std::string ext = e.path().extension().string();
      if (e.is_regular_file() && (ext == ".cpp" || ext == ".h" || ext == ".hpp"))
        all += read(e.path()) + "\n";
    }
  }
  return all;
}

TEST_SUITE("npu") {
  TEST_CASE("docs/ascendc-api-coverage.md lists exactly the coverage table") {
    const std::string page = read(fs::path(AOPT_SOURCE_DIR) / "docs/ascendc-api-coverage.md");
    REQUIRE_FALSE(page.empty());
    std::map<std::string, std::string> expected;
    for (const ascendc_api& a : ascendc_api_coverage())
      expected[std::string(a.group) + "/" + a.name] = to_string(a.support);
    const std::map<std::string, std::string> listed = page_entries(page);
    for (const auto& [key, status] : expected) {
      INFO(key);
      REQUIRE(listed.count(key) == 1);
      CHECK(listed.at(key) == status);
    }
    CHECK(listed.size() == expected.size());
  }

  TEST_CASE("every API marked supported is used by a compiled test kernel or host program") {
    const std::string sources = compiled_test_sources();
    size_t supported = 0;
    for (const ascendc_api& a : ascendc_api_coverage()) {
      if (a.support != api_support::supported) continue;
      ++supported;
      INFO(std::string(a.name));
      CHECK(uses(sources, a.name));
    }
    CHECK(supported > 100);
  }

  TEST_CASE("a compile error names the missing symbol and says whose it is") {
    CHECK(missing_symbol("k.cpp:9:5: error: 'Scatter' was not declared in this scope") ==
          "Scatter");
    CHECK(
        missing_symbol("k.cpp:9:5: error: \xE2\x80\x98TBufPool\xE2\x80\x99 does not name a type") ==
        "TBufPool");
    CHECK(missing_symbol("k.cpp:3:1: error: 'Scatter' is not a member of 'AscendC'") == "Scatter");
    CHECK(missing_symbol("k.cpp:7:12: error: no matching function for call to "
                         "'Gather(AscendC::LocalTensor<float>&, int)'") == "Gather");
    CHECK(missing_symbol("k.cpp:7:12: error: 'class AscendC::TPipe' has no member named "
                         "'InitBufPool'") == "InitBufPool");
    CHECK(missing_symbol("k.cpp:1:1: error: expected ';' before '}' token") == "");

    const std::string not_yet =
        explain_compile_error("k.cpp:9:5: error: 'Scatter' was not declared in this scope");
    CHECK(not_yet.find("'Scatter' is an AscendC API the simulator does not provide yet") !=
          std::string::npos);
    CHECK(not_yet.find("docs/ascendc-api-coverage.md") != std::string::npos);
    const std::string partial =
        explain_compile_error("k.cpp:7:12: error: no matching function for call to 'Gather(int)'");
    CHECK(partial.find("provided only in part") != std::string::npos);
    const std::string mistake =
        explain_compile_error("k.cpp:9:5: error: 'Addd' was not declared in this scope");
    CHECK(mistake.find("not an AscendC API the simulator knows: most likely a mistake in the "
                       "operator") != std::string::npos);
    const std::string overload =
        explain_compile_error("k.cpp:9:5: error: no matching function for call to 'Add(int)'");
    CHECK(overload.find("is provided by the simulator: check this call") != std::string::npos);
    CHECK(explain_compile_error("k.cpp:1:1: error: expected ';'") ==
          "k.cpp:1:1: error: expected ';'");
    // The Matmul library's header stands for its row (the cube's high-level API).
    const std::string matmul = explain_compile_error(
        "k.cpp:2:10: fatal error: lib/matmul_intf.h: No such file or directory");
    CHECK(matmul.find("'Matmul'") != std::string::npos);
    CHECK(matmul.find("provided only in part") != std::string::npos);
    CHECK(missing_symbol("k.cpp:2:10: fatal error: other.h: No such file or directory") == "");
  }
}

}  // namespace
}  // namespace aopt::npu
