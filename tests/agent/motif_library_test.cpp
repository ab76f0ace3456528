#include "agent/motifs/motif_library.hpp"

#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "agent/motifs/optimization_rules.hpp"
#include "agent/motifs/rewind_rules.hpp"
#include "kernel_snippets.hpp"
#include "npu/sim/device/static_screen.hpp"

using namespace aopt;
using namespace aopt::agent;

namespace {

namespace fs = std::filesystem;

std::vector<std::pair<std::string, std::string>> expert_kernels() {
  std::vector<std::pair<std::string, std::string>> out;
  const fs::path experts = fs::path(AOPT_TEST_DATA_DIR) / ".." / ".." / "corpus" / "experts";
  for (const fs::directory_entry& op : fs::directory_iterator(experts)) {
    for (const fs::directory_entry& f : fs::directory_iterator(op.path() / "op_kernel")) {
      std::ifstream in(f.path());
      std::stringstream buf;
      buf << in.rdbuf();
      out.emplace_back(f.path().filename().string(), buf.str());
    }
  }
  return out;
}

}  // namespace

TEST_SUITE("agent") {
  TEST_CASE("the motif library covers the optimization practices of the AscendC reference") {
    std::set<std::string> names;
    for (const motif& m : motifs()) names.insert(m.name);
    for (const char* practice :
         {"double_buffering", "stage_barriers", "vectorization", "fused_passes", "large_bursts",
          "balanced_split", "reciprocal_multiply", "ub_sized_tiles", "fine_grained_sync"}) {
      CAPTURE(practice);
      CHECK(names.count(practice) == 1);
    }
    CHECK(names.count("invariant_hoisting") == 1);
    // The cube's (issue 32): L1 double buffering, K accumulated in L0C, an operand kept in L1
    // as NZ, the epilogue fused into the fixpipe, the tile grid spread over the cores.
    for (const char* cube : {"l1_double_buffering", "l0c_accumulation", "l1_resident_operand",
                             "fixpipe_epilogue", "grid_core_split"}) {
      CAPTURE(cube);
      CHECK(names.count(cube) == 1);
    }
    CHECK(find_motif("nope") == nullptr);
  }

  TEST_CASE("each motif's two directions share its tuple fields and name each other") {
    REQUIRE(rewind_rules().size() == motifs().size());
    REQUIRE(optimization_rules().size() == motifs().size());
    for (size_t i = 0; i < motifs().size(); ++i) {
      const motif& m = motifs()[i];
      CAPTURE(m.name);
      CHECK(m.deoptimize.counterpart == m.optimize.name);
      CHECK(m.optimize.counterpart == m.deoptimize.name);
      CHECK(m.deoptimize.title == m.optimize.title);
      CHECK(m.deoptimize.tags == m.optimize.tags);
      CHECK(m.deoptimize.category == m.optimize.category);
      // The rewind's bottleneck is the optimization's, plus how the slow kernel shows it.
      CHECK(m.deoptimize.bottleneck.rfind(m.optimize.bottleneck, 0) == 0);
      CHECK(rewind_rules()[i].name == m.deoptimize.name);
      CHECK(optimization_rules()[i].name == m.optimize.name);
    }
  }

  // The optimization restores the motif the de-optimization removed: nothing of it is left to
  // cure, and the kernel is the expert's again, textually where the motif allows. Three motifs
  // restore it in an equivalent but not identical text: double buffering writes the literal 2
  // where the expert passed a runtime count (bufferNum), vectorization keeps the scalar loop's
  // fences as vector barriers and casts the scalar, fine-grained sync names its own events,
  // copy-in ahead names its own locals for tile i + 1.
  TEST_CASE("a motif's optimization undoes its de-optimization on every expert kernel") {
    const std::set<std::string> equivalent = {"double_buffering", "vectorization",
                                              "fine_grained_sync", "copy_in_ahead"};
    std::map<std::string, int> undone;
    for (const auto& [file, kernel] : expert_kernels()) {
      for (const motif& m : motifs()) {
        if (!m.deoptimize.applies(kernel)) continue;
        CAPTURE(file);
        CAPTURE(m.name);
        result<std::string> slow = m.deoptimize.apply(kernel);
        REQUIRE(slow.ok());
        REQUIRE(m.optimize.applies(*slow));
        result<std::string> fast = m.optimize.apply(*slow);
        REQUIRE(fast.ok());
        CHECK(*fast != *slow);
        CHECK_FALSE(m.optimize.applies(*fast));
        if (equivalent.count(m.name) == 0) CHECK(*fast == kernel);
        // Double buffering differs only where the de-optimization writes 1: doing it again
        // gives the same slow kernel.
        if (m.name == "double_buffering") CHECK(*m.deoptimize.apply(*fast) == *slow);
        ++undone[m.name];
      }
    }
    for (const motif& m : motifs()) {
      CAPTURE(m.name);
      CHECK(undone[m.name] > 0);
    }
  }

  // The trusted checker refuses a kernel that names the simulator's internals (any identifier
  // starting with "aopt", say) before compiling it: a rule that wrote such a name would have
  // every candidate it makes refused as `forbidden`, and every rewind step it makes dropped.
  TEST_CASE("what a motif writes, either way and in every variant, passes the static screen") {
    size_t screened = 0;
    auto check = [&](const std::string& file, const std::string& kernel) {
      const auto finding = npu::screen_source("op_kernel/" + file, kernel, "op_host/tiling.h");
      CHECK_MESSAGE(!finding, (finding ? finding->message() : std::string()));
      ++screened;
    };
    for (const auto& [file, kernel] : expert_kernels()) {
      for (const motif& m : motifs()) {
        if (!m.deoptimize.applies(kernel)) continue;
        CAPTURE(file);
        CAPTURE(m.name);
        result<std::string> slow = m.deoptimize.apply(kernel);
        REQUIRE(slow.ok());
        check(file, *slow);
        result<std::string> fast = m.optimize.apply(*slow);
        REQUIRE(fast.ok());
        check(file, *fast);
        if (!m.optimize.variants) continue;
        for (const rule_variant& v : m.optimize.variants(*slow)) check(file, v.kernel);
      }
    }
    CHECK(screened > motifs().size());
  }

  TEST_CASE("reciprocal multiply replaces a division by a duplicated scalar and drops the fill") {
    const std::string kernel =
        "void Compute() {\n"
        "    LocalTensor<float> yLocal = outQueueY.AllocTensor<float>();\n"
        "    LocalTensor<float> tLocal = tBuf.Get<float>();\n"
        "    Adds(yLocal, xLocal, -mean, count);\n"
        "    Duplicate(tLocal, stddev, count);\n"
        "    PipeBarrier<PIPE_V>();\n"
        "    Div(yLocal, yLocal, tLocal, count);\n"
        "}\n";
    const kernel_rule& r = find_motif("reciprocal_multiply")->optimize;
    REQUIRE(r.applies(kernel));
    result<std::string> out = r.apply(kernel);
    REQUIRE(out.ok());
    CHECK(out->find("    Muls(yLocal, yLocal, static_cast<float>(1) / (stddev), count);\n") !=
          std::string::npos);
    CHECK(out->find("Duplicate") == std::string::npos);
    CHECK(out->find("Div(") == std::string::npos);
    // The barrier still orders the Adds before the Muls that reads its result.
    CHECK(out->find("PipeBarrier<PIPE_V>();") != std::string::npos);
  }

  TEST_CASE("an optimization's variants vary its free parameters") {
    std::string kernel = aopt::agent::testing::kQueueKernel;
    kernel.replace(kernel.find("BUFFER_NUM = 2"), 14, "BUFFER_NUM = 1");
    const kernel_rule& r = find_motif("double_buffering")->optimize;
    std::vector<rule_variant> v = r.variants(kernel);
    std::map<std::string, std::string> by_label;
    for (rule_variant& x : v) by_label[x.label] = x.kernel;
    REQUIRE(by_label.count("depth 3") == 1);
    REQUIRE(by_label.count("depth 4") == 1);
    CHECK(by_label["depth 3"].find("BUFFER_NUM = 3") != std::string::npos);
    CHECK(by_label["depth 4"].find("BUFFER_NUM = 4") != std::string::npos);
    // Two sites (the constant and the runtime count): each alone is a variant too.
    CHECK(by_label.count("site 1 of 2") == 1);
    CHECK(by_label.count("site 2 of 2") == 1);
    CHECK(find_motif("ub_sized_tiles")
              ->optimize.variants("constexpr uint32_t TILE_LENGTH = 512;\n")
              .front()
              .kernel == "constexpr uint32_t TILE_LENGTH = 2048;\n");
  }
  // A kernel written the way a first version often is: the per-channel weight is copied from GM
  // in every iteration of the tile loop, fenced by full barriers against the previous
  // iteration's Mul.
  const std::string kWeightReloadKernel =
      "class KernelChannelScale {\n"
      "public:\n"
      "    __aicore__ inline void Process()\n"
      "    {\n"
      "        LocalTensor<float> wLocal = wBuf.Get<float>();\n"
      "        for (uint32_t t = 0; t < tileCount; t++) {\n"
      "            PipeBarrier<PIPE_ALL>();\n"
      "            DataCopy(wLocal, weightGm, channels);\n"
      "            PipeBarrier<PIPE_ALL>();\n"
      "            CopyIn(t);\n"
      "            Compute(wLocal);\n"
      "            CopyOut(t);\n"
      "        }\n"
      "    }\n"
      "private:\n"
      "    TBuf<TPosition::VECCALC> wBuf;\n"
      "    GlobalTensor<float> weightGm;\n"
      "    LocalTensor<float> unused;\n"
      "};\n";

  TEST_CASE("invariant hoisting moves a per-iteration load of the same data before the loop") {
    const kernel_rule& r = find_motif("invariant_hoisting")->optimize;
    REQUIRE(r.applies(kWeightReloadKernel));
    result<std::string> out = r.apply(kWeightReloadKernel);
    REQUIRE(out.ok());
    CHECK(out->find("        LocalTensor<float> wLocal = wBuf.Get<float>();\n"
                    "        DataCopy(wLocal, weightGm, channels);\n"
                    "        PipeBarrier<PIPE_ALL>();\n"
                    "        for (uint32_t t = 0; t < tileCount; t++) {\n"
                    "            CopyIn(t);\n") != std::string::npos);
    CHECK(out->find("PipeBarrier<PIPE_ALL>();") == out->rfind("PipeBarrier<PIPE_ALL>();"));
    CHECK_FALSE(r.applies(*out));
  }

  TEST_CASE("invariant hoisting leaves loads that change from one iteration to the next") {
    const kernel_rule& r = find_motif("invariant_hoisting")->optimize;
    auto replaced = [](std::string text, const std::string& from, const std::string& to) {
      const size_t at = text.find(from);
      REQUIRE(at != std::string::npos);
      return text.replace(at, from.size(), to);
    };
    const std::string declared_before = "        LocalTensor<float> wLocal = wBuf.Get<float>();\n";
    // The count follows the loop variable.
    CHECK_FALSE(r.applies(replaced(kWeightReloadKernel, "weightGm, channels", "weightGm, t + 1")));
    // The loop writes the tensor the load fills.
    CHECK_FALSE(r.applies(replaced(kWeightReloadKernel, "            CopyIn(t);\n",
                                   "            Muls(wLocal, wLocal, 2.0f, channels);\n")));
    // The count is changed inside the loop.
    CHECK_FALSE(r.applies(replaced(kWeightReloadKernel, "            CopyOut(t);\n",
                                   "            channels += 8;\n")));
    // The tensor exists only inside the loop: nothing to load it into before the loop.
    const std::string local =
        replaced(replaced(kWeightReloadKernel, declared_before, ""),
                 "            PipeBarrier<PIPE_ALL>();\n            DataCopy",
                 "            LocalTensor<float> wLocal = wBuf.Get<float>();\n"
                 "            PipeBarrier<PIPE_ALL>();\n            DataCopy");
    CHECK_FALSE(r.applies(local));
  }
}  // TEST_SUITE
