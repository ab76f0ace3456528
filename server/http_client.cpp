#include "server/http_client.hpp"

#include <chrono>
#include <cstdlib>

#include <boost/asio/connect.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>

namespace aopt::server {
namespace beast = boost::beast;
namespace http = beast::http;
namespace net = boost::asio;
using tcp = net::ip::tcp;

namespace {

result<beast::tcp_stream> connect(net::io_context& ioc, const server_url& server,
                                  double timeout_s) {
  beast::error_code ec;
  tcp::resolver resolver(ioc);
  const auto endpoints = resolver.resolve(server.host, server.port, ec);
  if (ec) return unavailable("resolving " + server.host + ": " + ec.message());
  beast::tcp_stream stream(ioc);
  stream.expires_after(std::chrono::milliseconds(static_cast<int64_t>(timeout_s * 1000)));
  stream.connect(endpoints, ec);
  if (ec) {
    return unavailable("cannot reach the daemon at " + server.host + ":" + server.port + ": " +
                       ec.message());
  }
  return stream;
}

http::request<http::string_body> make_request(const server_url& server, http::verb verb,
                                              const std::string& target, const std::string& token) {
  http::request<http::string_body> req{verb, server.base_path + target, 11};
  req.set(http::field::host, server.host);
  req.set(http::field::user_agent, "aopt-client");
  if (!token.empty()) req.set(http::field::authorization, "Bearer " + token);
  return req;
}

}  // namespace

result<server_url> parse_server_url(const std::string& url) {
  constexpr std::string_view scheme = "http://";
  if (url.rfind(scheme, 0) != 0) {
    return invalid_argument("server URL '" + url + "': expected http://host:port");
  }
  std::string rest = url.substr(scheme.size());
  server_url out;
  const size_t slash = rest.find('/');
  if (slash != std::string::npos) {
    out.base_path = rest.substr(slash);
    while (!out.base_path.empty() && out.base_path.back() == '/') out.base_path.pop_back();
    rest = rest.substr(0, slash);
  }
  std::string host = rest;
  out.port = "80";
  if (!rest.empty() && rest.front() == '[') {
    const size_t close = rest.find(']');
    if (close == std::string::npos) return invalid_argument("server URL '" + url + "': bad IPv6");
    host = rest.substr(1, close - 1);
    if (close + 1 < rest.size() && rest[close + 1] == ':') out.port = rest.substr(close + 2);
  } else if (const size_t colon = rest.rfind(':'); colon != std::string::npos) {
    host = rest.substr(0, colon);
    out.port = rest.substr(colon + 1);
  }
  if (host.empty() || out.port.empty() ||
      out.port.find_first_not_of("0123456789") != std::string::npos) {
    return invalid_argument("server URL '" + url + "': expected http://host:port");
  }
  out.host = host;
  return out;
}

nlohmann::json client_response::json() const {
  return nlohmann::json::parse(body, nullptr, false);
}

std::string client_response::error_text() const {
  nlohmann::json j = json();
  if (j.is_object() && j.contains("error") && j["error"].is_string()) return j["error"];
  return body;
}

result<client_response> http_call(const server_url& server, const std::string& method,
                                  const std::string& target, const std::string& body,
                                  const std::string& token, double timeout_s) {
  net::io_context ioc;
  result<beast::tcp_stream> stream = connect(ioc, server, timeout_s);
  if (!stream.ok()) return stream.error();
  http::request<http::string_body> req =
      make_request(server, http::string_to_verb(method), target, token);
  if (!body.empty()) {
    req.set(http::field::content_type, "application/json");
    req.body() = body;
  }
  req.prepare_payload();
  beast::error_code ec;
  http::write(*stream, req, ec);
  if (ec) return unavailable("sending to the daemon: " + ec.message());
  beast::flat_buffer buffer;
  http::response_parser<http::string_body> parser;
  parser.body_limit(64u << 20);
  http::read(*stream, buffer, parser, ec);
  if (ec == beast::error::timeout) return deadline_exceeded("the daemon did not answer in time");
  if (ec) return unavailable("reading the daemon's answer: " + ec.message());
  stream->socket().shutdown(tcp::socket::shutdown_both, ec);
  return client_response{static_cast<int>(parser.get().result_int()), parser.get().body()};
}

status read_event_stream(const server_url& server, const std::string& target,
                         const std::string& token,
                         const std::function<bool(const sse_message&)>& on_event) {
  net::io_context ioc;
  result<beast::tcp_stream> stream = connect(ioc, server, 30);
  if (!stream.ok()) return stream.error();
  http::request<http::empty_body> req{http::verb::get, server.base_path + target, 11};
  req.set(http::field::host, server.host);
  req.set(http::field::accept, "text/event-stream");
  if (!token.empty()) req.set(http::field::authorization, "Bearer " + token);
  beast::error_code ec;
  http::write(*stream, req, ec);
  if (ec) return unavailable("sending to the daemon: " + ec.message());
  beast::flat_buffer buffer;
  http::response_parser<http::empty_body> header;
  http::read_header(*stream, buffer, header, ec);
  if (ec) return unavailable("reading the daemon's answer: " + ec.message());
  if (header.get().result_int() != 200) {
    return failed_precondition("the daemon answered " + std::to_string(header.get().result_int()));
  }
  // An event stream has no deadline: events may be minutes apart (the daemon sends keep-alive
  // comments).
  stream->expires_never();
  std::string pending(static_cast<const char*>(buffer.data().data()), buffer.size());
  sse_message current;
  char chunk[8192];
  for (;;) {
    size_t line_end;
    while ((line_end = pending.find('\n')) != std::string::npos) {
      std::string line = pending.substr(0, line_end);
      pending.erase(0, line_end + 1);
      if (!line.empty() && line.back() == '\r') line.pop_back();
      if (line.empty()) {
        if (!current.data.empty() || !current.type.empty()) {
          if (!on_event(current)) return status{};
        }
        current = sse_message{};
      } else if (line.rfind("id: ", 0) == 0) {
        current.id = std::strtoull(line.c_str() + 4, nullptr, 10);
      } else if (line.rfind("event: ", 0) == 0) {
        current.type = line.substr(7);
      } else if (line.rfind("data: ", 0) == 0) {
        current.data += line.substr(6);
      }
    }
    const size_t n = stream->socket().read_some(net::buffer(chunk), ec);
    if (ec) return status{};
    pending.append(chunk, n);
  }
}

}  // namespace aopt::server
