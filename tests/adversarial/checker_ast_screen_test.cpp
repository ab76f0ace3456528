// The AST screen (issue 30 item 3): the package's code is judged against allow-lists after
// parsing, so that every bypass of the former deny-list (digraphs, __attribute((constructor)),
// [[using gnu: constructor]], class-body and variable-template initialisers, glibc aliases, the
// public composite internals) and the red team's own classes (function pointers, templates,
// using-declarations, lambdas in initialisers, private-member robbery, builtins, asm labels,
// pragmas, redeclared internals, thread-local and static destructors) are refused, naming the
// construct, file and line; honest code passes. The last cases evaluate each exploit on the
// screened device and then the honest candidate at its true latency.
#include "npu/sim/device/ast_screen.hpp"

#include <fstream>

#include <doctest/doctest.h>
#include <fmt/format.h>

#include "adversarial/checker_fixture.hpp"
#include "base/scratch_dir.hpp"
#include "npu/sim/device/static_screen.hpp"

namespace fs = std::filesystem;
using aopt::npu::screen_finding;

namespace {

// One screen for the file's cases: its PCHs are built once.
struct screen_fixture {
  aopt::scratch_dir work = aopt::testing::checker_fixture::make_work_dir();
  aopt::npu::op_package op = aopt::testing::checker_fixture::load_op();
  aopt::npu::ast_screen screen{aopt::npu::default_sim_toolchain(), work.path()};
  std::set<std::string> shim =
      aopt::npu::shim_header_set(aopt::npu::default_sim_toolchain().include_dir.string());

  // The token screen of the includes, then the AST screen, as the device runs them.
  std::optional<screen_finding> run(const std::string& host, const std::string& kernel) {
    const aopt::npu::screen_includes inc{op.spec.files.tiling_header,
                                         aopt::npu::package_file_set(op), shim};
    if (auto f = aopt::npu::screen_source(op.spec.files.host, host, inc)) return f;
    if (auto f = aopt::npu::screen_source(op.spec.files.kernel, kernel, inc)) return f;
    return screen.screen(op, host, &kernel);
  }
};

screen_fixture& fixture() {
  static screen_fixture f;
  return f;
}

// What the screen refuses in the honest kernel with `code` appended ("" when it passes).
std::string kernel_refusal(const std::string& code, screen_finding* out = nullptr) {
  auto& f = fixture();
  const auto found = f.run(f.op.host_source, f.op.kernel_source + "\n" + code + "\n");
  if (found && out != nullptr) *out = *found;
  if (found && found->unjudged) return "unjudged: " + found->message();
  return found ? found->construct : "";
}

std::string host_refusal(const std::string& code) {
  auto& f = fixture();
  const auto found = f.run(f.op.host_source + "\n" + code + "\n", f.op.kernel_source);
  if (found && found->unjudged) return "unjudged: " + found->message();
  return found ? found->construct : "";
}

// The kernel line the appended code's first line lands on.
uint32_t appended_line() {
  const std::string& k = fixture().op.kernel_source;
  return static_cast<uint32_t>(std::count(k.begin(), k.end(), '\n')) + 2;
}

}  // namespace

TEST_SUITE("adversarial") {
  TEST_CASE("the honest package passes the AST screen, and a second screen is cached") {
    auto& f = fixture();
    CHECK_FALSE(f.run(f.op.host_source, f.op.kernel_source).has_value());
    const uint64_t parsed = f.screen.units_parsed();
    CHECK_FALSE(f.run(f.op.host_source, f.op.kernel_source).has_value());
    CHECK(f.screen.units_parsed() == parsed);
    // A tiling-only change parses the host unit only.
    CHECK_FALSE(f.run(f.op.host_source + "\n// a comment\n", f.op.kernel_source).has_value());
    CHECK(f.screen.units_parsed() == parsed + 1);
  }

  TEST_CASE("the deny-list's known bypasses are refused by the allow-lists") {
    screen_finding found;
    // Digraphs: an include and token pasting.
    CHECK(kernel_refusal("%:include <fstream>") == "<fstream>");
    CHECK(kernel_refusal("#include <unistd.h>\n#define J(a, b) a%:%:b\n"
                         "void forge() { J(_ex, it)(0); }",
                         &found) == "_exit");
    CHECK(found.line == appended_line() + 2);
    CHECK(found.file == "op_kernel/add_tiled.cpp");
    // Static constructors in any spelling.
    CHECK(kernel_refusal("__attribute((constructor)) void forge() {}") == "constructor attribute");
    CHECK(kernel_refusal("[[using gnu: constructor]] void forge() {}") == "constructor attribute");
    CHECK(kernel_refusal("[[gnu::destructor]] void forge() {}") == "destructor attribute");
    // Class-body and variable-template initialisers run before the entry.
    CHECK(kernel_refusal("int forge();\nstruct Spy { static inline int v = forge(); };\n"
                         "int forge() { return 1; }") == "v");
    CHECK(kernel_refusal("int forge() { return 1; }\ntemplate <class T> int vt = forge();\n"
                         "int use() { return vt<int>; }") == "vt");
    // glibc's aliases of the calls the deny-list named, declared by the candidate itself.
    CHECK(kernel_refusal("extern \"C\" int creat64(const char*, unsigned);\n"
                         "void forge() { creat64(\"x\", 0600); }") == "creat64");
    CHECK(kernel_refusal("extern \"C\" long __write(int, const void*, unsigned long);\n"
                         "void forge() { __write(1, \"x\", 1); }") == "__write");
    CHECK(kernel_refusal("extern \"C\" int openat64(int, const char*, int, ...);\n"
                         "void forge() { openat64(-100, \"x\", 0); }") == "openat64");
    // The composite internals are private: no raw UB pointers for a chosen work size.
    CHECK(kernel_refusal(
              "void forge(AscendC::LocalTensor<float> t) {\n"
              "  uint8_t* p[1];\n"
              "  AscendC::detail::composite_call(aopt_sim::rt::vec_class::simple, {}, p, "
              "0, \"x\", aopt_sim::rt::call_site(0));\n}") == "AscendC::detail::composite_call");
  }

  TEST_CASE("the red team's own classes are refused") {
    // 1. An internal through a function pointer.
    CHECK(kernel_refusal("auto forge = &AscendC::detail::composite_call;") ==
          "AscendC::detail::composite_call");
    // 2. An internal left for a template's instantiation to find (ADL), and a dependent member.
    CHECK(kernel_refusal("template <class T> void forge(T t) { composite_call(t, {}, 0, 0, "
                         "\"x\", {}); }") == "composite_call");
    CHECK(kernel_refusal("template <class T> void forge(T t) { t.aopt_ref(); }") == "aopt_ref");
    // 3. A using-declaration or a namespace alias of the internals.
    CHECK(kernel_refusal("using AscendC::detail::composite_call;") == "AscendC::detail");
    CHECK(kernel_refusal("namespace d = AscendC::detail;") == "AscendC::detail");
    // 4. A lambda called in a static initialiser, reaching the runtime before the entry.
    CHECK(kernel_refusal("static uint32_t forged = [] { return AscendC::GetBlockNum(); }();") ==
          "forged");
    // 5. Robbing a private member of the shim through an explicit instantiation.
    CHECK(kernel_refusal("template <auto M> struct Rob { friend auto steal(Rob) { return M; } };\n"
                         "template struct Rob<&AscendC::LocalTensor<float>::size_>;") ==
          "AscendC::LocalTensor::size_");
    // 6. Builtins that walk the stack or jump out of it.
    CHECK(kernel_refusal("void* forge() { return __builtin_frame_address(0); }") ==
          "__builtin_frame_address");
    CHECK(kernel_refusal("void* forge() { return __builtin_return_address(0); }") ==
          "__builtin_return_address");
    // 7. A symbol renamed by an assembler label (glibc's own __REDIRECT macro spells it).
    CHECK(kernel_refusal(
              "#include <stdlib.h>\n"
              "extern int __REDIRECT(forge, (int, const void*, unsigned long), write);") == "asm");
    CHECK(kernel_refusal("int forge asm(\"write\");") == "asm");
    // 8. Pragmas that rename or re-expose symbols.
    CHECK(kernel_refusal("#pragma redefine_extname forge write") ==
          "#pragma redefine_extname forge write");
    CHECK(kernel_refusal("_Pragma(\"GCC visibility push(default)\")") ==
          "_Pragma(GCC visibility push(default))");
    // 9. The internals redeclared by the candidate: naming their types is refused first, and
    // the shim's declaration is the one judged.
    CHECK(kernel_refusal(
              "namespace AscendC { namespace detail {\n"
              "void composite_call(aopt_sim::rt::vec_class, "
              "std::initializer_list<composite_operand>, uint8_t**, uint64_t, const "
              "char*, aopt_sim::rt::call_site);\n}}\n"
              "void forge() { uint8_t* p[1]; AscendC::detail::composite_call("
              "aopt_sim::rt::vec_class::simple, {}, p, 0, \"x\", aopt_sim::rt::call_site(0)); }") ==
          "aopt_sim");
    // 14. A shim macro's name redefined by the package (a comment hides the directive from a
    // line reader): no expansion of that name is the shim's any more, so the internals the
    // kernel's own GET_TILING_DATA reaches are refused first.
    CHECK(kernel_refusal("#undef GET_TILING_DATA\n# /**/ define GET_TILING_DATA(v, t) auto v = "
                         "&AscendC::detail::composite_call\n"
                         "void forge() { GET_TILING_DATA(p, 0); }") == "aopt_sim");
    // 10. The environment of the process, declared by the candidate (environ is libc's).
    CHECK(kernel_refusal("extern char** environ;\nchar* forge() { return environ[0]; }") ==
          "environ");
    // 11. Code that runs after the entry: a static object's destructor, thread-local storage.
    CHECK(kernel_refusal("struct Spy { ~Spy() {} };\nSpy spy;") == "spy");
    CHECK(kernel_refusal("thread_local int forged = 1;") == "thread_local");
    // 12. The C library beyond memory, strings and math; system calls beyond identity queries.
    CHECK(host_refusal("#include <cstdlib>\nvoid forge() { std::system(\"id\"); }") == "system");
    CHECK(host_refusal("#include <cstdlib>\nvoid forge() { std::quick_exit(0); }") == "quick_exit");
    CHECK(host_refusal("#include <unistd.h>\n#include <sys/syscall.h>\n"
                       "void forge() { syscall(SYS_write, 1, \"x\", 1); }") == "syscall");
    CHECK(host_refusal("#include <unistd.h>\nvoid forge() { auto f = &syscall; }") == "syscall");
    // 13. Raw pointers to the simulated memories and file-scope assembly.
    CHECK(kernel_refusal("void forge(AscendC::GlobalTensor<float> t) { auto* p = t.GetPhyAddr(); "
                         "}") == "GetPhyAddr");
    CHECK(kernel_refusal("asm(\".globl forge\");") == "asm");
  }

  TEST_CASE("what the former deny-list named is refused by the allow-lists, naming file and line") {
    screen_finding found;
    CHECK(kernel_refusal("#include <unistd.h>\nvoid forge() {\n  fork();\n}", &found) == "fork");
    CHECK(found.line == appended_line() + 2);
    CHECK(found.message() ==
          fmt::format("op_kernel/add_tiled.cpp:{}: `fork` is forbidden: not on the C library's "
                      "allow-list (memory, strings, math): files, processes, signals, sockets, "
                      "dynamic loading and exit paths are refused",
                      appended_line() + 2));
    CHECK(kernel_refusal("#include <unistd.h>\nvoid forge() { _exit(0); }") == "_exit");
    CHECK(kernel_refusal("#include <unistd.h>\nvoid forge() { ::write(1, \"x\", 1); }") == "write");
    CHECK(kernel_refusal("#include <unistd.h>\nvoid forge() { execve(0, 0, 0); }") == "execve");
    CHECK(host_refusal("#include <cstdlib>\nvoid g();\nvoid forge() { std::atexit(g); }") ==
          "atexit");
    CHECK(host_refusal("#include <cstdlib>\nvoid forge() { std::exit(0); }") == "exit");
    CHECK(host_refusal("#include <cstdlib>\nvoid forge() { setenv(\"A\", \"b\", 1); }") ==
          "setenv");
    // <string> declares the C stdio functions on the way: declared is not allowed.
    CHECK(host_refusal("#include <string>\nvoid forge() { std::fopen(\"result.json\", \"w\"); }") ==
          "fopen");
    CHECK(host_refusal("#include <cstdio>\nvoid forge() { std::fputs(\"x\", nullptr); }") ==
          "fputs");
    // Reading the environment is harmless: a candidate runs without aopt's.
    CHECK(host_refusal(
              "#include <cstdlib>\nbool f() { return std::getenv(\"LOG\") != nullptr; }") == "");
    // The simulator's internals by any route.
    CHECK(kernel_refusal("void forge() { aopt_sim::rt::vec_class c{}; (void)c; }") == "aopt_sim");
  }

  TEST_CASE("honest constructs pass the AST screen") {
    CHECK(kernel_refusal("constexpr uint32_t kAlign = 32;\nconst float kScale = 0.5f * 2;\n"
                         "static const int kTable[3] = {1, 2, 3};\n"
                         "struct Cfg { static constexpr int n = 4; static const int m = 2; };\n"
                         "namespace detail { inline int CeilDiv(int a, int b) { return (a + b - 1) "
                         "/ b; } }\n"
                         "int use() { return detail::CeilDiv(kTable[1], Cfg::n + Cfg::m); }") ==
          "");
    CHECK(kernel_refusal("#include <cmath>\n#include <cstring>\n#include <algorithm>\n"
                         "[[maybe_unused]] __aicore__ inline float f(float a, float b) {\n"
                         "  alignas(32) float buf[8] __attribute__((aligned(32)));\n"
                         "  std::memset(buf, 0, sizeof(buf));\n"
                         "  static float cached = std::sqrt(a);\n"
                         "  return std::max(a, b) + std::fabs(cached) + buf[0] + "
                         "__builtin_expect(a > b, 1);\n}") == "");
    // Templates calling the public API unqualified, GET_TILING_DATA, OP_ADD in the host.
    CHECK(kernel_refusal(
              "template <typename T>\n__aicore__ inline void Twice(AscendC::LocalTensor<T>& "
              "t, uint32_t n) {\n  using namespace AscendC;\n  Add(t, t, t, n);\n  "
              "Muls(t, t, static_cast<T>(2), n);\n}") == "");
    CHECK(host_refusal(
              "#include <vector>\n#include <map>\n#include <string>\n#include <cassert>\n"
              "#include <unistd.h>\n#include <sys/syscall.h>\n"
              "namespace {\nuint32_t Pick(uint32_t n) {\n"
              "  std::vector<uint32_t> c{1, 2, 4};\n  std::map<std::string, int> m;\n"
              "  m[\"x\"] = 1;\n  assert(n > 0);\n"
              "  const long tid = syscall(SYS_gettid) + getpid();\n"
              "  return c[n % c.size()] + static_cast<uint32_t>(m.size() + tid * 0);\n}\n}") == "");
  }

  TEST_CASE("honest wild code: a string attribute compared and joined") {
    // DrivingSDK's dynamic_scatter host: the reduce type as a string, tested with != and looked
    // up in a map; the library's non-member operators compute on memory only.
    CHECK(host_refusal("#include <map>\n#include <string>\n#include <utility>\n"
                       "const std::map<std::string, int> kReduce = {{\"sum\", 0}, {\"max\", 2}};\n"
                       "int Key(const char* p) {\n  std::string reduceType(p);\n"
                       "  if (reduceType != \"sum\" && reduceType != \"max\") return -1;\n"
                       "  const std::string tag = \"reduce_\" + reduceType + \"_\";\n"
                       "  const bool ordered = std::make_pair(1, 2) < std::make_pair(1, 3);\n"
                       "  return kReduce.at(reduceType) + (tag == \"x\") + ordered;\n}") == "");
    // What the C library does to the outside world stays refused beside them.
    CHECK(host_refusal("#include <string>\n#include <cstdlib>\nint f(const std::string& s) { "
                       "return s == \"x\" ? std::system(s.c_str()) : 0; }") == "system");
  }

  TEST_CASE("honest wild code: a debug line printed by the tiling function") {
    // DrivingSDK's fake_tensor_quant tiling prints its tile sizes; the driver points the
    // standard output at the capped stderr before any package code runs.
    CHECK(host_refusal("#include <cstdio>\nvoid Log(unsigned n) {\n"
                       "  printf(\"tiles %u\\n\", n);\n  puts(\"done\");\n  putchar('\\n');\n}") ==
          "");
    CHECK(host_refusal("#include <iostream>\nvoid Log(unsigned n) { std::cout << \"tiles \" << n "
                       "<< std::endl; std::cerr << n << '\\n'; }") == "");
    // A narrowing in braces, which GCC (the candidate's compiler, and CANN's host build) warns
    // of and clang refuses: gert::Shape{dim, n} with a uint64_t n.
    CHECK(host_refusal("#include <cstdint>\n#include <initializer_list>\n"
                       "struct Dims { Dims(std::initializer_list<int64_t>) {} };\n"
                       "void Make(uint64_t n) { Dims d{n, 4}; (void)d; }") == "");
    // A call that takes a FILE* could write through a forged one: refused.
    CHECK(host_refusal("#include <cstdio>\nvoid Log(unsigned n) { fprintf(stderr, \"%u\", n); }") ==
          "fprintf");
  }

  TEST_CASE("honest wild code: a class template's member another operator's kernel defines") {
    // DrivingSDK's bev_pool.h: BEVPoolGradKernel<T>::DoProcess is declared in the shared header,
    // called by the template's own Process and defined only in the grad operator's kernel file;
    // this operator never instantiates the grad class.
    CHECK(kernel_refusal("template <typename T>\nclass GradKernel {\npublic:\n"
                         "  __aicore__ inline void Process() { DoProcess(); }\n"
                         "private:\n  __aicore__ inline void DoProcess();\n};") == "");
    // Called from outside the template, the specialisation's member is still judged.
    CHECK(kernel_refusal("template <typename T>\nstruct GradKernel {\n  void DoProcess();\n};\n"
                         "void forge() { GradKernel<float> k; k.DoProcess(); }") == "DoProcess");
    // A class template reopened in the standard library's namespace could be instantiated
    // into a name libstdc++ exports: its undefined members stay refused.
    CHECK(kernel_refusal("namespace std {\ntemplate <typename T>\nstruct forged_buf {\n"
                         "  void release();\n  void run() { release(); }\n};\n}") == "release");
  }

  TEST_CASE("GetPhyAddr only as the address a GlobalTensor is set to, in templates too") {
    // fbgemm-ascend's dense_to_jagged, segment_sum_csr and jagged_to_padded_dense view a tail of
    // GM as uint16_t to pad it: the address goes straight into another GlobalTensor.
    CHECK(
        kernel_refusal(
            "__aicore__ inline void View(const AscendC::GlobalTensor<uint8_t>& gt, uint32_t n) {\n"
            "  AscendC::GlobalTensor<uint16_t> u;\n"
            "  u.SetGlobalBuffer((__gm__ uint16_t*)gt.GetPhyAddr(), n / 2);\n"
            "  u.SetGlobalBuffer(reinterpret_cast<__gm__ uint16_t*>(gt.GetPhyAddr()) + 4, n);\n"
            "}") == "");
    CHECK(kernel_refusal(
              "template <typename T>\n"
              "__aicore__ inline void View(const AscendC::GlobalTensor<T>& gt, uint32_t n) {\n"
              "  AscendC::GlobalTensor<int32_t> i32;\n"
              "  i32.SetGlobalBuffer((__gm__ int32_t*)(gt[8].GetPhyAddr()), n * sizeof(T) / 4);\n"
              "}") == "");
    // Anywhere else the raw pointer escapes the traced API: refused, in templates as well.
    CHECK(kernel_refusal("__aicore__ inline float Peek(AscendC::GlobalTensor<float>& g) {\n"
                         "  return *(float*)g.GetPhyAddr();\n}") == "GetPhyAddr");
    CHECK(kernel_refusal("template <typename T>\n"
                         "__aicore__ inline T Peek(AscendC::GlobalTensor<T>& g) {\n"
                         "  return *g.GetPhyAddr();\n}") == "GetPhyAddr");
    // Inside SetGlobalBuffer's argument, but read, kept or handed to other code on the way.
    CHECK(kernel_refusal("__aicore__ inline void Peek(AscendC::GlobalTensor<float>& g) {\n"
                         "  AscendC::GlobalTensor<float> h;\n"
                         "  h.SetGlobalBuffer((__gm__ float*)*(uint64_t*)g.GetPhyAddr());\n}") ==
          "GetPhyAddr");
    CHECK(kernel_refusal("float* kept;\n"
                         "__aicore__ inline void Keep(AscendC::GlobalTensor<float>& g) {\n"
                         "  AscendC::GlobalTensor<float> h;\n"
                         "  h.SetGlobalBuffer(kept = g.GetPhyAddr());\n}") == "GetPhyAddr");
    CHECK(kernel_refusal("__aicore__ inline float* Pass(float* p) { return p; }\n"
                         "__aicore__ inline void Keep(AscendC::GlobalTensor<float>& g) {\n"
                         "  AscendC::GlobalTensor<float> h;\n"
                         "  h.SetGlobalBuffer(Pass(g.GetPhyAddr()));\n}") == "GetPhyAddr");
    // A SetGlobalBuffer of the package's own is no GlobalTensor.
    CHECK(kernel_refusal(
              "struct Sink { void SetGlobalBuffer(float* p) { kept = p; } float* kept; };\n"
              "__aicore__ inline void Keep(AscendC::GlobalTensor<float>& g, Sink& s) {\n"
              "  s.SetGlobalBuffer(g.GetPhyAddr());\n}") == "GetPhyAddr");
  }

  TEST_CASE("honest wild code: the CANN compiler's no-synchronisation hint on a loop") {
    // DrivingSDK's scatter_mean_grad and deformable_conv2d; a pragma of that compiler the list
    // does not hold stays refused.
    CHECK(kernel_refusal("__aicore__ inline int Sum(int n) {\n  int s = 0;\n"
                         "#pragma bisheng auto_sync parallel\n"
                         "  for (int i = 0; i < n; ++i) s += i;\n  return s;\n}") == "");
    CHECK(kernel_refusal("#pragma bisheng fake_option on") == "#pragma bisheng fake_option on");
  }

  TEST_CASE("honest wild code: a table of sizes by dtype, a log helper's thread id") {
    // DrivingSDK's common.h: a namespace-scope std::map built from constants runs the library
    // only. fbgemm-ascend's log_base.h: the thread id through a cast.
    CHECK(host_refusal("#include <map>\n#include <unistd.h>\n#include <sys/syscall.h>\n"
                       "const std::map<ge::DataType, int> kDataSizeMap = {{ge::DT_FLOAT, 4}, "
                       "{ge::DT_FLOAT16, 2}};\n"
                       "class Log { public: static inline uint64_t GetTid() { return "
                       "static_cast<uint64_t>(syscall(__NR_gettid)); } };") == "");
    // A library type built at namespace scope that would run the package's code is refused.
    CHECK(host_refusal("#include <vector>\nstruct Spy { Spy() {} };\nstatic std::vector<Spy> "
                       "spies(3);") == "spies");
    CHECK(host_refusal("#include <memory>\nvoid drop(int*) {}\n"
                       "static std::shared_ptr<int> p(nullptr, &drop);") == "p");
  }

  TEST_CASE("the build's screen PCHs are used; ones that do not load are rebuilt, not trusted") {
    // The build's PCHs: a screen with them parses no shim header of its own.
    auto& f = fixture();
    CHECK_FALSE(f.run(f.op.host_source, f.op.kernel_source).has_value());
    for (const auto& e : fs::recursive_directory_iterator(f.work.path())) {
      CHECK_MESSAGE(e.path().extension() != ".pch", e.path().string());
    }
    // PCHs that are not what they claim (here not PCHs at all, as a stale one would not load
    // either): the screen builds its own and judges as before.
    const aopt::scratch_dir pchs = aopt::testing::checker_fixture::make_work_dir();
    fs::create_directories(pchs.path() / "screen");
    for (const char* name : {"kernel.pch", "host.pch", "shim_names.json"}) {
      std::ofstream(pchs.path() / "screen" / name) << "{}";
    }
    aopt::npu::sim_toolchain toolchain = aopt::npu::default_sim_toolchain();
    toolchain.pch_dir = pchs.path();
    const aopt::scratch_dir work = aopt::testing::checker_fixture::make_work_dir();
    const aopt::npu::ast_screen screen(toolchain, work.path());
    CHECK_FALSE(screen.screen(f.op, f.op.host_source, &f.op.kernel_source).has_value());
    const auto forged = screen.screen(
        f.op, f.op.host_source + "\n#include <cstdlib>\nvoid forge() { std::system(\"id\"); }\n",
        &f.op.kernel_source);
    REQUIRE(forged.has_value());
    CHECK(forged->construct == "system");
  }

  TEST_CASE("a PCH that stops loading while the screen runs is rebuilt, and the unit judged") {
    // The build's PCHs, copied: loaded by the first screen, then replaced under it (as an
    // upgrade replaces the shim's headers and PCHs under a running daemon).
    auto& f = fixture();
    const aopt::scratch_dir pchs = aopt::testing::checker_fixture::make_work_dir();
    fs::create_directories(pchs.path() / "screen");
    aopt::npu::sim_toolchain toolchain = aopt::npu::default_sim_toolchain();
    for (const char* name : {"kernel.pch", "host.pch", "shim_names.json"})
      fs::copy_file(toolchain.pch_dir / "screen" / name, pchs.path() / "screen" / name);
    toolchain.pch_dir = pchs.path();
    const aopt::scratch_dir work = aopt::testing::checker_fixture::make_work_dir();
    const aopt::npu::ast_screen screen(toolchain, work.path());
    CHECK_FALSE(screen.screen(f.op, f.op.host_source, &f.op.kernel_source).has_value());
    for (const char* name : {"kernel.pch", "host.pch"})
      std::ofstream(pchs.path() / "screen" / name, std::ios::trunc) << "replaced";
    // Units not screened before (the verdict cache cannot answer): judged, not unparsed.
    const auto forged = screen.screen(
        f.op, f.op.host_source + "\n#include <cstdlib>\nvoid forge() { std::system(\"id\"); }\n",
        &f.op.kernel_source);
    REQUIRE(forged.has_value());
    CHECK_FALSE(forged->unjudged);
    CHECK(forged->construct == "system");
    CHECK_FALSE(screen.screen(f.op, f.op.host_source + "\n// another unit\n", &f.op.kernel_source)
                    .has_value());
  }

  TEST_CASE("code the screen cannot parse is left to the compiler") {
    screen_finding found;
    const std::string r = kernel_refusal("void f() { this is not C++; }", &found);
    CHECK(found.unjudged);
    CHECK(r.find("unjudged") == 0);
  }

  TEST_CASE(
      "AST screen exploits evaluate as forbidden, and the honest candidate keeps its latency") {
    aopt::testing::checker_fixture f;
    const std::vector<std::pair<std::string, std::string>> kernels = {
        {"attribute constructor", "__attribute((constructor)) void forge() {}"},
        {"using gnu constructor", "[[using gnu: constructor]] void forge() {}"},
        {"digraph pasting",
         "#include <unistd.h>\n#define J(a, b) a%:%:b\n"
         "void forge() { J(_ex, it)(0); }"},
        {"class-body initialiser",
         "int forge();\nstruct Spy { static inline int v = forge(); };\n"
         "int forge() { return 1; }"},
        {"variable template",
         "int forge() { return 1; }\ntemplate <class T> int vt = forge();\n"
         "int use() { return vt<int>; }"},
        {"glibc alias",
         "extern \"C\" int creat64(const char*, unsigned);\n"
         "void forge() { creat64(\"x\", 0600); }"},
        {"glibc alias __write",
         "extern \"C\" long __write(int, const void*, unsigned long);\n"
         "void forge() { __write(1, \"x\", 1); }"},
        {"glibc alias openat64",
         "extern \"C\" int openat64(int, const char*, int, ...);\n"
         "void forge() { openat64(-100, \"x\", 0); }"},
        {"digraph include", "%:include <fstream>\nvoid forge() { std::ofstream(\"x\") << 1; }"},
        {"composite internals", "auto forge = &AscendC::detail::composite_call;"},
        {"function pointer", "auto forge = &AscendC::detail::composite_call;"},
        {"template ADL",
         "template <class T> void forge(T t) { composite_call(t, {}, 0, 0, "
         "\"x\", {}); }"},
        {"using-declaration", "using AscendC::detail::composite_call;"},
        {"lambda initialiser", "static uint32_t forged = [] { return AscendC::GetBlockNum(); }();"},
        {"private robbery",
         "template <auto M> struct Rob { friend auto steal(Rob) { return M; } };\n"
         "template struct Rob<&AscendC::LocalTensor<float>::size_>;"},
        {"frame address", "void* forge() { return __builtin_frame_address(0); }"},
        {"asm label",
         "#include <stdlib.h>\n"
         "extern int __REDIRECT(forge, (int, const void*, unsigned long), write);"},
        {"pragma", "#pragma redefine_extname forge write"},
        {"static destructor", "struct Spy { ~Spy() {} };\nSpy spy;"},
    };
    for (const auto& [name, code] : kernels) {
      INFO(name);
      const auto r =
          f.screened.evaluate(f.op, f.op.host_source, f.op.kernel_source + "\n" + code, {});
      CHECK_MESSAGE(r.error_kind == "forbidden", f.describe(r));
      f.check_honest_still_ok();
    }
  }
}
