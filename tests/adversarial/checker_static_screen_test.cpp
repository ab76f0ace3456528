// The token screen of the includes (issue 17 item 3, issue 30 item 3) on small sources: what it
// refuses names line and header; digraphs are what they stand for; comments and strings never
// trigger it; what the code calls is the AST screen's (checker_ast_screen_test.cpp), and every
// corpus operator passes both screens.
#include "npu/sim/device/static_screen.hpp"

#include <filesystem>

#include <doctest/doctest.h>

#include "npu/op_package.hpp"

namespace fs = std::filesystem;
using aopt::npu::screen_source;

namespace {

// The construct refused in `text`, or "" when it passes.
std::string refused(const std::string& text, uint32_t* line = nullptr) {
  auto f = screen_source("op_kernel/k.cpp", text, "op_host/k_tiling.h");
  if (f && line != nullptr) *line = f->line;
  return f ? f->construct : "";
}

}  // namespace

TEST_SUITE("adversarial") {
  TEST_CASE("the include screen names the line and the header it refuses") {
    uint32_t line = 0;
    CHECK(refused("#include \"kernel_operator.h\"\n\n#include <fstream>\n", &line) == "<fstream>");
    CHECK(line == 3);
    auto f =
        screen_source("op_host/h.cpp", "int x;\n#include <sys/socket.h>\n", "op_host/h_tiling.h");
    REQUIRE(f);
    CHECK(
        f->message() ==
        "op_host/h.cpp:2: `<sys/socket.h>` is forbidden: only the AscendC and tiling headers, the "
        "package's own files and the C++ standard headers a kernel needs may be included");
    // A header neither the system nor CANN has, included in angles as DrivingSDK includes its
    // <log/log.h>, is a repository's helper: the message says how to bring it, as for quotes.
    auto helper = screen_source("op_host/h.cpp", "#include <log/log.h>\n", "op_host/h_tiling.h");
    REQUIRE(helper);
    CHECK(helper->construct == "<log/log.h>");
    CHECK(helper->message().find("neither in the package nor a CANN header aopt provides") !=
          std::string::npos);
    CHECK(helper->message().find("include_dirs") != std::string::npos);
    auto system = screen_source("op_host/h.cpp", "#include <fstream>\n", "op_host/h_tiling.h");
    REQUIRE(system);
    CHECK(system->message().find("neither in the package") == std::string::npos);
  }

  TEST_CASE("the screen allows only the AscendC, tiling and plain standard headers") {
    CHECK(refused("#include \"kernel_operator.h\"\n#include <cmath>\n#include <algorithm>\n") ==
          "");
    CHECK(refused("#include \"k_tiling.h\"\n#include \"op_host/k_tiling.h\"\n") == "");
    CHECK(refused("#include \"register/tilingdata_base.h\"\n#include "
                  "\"tiling/platform/platform_ascendc.h\"\n") == "");
    CHECK(refused("#include <thread>\n") == "<thread>");
    CHECK(refused("#include <sys/socket.h>\n") == "<sys/socket.h>");
    CHECK(refused("#include <fstream>\n") == "<fstream>");
    CHECK(refused("#include \"aopt/reference.h\"\n") == "\"aopt/reference.h\"");
    CHECK(refused("#include \"register/../aopt_sim/driver_entry.h\"\n") ==
          "\"register/../aopt_sim/driver_entry.h\"");
    CHECK(refused("#define H <cstdio>\n#include H\n") == "#include");
    CHECK(refused("#include_next <cmath>\n") == "#include_next");
    CHECK(refused("#import <cmath>\n") == "#import");
    // A tiling program's memory, string and number headers and a log helper's identity queries;
    // what they declare is judged by the AST screen's allow-lists.
    CHECK(refused("#include <cstdlib>\n#include <stdlib.h>\n#include <sstream>\n") == "");
    CHECK(refused("#include <unistd.h>\n#include <sys/syscall.h>\n") == "");
    // A debug line's headers (the FILE* and file calls they declare stay refused by name).
    CHECK(refused("#include <iostream>\n#include <cstdio>\n#include <cctype>\n#include "
                  "<strings.h>\n") == "");
  }

  TEST_CASE("digraphs are the directives they spell") {
    uint32_t line = 0;
    CHECK(refused("int a;\n%:include <fstream>\n", &line) == "<fstream>");
    CHECK(line == 2);
    CHECK(refused("  %:  include <sys/socket.h>\n") == "<sys/socket.h>");
    CHECK(refused("%:include_next <cmath>\n") == "#include_next");
    CHECK(refused("%:define H <cstdio>\n%:include H\n") == "#include");
    // Not at the start of a line, %: is no directive (and a modulo then a colon is no digraph).
    CHECK(refused("int a = b %:include;\n") == "");
  }

  TEST_CASE("comments and literals never trigger the include screen") {
    CHECK(refused("// #include <fstream>\n/* #include <cstdio> */\nint f() { return 0; }") == "");
    CHECK(refused("const char* s = \"#include <fstream>\";\n") == "");
    CHECK(refused("auto r = R\"x(\n#include <fstream>\n)x\";\n") == "");
  }

  // The AST screen's side of the same promise is the corpus tests' (tests/corpus): every package
  // there is evaluated on a device that runs both screens, and ok requires passing them.
  TEST_CASE("every corpus operator's kernel and tiling program pass the token screen") {
    size_t screened = 0;
    for (const auto& level : fs::directory_iterator(fs::path(AOPT_SOURCE_DIR) / "corpus")) {
      if (!level.is_directory()) continue;
      for (const auto& dir : fs::directory_iterator(level.path())) {
        if (!fs::exists(dir.path() / "op.json")) continue;
        auto op = aopt::npu::load_op_package(dir.path());
        REQUIRE_MESSAGE(op.ok(), op.error().to_string());
        const auto& files = op->spec.files;
        for (const auto& [file, text] : {std::make_pair(files.host, op->host_source),
                                         std::make_pair(files.kernel, op->kernel_source)}) {
          auto f = screen_source(file, text, files.tiling_header);
          CHECK_MESSAGE(!f, dir.path().string() << ": " << (f ? f->message() : ""));
        }
        ++screened;
      }
    }
    CHECK(screened >= 50);
  }
}
