// The API coverage table stays honest: docs/ascendc-api-coverage.md lists exactly the entries of
// aopt::npu::ascendc_api_coverage(), and every API marked supported is used by at least one
// kernel or host program that the tests compile (tests/, corpus/). Both directions against the
// shim itself: every kernel API marked supported compiles against the shim and passes the static
// screen, and every name the shim declares in namespace AscendC is in the table. Plus the
// compile-error explainer that points kernel authors at the table.
#include <doctest/doctest.h>

#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "base/subprocess.hpp"
#include "npu/ascendc_api_coverage.hpp"
#include "npu/compile_error_explainer.hpp"
#include "npu/sim/device/static_screen.hpp"

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

// The kernel groups of the table (the host groups are checked by the host shim's tests).
bool kernel_group(const char* group) {
  return std::string(group).rfind("Kernel: ", 0) == 0;
}

// Names a kernel reaches outside namespace AscendC: the pre-AscendC intrinsics and the C/C++
// library functions kernel_operator.h makes visible.
const std::set<std::string> global_names = {"pipe_barrier", "set_flag", "wait_flag", "sbitset0",
                                            "sbitset1",     "printf",   "sqrt"};

// Rows that name a member function: a call of it in a function the probe never runs.
const std::map<std::string, std::string> member_calls = {
    {"InitBuffer",
     "AscendC::TPipe p; AscendC::TQue<AscendC::TPosition::VECIN, 1> q; "
     "p.InitBuffer(q, 1, 32);"},
    {"AllocTensor", "AscendC::TQue<AscendC::TPosition::VECIN, 1> q; q.AllocTensor<float>();"},
    {"EnQue",
     "AscendC::TQue<AscendC::TPosition::VECIN, 1> q; q.EnQue(AscendC::LocalTensor<float>());"},
    {"DeQue", "AscendC::TQue<AscendC::TPosition::VECIN, 1> q; q.DeQue<float>();"},
    {"FreeTensor",
     "AscendC::TQue<AscendC::TPosition::VECIN, 1> q; q.FreeTensor(AscendC::LocalTensor<float>());"},
    {"SetGlobalBuffer", "AscendC::GlobalTensor<float> g; g.SetGlobalBuffer(nullptr, 0);"},
    {"GetValue", "AscendC::LocalTensor<float> t; t.GetValue(0);"},
    {"SetValue", "AscendC::LocalTensor<float> t; t.SetValue(0, 1.0f);"},
    {"ReinterpretCast", "AscendC::LocalTensor<float> t; t.ReinterpretCast<int32_t>();"},
    {"FetchEventID", "AscendC::TPipe p; p.FetchEventID(AscendC::HardEvent::V_S);"},
};

// One line of a probe kernel that compiles only if the shim provides `name` as the table says.
std::string probe_line(const std::string& name) {
  const auto member = member_calls.find(name);
  if (member != member_calls.end())
    return "inline void probe_" + name + "() { " + member->second + " }";
  if (name.find('.') != std::string::npos) return "#include \"" + name + "\"";
  if (name == "cout") return "using std::cout;";
  if (global_names.count(name) != 0) return "using ::" + name + ";";
  // A macro (TILING_KEY_IS, ASSERT, likely, ...) or a declaration in namespace AscendC.
  return "#ifndef " + name + "\nusing AscendC::" + name + ";\n#endif";
}

// The names declared at namespace scope in namespace AscendC by the preprocessed shim `code`:
// classes, structs, enums, aliases, functions and variables (a token walk over the
// declarations, not a C++ parser: it reads what the shim's own headers write).
std::set<std::string> ascendc_declarations(const std::string& code) {
  static const std::regex token_re(R"([A-Za-z_]\w*|\S)");
  std::vector<std::string> toks;
  for (auto it = std::sregex_iterator(code.begin(), code.end(), token_re);
       it != std::sregex_iterator(); ++it)
    toks.push_back(it->str());
  std::set<std::string> names;
  std::vector<std::string> scope;  // "ns:Name" or "{"
  std::vector<std::string> stmt;
  auto in_ascendc = [&] { return scope.size() == 1 && scope[0] == "ns:AscendC"; };
  auto declared = [&](std::vector<std::string> d) {
    while (!d.empty() && d[0] == "template") {  // drop template headers
      size_t j = 1;
      int depth = 0;
      for (; j < d.size(); ++j) {
        if (d[j] == "<") ++depth;
        if (d[j] == ">" && --depth == 0) break;
      }
      d.erase(d.begin(), d.begin() + static_cast<std::ptrdiff_t>(std::min(j + 1, d.size())));
    }
    if (d.empty()) return;
    if (d[0] == "class" || d[0] == "struct" || d[0] == "enum") {
      const size_t k = d.size() > 1 && (d[1] == "class" || d[1] == "struct") ? 2 : 1;
      if (k < d.size()) names.insert(d[k]);
      return;
    }
    if (d[0] == "using") {
      if (d.size() > 2 && d[2] == "=") names.insert(d[1]);
      return;
    }
    const auto paren = std::find(d.begin(), d.end(), "(");
    if (paren != d.end()) {
      if (std::find(d.begin(), paren, "operator") != paren || paren == d.begin()) return;
      names.insert(*(paren - 1));
      return;
    }
    const auto eq = std::find(d.begin(), d.end(), "=");
    if (eq != d.end() && eq != d.begin()) names.insert(*(eq - 1));
  };
  for (size_t i = 0; i < toks.size(); ++i) {
    const std::string& t = toks[i];
    if (t == "namespace" && i + 2 < toks.size() && toks[i + 2] == "{") {
      scope.push_back("ns:" + toks[i + 1]);
      i += 2;
      stmt.clear();
    } else if (t == "{") {
      if (in_ascendc()) declared(stmt);
      scope.push_back("{");
      stmt.clear();
    } else if (t == "}") {
      if (!scope.empty()) scope.pop_back();
      stmt.clear();
    } else if (t == ";") {
      if (in_ascendc()) declared(stmt);
      stmt.clear();
    } else {
      stmt.push_back(t);
    }
  }
  return names;
}

subprocess_result compile_probe(const std::vector<std::string>& flags, const std::string& code,
                                const std::string& out_file) {
  const fs::path dir =
      fs::temp_directory_path() / ("aopt_coverage_probe_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const fs::path src = dir / "probe.cpp";
  std::ofstream(src) << code;
  subprocess_options o;
  o.argv = {AOPT_CXX_COMPILER, "-std=c++17", "-w", "-I", AOPT_SIM_INCLUDE_DIR};
  o.argv.insert(o.argv.end(), flags.begin(), flags.end());
  o.argv.push_back(src.string());
  if (!out_file.empty()) {
    o.argv.push_back("-o");
    o.argv.push_back((dir / out_file).string());
  }
  o.output_limit_bytes = 64 << 20;
  auto r = run_subprocess(o);
  REQUIRE(r.ok());
  subprocess_result result = std::move(r).value();
  if (!out_file.empty()) {
    std::ifstream in(dir / out_file, std::ios::binary);
    std::ostringstream os;
    os << in.rdbuf();
    result.stdout_text = os.str();
  }
  fs::remove_all(dir);
  return result;
}

TEST_SUITE("npu") {
  TEST_CASE("every kernel API marked supported compiles against the shim and passes the screen") {
    std::string probe = "#include \"kernel_operator.h\"\n";
    std::map<int, std::string> line_of;  // probe line -> API name
    int line = 2;
    size_t probed = 0;
    for (const ascendc_api& a : ascendc_api_coverage()) {
      if (a.support != api_support::supported || !kernel_group(a.group)) continue;
      const std::string text = probe_line(a.name);
      // The screen judges the name as a kernel would write it.
      const auto finding = screen_source("op_kernel/probe.cpp", text + "\n", "op_host/x_tiling.h");
      INFO(a.name);
      CHECK_FALSE(finding.has_value());
      for (char c : text + "\n") {
        if (c != '\n') continue;
        line_of[line++] = a.name;
      }
      probe += text + "\n";
      ++probed;
    }
    CHECK(probed > 150);
    const subprocess_result r = compile_probe({"-fsyntax-only"}, probe, "");
    std::set<std::string> failed;
    std::istringstream errors(r.stderr_text);
    std::string e;
    const std::regex at(R"(probe\.cpp:(\d+):\d+: (fatal )?error)");
    while (std::getline(errors, e)) {
      std::smatch m;
      if (std::regex_search(e, m, at)) failed.insert(line_of[std::stoi(m[1])]);
    }
    for (const std::string& name : failed) {
      INFO(name);
      CHECK_MESSAGE(false, "marked supported, but the shim does not provide it");
    }
    CHECK(r.succeeded());
    // And the probe catches a name the shim lacks.
    const subprocess_result bad = compile_probe(
        {"-fsyntax-only"},
        "#include \"kernel_operator.h\"\n" + probe_line("NoSuchAscendcApi") + "\n", "");
    CHECK_FALSE(bad.succeeded());
    // GetPhyAddr compiles; the AST screen allows it only as a GlobalTensor's address
    // (tests/adversarial/checker_ast_screen_test).
  }

  TEST_CASE(
      "the coverage table lists every name the shim declares in namespace AscendC, and marks "
      "none of them not yet") {
    const subprocess_result pp =
        compile_probe({"-E", "-P"}, "#include \"kernel_operator.h\"\n", "probe.ii");
    REQUIRE(pp.succeeded());
    const std::set<std::string> declared = ascendc_declarations(pp.stdout_text);
    // The walk sees the shim: the core APIs and this round's additions are among the names.
    for (const char* n : {"TPipe", "DataCopy", "Add", "AlignUp", "Sum", "BroadCast", "FULL_MASK"})
      CHECK(declared.count(n) == 1);
    CHECK(declared.size() > 200);
    std::string listed_text;
    std::set<std::string> listed;
    for (const ascendc_api& a : ascendc_api_coverage()) {
      listed.insert(a.name);
      listed_text += std::string(a.note) + " ";
    }
    for (const std::string& name : declared) {
      if (listed.count(name) != 0 || uses(listed_text, name)) continue;
      INFO(name);
      CHECK_MESSAGE(false, "the shim declares it, docs/ascendc-api-coverage.md does not list it");
    }
    // The other direction: a kernel API the page calls missing is one the shim does not declare
    // (a member, such as TBuf's, is no namespace-scope name).
    size_t not_yet = 0;
    for (const ascendc_api& a : ascendc_api_coverage()) {
      if (a.support != api_support::not_yet || !kernel_group(a.group)) continue;
      ++not_yet;
      INFO(a.name);
      CHECK_MESSAGE(declared.count(a.name) == 0,
                    "marked not yet in docs/ascendc-api-coverage.md, but the shim declares it");
    }
    // The loop checks something: Scatter stays not yet (the profiles' chips lack it), the other
    // rows until the shim provides them. How many there are is the table's business.
    CHECK(not_yet > 0);
  }

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
        explain_compile_error("k.cpp:7:12: error: no matching function for call to 'Sort(int)'");
    CHECK(partial.find("provided only in part") != std::string::npos);
    const std::string mistake =
        explain_compile_error("k.cpp:9:5: error: 'Addd' was not declared in this scope");
    CHECK(mistake.find("not an AscendC API the simulator knows") != std::string::npos);
    CHECK(mistake.find("most likely a mistake in the operator") != std::string::npos);
    // A documented API the shim lacks is said to be one, naming its coverage row's group.
    const std::string norm =
        explain_compile_error("k.cpp:146:26: error: 'TopK' is not a member of 'AscendC'");
    CHECK(norm.find("'TopK' is an AscendC API the simulator does not provide yet") !=
          std::string::npos);
    CHECK(norm.find("\"Kernel: math library (advanced APIs)\"") != std::string::npos);
    CHECK(norm.find("mistake") == std::string::npos);
    // The first error of an operator using a library API the shim lacks is often its tiling
    // struct in the host's tiling class: said to be one too, not a misspelling.
    for (const char* library : {"TopkTiling", "LogSoftMaxTiling"}) {
      INFO(library);
      const std::string tiling = explain_compile_error(std::string("op_host/t.h:11:32: error: '") +
                                                       library + "' does not name a type");
      CHECK(tiling.find("is an AscendC API the simulator does not provide yet") !=
            std::string::npos);
      CHECK(tiling.find("mistake") == std::string::npos);
    }
    // LoadDataWithTranspose: a cube row marked not yet (2D LoadData's ifTranspose is simulated).
    const std::string with_transpose = explain_compile_error(
        "k.cpp:40:9: error: 'LoadDataWithTranspose' was not declared in this scope");
    CHECK(with_transpose.find("does not provide yet") != std::string::npos);
    CHECK(with_transpose.find("\"Kernel: cube (matrix) path\"") != std::string::npos);
    // IBWait, CrossCoreWaitFlag and LoadData3DParamsV1, the examples here before, are the shim's
    // now: no longer explained as missing.
    for (const char* now : {"IBWait", "CrossCoreWaitFlag", "LoadData3DParamsV1"}) {
      INFO(now);
      CHECK(explain_compile_error(std::string("k.h:218:13: error: '") + now +
                                  "' was not declared in this scope")
                .find("does not provide yet") == std::string::npos);
    }
    // The names issue 34 found explained as mistakes are APIs the shim now provides.
    for (const char* now : {"AddRelu", "DivCeil", "FULL_MASK", "Extract", "BroadCast", "Sum",
                            "Atan", "Sign", "AscendCUtils", "IsSameType"}) {
      INFO(now);
      CHECK(explain_compile_error(std::string("k.cpp:1:1: error: '") + now +
                                  "' was not declared in this scope")
                .find("not an AscendC API the simulator knows") == std::string::npos);
    }
    // A missing CANN header: the row when the table lists it, else a pointer to the table. The
    // Matmul API's header was the row of a header not provided yet; the cube made it the shim's.
    CHECK(missing_header("k.cpp:6:10: fatal error: lib/matmul_intf.h: No such file or "
                         "directory") == "lib/matmul_intf.h");
    const ascendc_api* matmul = find_ascendc_api("lib/matmul_intf.h");
    REQUIRE(matmul != nullptr);
    CHECK(matmul->support == api_support::supported);
    CHECK(std::string(matmul->group) == "Kernel: cube (matrix) path");
    const std::string other =
        explain_compile_error("k.cpp:6:10: fatal error: my_helper.h: No such file or directory");
    CHECK(other.find("docs/ascendc-api-coverage.md") != std::string::npos);
    CHECK(other.find("must be in the package") != std::string::npos);
    const std::string overload =
        explain_compile_error("k.cpp:9:5: error: no matching function for call to 'Add(int)'");
    CHECK(overload.find("is provided by the simulator: check this call") != std::string::npos);
    CHECK(explain_compile_error("k.cpp:1:1: error: expected ';'") ==
          "k.cpp:1:1: error: expected ';'");
  }
}

}  // namespace
}  // namespace aopt::npu
