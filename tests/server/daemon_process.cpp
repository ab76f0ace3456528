#include "daemon_process.hpp"

#include <cstdlib>
#include <stdexcept>

namespace aopt::testing {
namespace {

std::vector<std::string> serve_argv(const std::vector<std::string>& args) {
  std::vector<std::string> argv = {AOPT_BINARY, "serve"};
  argv.insert(argv.end(), args.begin(), args.end());
  return argv;
}

}  // namespace

daemon_process::daemon_process(const std::vector<std::string>& args,
                               const std::vector<std::string>& env, uint64_t max_open_files)
    : process_(serve_argv(args), {env, max_open_files, /*capture_stderr=*/false}) {}

server::client_response daemon_process::call(const std::string& method, const std::string& target,
                                             const std::string& body) const {
  auto server_url = server::parse_server_url(url());
  if (!server_url.ok()) throw std::runtime_error(server_url.error().to_string());
  auto res = server::http_call(*server_url, method, target, body, "");
  if (!res.ok()) throw std::runtime_error(method + " " + target + ": " + res.error().to_string());
  return *res;
}

bool daemon_process::wait_ready() {
  const std::string marker = "listening on http://";
  const std::optional<std::string> line =
      process_.wait_for(line_process::stream::out, marker, std::chrono::seconds(300));
  const std::vector<std::string>& out = process_.lines(line_process::stream::out);
  startup_lines_.assign(out.begin(), out.end() - (line ? 1 : 0));
  if (!line) return false;
  port_ = static_cast<uint16_t>(std::strtoul(line->c_str() + line->rfind(':') + 1, nullptr, 10));
  return port_ != 0;
}

}  // namespace aopt::testing
