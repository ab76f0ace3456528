#include "npu/sim/device/static_screen.hpp"

#include <algorithm>
#include <cctype>
#include <cstring>
#include <set>
#include <vector>

#include <filesystem>

#include <fmt/format.h>

#include "npu/package_include.hpp"

namespace aopt::npu {

namespace {

enum class token_kind { identifier, number, literal, punct };

struct token {
  token_kind kind;
  std::string text;
  uint32_t line;
  // Which preprocessor line the token is on (1 for the first directive, 2 for the next...), 0
  // for code: a #define's body is judged as code, but never as part of what surrounds it.
  uint32_t directive = 0;
};

struct include_line {
  std::string header;  // with its delimiters: <cmath> or "x.h"
  uint32_t line;
};

struct lexed {
  std::vector<token> tokens;  // preprocessor lines included (#define bodies are code too)
  std::vector<include_line> includes;
  std::vector<token> directives;  // the name after each '#' that starts a line
};

bool ident_start(char c) {
  return std::isalpha(static_cast<unsigned char>(c)) || c == '_';
}
bool ident_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
}

// Splits `s` into tokens, dropping comments and the contents of literals, keeping lines.
class lexer {
 public:
  explicit lexer(const std::string& s) : s_(s) {}

  lexed run() {
    while (i_ < s_.size()) step();
    return std::move(out_);
  }

 private:
  char at(size_t k) const { return k < s_.size() ? s_[k] : '\0'; }

  // A backslash-newline joins lines; it is whitespace to every token but a literal.
  bool continuation() {
    if (at(i_) == '\\' && at(i_ + 1) == '\n') {
      i_ += 2;
      ++line_;
      return true;
    }
    return false;
  }

  void step() {
    const char c = s_[i_];
    if (c == '\n') {
      ++line_;
      ++i_;
      line_start_ = true;
      directive_ = 0;
      return;
    }
    if (continuation() || std::isspace(static_cast<unsigned char>(c))) {
      if (c != '\\') ++i_;
      return;
    }
    if (c == '/' && at(i_ + 1) == '/') {
      while (i_ < s_.size() && s_[i_] != '\n') {
        if (!continuation()) ++i_;
      }
      return;
    }
    if (c == '/' && at(i_ + 1) == '*') {
      i_ += 2;
      while (i_ < s_.size() && !(s_[i_] == '*' && at(i_ + 1) == '/')) line_ += s_[i_++] == '\n';
      i_ += 2;
      return;
    }
    const bool first_on_line = line_start_;
    line_start_ = false;
    // "%:" is the digraph of '#': `%:include <cstdio>` is an include like any other.
    if (first_on_line && (c == '#' || (c == '%' && at(i_ + 1) == ':'))) {
      if (c == '%') ++i_;
      directive();
      return;
    }
    if (ident_start(c)) {
      const size_t b = i_;
      while (i_ < s_.size() && ident_char(s_[i_])) ++i_;
      std::string word = s_.substr(b, i_ - b);
      if (at(i_) == '"' &&
          (word == "R" || word == "u8R" || word == "uR" || word == "UR" || word == "LR")) {
        raw_string();
      } else if ((at(i_) == '"' || at(i_) == '\'') &&
                 (word == "u8" || word == "u" || word == "U" || word == "L")) {
        quoted(at(i_));
      } else {
        push(token_kind::identifier, std::move(word));
      }
      return;
    }
    if (std::isdigit(static_cast<unsigned char>(c)) ||
        (c == '.' && std::isdigit(static_cast<unsigned char>(at(i_ + 1))))) {
      const size_t b = i_;
      while (i_ < s_.size() &&
             (ident_char(s_[i_]) || s_[i_] == '.' || s_[i_] == '\'' ||
              ((s_[i_] == '+' || s_[i_] == '-') && std::strchr("eEpP", s_[i_ - 1]) != nullptr))) {
        ++i_;
      }
      push(token_kind::number, s_.substr(b, i_ - b));
      return;
    }
    if (c == '"' || c == '\'') {
      quoted(c);
      return;
    }
    if (s_.compare(i_, 4, "%:%:") == 0) {
      push(token_kind::punct, "##");
      i_ += 4;
      return;
    }
    for (const char* p : {"##", "::", "->", "[[", "]]"}) {
      if (s_.compare(i_, 2, p) == 0) {
        push(token_kind::punct, p);
        i_ += 2;
        return;
      }
    }
    push(token_kind::punct, std::string(1, c));
    ++i_;
  }

  void push(token_kind k, std::string text) {
    out_.tokens.push_back({k, std::move(text), line_, directive_});
  }

  void quoted(char q) {
    const uint32_t line = line_;
    ++i_;
    while (i_ < s_.size() && s_[i_] != q && s_[i_] != '\n') {
      if (s_[i_] == '\\') {
        line_ += at(i_ + 1) == '\n';
        ++i_;
      }
      ++i_;
    }
    ++i_;
    out_.tokens.push_back({token_kind::literal, std::string(1, q), line, directive_});
  }

  void raw_string() {
    const uint32_t line = line_;
    const size_t open = s_.find('(', i_);
    if (open == std::string::npos) {
      i_ = s_.size();
      return;
    }
    const std::string end = ")" + s_.substr(i_ + 1, open - i_ - 1) + "\"";
    const size_t close = s_.find(end, open);
    const size_t stop = close == std::string::npos ? s_.size() : close + end.size();
    line_ += static_cast<uint32_t>(
        std::count(s_.begin() + static_cast<long>(i_), s_.begin() + static_cast<long>(stop), '\n'));
    i_ = stop;
    out_.tokens.push_back({token_kind::literal, "\"", line, directive_});
  }

  void directive() {
    directive_ = ++directives_seen_;
    ++i_;
    while (i_ < s_.size() && (s_[i_] == ' ' || s_[i_] == '\t' || continuation())) ++i_;
    const size_t b = i_;
    while (i_ < s_.size() && ident_char(s_[i_])) ++i_;
    const std::string name = s_.substr(b, i_ - b);
    out_.directives.push_back({token_kind::identifier, name, line_});
    if (name != "include" && name != "include_next" && name != "import") return;
    while (i_ < s_.size() && (s_[i_] == ' ' || s_[i_] == '\t' || continuation())) ++i_;
    const char open = at(i_);
    const char close = open == '<' ? '>' : '"';
    size_t e = (open == '<' || open == '"') ? s_.find(close, i_ + 1) : std::string::npos;
    const size_t eol = s_.find('\n', i_);
    if (e == std::string::npos || e > eol) {
      // A computed include (#include MACRO): no file name to judge.
      out_.includes.push_back({"", line_});
      return;
    }
    out_.includes.push_back({s_.substr(i_, e - i_ + 1), line_});
    i_ = e + 1;
  }

  const std::string& s_;
  size_t i_ = 0;
  uint32_t line_ = 1;
  bool line_start_ = true;
  uint32_t directive_ = 0;
  uint32_t directives_seen_ = 0;
  lexed out_;
};

// The C++ standard headers a kernel or tiling function needs: no I/O, processes or threads.
const std::set<std::string> allowed_std_headers = {
    "algorithm", "array", "bitset", "cassert", "cfloat", "climits", "cmath", "cstddef", "cstdint",
    "cstring", "functional", "initializer_list", "iterator", "limits", "map", "memory", "numeric",
    "set", "string", "tuple", "type_traits", "unordered_map", "unordered_set", "utility", "vector",
    "math.h", "stdint.h", "stddef.h", "float.h", "limits.h", "string.h", "assert.h", "cstdbool",
    "stdbool.h",
    // A tiling program's: memory, strings and numbers (the calls that reach the system stay
    // refused by name below).
    "cstdlib", "stdlib.h", "sstream", "string_view", "optional", "deque", "list", "queue", "stack",
    "cinttypes", "inttypes.h", "cstdarg", "stdarg.h", "iomanip", "variant", "cctype", "ctype.h",
    "cerrno", "errno.h", "bit", "numbers", "span", "compare", "concepts",
    // A debug line to the standard streams (the driver points the standard output at the capped
    // stderr before any package code runs); files and the FILE* calls stay refused by name.
    "iostream", "ostream", "istream", "ios", "iosfwd", "cstdio", "stdio.h", "strings.h",
    // What CANN's host log helpers include for the process and thread id of a log line's prefix
    // (getpid, syscall(SYS_gettid)); the rest of what they declare stays refused by name.
    "unistd.h", "sys/syscall.h", "sys/types.h"};

// AscendC and tiling headers of the shim (never its aopt/ and aopt_sim/ internals).
const char* const allowed_shim_prefixes[] = {
    "register/", "tiling/", "graph/", "exe_graph/", "platform/", "lib/", "kernel_tiling/",
    // CANN kernel headers the shim provides (docs/ascendc-api-coverage.md, CANN headers).
    "kernel_utils.h", "kernel_tpipe_impl.h", "kernel_operator_intf.h", "kernel_macros.h",
    "kernel_tensor.h", "kernel_common.h", "kernel_event.h", "kernel_log.h",
    "kernel_struct_data_copy.h"};

bool lower_starts_with(const std::string& s, const char* prefix) {
  const size_t n = std::strlen(prefix);
  if (s.size() < n) return false;
  for (size_t k = 0; k < n; ++k) {
    if (std::tolower(static_cast<unsigned char>(s[k])) != prefix[k]) return false;
  }
  return true;
}

std::string base_name(const std::string& path) {
  const size_t slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

bool is_shim_internal(const std::string& name) {
  return lower_starts_with(name, "aopt/") || lower_starts_with(name, "aopt_sim/");
}

// Whether this machine's C and C++ headers hold `name` (<sys/socket.h>): refused for what it
// is, not mistaken for a repository's helper that did not travel with the operator (<log/log.h>).
bool system_header(const std::string& name) {
  static constexpr const char* system_include_dirs[] = {"/usr/include", "/usr/local/include",
                                                        "/usr/include/x86_64-linux-gnu",
                                                        "/usr/include/aarch64-linux-gnu"};
  namespace fs = std::filesystem;
  std::error_code ec;
  for (const char* dir : system_include_dirs)
    if (fs::exists(fs::path(dir) / name, ec)) return true;
  // The C++ library's, one folder a GCC version (/usr/include/c++/12/fstream).
  for (const auto& version : fs::directory_iterator("/usr/include/c++", ec))
    if (fs::exists(version.path() / name, ec)) return true;
  return false;
}

class screener {
 public:
  screener(std::string file, const screen_includes& includes)
      : file_(std::move(file)), own_header_(includes.own_header), includes_(includes) {}

  std::optional<screen_finding> run(const std::string& text) {
    const lexed lx = lexer(text).run();
    for (const auto& d : lx.directives) {
      if (d.text == "include_next" || d.text == "import")
        return found(d.line, "#" + d.text, "only #include is allowed");
    }
    for (const auto& inc : lx.includes) {
      if (auto f = check_include(inc)) return f;
    }
    return std::nullopt;
  }

 private:
  screen_finding found(uint32_t line, std::string construct, std::string reason) const {
    return {file_, line, std::move(construct), std::move(reason)};
  }

  std::optional<screen_finding> check_include(const include_line& inc) const {
    if (inc.header.size() < 3) {
      return found(inc.line, "#include", "a computed #include cannot be checked");
    }
    const std::string name = inc.header.substr(1, inc.header.size() - 2);
    const bool angled = inc.header[0] == '<';
    if (angled && allowed_std_headers.count(name) != 0) return std::nullopt;
    if (name == "kernel_operator.h") return std::nullopt;
    if (!angled && (name == own_header_ || name == base_name(own_header_))) return std::nullopt;
    if (!angled && resolve_package_include(file_, name, includes_.package_files)) {
      return std::nullopt;
    }
    // The build searches the package root for angled paths last (npu/package_include_dirs.hpp).
    if (angled && includes_.package_files.count(name) != 0) return std::nullopt;
    if (name.find("..") == std::string::npos) {
      for (const char* prefix : allowed_shim_prefixes) {
        if (name.compare(0, std::strlen(prefix), prefix) == 0) return std::nullopt;
      }
      if (includes_.shim_headers.count(name) != 0 && !is_shim_internal(name)) return std::nullopt;
    }
    if (name.find("..") == std::string::npos && !is_shim_internal(name) &&
        (!angled || !system_header(name))) {
      const size_t slash = file_.rfind('/');
      const std::string beside =
          slash == std::string::npos ? name : file_.substr(0, slash + 1) + name;
      return found(inc.line, inc.header,
                   "this header is neither in the package nor a CANN header aopt provides: a "
                   "repository's private helper must travel with the operator (put it in the "
                   "package as " +
                       beside + " or, from the package root, " + name +
                       "; or name the repository's include folder in op.json's include_dirs, "
                       "as aopt eval --include-dir does)");
    }
    return found(inc.line, inc.header,
                 "only the AscendC and tiling headers, the package's own files and the C++ "
                 "standard headers a kernel needs may be included");
  }

  std::string file_;
  std::string own_header_;
  const screen_includes& includes_;
};

}  // namespace

std::string screen_finding::message() const {
  return fmt::format("{}:{}: `{}` is forbidden: {}", file, line, construct, reason);
}

std::optional<screen_finding> screen_source(const std::string& file, const std::string& text,
                                            const std::string& own_header) {
  const screen_includes includes{own_header, {}, {}};
  return screener(file, includes).run(text);
}

std::optional<screen_finding> screen_source(const std::string& file, const std::string& text,
                                            const screen_includes& includes) {
  return screener(file, includes).run(text);
}

bool is_allowed_std_header_path(const std::string& path) {
  return std::any_of(allowed_std_headers.begin(), allowed_std_headers.end(),
                     [&](const std::string& name) {
                       return path.size() > name.size() &&
                              path.compare(path.size() - name.size(), name.size(), name) == 0 &&
                              path[path.size() - name.size() - 1] == '/';
                     });
}

bool names_identifier(const std::string& text, const std::string& name) {
  const lexed lx = lexer(text).run();
  return std::any_of(lx.tokens.begin(), lx.tokens.end(), [&](const token& t) {
    return t.kind == token_kind::identifier && t.text == name;
  });
}

std::set<std::string> shim_header_set(const std::string& include_dir) {
  namespace fs = std::filesystem;
  std::set<std::string> headers;
  std::error_code ec;
  for (fs::recursive_directory_iterator it(include_dir, ec), end; !ec && it != end;
       it.increment(ec)) {
    if (!it->is_regular_file(ec)) continue;
    const std::string rel = it->path().lexically_relative(include_dir).generic_string();
    if (!is_shim_internal(rel)) headers.insert(rel);
  }
  return headers;
}

}  // namespace aopt::npu
