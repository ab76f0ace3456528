#include <doctest/doctest.h>

#include "base/listen_address.hpp"

using aopt::is_loopback;
using aopt::parse_listen_address;

TEST_CASE("parse_listen_address reads host:port and [v6]:port") {
  auto v4 = parse_listen_address("127.0.0.1:8742");
  REQUIRE(v4.ok());
  CHECK(v4->host == "127.0.0.1");
  CHECK(v4->port == 8742);
  auto v6 = parse_listen_address("[::1]:0");
  REQUIRE(v6.ok());
  CHECK(v6->host == "::1");
  CHECK(v6->to_string() == "[::1]:0");
  CHECK(!parse_listen_address("127.0.0.1").ok());
  CHECK(!parse_listen_address("127.0.0.1:65536").ok());
  CHECK(!parse_listen_address("example.com:80").ok());
  CHECK(!parse_listen_address("::1:80").ok());
  CHECK(!parse_listen_address(":80").ok());
}

TEST_CASE("is_loopback is true for loopback addresses only") {
  CHECK(is_loopback("127.0.0.1"));
  CHECK(is_loopback("127.3.2.1"));
  CHECK(is_loopback("::1"));
  CHECK(is_loopback("::ffff:127.0.0.1"));
  CHECK(is_loopback("localhost"));
  CHECK(!is_loopback("0.0.0.0"));
  CHECK(!is_loopback("::"));
  CHECK(!is_loopback("192.168.1.4"));
}
