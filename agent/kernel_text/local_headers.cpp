#include "agent/kernel_text/local_headers.hpp"

#include <fstream>
#include <regex>
#include <set>
#include <sstream>
#include <vector>

namespace aopt::agent {
namespace {

// The quoted include directives of a text, in order: a directive is a line of its own.
std::vector<std::string> quoted_includes(const std::string& text) {
  static const std::regex directive(R"re(^[ \t]*#[ \t]*include[ \t]*"([^"]+)")re",
                                    std::regex::multiline);
  std::vector<std::string> out;
  for (std::sregex_iterator it(text.begin(), text.end(), directive), end; it != end; ++it) {
    out.push_back((*it)[1].str());
  }
  return out;
}

}  // namespace

std::string with_local_headers(const std::string& kernel,
                               const std::filesystem::path& kernel_file) {
  if (kernel_file.empty()) return kernel;
  const std::filesystem::path folder = kernel_file.parent_path();
  std::string out = kernel;
  std::set<std::filesystem::path> seen;
  std::vector<std::string> todo = quoted_includes(kernel);
  while (!todo.empty()) {
    const std::filesystem::path header = (folder / todo.front()).lexically_normal();
    todo.erase(todo.begin());
    std::error_code ec;
    if (!seen.insert(header).second || !std::filesystem::is_regular_file(header, ec)) continue;
    std::ifstream in(header);
    std::stringstream text;
    text << in.rdbuf();
    if (!in.good() && !in.eof()) continue;
    const std::string body = text.str();
    out += "\n" + body;
    for (std::string& next : quoted_includes(body)) todo.push_back(std::move(next));
  }
  return out;
}

}  // namespace aopt::agent
