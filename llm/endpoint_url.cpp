#include "llm/endpoint_url.hpp"

#include <charconv>

namespace aopt::llm {

namespace {

bool is_default_port(const endpoint_url& url) {
  return (url.scheme == "http" && url.port == 80) || (url.scheme == "https" && url.port == 443);
}

std::string bracketed(const std::string& host) {
  return host.find(':') != std::string::npos ? "[" + host + "]" : host;
}

}  // namespace

std::string endpoint_url::host_header() const {
  std::string header = bracketed(host);
  if (!is_default_port(*this)) header += ":" + std::to_string(port);
  return header;
}

std::string endpoint_url::target(std::string_view suffix) const {
  return path + std::string(suffix);
}

std::string endpoint_url::to_string() const {
  return scheme + "://" + bracketed(host) + ":" + std::to_string(port) + path;
}

result<endpoint_url> parse_endpoint_url(std::string_view text) {
  endpoint_url url;
  std::string_view rest;
  if (text.rfind("http://", 0) == 0) {
    url.scheme = "http";
    url.port = 80;
    rest = text.substr(7);
  } else if (text.rfind("https://", 0) == 0) {
    url.scheme = "https";
    url.port = 443;
    rest = text.substr(8);
  } else {
    return invalid_argument("base URL '" + std::string(text) +
                            "': must start with http:// or https://");
  }
  const size_t slash = rest.find('/');
  std::string_view authority = rest.substr(0, slash);
  std::string_view path = slash == std::string_view::npos ? std::string_view() : rest.substr(slash);
  if (authority.find('@') != std::string_view::npos)
    return invalid_argument("base URL: credentials in the URL are not supported (use api_key_env)");
  if (path.find_first_of("?#") != std::string_view::npos)
    return invalid_argument("base URL '" + std::string(text) + "': no query or fragment allowed");

  std::string_view port_text;
  bool has_port = false;
  if (!authority.empty() && authority.front() == '[') {
    const size_t close = authority.find(']');
    if (close == std::string_view::npos)
      return invalid_argument("base URL '" + std::string(text) + "': unterminated IPv6 address");
    url.host = std::string(authority.substr(1, close - 1));
    std::string_view after = authority.substr(close + 1);
    if (!after.empty()) {
      if (after.front() != ':')
        return invalid_argument("base URL '" + std::string(text) + "': junk after IPv6 address");
      has_port = true;
      port_text = after.substr(1);
    }
  } else {
    const size_t colon = authority.find(':');
    url.host = std::string(authority.substr(0, colon));
    if (colon != std::string_view::npos) {
      has_port = true;
      port_text = authority.substr(colon + 1);
    }
  }
  if (url.host.empty()) return invalid_argument("base URL '" + std::string(text) + "': no host");
  if (has_port) {
    unsigned value = 0;
    auto [end, ec] = std::from_chars(port_text.data(), port_text.data() + port_text.size(), value);
    if (port_text.empty() || ec != std::errc() || end != port_text.data() + port_text.size() ||
        value == 0 || value > 65535)
      return invalid_argument("base URL '" + std::string(text) + "': bad port '" +
                              std::string(port_text) + "'");
    url.port = static_cast<uint16_t>(value);
  }
  while (!path.empty() && path.back() == '/') path.remove_suffix(1);
  url.path = std::string(path);
  return url;
}

}  // namespace aopt::llm
