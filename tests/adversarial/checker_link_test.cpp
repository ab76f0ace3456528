// Issue 30 item 3: the link allow-list. Each exploit is a variant of the honest
// tests/data/ops/add_tiled whose kernel or tiling program defines what the simulator's runtime or
// the C library defines, so that its copy would win at link time (the tiling program
// with `extern "C"` definitions of the runtime's mangled names turned all DMA into one scalar
// access). With the static screen off, the symbol check alone refuses each as compile_error
// "forbidden", naming the symbol; the honest candidate evaluated next is still ok with its true
// latency. Since the host shim defines its contexts' container members in the runtime library, a
// tiling program can name them out of class: the same check refuses such a definition, strong or
// weak.
#include <string>

#include <doctest/doctest.h>

#include "adversarial/checker_fixture.hpp"

using aopt::npu::eval_status;
using aopt::testing::checker_fixture;

TEST_SUITE("adversarial") {
  TEST_CASE("candidate definitions of runtime and libc symbols are forbidden before linking") {
    checker_fixture f;
    const auto& op = f.op;
    const std::string tiling_anchor = "namespace optiling {\n";
    const std::string kernel_anchor = "namespace {\n";
    struct exploit {
      const char* name;
      std::string tiling, kernel;
      const char* symbol;  // what the message names
    };
    const exploit exploits[] = {
        {"the kernel redefines the runtime's block count (C++ definition)", op.host_source,
         f.replace(
             op.kernel_source, kernel_anchor,
             "namespace aopt_sim::rt { int64_t block_num() { return 1; } }\n" + kernel_anchor),
         "_ZN8aopt_sim2rt9block_numEv"},
        {"the kernel redefines the runtime's block index weakly", op.host_source,
         f.replace(op.kernel_source, kernel_anchor,
                   "namespace aopt_sim::rt { __attribute__((weak)) int64_t block_idx() { return 0; "
                   "} }\n" +
                       kernel_anchor),
         "_ZN8aopt_sim2rt9block_idxEv"},
        {"the tiling program defines the runtime's mangled name as extern \"C\"",
         f.replace(
             op.host_source, tiling_anchor,
             "extern \"C\" long _ZN8aopt_sim2rt9block_numEv() { return 1; }\n" + tiling_anchor),
         op.kernel_source, "_ZN8aopt_sim2rt9block_numEv"},
        {"the tiling program replaces a libc function",
         f.replace(
             op.host_source, tiling_anchor,
             "extern \"C\" int creat64(const char*, unsigned) { return -1; }\n" + tiling_anchor),
         op.kernel_source, "creat64"},
        {"the tiling program defines a context member the runtime defines out of line",
         f.replace(op.host_source, tiling_anchor,
                   "size_t* gert::TilingContext::GetWorkspaceSizes(size_t) { static size_t w[16]; "
                   "return w; }\n" +
                       tiling_anchor),
         op.kernel_source, "_ZN4gert13TilingContext17GetWorkspaceSizesEm"},
        {"the tiling program defines a shape member weakly",
         f.replace(op.host_source, tiling_anchor,
                   "__attribute__((weak)) int64_t ge::Shape::GetShapeSize() const { return 1; }\n" +
                       tiling_anchor),
         op.kernel_source, "_ZNK2ge5Shape12GetShapeSizeEv"},
        {"the kernel replaces operator new", op.host_source,
         f.replace(op.kernel_source, kernel_anchor,
                   "void* operator new(unsigned long n) { static char pool[1 << 20]; "
                   "static unsigned long used; used += n; return pool + used - n; }\n" +
                       kernel_anchor),
         "_Znwm"},
    };
    for (const exploit& e : exploits) {
      CAPTURE(e.name);
      auto r = f.unscreened.evaluate(op, e.tiling, e.kernel, {});
      CHECK_MESSAGE(r.status == eval_status::compile_error, f.describe(r));
      CHECK(r.error_kind == "forbidden");
      CHECK_MESSAGE(r.message.find(std::string("`") + e.symbol + "`") != std::string::npos,
                    r.message);
      f.check_honest_still_ok();
    }
  }
}
