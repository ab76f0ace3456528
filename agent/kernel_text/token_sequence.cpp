#include "agent/kernel_text/token_sequence.hpp"

#include <memory>

#include "base/libclang_handles.hpp"

namespace aopt::agent {

result<std::vector<std::string>> token_sequence(const std::string& source) {
  static constexpr const char* file_name = "tokens.cpp";
  clang_handles::index index(clang_createIndex(0, 0));
  const char* args[] = {"-x", "c++", "-std=c++17", "-fsyntax-only", "-w"};
  CXUnsavedFile unsaved{file_name, source.data(), static_cast<unsigned long>(source.size())};
  CXTranslationUnit raw = nullptr;
  // Single-file and incomplete: no header is looked for, only this text is lexed.
  const CXErrorCode rc = clang_parseTranslationUnit2(
      index.get(), file_name, args, static_cast<int>(std::size(args)), &unsaved, 1,
      CXTranslationUnit_SingleFileParse | CXTranslationUnit_Incomplete |
          CXTranslationUnit_KeepGoing,
      &raw);
  clang_handles::translation_unit unit(raw);
  if (rc != CXError_Success || !unit) {
    return invalid_argument("libclang could not read the source (error " +
                            std::to_string(static_cast<int>(rc)) + ")");
  }
  CXFile file = clang_getFile(unit.get(), file_name);
  const CXSourceRange whole = clang_getRange(
      clang_getLocationForOffset(unit.get(), file, 0),
      clang_getLocationForOffset(unit.get(), file, static_cast<unsigned>(source.size())));
  const clang_handles::tokens tokens(unit.get(), whole);
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
