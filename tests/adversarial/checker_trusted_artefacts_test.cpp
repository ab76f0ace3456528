// Issue 30 item 1: the reference, its spec and the expected outputs are out of the candidate's
// reach. Each exploit is a variant of the honest tests/data/ops/add_tiled that computes z = x - y
// (wrong) and tries to make the checker accept it anyway, or to blame its failure on aopt:
//   * it rewrites ./reference with a script delivering expected outputs forged from its own inputs
//     (x - y, with the right input fingerprints) and ./spec.json: what used to make the checker
//     compare the candidate with itself, because the reference ran after it, from its scratch dir;
//   * it makes its own scratch dir unusable (mode 000) and crashes: what used to be infra_error.
// With the static screen off, the trusted checker alone: the forgery is precision_error, the
// crash runtime_error; the honest candidate evaluated next is still ok with its true latency.
#include <filesystem>
#include <string>

#include <doctest/doctest.h>

#include "adversarial/checker_fixture.hpp"
#include "npu/validation_shapes.hpp"

using aopt::npu::eval_status;
using aopt::testing::checker_fixture;

namespace {

const char* const honest_add = "    AscendC::Add(c, a, b, tileElems);\n";
const char* const wrong_sub = "    AscendC::Sub(c, a, b, tileElems);\n";

// Block 0 of every input set appends the set to an AOPTEXP1 delivery of expected outputs
// (driver_expected.cpp's encoding) that says z = x - y, with the FNV-1a fingerprints of x and y,
// and replaces ./reference with a script that prints it. It reads x and y through the traced
// GlobalTensor::GetValue: a raw read would fault first (gm_guard.hpp), and the forgery must be
// judged on its own merits.
const char* const forger =
    "#include <fcntl.h>\n"
    "#include <unistd.h>\n"
    "#include <string>\n"
    "#include <vector>\n"
    "namespace {\n"
    "std::string forged_sets;\n"
    "uint64_t forged_count = 0;\n"
    "void put(std::string& s, const void* p, size_t n) { s.append((const char*)p, n); }\n"
    "uint64_t fnv(const uint8_t* d, size_t n) {\n"
    "  uint64_t h = 1469598103934665603ull;\n"
    "  for (size_t i = 0; i < n; ++i) { h ^= d[i]; h *= 1099511628211ull; }\n"
    "  return h;\n"
    "}\n"
    "void write_file(const char* name, const std::string& text, int mode) {\n"
    "  ::unlink(name);\n"
    "  int fd = ::open(name, O_WRONLY | O_CREAT | O_TRUNC, mode);\n"
    "  if (fd >= 0) { (void)!::write(fd, text.data(), text.size()); ::close(fd); }\n"
    "}\n"
    "void forge(GM_ADDR x, GM_ADDR y, uint32_t total) {\n"
    "  AscendC::GlobalTensor<DTYPE_X> gx;\n"
    "  AscendC::GlobalTensor<DTYPE_Y> gy;\n"
    "  gx.SetGlobalBuffer((__gm__ DTYPE_X*)x, total);\n"
    "  gy.SetGlobalBuffer((__gm__ DTYPE_Y*)y, total);\n"
    "  std::vector<DTYPE_X> a(total);\n"
    "  std::vector<DTYPE_Y> b(total);\n"
    "  for (uint32_t i = 0; i < total; ++i) { a[i] = gx.GetValue(i); b[i] = gy.GetValue(i); }\n"
    "  uint64_t one = 1, two = 2, bytes = total * sizeof(double);\n"
    "  put(forged_sets, &one, 8);\n"
    "  put(forged_sets, &bytes, 8);\n"
    "  for (uint32_t i = 0; i < total; ++i) {\n"
    "    double v = (double)((float)a[i] - (float)b[i]);\n"
    "    put(forged_sets, &v, 8);\n"
    "  }\n"
    "  uint64_t fx = fnv((const uint8_t*)a.data(), total * sizeof(DTYPE_X));\n"
    "  uint64_t fy = fnv((const uint8_t*)b.data(), total * sizeof(DTYPE_Y));\n"
    "  put(forged_sets, &two, 8); put(forged_sets, &fx, 8); put(forged_sets, &fy, 8);\n"
    "  ++forged_count;\n"
    "  std::string all = \"AOPTEXP1\";\n"
    "  uint64_t no_failure = 0;\n"
    "  put(all, &no_failure, 8);\n"
    "  put(all, &forged_count, 8);\n"
    "  all += forged_sets;\n"
    "  all += \"AOPTEND1\";\n"
    "  write_file(\"forged.bin\", all, 0644);\n"
    "  write_file(\"reference\", \"#!/bin/sh\\nexec cat forged.bin\\n\", 0755);\n"
    "  write_file(\"spec.json\", \"{}\", 0644);\n"
    "}\n"
    "}  // namespace\n";

const char* const entry_call = "  op.Run();\n";
const char* const forging_call =
    "  op.Run();\n"
    "  if (AscendC::GetBlockIdx() == 0) forge(x, y, tilingData.totalLength);\n";

}  // namespace

TEST_SUITE("adversarial") {
  TEST_CASE("a candidate that rewrites the reference and spec.json in its scratch dir is judged") {
    checker_fixture f;
    const auto& op = f.op;
    const std::string wrong = f.replace(op.kernel_source, honest_add, wrong_sub);
    // Plainly wrong first: the reference's outputs say so.
    auto r = f.unscreened.evaluate(op, op.host_source, wrong, {});
    CHECK_MESSAGE(r.status == eval_status::precision_error, f.describe(r));
    f.check_honest_still_ok();

    // The forgery, on a fresh device (nothing cached: the reference runs in this evaluation)
    // and on the device that has the expected outputs cached.
    const std::string forging = std::string(forger) + f.replace(wrong, entry_call, forging_call);
    aopt::npu::sim_device fresh{aopt::testing::checker_profile(),
                                aopt::testing::checker_options(f.work.path(), false)};
    for (aopt::npu::sim_device* device : {&fresh, &f.unscreened}) {
      r = device->evaluate(op, op.host_source, forging, {});
      // Judged against the trusted reference's outputs: z = x - y is a mismatch.
      CHECK_MESSAGE(r.status == eval_status::precision_error, f.describe(r));
      CHECK(r.error_kind == "mismatch");
      CHECK(r.latency_us == 0);
      f.check_honest_still_ok();
    }
    // A validation shape's first evaluation: its expected outputs are made before it runs too.
    aopt::npu::eval_options two_sets;
    two_sets.input_sets = 2;
    r = fresh.evaluate(op, op.host_source, forging, two_sets);
    CHECK_MESSAGE(r.status == eval_status::precision_error, f.describe(r));
    CHECK(r.error_kind == "mismatch");
    CHECK(r.latency_us == 0);
    f.check_honest_still_ok();
  }

  TEST_CASE("a candidate that breaks its own scratch dir has failed, not aopt") {
    checker_fixture f;
    const auto& op = f.op;
    const std::string breaks_scratch =
        "#include <sys/stat.h>\n" + f.replace(op.kernel_source, entry_call,
                                              "  op.Run();\n"
                                              "  ::chmod(\".\", 0);\n"
                                              "  __builtin_trap();\n");
    // Sandboxed, the chmod itself is a forbidden call; without the sandbox it succeeds, and the
    // crash is still the candidate's: aopt's state before and after the run decides.
    auto r = f.unscreened.evaluate(op, op.host_source, breaks_scratch, {});
    CHECK_MESSAGE(r.status == eval_status::runtime_error, f.describe(r));
    CHECK(r.error_kind == "sandbox_violation");
    f.check_honest_still_ok();

    auto options = aopt::testing::checker_options(f.work.path(), false);
    options.sandbox = false;
    aopt::npu::sim_device unsandboxed{aopt::testing::checker_profile(), options};
    r = unsandboxed.evaluate(op, op.host_source, breaks_scratch, {});
    CHECK_MESSAGE(r.status == eval_status::runtime_error, f.describe(r));
    CHECK(r.error_kind == "signal");
    f.check_honest_still_ok();
  }

  TEST_CASE("every validation shape's expected outputs exist before the first candidate builds") {
    checker_fixture f;
    aopt::npu::op_package op = f.op;
    op.spec.validation_shapes = {{{"x", {4, 4096}}, {"y", {4, 4096}}, {"z", {4, 4096}}},
                                 {{"x", {16, 4096}}, {"y", {16, 4096}}, {"z", {16, 4096}}}};
    aopt::npu::sim_device fresh{aopt::testing::checker_profile(),
                                aopt::testing::checker_options(f.work.path(), false)};
    // The first candidate of the operator never compiles: by then the reference has run for the
    // tuning shape and for both validation shapes, each in a process of its own.
    auto r = fresh.evaluate(op, op.host_source, "this is not C++\n", {});
    CHECK_MESSAGE(r.status == eval_status::compile_error, f.describe(r));
    CHECK(fresh.references_run() == 3);
    // The final best's checks on the validation shapes run no reference: they were made first.
    for (const auto& shapes : op.spec.validation_shapes) {
      const aopt::npu::op_package shaped = aopt::npu::with_shapes(op, shapes);
      r = fresh.evaluate(shaped, shaped.host_source, shaped.kernel_source, {});
      CHECK_MESSAGE(r.ok(), f.describe(r));
    }
    CHECK(fresh.references_run() == 3);
    // Candidates of the tuning shape neither.
    r = fresh.evaluate(op, op.host_source, op.kernel_source, {});
    CHECK_MESSAGE(r.ok(), f.describe(r));
    CHECK(r.latency_us == f.honest_latency);
    CHECK(fresh.references_run() == 3);
    // Another number of input sets is another set of expected outputs, all made up front again.
    aopt::npu::eval_options two_sets;
    two_sets.input_sets = 2;
    r = fresh.evaluate(op, op.host_source, "this is not C++ either\n", two_sets);
    CHECK_MESSAGE(r.status == eval_status::compile_error, f.describe(r));
    CHECK(fresh.references_run() == 6);
  }
}
