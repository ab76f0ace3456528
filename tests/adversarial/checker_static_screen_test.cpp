// The static screen (issue 17 item 3) on small sources: what it refuses names line and
// construct; comments, strings and member names never trigger it; the corpus passes.
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
  TEST_CASE("the screen refuses system calls, exits and file access, naming line and construct") {
    uint32_t line = 0;
    CHECK(refused("#include \"kernel_operator.h\"\nvoid f() {\n  _exit(0);\n}\n", &line) ==
          "_exit");
    CHECK(line == 3);
    CHECK(refused("void f() { ::write(1, \"x\", 1); }") == "write");
    CHECK(refused("void f() { auto* p = fopen(\"result.json\", \"w\"); }") == "fopen");
    CHECK(refused("void g(); void f() { std::atexit(g); }") == "atexit");
    CHECK(refused("void f() { ptrace(0, 0, 0, 0); }") == "ptrace");
    CHECK(refused("void f() { execve(0, 0, 0); }") == "execve");
    CHECK(refused("void f() { signal(11, 0); }") == "signal");
    CHECK(refused("void f() { dlopen(\"x\", 0); }") == "dlopen");
    CHECK(refused("void f() { asm(\"nop\"); }") == "asm");
    CHECK(refused("void f() { __asm__ volatile(\"\"); }") == "__asm__");
    auto f = screen_source("op_host/h.cpp", "int x;\nvoid f() { mmap(0, 0, 0, 0, 0, 0); }",
                           "op_host/h_tiling.h");
    REQUIRE(f);
    CHECK(f->message() ==
          "op_host/h.cpp:2: `mmap` is forbidden: a system call, its wrapper or a "
          "file/process/exit facility");
  }

  TEST_CASE("the screen allows only the AscendC, tiling and plain standard headers") {
    CHECK(refused("#include \"kernel_operator.h\"\n#include <cmath>\n#include <algorithm>\n") ==
          "");
    CHECK(refused("#include \"k_tiling.h\"\n#include \"op_host/k_tiling.h\"\n") == "");
    CHECK(refused("#include \"register/tilingdata_base.h\"\n#include "
                  "\"tiling/platform/platform_ascendc.h\"\n") == "");
    CHECK(refused("#include <cstdio>\n") == "<cstdio>");
    CHECK(refused("#include <sys/socket.h>\n") == "<sys/socket.h>");
    CHECK(refused("#include <fstream>\n") == "<fstream>");
    CHECK(refused("#include \"aopt/reference.h\"\n") == "\"aopt/reference.h\"");
    CHECK(refused("#include \"register/../aopt_sim/driver_entry.h\"\n") ==
          "\"register/../aopt_sim/driver_entry.h\"");
    CHECK(refused("#define H <cstdio>\n#include H\n") == "#include");
    CHECK(refused("#include_next <cmath>\n") == "#include_next");
    // A tiling program's memory, string and number headers; what they declare that reaches the
    // system stays refused by name.
    CHECK(refused("#include <cstdlib>\n#include <stdlib.h>\n#include <sstream>\n") == "");
    CHECK(refused("#include <cstdlib>\nvoid f() { std::system(\"id\"); }\n") == "system");
    CHECK(refused("#include <cstdlib>\nvoid f() { setenv(\"A\", \"b\", 1); }\n") == "setenv");
    // Reading the environment is harmless: a candidate runs without aopt's.
    CHECK(refused("#include <cstdlib>\nbool f() { return std::getenv(\"LOG\") != nullptr; }\n") ==
          "");
  }

  TEST_CASE("host log helpers may ask for their process and thread id, and nothing else") {
    // A repository's log helper, as CANN operator projects write it: the ids go into the prefix.
    CHECK(
        refused("#include <unistd.h>\n#include <sys/syscall.h>\n"
                "uint64_t tid() { return static_cast<uint64_t>(syscall(__NR_gettid)); }\n"
                "long pid() { return getpid() + syscall(SYS_gettid) + syscall(SYS_getpid); }\n") ==
        "");
    // unistd.h declares far more: every call that reaches the system stays refused by name.
    uint32_t line = 0;
    CHECK(refused("#include <unistd.h>\nvoid f() {\n  fork();\n}\n", &line) == "fork");
    CHECK(line == 3);
    CHECK(refused("#include <unistd.h>\nvoid f() { ::write(2, \"x\", 1); }\n") == "write");
    // syscall itself only with an identity query's number, never another or a computed one.
    CHECK(refused("void f() { syscall(__NR_write, 1, \"x\", 1); }\n") == "syscall");
    CHECK(refused("void f() { syscall(SYS_kill, 1, 9); }\n") == "syscall");
    CHECK(refused("void f(long n) { syscall(n); }\n") == "syscall");
    CHECK(refused("void f() { syscall(__NR_gettid + 1); }\n") == "syscall");
    CHECK(refused("void f() { auto g = syscall; }\n") == "syscall");
  }

  TEST_CASE("a macro's body is judged on its own, never joined to the code around it") {
    // DrivingSDK's ADD_TILING_DATA: a comparison inside one macro and a call in the next were
    // read as one namespace-scope `x = call()`.
    CHECK(
        refused("#define CHECK_NULLPTR(ptr) \\\n  if (ptr == nullptr) { \\\n    return 1; \\\n  }\n"
                "#define ADD(context, t) \\\n  CHECK_NULLPTR(context->Raw()) \\\n"
                "  t.Save(context->Raw()->GetData());\n") == "");
    CHECK(refused("bool ok = a <= b;\nbool ne = a != b;\n") == "");
    // Still refused: a call initialising a namespace-scope variable after a macro, and inside
    // one macro's body.
    CHECK(refused("#define N 4\nint g();\nint forged = g();\n") == "g(...)");
    CHECK(refused("#define FORGE int forged = g();\n") == "g(...)");
  }

  TEST_CASE("the screen refuses static constructors, raw pointers, internals and token pasting") {
    CHECK(refused("__attribute__((constructor)) void f() {}") == "constructor attribute");
    CHECK(refused("[[gnu::destructor]] void f() {}") == "destructor attribute");
    CHECK(refused("int g();\nstatic int forged = g();\n") == "g(...)");
    CHECK(refused("static int forged = [] { return 1; }();\n") == "}(...)");
    CHECK(refused("struct Spy { Spy() { } };\nSpy spy;\n") == "Spy spy");
    CHECK(refused("namespace { struct Spy { ~Spy() {} }; static Spy spy{}; }\n") == "Spy spy");
    CHECK(refused("void f(T t) { auto* p = t.GetPhyAddr(); }") == "GetPhyAddr");
    CHECK(refused("void f() { aopt_reference(a, b, c); }") == "aopt_reference");
    CHECK(refused("void f() { aopt::sim::core_context::current(); }") == "aopt");
    CHECK(refused("#define J(a, b) a##b\n") == "##");
    CHECK(refused("#define J(a, ...) f(a, ## x)\n") == "##");
    // GNU's comma before an empty __VA_ARGS__ pastes nothing.
    CHECK(refused("#define LOG(fmt, ...) log(fmt, ##__VA_ARGS__)\n") == "");
    CHECK(refused("void f() { void* p = __builtin_frame_address(0); }") ==
          "__builtin_frame_address");
  }

  TEST_CASE("comments, literals, members and compile-time initialisers pass the screen") {
    CHECK(refused("// _exit(0); fopen\n/* asm(\"x\") write */\nint f() { return 0; }") == "");
    CHECK(refused("const char* s = \"_exit(0) fopen asm\";\nchar c = '\\'';\n") == "");
    CHECK(refused("auto r = R\"x(atexit(\"y\") ptrace)x\";\n") == "");
    CHECK(refused("void f(Q q) { q.write(1); q->read(); pipe.InitBuffer(q, 2, 64); }") == "");
    CHECK(refused("constexpr uint32_t N = std::max(1u, 2u);\nconst int M = 4 * sizeof(int);\n") ==
          "");
    CHECK(refused("struct K { K() {} void Run(); };\nvoid f() { K k; static int n = g(); }\n") ==
          "");
    CHECK(refused("namespace ops {\nclass Op : public OpDef {\npublic:\n  explicit Op(const "
                  "char* n) : OpDef(n) {}\n};\nOP_ADD(Op);\n}\n") == "");
  }

  TEST_CASE("every corpus operator's kernel and tiling program pass the screen") {
    size_t screened = 0;
    for (const auto& level : fs::directory_iterator(fs::path(AOPT_SOURCE_DIR) / "corpus")) {
      for (const auto& dir : fs::directory_iterator(level.path())) {
        auto op = aopt::npu::load_op_package(dir.path());
        REQUIRE_MESSAGE(op.ok(), op.error().to_string());
        const auto& files = op->spec.files;
        for (const auto& [file, text] : {std::make_pair(files.host, op->host_source),
                                         std::make_pair(files.kernel, op->kernel_source)}) {
          auto f = screen_source(file, text, files.tiling_header);
          CHECK_MESSAGE(!f, dir.path().string() << ": " << (f ? f->message() : ""));
          ++screened;
        }
      }
    }
    CHECK(screened >= 100);
  }
}
