// Issue 30 item 7, a seventh red-team round on the class "price by work": the simulated latency
// must be earned by the bytes moved and computed, judged from what the candidate cannot forge.
// Written as an attacker would against corpus operators, each candidate passing the static
// screen, and each followed by the honest tests/data/ops/add_tiled at its true latency (19.00 us).
//   raw GM reads     a kernel reads its inputs through the GM_ADDR it was given (a cast the
//   feeding C++      screen cannot tell from the one that sets a GlobalTensor) and computes in
//                    plain C++, which no trace records and no price covers; the result reaches
//                    the outputs through a traced API: stored by LocalTensor::SetValue beside a
//                    GetValue of the loaded row (reduce_sum_custom, the ReduceSum dropped), as
//                    the scalars of Adds and Muls (softmax_custom, both row reductions dropped),
//                    or by GlobalTensor::SetValue with no load at all (reduce_sum_custom: 16 MB
//                    of input read for the price of 8192 scalar stores). The trace showed honest
//                    loads (or none, which an operator may do) and derived or stored bytes, the
//                    replay of the GM writes matched: all scored ok below the honest latency
//                    (reduce_sum 122.55 and 47.47 us against 129.11, softmax 61.51 against
//                    73.45). Now the GM a kernel is given (inputs, outputs, workspace) is mapped
//                    without access while its cores run, and only the API calls that record and
//                    price a GM access open it (gm_guard.hpp): any other access faults and is
//                    untraced_work naming the traced API to use. The same store through
//                    GlobalTensor::SetValue of honestly reduced rows stays ok.
//   cube operands    every GM -> L1 load (a cube operand) was read at the L2 rate (110 bytes a
//   from L2 unread   cycle against 32 from GM) and left out of the HBM floor, on the assumption
//                    that the cores re-read the same tiles: a load of bytes nothing had touched
//                    was priced as a hit. A load now hits only on the bytes an earlier GM access
//                    of the launch touched (l2_reuse.hpp); the rest come from GM. A price fix
//                    for every cube kernel, so the corpus's cube operators got slower (matmul
//                    438.75 -> 452.58 us, batch_matmul 223.06 -> 239.66, the expert
//                    matmul_pipelined_leakyrelu 53.75 -> 67.63, ...), the others unchanged.
#include <filesystem>
#include <string>
#include <vector>

#include <doctest/doctest.h>

#include "adversarial/checker_fixture.hpp"
#include "npu/sim/runtime/l2_reuse.hpp"
#include "npu/sim/runtime/timing_model.hpp"

using aopt::npu::eval_result;
using aopt::npu::eval_status;
using aopt::testing::checker_fixture;

namespace {

aopt::npu::op_package rt7_corpus_op(const std::string& path) {
  auto op = aopt::npu::load_op_package(std::filesystem::path(AOPT_SOURCE_DIR) / "corpus" / path);
  REQUIRE_MESSAGE(op.ok(), op.error().to_string());
  return std::move(op).value();
}

// reduce_sum_custom's kernel with `rawX` (its core's rows of x, as a raw GM pointer) and `rawY`
// (its core's sums) set beside the GlobalTensors.
std::string rt7_reduce_sum_with_raw(const aopt::npu::op_package& op) {
  std::string k = checker_fixture::replace(
      op.kernel_source,
      "        xGm.SetGlobalBuffer((__gm__ float*)x + rowStart * cols, rowCount * cols);\n",
      "        xGm.SetGlobalBuffer((__gm__ float*)x + rowStart * cols, rowCount * cols);\n"
      "        rawX = (__gm__ float*)x + rowStart * cols;\n"
      "        rawY = (__gm__ float*)y + rowStart;\n");
  return checker_fixture::replace(k, "    GlobalTensor<float> xGm;\n",
                                  "    GlobalTensor<float> xGm;\n"
                                  "    const __gm__ float* rawX = nullptr;\n"
                                  "    __gm__ float* rawY = nullptr;\n");
}

// The honest per-row reduction and the scalar unit's store of its result.
const std::string rt7_reduce_and_store =
    "            ReduceSum(sum, xLocal[r * colsAligned], work, cols);\n"
    "            event_t eventVToS = static_cast<event_t>(pipe.FetchEventID(HardEvent::V_S));\n"
    "            SetFlag<HardEvent::V_S>(eventVToS);\n"
    "            WaitFlag<HardEvent::V_S>(eventVToS);\n"
    "            result.SetValue(progress * rowsPerTile + r, sum.GetValue(0));\n";

// The sum of row `row` of the core's rows, in plain C++ over raw GM.
std::string rt7_raw_row_sum(const std::string& row) {
  return "            float acc = 0.0f;\n"
         "            for (uint32_t c = 0; c < cols; c++) {\n"
         "                acc += rawX[(" +
         row +
         ") * cols + c];\n"
         "            }\n";
}

// softmax_custom's kernel with the row maximum and the sum of exponentials computed in C++ over
// raw GM instead of by ReduceMax and ReduceSum.
std::string rt7_softmax_raw_stats(const aopt::npu::op_package& op) {
  std::string k = checker_fixture::replace(
      op.kernel_source,
      "        xGm.SetGlobalBuffer((__gm__ half*)x + rowStart * cols, rowCount * cols);\n",
      "        xGm.SetGlobalBuffer((__gm__ half*)x + rowStart * cols, rowCount * cols);\n"
      "        rawX = (__gm__ half*)x + rowStart * cols;\n");
  k = checker_fixture::replace(k, "    GlobalTensor<half> xGm;\n",
                               "    GlobalTensor<half> xGm;\n"
                               "    const __gm__ half* rawX = nullptr;\n");
  k = checker_fixture::replace(k, "            Compute(tileRows);",
                               "            Compute(i, tileRows);");
  k = checker_fixture::replace(
      k, "    __aicore__ inline void Compute(uint32_t tileRows)",
      "    __aicore__ inline void Compute(uint32_t progress, uint32_t tileRows)");
  k = checker_fixture::replace(
      k, "            float rowMax = ReduceToScalar(true, row);\n",
      "            const __gm__ half* src = rawX + (progress * rowsPerTile + r) * cols;\n"
      "            float rowMax = static_cast<float>(src[0]);\n"
      "            for (uint32_t c = 1; c < cols; c++) {\n"
      "                const float v = static_cast<float>(src[c]);\n"
      "                rowMax = v > rowMax ? v : rowMax;\n"
      "            }\n");
  return checker_fixture::replace(k, "            float rowSum = ReduceToScalar(false, row);\n",
                                  "            float rowSum = 0.0f;\n"
                                  "            for (uint32_t c = 0; c < cols; c++) {\n"
                                  "                rowSum += std::exp(static_cast<float>(src[c]) - "
                                  "rowMax);\n"
                                  "            }\n");
}

// A core trace of one GM -> L1 load of `bytes` bytes of GM region 0 from `offset`, at GM access
// order `seq`, after a GM write of the same bytes at `seq - 1` when `written_first`.
aopt::sim::core_trace rt7_l1_load(uint32_t block, uint64_t offset, uint32_t bytes, uint64_t seq,
                                  bool written_first = false) {
  aopt::sim::core_trace t;
  t.block_idx = block;
  t.group = block;
  aopt::sim::instruction in;
  in.on = aopt::sim::pipe::mte2;
  in.cls = aopt::sim::op_class::dma_in;
  in.api = "DataCopy (Nd2NzParams)";
  in.repeats = 1;  // into L1
  in.bytes = bytes;
  in.bursts = 1;
  in.min_burst_bytes = bytes;
  t.instructions.push_back(in);
  aopt::sim::gm_read r;
  r.region = 0;
  r.offset = offset;
  r.burst_bytes = bytes;
  r.seq = seq;
  r.instruction = 0;
  t.gm_reads.push_back(r);
  if (written_first) {
    aopt::sim::gm_write w;
    w.region = 0;
    w.offset = offset;
    w.burst_bytes = bytes;
    w.seq = seq - 1;
    t.gm_writes.push_back(w);
  }
  return t;
}

// The honest operator's kernel at its true latency, and the honest add_tiled at its own.
void rt7_check_honest(checker_fixture& f, const aopt::npu::op_package& op, double latency) {
  const eval_result again = f.screened.evaluate(op, op.host_source, op.kernel_source, {});
  CHECK_MESSAGE(again.ok(), f.describe(again));
  CHECK(again.latency_us == latency);
  f.check_honest_still_ok();
}

}  // namespace

TEST_SUITE("adversarial") {
  TEST_CASE("red team 7: GM read or written outside the traced API is untraced work") {
    checker_fixture f;
    const aopt::npu::op_package reduce_sum = rt7_corpus_op("level1/reduce_sum_custom");
    const aopt::npu::op_package softmax = rt7_corpus_op("level2/softmax_custom");
    const eval_result honest_sum =
        f.screened.evaluate(reduce_sum, reduce_sum.host_source, reduce_sum.kernel_source, {});
    REQUIRE_MESSAGE(honest_sum.ok(), f.describe(honest_sum));
    const eval_result honest_softmax =
        f.screened.evaluate(softmax, softmax.host_source, softmax.kernel_source, {});
    REQUIRE_MESSAGE(honest_softmax.ok(), f.describe(honest_softmax));

    const std::string with_raw = rt7_reduce_sum_with_raw(reduce_sum);
    struct exploit {
      const char* name;
      const aopt::npu::op_package* op;
      std::string kernel;
    };
    const exploit exploits[] = {
        // The rows are loaded as before; each sum is computed over raw GM and stored by the
        // scalar unit beside a GetValue of the loaded row, so the stored bytes look derived.
        {"row sums over raw GM, stored by LocalTensor::SetValue", &reduce_sum,
         checker_fixture::replace(
             with_raw, rt7_reduce_and_store,
             rt7_raw_row_sum("progress * rowsPerTile + r") +
                 "            result.SetValue(progress * rowsPerTile + r,\n"
                 "                            acc + 0.0f * xLocal.GetValue(r * colsAligned));\n")},
        // Nothing loaded: each sum over raw GM, stored to y by a traced scalar store.
        {"row sums over raw GM, stored by GlobalTensor::SetValue", &reduce_sum,
         checker_fixture::replace(
             with_raw,
             "        LocalTensor<float> result = resultBuf.Get<float>();\n"
             "        uint32_t tileNum",
             "        for (uint32_t r = 0; r < rowCount; r++) {\n" + rt7_raw_row_sum("r") +
                 "            yGm.SetValue(r, acc);\n"
                 "        }\n"
                 "        return;\n"
                 "        LocalTensor<float> result = resultBuf.Get<float>();\n"
                 "        uint32_t tileNum")},
        // The honest reduction, its result stored through a raw GM pointer (the replay of the
        // traced writes refused this before, as bytes no traced write covers).
        {"honest row sums stored through raw GM", &reduce_sum,
         checker_fixture::replace(
             checker_fixture::replace(
                 with_raw,
                 "            result.SetValue(progress * rowsPerTile + r, sum.GetValue(0));\n",
                 "            rawY[progress * rowsPerTile + r] = sum.GetValue(0);\n"),
             "        DataCopyPad(yGm, result, copyParams);\n", "")},
        // The row statistics over raw GM, fed to the traced Adds and Muls as scalars.
        {"softmax statistics over raw GM", &softmax, rt7_softmax_raw_stats(softmax)},
    };
    for (const exploit& e : exploits) {
      CAPTURE(e.name);
      const eval_result r = f.screened.evaluate(*e.op, e.op->host_source, e.kernel, {});
      CHECK_MESSAGE(r.status == eval_status::precision_error, f.describe(r));
      CHECK(r.error_kind == "untraced_work");
      CHECK(r.message.find(aopt::testing::raw_gm_refusal) != std::string::npos);
      rt7_check_honest(f, reduce_sum, honest_sum.latency_us);
    }
    rt7_check_honest(f, softmax, honest_softmax.latency_us);
  }

  TEST_CASE("red team 7: the traced GM API reaches the guarded GM") {
    checker_fixture f;
    const aopt::npu::op_package reduce_sum = rt7_corpus_op("level1/reduce_sum_custom");
    // The honest reduction, each sum stored to y by GlobalTensor::SetValue (after a GetValue of
    // x) instead of one copy at the end: both open the GM for their own access.
    std::string kernel = checker_fixture::replace(
        reduce_sum.kernel_source,
        "            result.SetValue(progress * rowsPerTile + r, sum.GetValue(0));\n",
        "            const float first = xGm.GetValue((progress * rowsPerTile + r) * cols);\n"
        "            yGm.SetValue(progress * rowsPerTile + r, sum.GetValue(0) + 0.0f * first);\n");
    kernel =
        checker_fixture::replace(kernel, "        DataCopyPad(yGm, result, copyParams);\n", "");
    const eval_result r = f.screened.evaluate(reduce_sum, reduce_sum.host_source, kernel, {});
    CHECK_MESSAGE(r.ok(), f.describe(r));
    f.check_honest_still_ok();
  }

  TEST_CASE("red team 7: a kernel cannot give itself GM access back") {
    // The guard's access is the thread's protection key register (or the pages' protection):
    // a kernel that wrote the register, or changed the protection, would read GM raw again.
    // The screen admits neither: a function the package declares but does not define (pkey_set,
    // mprotect, syscall from the C library) and a compiler builtin off its allow-list.
    checker_fixture f;
    const aopt::npu::op_package reduce_sum = rt7_corpus_op("level1/reduce_sum_custom");
    const std::string with_raw = rt7_reduce_sum_with_raw(reduce_sum);
    struct reopening {
      const char* declaration;
      const char* call;
      const char* named;
    };
    const reopening reopenings[] = {
        {"extern \"C\" int pkey_set(int, unsigned int);\n", "pkey_set(1, 0);", "pkey_set"},
        {"extern \"C\" int mprotect(void*, unsigned long, int);\n",
         "mprotect((void*)((unsigned long)rawX & ~4095UL), 1UL << 24, 3);", "mprotect"},
        {"extern \"C\" long syscall(long, ...);\n", "syscall(330, 0, 0);", "syscall"},
        {"__attribute__((target(\"pku\"))) static inline void OpenAll() "
         "{ __builtin_ia32_wrpkru(0); }\n",
         "OpenAll();", "__builtin_ia32_wrpkru"},
    };
    for (const reopening& e : reopenings) {
      CAPTURE(e.named);
      std::string kernel = checker_fixture::replace(
          with_raw, rt7_reduce_and_store,
          std::string("            ") + e.call + "\n" +
              rt7_raw_row_sum("progress * rowsPerTile + r") +
              "            result.SetValue(progress * rowsPerTile + r,\n"
              "                            acc + 0.0f * xLocal.GetValue(r * colsAligned));\n");
      kernel =
          checker_fixture::replace(kernel, "#include \"kernel_operator.h\"\n",
                                   std::string("#include \"kernel_operator.h\"\n") + e.declaration);
      const eval_result r = f.screened.evaluate(reduce_sum, reduce_sum.host_source, kernel, {});
      CHECK_MESSAGE(r.status == eval_status::compile_error, f.describe(r));
      CHECK(r.error_kind == "forbidden");
      CHECK(r.message.find(std::string("`") + e.named + "`") != std::string::npos);
    }
    rt7_check_honest(
        f, reduce_sum,
        f.screened.evaluate(reduce_sum, reduce_sum.host_source, reduce_sum.kernel_source, {})
            .latency_us);
  }

  TEST_CASE("red team 7: a GM -> L1 load hits L2 only on bytes the launch touched before") {
    checker_fixture f;
    const aopt::sim::hw_profile hw = aopt::testing::checker_profile();
    constexpr uint32_t tile = 64 * 1024;
    // Block 0 reads the tile first, block 1 reads its second half and as much after it, block 2
    // reads bytes it wrote before: L2 serves the bytes touched before only.
    const std::vector<aopt::sim::core_trace> traces = {rt7_l1_load(0, 0, tile, 10),
                                                       rt7_l1_load(1, tile / 2, tile, 20),
                                                       rt7_l1_load(2, 4 * tile, tile, 30, true)};
    const std::vector<aopt::sim::l2_hit_bytes> hits = aopt::sim::find_l2_hits(traces);
    REQUIRE(hits.size() == 3);
    CHECK(hits[0].empty());
    CHECK(hits[1].at(0) == tile / 2);
    CHECK(hits[2].at(0) == tile);
    // Each load's bytes from GM at the core's GM rate (32 bytes a cycle; HBM shared by 3 cores
    // allows more), the rest at the L2 rate; everything else about the three loads is equal.
    const std::vector<aopt::sim::core_timing> cores = aopt::sim::replay_cores(traces, hw, 3);
    const auto mte2 = [&](size_t core) {
      return cores[core].busy_cycles[static_cast<size_t>(aopt::sim::pipe::mte2)];
    };
    const double gm_rate = hw.gm_read_bytes_per_cycle;
    const double l2_rate = hw.l2_read_bytes_per_cycle;
    CHECK(mte2(0) - mte2(1) == doctest::Approx(tile / 2 / gm_rate - tile / 2 / l2_rate));
    CHECK(mte2(0) - mte2(2) == doctest::Approx(tile / gm_rate - tile / l2_rate));
    CHECK(cores[0].l2_dma_bytes == 0);
    CHECK(cores[1].l2_dma_bytes == tile / 2);
    CHECK(cores[2].l2_dma_bytes == tile);
    f.check_honest_still_ok();
  }
}
