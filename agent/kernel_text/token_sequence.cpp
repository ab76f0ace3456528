#include "agent/kernel_text/token_sequence.hpp"

#include <memory>

#include "base/libclang_handles.hpp"

namespace aopt::agent {

result<std::vector<std::string>> token_sequence(const std::string& source) {
  static constexpr const char* file_name = "tokens.cpp";
  clang_handles::index index(clang_createIndex(0, 0));
  const char* args[] = {"-x", "c++", "-std=c++17", "-fsyntax-only", "-w"};
  // Single-file and incomplete: no header is looked for, only this text is lexed.
  const clang_handles::translation_unit unit =
      clang_handles::parse_alone(index, file_name, source, args, static_cast<int>(std::size(args)));
  if (!unit) return invalid_argument("libclang could not read the source");
  const clang_handles::tokens tokens(
      unit.get(), clang_handles::whole_file(unit.get(), file_name, source.size()));
  std::vector<std::string> out;
  out.reserve(tokens.size());
  for (unsigned i = 0; i < tokens.size(); ++i) {
    if (tokens.kind(i) == CXToken_Comment) continue;
    out.push_back(tokens.spelling(i));
  }
  return out;
}

bool same_tokens(const std::string& a, const std::string& b) {
  result<std::vector<std::string>> ta = token_sequence(a);
  result<std::vector<std::string>> tb = token_sequence(b);
  return ta.ok() && tb.ok() && *ta == *tb;
}

}  // namespace aopt::agent
