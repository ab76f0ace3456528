// Simulated latencies pinned bit for bit (issue 33): making the simulator faster (vector loops,
// conversions, parallel input sets, the build) must not move a single corpus latency. The values
// are the simulated microseconds of main before that work; a change of the timing model that is
// meant to move them updates them here and says so. One input set per operator: the latency is
// timed on the first set, so the pinned value is the same as with the default three.
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <string>

#include <doctest/doctest.h>
#include <fmt/format.h>

#include "base/scratch_dir.hpp"
#include "npu/hardware_profile.hpp"
#include "npu/op_package.hpp"
#include "npu/sim/device/sim_device.hpp"
#include "support/shared_object_cache.hpp"

namespace fs = std::filesystem;

namespace {

uint64_t bits_of(double d) {
  uint64_t b = 0;
  std::memcpy(&b, &d, sizeof b);
  return b;
}

struct pinned {
  const char* op;     // below corpus/
  double latency_us;  // exactly
};

// fp16 elementwise, fp16 activation (Exp/Div chains), bf16 normalisation, a cast with rounding,
// a float32 reduction: the vector paths the speed work touches.
const pinned pins[] = {
    {"level1/add_custom", 0x1.d3df92c5f92c6p+7},
    {"level1/gelu_custom", 0x1.38ac8505c1p+6},
    {"level1/cast_fp32_fp16_custom", 0x1.1cf4afeed5f78p+6},
    {"level2/row_center_custom", 0x1.275f92c5f92c6p+6},
    {"level2/rms_norm_custom", 0x1.1bb8bac710cbp+6},
};

}  // namespace

TEST_SUITE("npu") {
  TEST_CASE("corpus operators keep their simulated latencies bit for bit") {
    auto profile = aopt::npu::find_hardware_profile("ascend910b4",
                                                    fs::path(AOPT_SOURCE_DIR) / "config/hardware");
    REQUIRE_MESSAGE(profile.ok(), profile.error().to_string());
    auto work = aopt::scratch_dir::create(fs::temp_directory_path(), "aopt-latency-pin-");
    REQUIRE(work.ok());
    aopt::npu::sim_device_options options;
    options.work_dir = work->path();
    options.cache_dir = aopt::testing::shared_object_cache();
    aopt::npu::sim_device device(*profile, options);
    aopt::npu::eval_options eval;
    eval.input_sets = 1;
    for (const pinned& pin : pins) {
      CAPTURE(pin.op);
      auto op = aopt::npu::load_op_package(fs::path(AOPT_SOURCE_DIR) / "corpus" / pin.op);
      REQUIRE_MESSAGE(op.ok(), op.error().to_string());
      const auto r = device.evaluate(*op, op->host_source, op->kernel_source, eval);
      REQUIRE_MESSAGE(r.ok(), r.message);
      // Hex floats name every bit, so a failure prints the value to pin.
      CHECK_MESSAGE(
          bits_of(r.latency_us) == bits_of(pin.latency_us),
          fmt::format("{}: {:a} us simulated, pinned {:a}", pin.op, r.latency_us, pin.latency_us));
    }
  }
}
