// hw_profile's JSON form: every field round-trips, and nothing malformed is accepted silently.
#include <doctest/doctest.h>

#include <stdexcept>
#include <string>

#include "npu/sim/runtime/hw_profile.hpp"

namespace aopt::sim {
namespace {

// Every field of `p` changed to a different valid value, by its JSON form.
nlohmann::json changed_everywhere(const hw_profile& p) {
  nlohmann::json j = p;
  for (auto& [key, value] : j.items()) {
    if (value.is_string())
      value = value.get<std::string>() + "-x";
    else if (value.is_boolean())
      value = !value.get<bool>();
    else if (value.is_number_unsigned())
      value = value.get<uint64_t>() + 1;
    else if (key == "dma_unaligned_efficiency")
      value = value.get<double>() / 2;
    else
      value = value.get<double>() + 0.5;
  }
  return j;
}

std::string error_of(const nlohmann::json& j) {
  hw_profile p;
  try {
    from_json(j, p);
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "";
}

TEST_SUITE("sim") {
  TEST_CASE("every hw_profile field round-trips through JSON") {
    const nlohmann::json changed = changed_everywhere(hw_profile{});
    CHECK(changed.size() == 42);  // 27, and the cube's 15
    hw_profile p;
    from_json(changed, p);
    const nlohmann::json back = p;
    CHECK(back == changed);
    const nlohmann::json defaults = hw_profile{};
    for (const auto& [key, value] : defaults.items()) CHECK_MESSAGE(back.at(key) != value, key);
  }

  TEST_CASE("keys absent from the JSON keep their values") {
    hw_profile p;
    p.clock_ghz = 1.8;
    from_json(nlohmann::json{{"vector_cores", 48}}, p);
    CHECK(p.vector_cores == 48);
    CHECK(p.clock_ghz == 1.8);
  }

  TEST_CASE("an unknown key is an error naming the key") {
    CHECK(error_of({{"vector_cores", 48}, {"clock_mhz", 1800}}) ==
          "hw_profile: clock_mhz: unknown key");
  }

  TEST_CASE(
      "a wrong type or an out-of-range value is an error naming the key, and leaves the profile "
      "unchanged") {
    CHECK(error_of({{"clock_ghz", "fast"}}).find("clock_ghz: expected a number") !=
          std::string::npos);
    CHECK(error_of({{"vector_cores", 1.5}}).find("vector_cores: expected a non-negative integer") !=
          std::string::npos);
    CHECK(error_of({{"vector_cores", -1}}).find("vector_cores") != std::string::npos);
    CHECK(error_of({{"ub_bytes", 1ull << 33}}).find("ub_bytes: out of range") != std::string::npos);
    CHECK(error_of({{"clock_ghz", 0}}).find("clock_ghz: must be > 0") != std::string::npos);
    CHECK(error_of({{"dma_unaligned_efficiency", 1.5}}).find("dma_unaligned_efficiency") !=
          std::string::npos);
    CHECK(error_of({{"name", ""}}).find("name: must not be empty") != std::string::npos);
    CHECK(error_of({{"auto_sync", 1}}).find("auto_sync: expected a boolean") != std::string::npos);
    CHECK(error_of(nlohmann::json::array()).find("expected a JSON object") != std::string::npos);

    hw_profile p;
    CHECK_THROWS_AS(from_json({{"vector_cores", 8}, {"clock_ghz", -1}}, p), std::invalid_argument);
    CHECK(p.vector_cores == hw_profile{}.vector_cores);
  }
}

}  // namespace
}  // namespace aopt::sim
