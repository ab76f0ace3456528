#include "base/utf8.hpp"

#include <string>

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

namespace {
const std::string fffd = "\xEF\xBF\xBD";
}

TEST_SUITE("base") {
  TEST_CASE("to_valid_utf8 keeps valid text byte for byte") {
    for (const std::string& s : {std::string(""), std::string("plain ascii"),
                                 std::string("caf\xC3\xA9 \xE2\x82\xAC \xF0\x9F\x98\x80"),
                                 std::string("nul\0inside", 10), std::string("\xF4\x8F\xBF\xBF")}) {
      CHECK(aopt::is_valid_utf8(s));
      CHECK(aopt::to_valid_utf8(s) == s);
    }
  }

  TEST_CASE("to_valid_utf8 replaces each maximal invalid subpart by one U+FFFD") {
    CHECK(aopt::to_valid_utf8("\xFF") == fffd);
    CHECK(aopt::to_valid_utf8("a\xFF\xFEz") == "a" + fffd + fffd + "z");
    // A truncated three-byte sequence is one subpart.
    CHECK(aopt::to_valid_utf8("\xE2\x82") == fffd);
    CHECK(aopt::to_valid_utf8("\xE2\x82x") == fffd + "x");
    // Overlong "/", a surrogate and a code point above U+10FFFF are refused.
    CHECK(aopt::to_valid_utf8("\xC0\xAF") == fffd + fffd);
    CHECK(aopt::to_valid_utf8("\xED\xA0\x80") == fffd + fffd + fffd);
    CHECK(aopt::to_valid_utf8("\xF4\x90\x80\x80") == fffd + fffd + fffd + fffd);
    CHECK_FALSE(aopt::is_valid_utf8("ok\x80"));
    CHECK(aopt::invalid_utf8_offset("ok\x80") == 2);
    CHECK(aopt::invalid_utf8_offset("ok") == std::string_view::npos);
  }

  TEST_CASE("make_valid_utf8 repairs in place and the result always serializes as JSON") {
    std::string s = "stderr: \xFF\xFE bad";
    aopt::make_valid_utf8(s);
    CHECK(aopt::is_valid_utf8(s));
    CHECK_NOTHROW((void)nlohmann::json(s).dump());
  }

  TEST_CASE("utf8_prefix never cuts a sequence in two") {
    const std::string euro = "\xE2\x82\xAC";
    CHECK(aopt::utf8_prefix("ab" + euro, 4) == "ab");
    CHECK(aopt::utf8_prefix("ab" + euro, 5) == "ab" + euro);
    CHECK(aopt::utf8_prefix("abc", 10) == "abc");
    CHECK(aopt::utf8_prefix("a\xFF\xFF", 2) == "a\xFF");
  }

  TEST_CASE("dump_json replaces invalid bytes where plain dump throws") {
    const nlohmann::json j = {{"error", "GET /\xFF"}};
    CHECK_THROWS_AS((void)j.dump(), nlohmann::json::type_error);
    const std::string text = aopt::dump_json(j);
    CHECK(text == "{\"error\":\"GET /" + fffd + "\"}");
    CHECK(nlohmann::json::parse(text)["error"] == "GET /" + fffd);
  }
}
