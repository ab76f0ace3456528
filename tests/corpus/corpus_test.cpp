// The operator corpus (corpus/, issue 3): every package is well formed, marks its tunables the
// way the heuristic mutator parses them, and passes the simulator's compile, run, correctness
// and race checks with status ok on the default hardware profile.
#include <doctest/doctest.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "npu/hardware_profile.hpp"
#include "npu/op_package.hpp"
#include "npu/sim/device/sim_device.hpp"
#include "support/shared_object_cache.hpp"
#include "support/temp_dir.hpp"

namespace {

namespace fs = std::filesystem;
using aopt::npu::eval_result;
using aopt::npu::op_package;

const fs::path& corpus_root() {
  static const fs::path root = fs::path(AOPT_SOURCE_DIR) / "corpus";
  return root;
}

std::vector<op_package> load_folder(const std::string& folder) {
  std::vector<fs::path> dirs;
  for (const auto& entry : fs::directory_iterator(corpus_root() / folder)) {
    if (fs::exists(entry.path() / "op.json")) dirs.push_back(entry.path());
  }
  std::sort(dirs.begin(), dirs.end());
  std::vector<op_package> ops;
  for (const auto& dir : dirs) {
    auto op = aopt::npu::load_op_package(dir);
    REQUIRE_MESSAGE(op.ok(), op.error().message());
    ops.push_back(std::move(op).value());
  }
  return ops;
}

// One `constexpr <int type> NAME = <value>; // tunable: <range>` line of an EVOLVE-BLOCK.
struct tunable {
  std::string name;
  int64_t value = 0;
  std::string range;
};

std::vector<tunable> tunables_of(const std::string& source) {
  const auto start = source.find("// EVOLVE-BLOCK-START");
  const auto end = source.find("// EVOLVE-BLOCK-END");
  if (start == std::string::npos || end == std::string::npos || end < start) return {};
  static const std::regex line_re(
      R"(^\s*constexpr\s+(?:u?int(?:8|16|32|64)_t|int|unsigned|size_t)\s+([A-Z_][A-Z0-9_]*)\s*=\s*(-?\d+)\s*;\s*//\s*tunable:\s*(.+?)\s*$)");
  std::vector<tunable> result;
  std::istringstream block(source.substr(start, end - start));
  std::string line;
  std::smatch m;
  while (std::getline(block, line)) {
    if (std::regex_match(line, m, line_re)) result.push_back({m[1], std::stoll(m[2]), m[3]});
  }
  return result;
}

// Checks that `t.range` is one of the mutator's forms and that the default lies in it.
void check_range(const std::string& op, const tunable& t) {
  static const std::regex range_re(R"(^range \[(-?\d+), (-?\d+)\](?: step (\d+))?$)");
  static const std::regex pow2_re(R"(^pow2 \[(\d+), (\d+)\]$)");
  static const std::regex choice_re(R"(^choice \{(-?\d+(?:, -?\d+)*)\}$)");
  const std::string what = op + ": " + t.name + " (" + t.range + ")";
  std::smatch m;
  if (std::regex_match(t.range, m, range_re)) {
    const int64_t lo = std::stoll(m[1]);
    const int64_t hi = std::stoll(m[2]);
    CHECK_MESSAGE(lo <= t.value, what);
    CHECK_MESSAGE(t.value <= hi, what);
    if (m[3].matched) CHECK_MESSAGE((t.value - lo) % std::stoll(m[3]) == 0, what);
  } else if (std::regex_match(t.range, m, pow2_re)) {
    const int64_t lo = std::stoll(m[1]);
    const int64_t hi = std::stoll(m[2]);
    CHECK_MESSAGE((lo > 0 && (lo & (lo - 1)) == 0 && (hi & (hi - 1)) == 0), what);
    CHECK_MESSAGE((lo <= t.value && t.value <= hi && (t.value & (t.value - 1)) == 0), what);
  } else if (std::regex_match(t.range, m, choice_re)) {
    const std::string choices = ", " + m[1].str() + ",";
    CHECK_MESSAGE(choices.find(" " + std::to_string(t.value) + ",") != std::string::npos, what);
  } else {
    FAIL_CHECK("unknown tunable range form: " << what);
  }
}

// Evaluates every package of `folder` with its own tiling and kernel, two at a time (the CI
// machine has two cores), and checks that each is ok.
void check_folder_passes(const std::string& folder) {
  const std::vector<op_package> ops = load_folder(folder);
  REQUIRE_FALSE(ops.empty());
  auto profile = aopt::npu::find_hardware_profile("ascend910b4",
                                                  fs::path(AOPT_SOURCE_DIR) / "config/hardware");
  REQUIRE_MESSAGE(profile.ok(), profile.error().message());
  aopt::testing::temp_dir work;
  aopt::npu::sim_device_options device_options;
  device_options.work_dir = work.path();
  device_options.cache_dir = aopt::testing::shared_object_cache();
  aopt::npu::sim_device device(*profile, device_options);
  const aopt::npu::eval_options options;

  std::vector<eval_result> results(ops.size());
  std::atomic<size_t> next{0};
  auto worker = [&] {
    for (size_t i = next++; i < ops.size(); i = next++) {
      results[i] = device.evaluate(ops[i], ops[i].host_source, ops[i].kernel_source, options);
    }
  };
  std::thread helper(worker);
  worker();
  helper.join();

  for (size_t i = 0; i < ops.size(); ++i) {
    const eval_result& r = results[i];
    INFO(ops[i].spec.name, ": ", aopt::npu::to_string(r.status), " ", r.error_kind, " ", r.message);
    CHECK(r.ok());
    CHECK(r.latency_is_simulated);
    // The corpus is sized so that each kernel's own work outlasts its launch overhead.
    CHECK(r.latency_us > 2 * r.profile.launch_overhead_us);
    // The roofline bound is the operator's least work (issue 30): no honest kernel beats it.
    CHECK(r.roof.achieved_fraction > 0);
    CHECK(r.roof.achieved_fraction <= 1);
  }
}

}  // namespace

TEST_SUITE("corpus") {
  // Issue 18 added 15 baselines with kernel-level waste (6 level-1, 6 level-2, 3 level-3).
  TEST_CASE("the corpus holds at least 34 level-1, 21 level-2, 8 level-3 and 10 expert operators") {
    CHECK(load_folder("level1").size() >= 34);
    CHECK(load_folder("level2").size() >= 21);
    CHECK(load_folder("level3").size() >= 8);
    CHECK(load_folder("experts").size() >= 10);
  }

  TEST_CASE(
      "every package is named after its folder and declares the level and kind of its place") {
    const std::map<std::string, int> levels = {{"level1", 1}, {"level2", 2}, {"level3", 3}};
    std::map<std::string, std::string> seen;  // kernel names are unique over the corpus
    for (const std::string folder : {"level1", "level2", "level3", "experts"}) {
      for (const op_package& op : load_folder(folder)) {
        INFO(folder, "/", op.dir.filename().string());
        CHECK(op.spec.name == op.dir.filename().string());
        CHECK(op.spec.kernel_entry == op.spec.name);
        CHECK(op.spec.kind == (folder == "experts" ? "expert" : "baseline"));
        if (levels.count(folder) != 0) CHECK(op.spec.level == levels.at(folder));
        CHECK_FALSE(op.spec.category.empty());
        CHECK(seen.emplace(op.spec.name, folder).second);
        CHECK(op.kernel_source.find("extern \"C\" __global__ __aicore__ void " + op.spec.name +
                                    "(") != std::string::npos);
      }
    }
  }

  TEST_CASE("every tiling program marks its tunables in an EVOLVE-BLOCK with a valid range") {
    for (const std::string folder : {"level1", "level2", "level3", "experts"}) {
      for (const op_package& op : load_folder(folder)) {
        const std::vector<tunable> tunables = tunables_of(op.host_source);
        INFO(op.spec.name);
        CHECK(tunables.size() >= 2);
        const bool has_block_dim =
            std::any_of(tunables.begin(), tunables.end(),
                        [](const tunable& t) { return t.name == "BLOCK_DIM"; });
        CHECK(has_block_dim);
        for (const tunable& t : tunables) check_range(op.spec.name, t);
      }
    }
  }

  TEST_CASE("every level-1 operator passes the simulator's checks") {
    check_folder_passes("level1");
  }

  TEST_CASE("every level-2 operator passes the simulator's checks") {
    check_folder_passes("level2");
  }

  TEST_CASE("every level-3 operator passes the simulator's checks") {
    check_folder_passes("level3");
  }

  TEST_CASE("every expert kernel passes the simulator's checks") {
    check_folder_passes("experts");
  }
}
