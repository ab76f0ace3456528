// Owning wrappers around libclang's C handles (index, translation unit, tokens, strings), so that
// every early return of a reader of C++ (the AST screen, the tiling data flow, the token
// sequence) releases what it parsed. Only the layers that link libclang include it.
//
// Thread-safety: a handle is used by one thread at a time; each screen creates its own index.
#pragma once

#include <clang-c/Index.h>

#include <cstddef>
#include <memory>
#include <string>

namespace aopt::clang_handles {

struct index_deleter {
  void operator()(void* index) const { clang_disposeIndex(index); }
};
// CXIndex is a void*: the pointee type of the owner is void.
using index = std::unique_ptr<void, index_deleter>;

struct unit_deleter {
  void operator()(CXTranslationUnitImpl* unit) const { clang_disposeTranslationUnit(unit); }
};
using translation_unit = std::unique_ptr<CXTranslationUnitImpl, unit_deleter>;

struct diagnostic_deleter {
  void operator()(void* d) const { clang_disposeDiagnostic(d); }
};
using diagnostic = std::unique_ptr<void, diagnostic_deleter>;

// The text of a CXString, which is released.
inline std::string take(CXString s) {
  const char* c = clang_getCString(s);
  std::string text = c != nullptr ? c : "";
  clang_disposeString(s);
  return text;
}

// The tokens of a source range, released together.
class tokens {
 public:
  tokens(CXTranslationUnit unit, CXSourceRange range) : unit_(unit) {
    clang_tokenize(unit, range, &tokens_, &count_);
  }
  ~tokens() {
    if (tokens_ != nullptr) clang_disposeTokens(unit_, tokens_, count_);
  }
  tokens(const tokens&) = delete;
  tokens& operator=(const tokens&) = delete;

  unsigned size() const { return count_; }
  CXTokenKind kind(unsigned i) const { return clang_getTokenKind(tokens_[i]); }
  std::string spelling(unsigned i) const { return take(clang_getTokenSpelling(unit_, tokens_[i])); }
  unsigned line(unsigned i) const {
    unsigned line = 0;
    clang_getSpellingLocation(clang_getTokenLocation(unit_, tokens_[i]), nullptr, &line, nullptr,
                              nullptr);
    return line;
  }
  // The byte offset in its file where token i was spelled.
  unsigned offset(unsigned i) const {
    unsigned offset = 0;
    clang_getSpellingLocation(clang_getTokenLocation(unit_, tokens_[i]), nullptr, nullptr, nullptr,
                              &offset);
    return offset;
  }

 private:
  CXTranslationUnit unit_;
  CXToken* tokens_ = nullptr;
  unsigned count_ = 0;
};

// `text` parsed alone under `file_name` with `args`: single-file and incomplete, so no header is
// looked for; null when libclang could not read it. What its tokens are is all a caller should
// ask of it.
inline translation_unit parse_alone(const index& idx, const char* file_name,
                                    const std::string& text, const char* const* args,
                                    int arg_count) {
  CXUnsavedFile unsaved{file_name, text.data(), static_cast<unsigned long>(text.size())};
  CXTranslationUnit raw = nullptr;
  const CXErrorCode rc =
      clang_parseTranslationUnit2(idx.get(), file_name, args, arg_count, &unsaved, 1,
                                  CXTranslationUnit_SingleFileParse | CXTranslationUnit_Incomplete |
                                      CXTranslationUnit_KeepGoing,
                                  &raw);
  translation_unit unit(raw);
  if (rc != CXError_Success) unit.reset();
  return unit;
}

// The whole of `file_name` (of `size` bytes) in `unit`, for tokens().
inline CXSourceRange whole_file(CXTranslationUnit unit, const char* file_name, size_t size) {
  CXFile file = clang_getFile(unit, file_name);
  return clang_getRange(clang_getLocationForOffset(unit, file, 0),
                        clang_getLocationForOffset(unit, file, static_cast<unsigned>(size)));
}

}  // namespace aopt::clang_handles
