// run_driver in-process on small AscendC operators written here: z = x + alpha * y over float32
// [4, 1024], four blocks, with kernels that are right, wrong in the ways candidates go wrong,
// or unusable. Entry points go through aopt::sim::candidate_entries, so no global symbols.
#include <doctest/doctest.h>

#include <atomic>
#include <csignal>
#include <cstdint>
#include <cstring>
#include <random>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "register/op_def_registry.h"
#include "register/tilingdata_base.h"
#include "tiling/platform/platform_ascendc.h"

namespace optiling {
BEGIN_TILING_DATA_DEF(DriverRunTestTiling)
TILING_DATA_FIELD_DEF(uint32_t, blockLength);
TILING_DATA_FIELD_DEF(uint32_t, tileLength);
TILING_DATA_FIELD_DEF(float, alpha);
END_TILING_DATA_DEF;
REGISTER_TILING_DATA_CLASS(DriverRunTestAxpy, DriverRunTestTiling);
}  // namespace optiling

#include "kernel_operator.h"
#include "npu/sim/runtime/crash_report.hpp"
#include "npu/sim/runtime/driver.hpp"
#include "npu/sim/runtime/driver_report.hpp"
#include "npu/sim/runtime/driver_spec.hpp"
#include "npu/sim/runtime/hw_profile.hpp"
#include "npu/sim/runtime/input_generator.hpp"
#include "npu/sim/runtime/run_driver.hpp"
#include "npu/sim/runtime/tensor_check.hpp"
#include "sim/forked_child.hpp"

namespace driver_run_test {

using json = nlohmann::json;
using namespace AscendC;

constexpr uint32_t total_length = 4 * 1024;
constexpr uint32_t tile_length = 256;
constexpr int32_t BUFFER_NUM = 2;
constexpr uint64_t op_seed = 7;
constexpr float alpha = 0.5f;

// ---- host side ------------------------------------------------------------------------------

// The usual TilingFunc: split the elements evenly over `BlockDim` cores.
template <uint32_t BlockDim, uint64_t Key = 0>
ge::graphStatus tiling_func(gert::TilingContext* context) {
  optiling::DriverRunTestTiling tiling;
  const auto total =
      static_cast<uint32_t>(context->GetInputShape(0)->GetOriginShape().GetShapeSize());
  const float* a = context->GetAttrs()->GetAttrPointer<float>(0);
  if (a == nullptr) return ge::GRAPH_FAILED;
  auto platform = platform_ascendc::PlatformAscendC(context->GetPlatformInfo());
  if (platform.GetCoreNumAiv() != 40) return ge::GRAPH_FAILED;
  context->SetBlockDim(BlockDim);
  context->SetTilingKey(Key);
  tiling.set_blockLength(BlockDim == 0 ? 0 : total / BlockDim);
  tiling.set_tileLength(tile_length);
  tiling.set_alpha(*a);
  tiling.SaveToBuffer(context->GetRawTilingData()->GetData(),
                      context->GetRawTilingData()->GetCapacity());
  context->GetRawTilingData()->SetDataSize(tiling.GetDataSize());
  context->GetWorkspaceSizes(1)[0] = 0;
  return ge::GRAPH_SUCCESS;
}

ge::graphStatus failing_tiling(gert::TilingContext*) {
  return ge::GRAPH_FAILED;
}

ge::graphStatus huge_workspace_tiling(gert::TilingContext* context) {
  tiling_func<4>(context);
  context->GetWorkspaceSizes(1)[0] = size_t{3} << 30;
  return ge::GRAPH_SUCCESS;
}

void reference(const aopt_ref::tensors& in, aopt_ref::tensors& out, const aopt_ref::attrs& attrs) {
  const double a = attrs.number("alpha");
  for (int64_t i = 0; i < in[0].numel(); ++i) out[0].data[i] = in[0].data[i] + a * in[1].data[i];
}

void throwing_reference(const aopt_ref::tensors&, aopt_ref::tensors&, const aopt_ref::attrs&) {
  throw std::out_of_range("reference index 9 out of range");
}

// ---- kernel side ----------------------------------------------------------------------------

enum class variant {
  correct,
  subtracts,        // a wrong answer
  half_written,     // processes only the first half of its tiles
  scribbles_input,  // also writes its result over x
  keyed,            // correct only under tiling key 1
  unsynchronised,   // TBuf without SetFlag/WaitFlag: right numbers, racy on hardware
  scalar_mix,       // scalar reads of copied-in and vector data: ordered only by auto-sync
  ub_overflow,      // asks InitBuffer for more than the UB
  throws,
};

template <variant V>
class KernelAxpy {
 public:
  __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, GM_ADDR z,
                              const optiling::DriverRunTestTiling& t) {
    blockLength_ = t.blockLength;
    tileLength_ = t.tileLength;
    alpha_ = t.alpha;
    xGm_.SetGlobalBuffer((__gm__ float*)x + blockLength_ * GetBlockIdx(), blockLength_);
    yGm_.SetGlobalBuffer((__gm__ float*)y + blockLength_ * GetBlockIdx(), blockLength_);
    zGm_.SetGlobalBuffer((__gm__ float*)z + blockLength_ * GetBlockIdx(), blockLength_);
    const uint32_t bytes = V == variant::ub_overflow ? 100 * 1024 : tileLength_ * sizeof(float);
    pipe_.InitBuffer(inQueueX_, BUFFER_NUM, bytes);
    pipe_.InitBuffer(inQueueY_, BUFFER_NUM, bytes);
    pipe_.InitBuffer(outQueueZ_, BUFFER_NUM, bytes);
  }

  __aicore__ inline void Process() {
    uint32_t loops = blockLength_ / tileLength_;
    if (V == variant::half_written) loops /= 2;
    if (V == variant::keyed && !TILING_KEY_IS(1)) loops = 0;
    for (uint32_t i = 0; i < loops; ++i) {
      CopyIn(i);
      Compute();
      CopyOut(i);
    }
  }

 private:
  __aicore__ inline void CopyIn(uint32_t i) {
    LocalTensor<float> x = inQueueX_.AllocTensor<float>();
    LocalTensor<float> y = inQueueY_.AllocTensor<float>();
    DataCopy(x, xGm_[i * tileLength_], tileLength_);
    DataCopy(y, yGm_[i * tileLength_], tileLength_);
    inQueueX_.EnQue(x);
    inQueueY_.EnQue(y);
  }

  __aicore__ inline void Compute() {
    LocalTensor<float> x = inQueueX_.DeQue<float>();
    LocalTensor<float> y = inQueueY_.DeQue<float>();
    LocalTensor<float> z = outQueueZ_.AllocTensor<float>();
    Muls(y, y, alpha_, tileLength_);
    if (V == variant::subtracts) {
      Sub(z, x, y, tileLength_);
    } else if (V == variant::scalar_mix) {
      // A length the scalar unit derives from copied-in data (MTE2 -> S) feeds the vector op;
      // the result is read back and rewritten by the scalar unit (V -> S -> MTE3).
      const int32_t n = x.GetValue(0) > 100.0f ? 0 : static_cast<int32_t>(tileLength_);
      Add(z, x, y, n);
      z.SetValue(0, z.GetValue(0) + 0.0f);
    } else {
      Add(z, x, y, tileLength_);
    }
    outQueueZ_.EnQue(z);
    inQueueX_.FreeTensor(x);
    inQueueY_.FreeTensor(y);
  }

  __aicore__ inline void CopyOut(uint32_t i) {
    LocalTensor<float> z = outQueueZ_.DeQue<float>();
    DataCopy(zGm_[i * tileLength_], z, tileLength_);
    if (V == variant::scribbles_input) DataCopy(xGm_[i * tileLength_], z, tileLength_);
    outQueueZ_.FreeTensor(z);
  }

  TPipe pipe_;
  TQue<QuePosition::VECIN, BUFFER_NUM> inQueueX_, inQueueY_;
  TQue<QuePosition::VECOUT, BUFFER_NUM> outQueueZ_;
  GlobalTensor<float> xGm_, yGm_, zGm_;
  uint32_t blockLength_ = 0;
  uint32_t tileLength_ = 0;
  float alpha_ = 0;
};

// The same computation staged through one TBuf with no synchronisation between the pipes.
__aicore__ inline void unsynchronised_axpy(GM_ADDR x, GM_ADDR y, GM_ADDR z,
                                           const optiling::DriverRunTestTiling& t) {
  GlobalTensor<float> xGm, yGm, zGm;
  const uint32_t offset = t.blockLength * GetBlockIdx();
  xGm.SetGlobalBuffer((__gm__ float*)x + offset, t.blockLength);
  yGm.SetGlobalBuffer((__gm__ float*)y + offset, t.blockLength);
  zGm.SetGlobalBuffer((__gm__ float*)z + offset, t.blockLength);
  TPipe pipe;
  TBuf<TPosition::VECCALC> buf;
  pipe.InitBuffer(buf, 3 * t.tileLength * sizeof(float));
  LocalTensor<float> xl = buf.Get<float>();
  LocalTensor<float> yl = xl[t.tileLength];
  LocalTensor<float> zl = xl[2 * t.tileLength];
  for (uint32_t i = 0; i < t.blockLength / t.tileLength; ++i) {
    DataCopy(xl, xGm[i * t.tileLength], t.tileLength);
    DataCopy(yl, yGm[i * t.tileLength], t.tileLength);
    Muls(yl, yl, t.alpha, t.tileLength);
    Add(zl, xl, yl, t.tileLength);
    DataCopy(zGm[i * t.tileLength], zl, t.tileLength);
  }
}

template <variant V>
void kernel_entry(uint8_t* const* args) {
  // args: x, y, z, workspace, tiling
  GET_TILING_DATA(tilingData, args[4]);
  if (V == variant::throws) throw std::runtime_error("kernel gave up");
  if (V == variant::unsynchronised) {
    unsynchronised_axpy(args[0], args[1], args[2], tilingData);
    return;
  }
  KernelAxpy<V> op;
  op.Init(args[0], args[1], args[2], tilingData);
  op.Process();
}

// The inputs of input set `set`, drawn the way the driver draws them.
std::vector<std::vector<double>> inputs_of(uint32_t set) {
  aopt::npu::tensor_spec t;
  t.type = aopt::npu::dtype::float32;
  t.shape = {4, 1024};
  t.range_lo = -2;
  t.range_hi = 2;
  std::mt19937_64 rng(op_seed + set);
  std::vector<std::vector<double>> values;
  for (int i = 0; i < 2; ++i)
    values.push_back(aopt::sim::decode_tensor(t, aopt::sim::generate_input(t, rng).data()));
  return values;
}

// A kernel that learned the answer of the first input set and ignores its inputs: it writes
// straight to GM, invisible to the simulator's DMA accounting.
void memorizing_kernel(uint8_t* const* args) {
  static const std::vector<float> answer = [] {
    const auto in = inputs_of(0);
    std::vector<float> z(total_length);
    for (uint32_t i = 0; i < total_length; ++i) {
      z[i] = static_cast<float>(in[0][i]) + alpha * static_cast<float>(in[1][i]);
    }
    return z;
  }();
  GET_TILING_DATA(tilingData, args[4]);
  const uint32_t offset = tilingData.blockLength * GetBlockIdx();
  std::memcpy(args[2] + offset * sizeof(float), answer.data() + offset,
              tilingData.blockLength * sizeof(float));
}

// The right answer computed through raw GM pointers: no traced DMA, so faster than possible.
void raw_pointer_kernel(uint8_t* const* args) {
  GET_TILING_DATA(tilingData, args[4]);
  const uint32_t offset = tilingData.blockLength * GetBlockIdx();
  const auto* x = reinterpret_cast<const float*>(args[0]) + offset;
  const auto* y = reinterpret_cast<const float*>(args[1]) + offset;
  auto* z = reinterpret_cast<float*>(args[2]) + offset;
  for (uint32_t i = 0; i < tilingData.blockLength; ++i) z[i] = x[i] + tilingData.alpha * y[i];
}

// Two input sets on two threads, met inside each other (each child process starts them at 0):
// the second tiling function to run waits in the host code while the first set's kernel runs.
std::atomic<uint32_t> tilings_entered{0};

// Until `done` holds, or a bound far beyond any scheduling delay (the test then fails on what the
// child printed, rather than hanging).
template <typename Done>
void wait_until(Done done) {
  for (uint64_t spins = 0; !done() && spins < 2'000'000'000ULL; ++spins) std::this_thread::yield();
}

// The second set's tiling function stays in the host code, holding its thread there, until the
// process ends (the first set's kernel faults meanwhile).
ge::graphStatus tiling_held_open(gert::TilingContext* context) {
  if (tilings_entered.fetch_add(1) == 1) wait_until([] { return false; });
  return tiling_func<4>(context);
}

// The second set's tiling function crashes while the first set's kernel runs.
ge::graphStatus tiling_crashing_second(gert::TilingContext* context) {
  if (tilings_entered.fetch_add(1) == 1) std::raise(SIGSEGV);
  return tiling_func<4>(context);
}

// The first kernel to run waits until the other set is inside its tiling function, then stores
// through a raw GM pointer.
void raw_store_while_other_set_tiles(uint8_t* const* args) {
  wait_until([] { return tilings_entered.load() >= 2; });
  memorizing_kernel(args);
}

// Its kernels keep to the traced API: waits until the other set is inside its tiling function,
// then runs the correct kernel.
void correct_while_other_set_tiles(uint8_t* const* args) {
  wait_until([] { return tilings_entered.load() >= 2; });
  kernel_entry<variant::correct>(args);
}

json spec(uint32_t input_sets = 3, int64_t rows = 4) {
  const json x = {{"name", "x"}, {"dtype", "float32"}, {"shape", {rows, 1024}}, {"range", {-2, 2}}};
  json y = x;
  y["name"] = "y";
  return {{"op",
           {{"name", "driver_axpy"},
            {"inputs", {x, y}},
            {"outputs", {{{"name", "z"}, {"dtype", "float32"}, {"shape", {rows, 1024}}}}},
            {"attrs", {{{"name", "alpha"}, {"type", "float"}, {"value", alpha}}}},
            {"seed", op_seed}}},
          {"hw", aopt::sim::hw_profile{}},
          {"input_sets", input_sets},
          {"detect_races", true},
          {"noise_stddev_fraction", 0},
          {"noise_seed", 0}};
}

aopt::sim::candidate_entries entries(
    uint32_t (*tiling)(gert::TilingContext*), void (*kernel)(uint8_t* const*),
    decltype(aopt::sim::candidate_entries::reference) ref = &reference) {
  aopt::sim::candidate_entries e;
  e.tiling = tiling;
  e.kernel = kernel;
  e.reference = ref;
  return e;
}

json run(const aopt::sim::candidate_entries& e, const json& s = spec()) {
  json result;
  const int rc = aopt::sim::run_driver(s, e, result);
  INFO(result.dump());
  REQUIRE(rc == 0);
  return result;
}

// How `e` ends in a child process of its own, as a candidate runs: a kernel that touches GM behind
// the traced API faults there (gm_guard.hpp), which would take the test process with it.
using aopt::sim::testing::child_end;
child_end run_in_child(const aopt::sim::candidate_entries& e, const json& s = spec()) {
  return aopt::sim::testing::run_in_forked_child([&] {
    json result;
    aopt::sim::run_driver(s, e, result);
  });
}

bool contains(const json& result, const std::string& text) {
  return result.at("message").get<std::string>().find(text) != std::string::npos;
}

}  // namespace driver_run_test

using namespace driver_run_test;

TEST_SUITE("sim") {
  TEST_CASE("a correct tiled, double-buffered kernel passes every input set and is timed") {
    const json r = run(entries(&tiling_func<4>, &kernel_entry<variant::correct>));
    INFO(r.dump(2));
    CHECK(r["status"] == "ok");
    CHECK(r["error_kind"] == "");
    CHECK(r["block_dim"] == 4);
    CHECK(r["tiling_key"] == 0);
    CHECK(r["workspace_bytes"] == 0);
    CHECK(r["device"] == "sim");
    CHECK(r["device_profile"] == "ascend910b4");
    CHECK(r["latency_us"].get<double>() > 0);
    CHECK(r["latency"]["median_us"] == r["latency_us"]);
    CHECK(r["latency"]["repetitions"] == 1);
    CHECK(r["profile"]["block_dim"] == 4);
    CHECK(r["profile"]["gm_read_bytes"] == 2 * total_length * sizeof(float));
    CHECK(r["profile"]["gm_write_bytes"] == total_length * sizeof(float));
    CHECK(r["profile"]["vector"]["time_us"].get<double>() > 0);
    CHECK(r["profile"]["mte2"]["ratio"].get<double>() > 0);
    CHECK(r["profile"]["mte2"]["ratio"].get<double>() <= 1);
    CHECK(r["profile"]["ub_capacity_bytes"] == 196608);
    CHECK(r["profile"]["ub_high_water_bytes"] == 3 * BUFFER_NUM * tile_length * sizeof(float));
    REQUIRE(r["profile"]["ub_allocations"].size() == 3);
    for (const json& a : r["profile"]["ub_allocations"]) {
      CHECK(a["buffers"] == BUFFER_NUM);
      CHECK(a["bytes_each"] == tile_length * sizeof(float));
      CHECK(a["line"].get<uint32_t>() > 0);
    }
    CHECK(r["roofline"]["bound_us"].get<double>() > 0);
    CHECK(r["roofline"]["bound_us"].get<double>() <= r["latency_us"].get<double>());
    CHECK(r["diagnostics"].size() >= 1);
  }

  TEST_CASE("the same candidate and spec give the same simulated latency") {
    const auto e = entries(&tiling_func<4>, &kernel_entry<variant::correct>);
    CHECK(run(e)["latency_us"] == run(e)["latency_us"]);
  }

  TEST_CASE("seeded noise spreads repeated latencies reproducibly; without noise they are equal") {
    const auto e = entries(&tiling_func<4>, &kernel_entry<variant::correct>);
    json s = spec(1);
    s["repetitions"] = 9;
    const json quiet = run(e, s);
    CHECK(quiet["latency"]["stddev_us"] == 0.0);
    CHECK(quiet["latency"]["repetitions"] == 9);
    s["noise_stddev_fraction"] = 0.1;
    s["noise_seed"] = 3;
    const json noisy = run(e, s);
    CHECK(noisy["status"] == "ok");
    CHECK(noisy["latency"]["stddev_us"].get<double>() > 0);
    CHECK(noisy["latency"]["min_us"].get<double>() < noisy["latency"]["max_us"].get<double>());
    CHECK(run(e, s)["latency"] == noisy["latency"]);
  }

  TEST_CASE("a wrong answer is a mismatch naming tensor, first index, expected and actual values") {
    const json r = run(entries(&tiling_func<4>, &kernel_entry<variant::subtracts>));
    CHECK(r["status"] == "precision_error");
    CHECK(r["error_kind"] == "mismatch");
    const auto in = inputs_of(0);
    const double expected = in[0][0] + 0.5 * in[1][0];
    const float actual = static_cast<float>(in[0][0]) - alpha * static_cast<float>(in[1][0]);
    INFO(r["message"]);
    CHECK(contains(r, "input set 0 (seed 7): output z: "));
    CHECK(contains(r, "first at index 0 [0, 0]: expected " +
                          aopt::sim::format_value(static_cast<float>(expected)) + ", actual " +
                          aopt::sim::format_value(actual)));
    // Failing candidates are not timed: the result's latency holds no sample.
    CHECK(r["latency"]["repetitions"] == 0);
    CHECK(r["latency_us"] == 0);
  }

  TEST_CASE("a kernel that ignores its inputs and writes GM behind the trace is untraced work") {
    // Its answer is right for input set 0, but its raw store faults where it happens: the GM is
    // out of the kernel's reach outside the traced API (gm_guard.hpp), and the device reports the
    // guard's line as untraced_work.
    const child_end c = run_in_child(entries(&tiling_func<4>, &memorizing_kernel));
    INFO(c.stderr_text);
    CHECK(aopt::sim::testing::died_of_untraced_gm(c));
  }

  TEST_CASE("output elements the kernel never writes are reported as unwritten") {
    const json r = run(entries(&tiling_func<4>, &kernel_entry<variant::half_written>));
    CHECK(r["status"] == "precision_error");
    CHECK(r["error_kind"] == "unwritten_output");
    INFO(r["message"]);
    // Each block writes the first 512 of its 1024 elements.
    CHECK(contains(r, "output z: 2048 of 4096 elements were never written"));
    CHECK(contains(r, "first at index 512 [0, 512]"));
  }

  TEST_CASE(
      "a kernel that writes into an input fails naming the input and the first changed element") {
    const json r = run(entries(&tiling_func<4>, &kernel_entry<variant::scribbles_input>));
    CHECK(r["status"] == "precision_error");
    CHECK(r["error_kind"] == "input_modified");
    INFO(r["message"]);
    CHECK(
        contains(r, "input x was modified by the kernel: 4096 elements changed, first at index 0"));
    CHECK(contains(r, "was " + aopt::sim::format_value(inputs_of(0)[0][0])));
  }

  TEST_CASE("blockDim 0 and blockDim above 65535 are runtime errors") {
    const json zero = run(entries(&tiling_func<0>, &kernel_entry<variant::correct>));
    CHECK(zero["status"] == "runtime_error");
    CHECK(zero["error_kind"] == "bad_block_dim");
    CHECK(contains(zero, "blockDim 0"));
    const json many = run(entries(&tiling_func<65536>, &kernel_entry<variant::correct>));
    CHECK(many["status"] == "runtime_error");
    CHECK(many["error_kind"] == "bad_block_dim");
    CHECK(contains(many, "blockDim 65536: TilingFunc must call SetBlockDim with 1..65535"));
  }

  TEST_CASE("blockDim 48 on the 40-core profile runs and is timed in two waves") {
    const json forty = run(entries(&tiling_func<40>, &kernel_entry<variant::correct>), spec(3, 40));
    const json waves = run(entries(&tiling_func<48>, &kernel_entry<variant::correct>), spec(3, 48));
    INFO(waves.dump(2));
    REQUIRE(forty["status"] == "ok");
    REQUIRE(waves["status"] == "ok");
    CHECK(waves["block_dim"] == 48);
    CHECK(forty["profile"]["waves"] == 1);
    CHECK(waves["profile"]["waves"] == 2);
    // Every block does the same work (one row), so a second wave doubles the core time, far
    // less than 48 blocks back to back.
    const double block_us = forty["profile"]["core_time_max_us"].get<double>();
    CHECK(waves["profile"]["core_time_max_us"].get<double>() == doctest::Approx(2 * block_us));
    CHECK(waves["latency_us"].get<double>() > forty["latency_us"].get<double>());
    CHECK(waves["latency_us"].get<double>() < 48 * block_us);
  }

  TEST_CASE("scalar reads and writes of vector data are ordered by auto-sync, races without it") {
    const json r = run(entries(&tiling_func<4>, &kernel_entry<variant::scalar_mix>));
    INFO(r.dump(2));
    CHECK(r["status"] == "ok");
    CHECK(r["profile"]["auto_sync_wait_us"].get<double>() > 0);
    const json plain = run(entries(&tiling_func<4>, &kernel_entry<variant::correct>));
    CHECK(plain["profile"]["auto_sync_wait_us"].get<double>() == 0);

    json no_auto_sync = spec();
    no_auto_sync["hw"]["auto_sync"] = false;
    const json racy =
        run(entries(&tiling_func<4>, &kernel_entry<variant::scalar_mix>), no_auto_sync);
    CHECK(racy["status"] == "precision_error");
    CHECK(racy["error_kind"] == "data_race");
    INFO(racy["message"]);
    CHECK(contains(racy, "(S, #"));
    CHECK(contains(racy, "device.auto_sync"));
    // What no compiler inserts stays a race with auto-sync on.
    CHECK(run(entries(&tiling_func<4>, &kernel_entry<variant::unsynchronised>))["error_kind"] ==
          "data_race");
  }

  TEST_CASE("a failing or throwing tiling function is a runtime error naming TilingFunc") {
    const json failed = run(entries(&failing_tiling, &kernel_entry<variant::correct>));
    CHECK(failed["status"] == "runtime_error");
    CHECK(failed["error_kind"] == "tiling_failed");
    CHECK(contains(failed, "TilingFunc returned 4294967295 (GRAPH_FAILED)"));

    json s = spec();
    s["op"]["tiling_func"] = "AxpyTiling";
    // A list attribute first: GetAttrPointer<float>(0) of a list yields nullptr (a scalar
    // attribute of another type would answer with its storage, as CANN's context does).
    s["op"]["attrs"].insert(s["op"]["attrs"].begin(),
                            json{{"name", "axes"}, {"type", "list_int"}, {"value", {1}}});
    const json typed = run(entries(&tiling_func<4>, &kernel_entry<variant::correct>), s);
    INFO(typed.dump());
    CHECK(contains(typed, "AxpyTiling returned"));
  }

  TEST_CASE("a workspace request above 1 GiB is refused before any allocation") {
    const json r = run(entries(&huge_workspace_tiling, &kernel_entry<variant::correct>));
    CHECK(r["status"] == "runtime_error");
    CHECK(r["error_kind"] == "bad_workspace");
    CHECK(contains(r, "3221225472 bytes of workspace"));
  }

  TEST_CASE("TILING_KEY_IS sees the key the tiling function set") {
    CHECK(run(entries(&tiling_func<4, 1>, &kernel_entry<variant::keyed>))["status"] == "ok");
    const json r = run(entries(&tiling_func<4, 0>, &kernel_entry<variant::keyed>));
    CHECK(r["error_kind"] == "unwritten_output");
  }

  TEST_CASE("a simulator check failing in a block is a runtime error with its kind and block") {
    const json r = run(entries(&tiling_func<4>, &kernel_entry<variant::ub_overflow>));
    CHECK(r["status"] == "runtime_error");
    CHECK(r["error_kind"] == "ub_overflow");
    INFO(r["message"]);
    CHECK(contains(r, "input set 0 (seed 7): block 0: "));
  }

  TEST_CASE(
      "exceptions escaping the kernel or the reference are runtime errors with their message") {
    const json kernel = run(entries(&tiling_func<4>, &kernel_entry<variant::throws>));
    CHECK(kernel["status"] == "runtime_error");
    CHECK(kernel["error_kind"] == "exception");
    CHECK(contains(kernel, "block 0: kernel driver_axpy threw: kernel gave up"));

    const json ref =
        run(entries(&tiling_func<4>, &kernel_entry<variant::correct>, &throwing_reference));
    CHECK(ref["status"] == "runtime_error");
    CHECK(ref["error_kind"] == "reference_failed");
    CHECK(contains(ref, "reference index 9 out of range"));
  }

  TEST_CASE("unsynchronised pipes with correct numbers are a data race naming the block") {
    const json r = run(entries(&tiling_func<4>, &kernel_entry<variant::unsynchronised>));
    CHECK(r["status"] == "precision_error");
    CHECK(r["error_kind"] == "data_race");
    INFO(r["message"]);
    CHECK(contains(r, "block 0: "));
    CHECK(contains(r, "DataCopy"));
    CHECK(r["latency_us"].get<double>() > 0);  // races are found on a timed run
    json quiet = spec();
    quiet["detect_races"] = false;
    CHECK(run(entries(&tiling_func<4>, &kernel_entry<variant::unsynchronised>), quiet)["status"] ==
          "ok");
  }

  TEST_CASE("raw-pointer compute, faster than the roofline allows, is untraced work") {
    // Refused at its first raw access (gm_guard.hpp), long before a latency exists to compare
    // with the roofline.
    const child_end c = run_in_child(entries(&tiling_func<1>, &raw_pointer_kernel));
    INFO(c.stderr_text);
    CHECK(aopt::sim::testing::died_of_untraced_gm(c));
  }

  TEST_CASE("an unusable spec or missing entry point is an infra error and returns 2") {
    json result;
    json s = spec();
    s["op"]["inputs"][1]["dtype"] = "float8";
    CHECK(aopt::sim::run_driver(s, entries(&tiling_func<4>, &kernel_entry<variant::correct>),
                                result) == 2);
    CHECK(result["status"] == "infra_error");
    CHECK(result["message"] == "driver spec: op.inputs[1].dtype: unknown dtype 'float8'");

    aopt::sim::candidate_entries none;
    CHECK(aopt::sim::run_driver(spec(), none, result) == 2);
    CHECK(result["status"] == "infra_error");

    s = spec();
    s["hw"]["vector_cores"] = -1;
    CHECK(aopt::sim::run_driver(s, entries(&tiling_func<4>, &kernel_entry<variant::correct>),
                                result) == 2);
    CHECK(contains(result, "vector_cores"));
  }

  TEST_CASE("a fault is reported by what its own thread was running, whatever other sets run") {
    // Input sets run on threads of their own (issue 33). One set's kernel storing through raw GM
    // while another set is inside its tiling function is the kernel's untraced work, not a crash
    // of the tiling function: a handler one set installed around its tiling function used to
    // catch it (in 4 runs of 6 before crash_report.hpp).
    json two_threads = spec(2);
    two_threads["set_threads"] = 2;
    for (int run = 0; run < 10; ++run) {
      CAPTURE(run);
      const child_end kernel_fault =
          run_in_child(entries(&tiling_held_open, &raw_store_while_other_set_tiles), two_threads);
      INFO(kernel_fault.stderr_text);
      CHECK(aopt::sim::testing::died_of_untraced_gm(kernel_fault));
      CHECK(kernel_fault.stderr_text.find(aopt::sim::tiling_crash_marker) == std::string::npos);
      // And the other way: the tiling function that crashes is named while a kernel runs.
      const child_end tiling_crash = run_in_child(
          entries(&tiling_crashing_second, &correct_while_other_set_tiles), two_threads);
      INFO(tiling_crash.stderr_text);
      CHECK(tiling_crash.killed_by_segv);
      CHECK(tiling_crash.stderr_text.find(std::string(aopt::sim::tiling_crash_marker) +
                                          "the tiling function ") != std::string::npos);
      CHECK(tiling_crash.stderr_text.find(aopt::sim::gm_guard_marker) == std::string::npos);
    }
  }

  TEST_CASE("input sets run on several threads deliver the report of one thread, byte for byte") {
    // The parent gives a candidate a free core for its sets (issue 33): outputs, fingerprints,
    // traces and diagnostics must not depend on it, nor on which thread ran which set.
    auto deliver = [](const aopt::sim::candidate_entries& e, uint32_t threads) {
      json s = spec(3);
      s["set_threads"] = threads;
      const auto parsed = aopt::sim::parse_driver_spec(s);
      CHECK(parsed.set_threads == threads);
      return aopt::sim::encode_report(aopt::sim::collect_report(parsed, e));
    };
    const auto correct = entries(&tiling_func<4>, &kernel_entry<variant::correct>);
    const std::string one = deliver(correct, 1);
    CHECK(deliver(correct, 2) == one);
    CHECK(deliver(correct, 3) == one);
    CHECK(aopt::sim::decode_report(one).sets.size() == 3);
    // A failing first set ends the report there, whichever thread got to the later sets first.
    const auto throwing = entries(&tiling_func<4>, &kernel_entry<variant::throws>);
    const std::string failed = deliver(throwing, 3);
    CHECK(failed == deliver(throwing, 1));
    const auto decoded = aopt::sim::decode_report(failed);
    REQUIRE(decoded.sets.size() == 1);
    CHECK(decoded.sets[0].failed_kind == "exception");
  }
}
