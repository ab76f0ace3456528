#include "base/listen_address.hpp"

#include <boost/asio/ip/address.hpp>

namespace aopt {

std::string listen_address::to_string() const {
  const bool v6 = host.find(':') != std::string::npos;
  return (v6 ? "[" + host + "]" : host) + ":" + std::to_string(port);
}

result<listen_address> parse_listen_address(const std::string& text) {
  const auto bad = [&](const std::string& why) {
    return invalid_argument("listen address '" + text + "': " + why);
  };
  std::string host;
  std::string port_text;
  if (!text.empty() && text.front() == '[') {
    const size_t close = text.find(']');
    if (close == std::string::npos || close + 1 >= text.size() || text[close + 1] != ':') {
      return bad("expected [IPv6-address]:port");
    }
    host = text.substr(1, close - 1);
    port_text = text.substr(close + 2);
  } else {
    const size_t colon = text.rfind(':');
    if (colon == std::string::npos) return bad("expected host:port");
    host = text.substr(0, colon);
    port_text = text.substr(colon + 1);
    if (host.find(':') != std::string::npos) return bad("write IPv6 addresses as [addr]:port");
  }
  if (host.empty()) return bad("empty host");
  if (port_text.empty() || port_text.size() > 5 ||
      port_text.find_first_not_of("0123456789") != std::string::npos) {
    return bad("port must be a number from 0 to 65535");
  }
  const unsigned long port = std::stoul(port_text);
  if (port > 65535) return bad("port must be a number from 0 to 65535");
  if (host != "localhost") {
    boost::system::error_code ec;
    boost::asio::ip::make_address(host, ec);
    if (ec) return bad("host must be an IP address or localhost");
  }
  return listen_address{host, static_cast<uint16_t>(port)};
}

bool is_loopback(const std::string& host) {
  if (host == "localhost") return true;
  boost::system::error_code ec;
  const boost::asio::ip::address a = boost::asio::ip::make_address(host, ec);
  if (ec) return false;
  if (a.is_v6() && a.to_v6().is_v4_mapped()) {
    return boost::asio::ip::make_address_v4(boost::asio::ip::v4_mapped, a.to_v6()).is_loopback();
  }
  return a.is_loopback();
}

}  // namespace aopt
