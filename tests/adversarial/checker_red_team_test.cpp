// Issue 30 item 7: a standing red team. Exploits of classes the issue does not name, written as an
// attacker would, each a variant of the honest tests/data/ops/add_tiled evaluated with the static
// screen off (the trusted checker, the link check and the sandbox alone), each followed by the
// honest candidate at its true latency. Classes:
//   entry hijack      defining main, __cxa_atexit or a libc allocator to run first or forge exit;
//   signalling        killing aopt (the parent) or every process of the candidates' identity;
//   shared memory     writing, truncating or mapping writable the sealed input sets and spec;
//   delivery channel  moving stdout before the driver takes it, prefixing the delivery;
//   input mutation    changing an input in GM after computing, to fool the comparison;
//   spec substitution re-executing itself with a spec of its own (one input set instead of three);
//   exceptions        a kernel that throws a standard exception with a forged result, or an int;
//   resources         memory beyond the address-space limit, a thread bomb;
//   snooping          listing the work dir for the reference's and other candidates' dirs;
//   identity          setuid(0), fileless execution from a memfd;
//   API forgery       an explicit specialization of a shim template (DataCopy) that moves the
//                     bytes itself, inline (judged by the trace check) or not (the link check).
// An attack that gains nothing may end ok: then it must be at the honest latency, never less.
#include <string>
#include <vector>

#include <doctest/doctest.h>

#include "adversarial/checker_fixture.hpp"

using aopt::npu::eval_result;
using aopt::npu::eval_status;
using aopt::testing::checker_fixture;

namespace {

const char* const run_call = "  op.Run();\n";
const char* const file_scope = "namespace {\n";

// Code run first in the candidate process: a static constructor of the kernel unit.
std::string at_start(const std::string& includes, const std::string& body) {
  return includes + "__attribute__((constructor)) static void aopt_attack() {\n" + body + "}\n";
}

// DataCopy from GM to UB for half, specialized to copy the bytes itself: no MTE2 in the trace.
std::string raw_data_copy_specialization(bool inline_copy) {
  return std::string("#include <cstring>\nnamespace AscendC {\ntemplate <>\n") +
         (inline_copy ? "inline " : "") +
         "void DataCopy<half>(const LocalTensor<half>& dst, const GlobalTensor<half>& src,\n"
         "                    const uint32_t count, aopt_sim::rt::call_site) {\n"
         "  std::memcpy(dst.GetPhyAddr(), src.GetPhyAddr(), count * sizeof(half));\n"
         "}\n}  // namespace AscendC\n";
}

// The candidate reads the spec aopt handed it, rewrites it to one input set (and one input
// descriptor), saves it in its scratch dir and executes itself on it: glibc passes argc and argv
// to constructors.
std::string reexec_with_one_set() {
  return R"(#include <fcntl.h>
#include <unistd.h>
#include <cstdlib>
#include <cstring>
#include <string>
__attribute__((constructor)) static void aopt_attack(int argc, char** argv, char**) {
  if (argc != 2 || std::strncmp(argv[1], "fd:", 3) != 0) return;
  const int fd = std::atoi(argv[1] + 3);
  std::string spec;
  char buf[65536];
  ssize_t n;
  while ((n = pread(fd, buf, sizeof buf, spec.size())) > 0) spec.append(buf, n);
  size_t at = spec.find("\"input_sets\":");
  if (at == std::string::npos) return;
  spec.replace(at, 14, "\"input_sets\":1");
  at = spec.find("\"input_fds\":[");
  if (at == std::string::npos) return;
  const size_t end = spec.find(']', at);
  spec.replace(at, end - at + 1, "\"input_fds\":[3]");
  const int out = open("my_spec.json", O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (out < 0) return;
  (void)!write(out, spec.data(), spec.size());
  close(out);
  char arg[] = "my_spec.json";
  char* args[] = {argv[0], arg, nullptr};
  execv(argv[0], args);
}
)";
}

struct exploit {
  const char* cls;
  const char* name;
  std::string tiling, kernel;
  // What the attacker must end with; empty: any non-ok status, or ok at the honest latency.
  std::vector<const char*> kinds;
};

}  // namespace

TEST_SUITE("adversarial") {
  TEST_CASE("red team: classes the issue does not name") {
    checker_fixture f;
    const auto& op = f.op;
    const std::string& k = op.kernel_source;
    const std::string& t = op.host_source;
    auto kernel_start = [&](const std::string& includes, const std::string& body) {
      return at_start(includes, body) + k;
    };
    auto after_run = [&](const std::string& includes, const std::string& code) {
      return includes + f.replace(k, run_call, std::string(run_call) + code);
    };
    const std::vector<exploit> exploits = {
        {"entry hijack",
         "the kernel defines main",
         t,
         f.replace(k, file_scope,
                   "extern \"C\" int main() { return 0; }\n" + std::string(file_scope)),
         {"forbidden"}},
        {"entry hijack",
         "the tiling program defines __cxa_atexit",
         f.replace(t, "namespace optiling {\n",
                   "extern \"C\" int __cxa_atexit(void (*)(void*), void*, void*) { return 0; }\n"
                   "namespace optiling {\n"),
         k,
         {"forbidden"}},
        {"entry hijack",
         "the kernel replaces the C library's allocator",
         t,
         f.replace(k, file_scope,
                   "extern \"C\" void* __libc_malloc(unsigned long n) { static char p[1 << 16]; "
                   "return n < sizeof p ? p : nullptr; }\n" +
                       std::string(file_scope)),
         {"forbidden"}},
        {"signalling",
         "kill the parent (aopt)",
         t,
         kernel_start("#include <signal.h>\n#include <unistd.h>\n",
                      "  kill(getppid(), SIGKILL);\n"),
         {}},
        {"signalling",
         "kill every process of the identity",
         t,
         kernel_start("#include <signal.h>\n", "  kill(-1, SIGKILL);\n"),
         {}},
        {"shared memory",
         "write and truncate the sealed input set",
         t,
         kernel_start("#include <unistd.h>\n",
                      "  for (int fd = 3; fd < 8; ++fd) { pwrite(fd, \"\\0\\0\\0\\0\", 4, 0); "
                      "ftruncate(fd, 0); }\n"),
         {}},
        {"shared memory",
         "map the input set writable and zero it",
         t,
         kernel_start(
             "#include <sys/mman.h>\n#include <cstring>\n",
             "  for (int fd = 3; fd < 8; ++fd) {\n"
             "    void* p = mmap(nullptr, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);\n"
             "    if (p != MAP_FAILED) std::memset(p, 0, 4096);\n"
             "    p = mmap(nullptr, 4096, PROT_READ, MAP_SHARED, fd, 0);\n"
             "    if (p != MAP_FAILED) mprotect(p, 4096, PROT_READ | PROT_WRITE);\n"
             "  }\n"),
         {}},
        {"delivery channel",
         "stdout moved to stderr before the driver takes it",
         t,
         kernel_start("#include <unistd.h>\n", "  dup2(2, 1);\n"),
         {"no_delivery"}},
        {"delivery channel",
         "a forged delivery header before the real one",
         t,
         kernel_start("#include <unistd.h>\n", "  write(1, \"AOPTRPT1\", 8);\n"),
         {"malformed_delivery"}},
        {"input mutation",
         "x overwritten in GM after the add",
         t,
         after_run("", "  reinterpret_cast<__gm__ DTYPE_X*>(x)[AscendC::GetBlockIdx()] = 0;\n"),
         // A raw GM store faults where it happens (gm_guard.hpp), before the judge could find
         // the input modified.
         {"untraced_work"}},
        {"spec substitution",
         "re-exec with a spec of one input set",
         t,
         reexec_with_one_set() + k,
         {"malformed_delivery", "crash", "wrong_set_count"}},
        {"exceptions",
         "the kernel throws a forged result",
         t,
         after_run("#include <stdexcept>\n",
                   "  throw std::runtime_error(\"{\\\"status\\\": \\\"ok\\\", \\\"latency_us\\\": "
                   "1}\");\n"),
         {"exception"}},
        {"exceptions", "the kernel throws an int", t, after_run("", "  throw 7;\n"), {"exception"}},
        {"resources",
         "memory beyond the address-space limit",
         t,
         kernel_start("#include <cstring>\n#include <new>\n",
                      "  char* p = new (std::nothrow) char[(size_t)16 << 30];\n"
                      "  if (p) std::memset(p, 1, (size_t)16 << 30);\n"),
         {}},
        {"resources",
         "a thread bomb",
         t,
         kernel_start("#include <pthread.h>\n#include <unistd.h>\n",
                      "  for (int i = 0; i < 4000; ++i) { pthread_t th; if (pthread_create(&th, "
                      "nullptr, [](void*) -> void* { pause(); return nullptr; }, nullptr) != 0) "
                      "break; pthread_detach(th); }\n"),
         {}},
        {"snooping",
         "list the work dir for the reference's directory",
         t,
         kernel_start("#include <dirent.h>\n#include <cstdio>\n",
                      "  if (DIR* d = opendir(\"..\")) { while (dirent* e = readdir(d)) "
                      "std::fprintf(stderr, \"seen %s\\n\", e->d_name); closedir(d); }\n"
                      "  if (FILE* r = std::fopen(\"../reference\", \"r\")) std::fclose(r);\n"),
         {}},
        {"identity",
         "setuid(0) and setgid(0)",
         t,
         kernel_start("#include <unistd.h>\n", "  (void)!setgid(0); (void)!setuid(0);\n"),
         {}},
        {"identity",
         "fileless execution from a memfd",
         t,
         kernel_start("#include <sys/mman.h>\n#include <unistd.h>\n",
                      "  int fd = memfd_create(\"x\", 0);\n"
                      "  if (fd >= 0) { char* a[] = {nullptr}; fexecve(fd, a, a); }\n"),
         {}},
        {"API forgery",
         "an explicit inline specialization of DataCopy copies GM to UB raw",
         t,
         f.replace(k, file_scope, std::string(raw_data_copy_specialization(true)) + file_scope),
         {"untraced_work"}},
        // No library of the link defines this specialization, so the link allow-list admits it
        // as the candidate's own name (it replaces nothing); its raw copy is untraced work.
        {"API forgery",
         "the same specialization with external linkage",
         t,
         f.replace(k, file_scope, std::string(raw_data_copy_specialization(false)) + file_scope),
         {"forbidden", "untraced_work"}},
    };
    for (const exploit& e : exploits) {
      const std::string what = std::string(e.cls) + ": " + e.name;
      CAPTURE(what);
      const eval_result r = f.unscreened.evaluate(op, e.tiling, e.kernel, {});
      MESSAGE(what << " -> " << nlohmann::json(r.status).dump() << " " << r.error_kind);
      if (!e.kinds.empty()) {
        CHECK_FALSE_MESSAGE(r.ok(), f.describe(r));
        bool named = false;
        for (const char* kind : e.kinds) named |= r.error_kind == kind;
        CHECK_MESSAGE(named, f.describe(r));
      } else if (r.ok()) {
        // It gained nothing: judged at its true latency.
        CHECK(r.latency_us == f.honest_latency);
      } else {
        CHECK(r.status != eval_status::infra_error);
      }
      f.check_honest_still_ok();
    }
  }
}
