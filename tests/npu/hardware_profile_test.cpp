// Loading config/hardware/*.toml: the shipped profiles, and every way a profile file can be wrong.
#include <doctest/doctest.h>

#include <fstream>
#include <regex>
#include <set>
#include <string>

#include "npu/hardware_profile.hpp"
#include "support/temp_dir.hpp"

namespace aopt::npu {
namespace {

const std::filesystem::path shipped_dir =
    std::filesystem::path(AOPT_SOURCE_DIR) / "config" / "hardware";

std::string read_file(const std::filesystem::path& p) {
  std::ifstream in(p);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

// The shipped 910B4 file with `from` replaced by `to`, written into `dir`.
std::filesystem::path edited_profile(const testing::temp_dir& dir, const std::string& from,
                                     const std::string& to) {
  std::string text = read_file(shipped_dir / "ascend910b4.toml");
  const size_t at = text.find(from);
  REQUIRE(at != std::string::npos);
  text.replace(at, from.size(), to);
  const auto path = dir.path() / "edited.toml";
  std::ofstream(path) << text;
  return path;
}

std::string error_of(const result<sim::hw_profile>& r) {
  return r.ok() ? "" : r.error().to_string();
}

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

TEST_SUITE("npu") {
  TEST_CASE("the shipped 910B4 profile loads and equals the built-in defaults") {
    auto p = load_hardware_profile(shipped_dir / "ascend910b4.toml");
    REQUIRE_MESSAGE(p.ok(), error_of(p));
    CHECK(nlohmann::json(*p) == nlohmann::json(sim::hw_profile{}));
  }

  TEST_CASE("the shipped 910B2 profile has 48 vector cores at 1.8 GHz and about 1.6 TB/s") {
    auto p = find_hardware_profile("ascend910b2", shipped_dir);
    REQUIRE_MESSAGE(p.ok(), error_of(p));
    CHECK(p->name == "ascend910b2");
    CHECK(p->vector_cores == 48);
    CHECK(p->clock_ghz == 1.8);
    CHECK(p->hbm_gbps == 1600);
    CHECK(p->launch_overhead_us(48) == doctest::Approx(20).epsilon(0.01));
  }

  TEST_CASE(
      "every value in the shipped profiles carries a comment naming its source or saying assumed") {
    const std::regex assignment(R"(^\s*([a-z_0-9]+)\s*=\s*([^#]*?)\s*(#\s*(.*))?$)");
    for (const auto& name : list_hardware_profiles(shipped_dir)) {
      std::ifstream in(shipped_dir / (name + ".toml"));
      std::string line;
      while (std::getline(in, line)) {
        std::smatch m;
        if (!std::regex_match(line, m, assignment) || m[1] == "name") continue;
        CHECK_MESSAGE(m[4].length() > 5, name << ": " << line);
      }
    }
  }

  TEST_CASE("every hw_profile field belongs to exactly one profile table") {
    std::multiset<std::string> tabled;
    for (const auto& t : hardware_profile_tables()) tabled.insert(t.fields.begin(), t.fields.end());
    std::multiset<std::string> fields;
    const nlohmann::json defaults = sim::hw_profile{};
    for (const auto& [key, value] : defaults.items())
      if (key != "name") fields.insert(key);
    CHECK(tabled == fields);
  }

  TEST_CASE("profiles are found by name or by path, and an unknown name lists the available ones") {
    CHECK(find_hardware_profile("ascend910b4", shipped_dir).ok());
    CHECK(find_hardware_profile((shipped_dir / "ascend910b2.toml").string(), "/nonexistent").ok());
    const auto missing = find_hardware_profile("ascend310p", shipped_dir);
    REQUIRE_FALSE(missing.ok());
    CHECK(missing.error().code() == status_code::not_found);
    CHECK(contains(missing.error().message(), "available: ascend910b2, ascend910b4"));
    CHECK(list_hardware_profiles("/nonexistent").empty());
  }

  TEST_CASE("a profile file whose name differs from the name it was looked up by is rejected") {
    testing::temp_dir dir;
    std::filesystem::copy_file(shipped_dir / "ascend910b4.toml", dir.path() / "mychip.toml");
    const auto r = find_hardware_profile("mychip", dir.path());
    CHECK(contains(error_of(r), "'ascend910b4' does not match the file name 'mychip'"));
  }

  TEST_CASE("malformed profile files are errors naming the file and the key") {
    testing::temp_dir dir;
    const std::string file = (dir.path() / "edited.toml").string();
    struct edit_case {
      std::string from, to, expected;
    };
    const edit_case cases[] = {
        {"clock_ghz = 1.5", "clock_ghz = 1.5\nclock_mhz = 1500", "core.clock_mhz: unknown key"},
        {"clock_ghz = 1.5", "", "missing key core.clock_ghz"},
        {"[scalar]\n", "[scalar]\nhbm_gbps = 1\n", "scalar.hbm_gbps: belongs in table [dma]"},
        {"clock_ghz = 1.5", "clock_ghz = \"fast\"", "core.clock_ghz: expected a number"},
        {"clock_ghz = 1.5", "clock_ghz = 0.0", "core.clock_ghz: must be > 0"},
        {"vector_cores = 40", "vector_cores = 40.5",
         "core.vector_cores: expected a non-negative integer"},
        {"\n[launch]", "\n[lunch]", "lunch: unknown key"},
        {"name = \"ascend910b4\"", "name = 4", "name: expected a string"},
        {"name = \"ascend910b4\"", "", "missing key name"},
        {"clock_ghz = 1.5", "clock_ghz = = 1.5", file + ":"},
    };
    for (const auto& c : cases) {
      const auto r = load_hardware_profile(edited_profile(dir, c.from, c.to));
      REQUIRE_FALSE(r.ok());
      CHECK(r.error().code() == status_code::invalid_argument);
      CHECK_MESSAGE(contains(r.error().message(), c.expected), r.error().message());
      CHECK_MESSAGE(contains(r.error().message(), file), r.error().message());
    }
  }

  TEST_CASE("a missing profile file is not_found") {
    const auto r = load_hardware_profile("/nonexistent/chip.toml");
    REQUIRE_FALSE(r.ok());
    CHECK(r.error().code() == status_code::not_found);
    CHECK(contains(r.error().message(), "/nonexistent/chip.toml"));
  }
}

}  // namespace
}  // namespace aopt::npu
