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
    if (c == '#' && first_on_line) {
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
    "cinttypes", "inttypes.h", "cstdarg", "stdarg.h", "iomanip", "variant",
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

// System calls, their C library wrappers and whatever reaches files, processes, signals,
// dynamic loading or the process's exit path. Reading the environment is not among them: a
// candidate runs without aopt's (inherit_environment = false), and log helpers read their level
// from it (getenv("ASCEND_GLOBAL_LOG_LEVEL")); changing it is.
const std::set<std::string> forbidden_calls = {"syscall",
                                               "open",
                                               "open64",
                                               "openat",
                                               "creat",
                                               "fopen",
                                               "fopen64",
                                               "fdopen",
                                               "freopen",
                                               "tmpfile",
                                               "write",
                                               "writev",
                                               "pwrite",
                                               "pwrite64",
                                               "read",
                                               "readv",
                                               "pread",
                                               "fwrite",
                                               "fputs",
                                               "fputc",
                                               "putc",
                                               "fprintf",
                                               "vfprintf",
                                               "dprintf",
                                               "close",
                                               "fclose",
                                               "mmap",
                                               "mmap64",
                                               "munmap",
                                               "mprotect",
                                               "mremap",
                                               "brk",
                                               "sbrk",
                                               "ptrace",
                                               "fork",
                                               "vfork",
                                               "clone",
                                               "clone3",
                                               "execl",
                                               "execle",
                                               "execlp",
                                               "execv",
                                               "execve",
                                               "execvp",
                                               "execvpe",
                                               "fexecve",
                                               "system",
                                               "popen",
                                               "posix_spawn",
                                               "posix_spawnp",
                                               "_exit",
                                               "_Exit",
                                               "exit",
                                               "quick_exit",
                                               "atexit",
                                               "at_quick_exit",
                                               "on_exit",
                                               "__cxa_atexit",
                                               "__cxa_thread_atexit",
                                               "signal",
                                               "sigaction",
                                               "raise",
                                               "kill",
                                               "tgkill",
                                               "dlopen",
                                               "dlsym",
                                               "dlvsym",
                                               "dlclose",
                                               "prctl",
                                               "seccomp",
                                               "ioctl",
                                               "fcntl",
                                               "dup",
                                               "dup2",
                                               "dup3",
                                               "pipe2",
                                               "socket",
                                               "connect",
                                               "bind",
                                               "listen",
                                               "accept",
                                               "sendto",
                                               "recvfrom",
                                               "unlink",
                                               "unlinkat",
                                               "remove",
                                               "rename",
                                               "renameat",
                                               "mkdir",
                                               "rmdir",
                                               "chdir",
                                               "chmod",
                                               "chown",
                                               "truncate",
                                               "ftruncate",
                                               "link",
                                               "symlink",
                                               "setenv",
                                               "putenv",
                                               "unsetenv",
                                               "environ",
                                               "__environ",
                                               "process_vm_readv",
                                               "process_vm_writev",
                                               "pthread_create",
                                               "pthread_kill",
                                               "sleep",
                                               "usleep",
                                               "nanosleep",
                                               "FILE",
                                               "stdin",
                                               "stdout",
                                               "stderr",
                                               "ifstream",
                                               "ofstream",
                                               "fstream",
                                               "filebuf",
                                               "_start",
                                               "_init",
                                               "_fini",
                                               "__libc_start_main",
                                               "asm",
                                               "__asm",
                                               "__asm__"};

// The system calls `syscall(...)` may name: identity queries a log line's prefix needs, which
// reach no file, process or memory of anyone else (the sandbox's seccomp filter allows them too).
// Any other use of syscall, a computed number included, stays refused.
const std::set<std::string> allowed_syscall_numbers = {"SYS_gettid", "__NR_gettid", "SYS_getpid",
                                                       "__NR_getpid"};

// Attributes that run code before/after main or redirect symbols.
const std::set<std::string> forbidden_attributes = {
    "constructor", "destructor", "init_priority", "alias", "ifunc", "weakref", "section"};

// Calls allowed in a namespace-scope initializer: compile-time operators and built-in types.
const std::set<std::string> compile_time_calls = {
    "sizeof",   "alignof", "decltype", "noexcept", "static_cast", "const_cast", "int",
    "unsigned", "float",   "double",   "char",     "bool",        "long",       "short"};

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
    toks_ = &lx.tokens;
    for (size_t k = 0; k < toks_->size(); ++k) {
      if (auto f = check_token(k)) return f;
    }
    return check_static_objects();
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
    if (!angled && name.find("..") == std::string::npos && !is_shim_internal(name)) {
      const size_t slash = file_.rfind('/');
      const std::string beside =
          slash == std::string::npos ? name : file_.substr(0, slash + 1) + name;
      return found(inc.line, inc.header,
                   "this header is neither in the package nor a CANN header aopt provides: a "
                   "repository's private helper must travel with the operator (put it in the "
                   "package as " +
                       beside + " or, from the package root, " + name + ")");
    }
    return found(inc.line, inc.header,
                 "only the AscendC and tiling headers, the package's own files and the C++ "
                 "standard headers a kernel needs may be included");
  }

  const token* tok(size_t k) const { return k < toks_->size() ? &(*toks_)[k] : nullptr; }
  bool is(size_t k, const char* text) const {
    const token* t = tok(k);
    return t != nullptr && t->text == text;
  }
  // An initialiser's or assignment's '=', not one of "==", "!=", "<=" or ">=" (the lexer makes a
  // token of each punctuation character).
  bool is_assignment(size_t k) const {
    return is(k, "=") && !is(k + 1, "=") && !is(k - 1, "=") && !is(k - 1, "!") && !is(k - 1, "<") &&
           !is(k - 1, ">");
  }

  std::optional<screen_finding> check_token(size_t k) const {
    const token& t = (*toks_)[k];
    // `, ##__VA_ARGS__` (GNU: drop the comma when no variadic argument is given) pastes
    // nothing: log macros are written so.
    if (t.kind == token_kind::punct && t.text == "##" &&
        !(is(k - 1, ",") && is(k + 1, "__VA_ARGS__"))) {
      return found(t.line, "##", "token pasting can assemble forbidden names from harmless pieces");
    }
    if (t.kind != token_kind::identifier) return std::nullopt;
    const bool member = k > 0 && (is(k - 1, ".") || is(k - 1, "->"));
    if (t.text == "asm" || t.text == "__asm" || t.text == "__asm__") {
      return found(t.line, t.text, "inline assembly");
    }
    if (!member && t.text == "syscall" && is(k + 1, "(") && tok(k + 2) != nullptr &&
        allowed_syscall_numbers.count(tok(k + 2)->text) != 0 && is(k + 3, ")")) {
      return std::nullopt;
    }
    if (!member && forbidden_calls.count(t.text) != 0) {
      return found(t.line, t.text, "a system call, its wrapper or a file/process/exit facility");
    }
    if (t.text == "GetPhyAddr") {
      return found(t.line, t.text,
                   "raw-pointer access to GM/UB bypasses the traced tensor API (use DataCopy, "
                   "the vector API, GetValue/SetValue)");
    }
    if (lower_starts_with(t.text, "aopt")) {
      return found(t.line, t.text, "a reference to the simulator's internals");
    }
    if (t.text.compare(0, 10, "__builtin_") == 0 &&
        (t.text.find("frame_address") != std::string::npos ||
         t.text.find("return_address") != std::string::npos ||
         t.text.find("extract_return") != std::string::npos)) {
      return found(t.line, t.text, "walking the stack reaches the simulator's internals");
    }
    if (t.text == "__attribute__" || (t.text == "gnu" && is(k + 1, "::"))) {
      // The attribute's argument list (or the name after gnu::).
      size_t depth = 0;
      for (size_t j = k + 1; j < toks_->size(); ++j) {
        const token& a = (*toks_)[j];
        if (a.text == "(") ++depth;
        if (a.text == ")" && depth > 0 && --depth == 0) break;
        if (a.kind == token_kind::identifier && forbidden_attributes.count(a.text) != 0) {
          return found(a.line, a.text + " attribute",
                       "code that runs before or after main, or symbol redirection");
        }
        if (depth == 0 && j > k + 2) break;
      }
    }
    return std::nullopt;
  }

  enum class brace { namespace_body, class_body, function_body, initializer };

  // Namespace-scope objects whose construction or destruction runs code outside the kernel
  // launch: initialised by a call (not constexpr), or of a class written here with a
  // constructor or destructor.
  std::optional<screen_finding> check_static_objects() const {
    std::set<std::string> classes_with_ctor;
    std::vector<brace> stack;
    std::vector<std::string> class_names;  // parallel to class_body entries
    std::vector<size_t> stmt;              // token indices of the current namespace-scope statement
    auto at_namespace_scope = [&] {
      return std::all_of(stack.begin(), stack.end(),
                         [](brace b) { return b == brace::namespace_body; });
    };
    // Inside a namespace-scope initializer's braces the statement goes on.
    auto collecting = [&] {
      return std::all_of(stack.begin(), stack.end(), [](brace b) {
        return b == brace::namespace_body || b == brace::initializer;
      });
    };
    auto stmt_has = [&](const char* word) {
      return std::any_of(stmt.begin(), stmt.end(), [&](size_t j) { return is(j, word); });
    };
    for (size_t k = 0; k < toks_->size(); ++k) {
      const token& t = (*toks_)[k];
      // A macro's body is no continuation of the statement before it, nor the start of the next.
      if (k > 0 && t.directive != (*toks_)[k - 1].directive && collecting()) stmt.clear();
      const bool ns = at_namespace_scope();
      // A constructor or destructor written in a class body: `Name(` or `~Name(`.
      if (!stack.empty() && stack.back() == brace::class_body && t.kind == token_kind::identifier &&
          t.text == class_names.back() && is(k + 1, "(") && !is(k - 1, "::")) {
        classes_with_ctor.insert(t.text);
      }
      if (t.text == "{") {
        brace kind = brace::function_body;
        if (ns) {
          if (stmt_has("namespace") || (k > 0 && (*toks_)[k - 1].kind == token_kind::literal)) {
            kind = brace::namespace_body;
          } else if (stmt_has("class") || stmt_has("struct") || stmt_has("union") ||
                     stmt_has("enum")) {
            kind = brace::class_body;
          } else if (std::any_of(stmt.begin(), stmt.end(),
                                 [&](size_t j) { return is_assignment(j); }) ||
                     (k > 0 && (*toks_)[k - 1].kind == token_kind::identifier &&
                      !is(k - 1, "const") && !is(k - 1, "override") && !is(k - 1, "noexcept") &&
                      !is(k - 1, "final"))) {
            kind = brace::initializer;
          }
        } else if (stack.back() == brace::initializer) {
          kind = brace::initializer;
        } else if (stack.back() == brace::class_body && k > 0 &&
                   (is(k - 1, "=") || is(k - 1, ","))) {
          kind = brace::initializer;
        }
        if (kind == brace::class_body) {
          std::string name;
          for (size_t j : stmt) {
            const bool key = is(j, "class") || is(j, "struct") || is(j, "union");
            if (key && tok(j + 1) != nullptr && tok(j + 1)->kind == token_kind::identifier)
              name = tok(j + 1)->text;
          }
          class_names.push_back(name);
        }
        if (kind == brace::initializer && collecting()) stmt.push_back(k);
        if (kind == brace::namespace_body) stmt.clear();
        stack.push_back(kind);
        continue;
      }
      if (t.text == "}") {
        if (stack.empty()) continue;
        const brace closed = stack.back();
        stack.pop_back();
        if (closed == brace::class_body) class_names.pop_back();
        if (collecting()) {
          if (closed == brace::function_body || closed == brace::namespace_body)
            stmt.clear();
          else
            stmt.push_back(k);
        }
        continue;
      }
      if (!collecting()) continue;
      if (t.text == ";" && ns) {
        if (auto f = judge_statement(stmt, classes_with_ctor)) return f;
        stmt.clear();
        continue;
      }
      stmt.push_back(k);
    }
    return std::nullopt;
  }

  std::optional<screen_finding> judge_statement(const std::vector<size_t>& stmt,
                                                const std::set<std::string>& with_ctor) const {
    if (stmt.empty()) return std::nullopt;
    for (const char* skip : {"using", "typedef", "template", "namespace", "static_assert",
                             "constexpr", "constinit", "friend", "extern", "enum"}) {
      for (size_t j : stmt) {
        if (is(j, skip)) return std::nullopt;
      }
    }
    const auto eq =
        std::find_if(stmt.begin(), stmt.end(), [&](size_t j) { return is_assignment(j); });
    if (eq != stmt.end()) {
      for (auto it = eq + 1; it != stmt.end(); ++it) {
        if (!is(*it, "(")) continue;
        const token* before = tok(*it - 1);
        const bool call =
            before->text == ")" || before->text == "]" || before->text == "}" ||
            (before->kind == token_kind::identifier && compile_time_calls.count(before->text) == 0);
        if (call) {
          return found(before->line, before->text + "(...)",
                       "a namespace-scope variable initialised by a call runs code before main "
                       "(make it constexpr or move it into the function)");
        }
      }
      return std::nullopt;
    }
    // `[static|const|inline|thread_local] Name var...;` with a class Name written here.
    for (size_t n = 0; n + 1 < stmt.size(); ++n) {
      const token& t = (*toks_)[stmt[n]];
      if (t.text == "static" || t.text == "const" || t.text == "inline" ||
          t.text == "thread_local" || t.text == "volatile") {
        continue;
      }
      if (with_ctor.count(t.text) != 0 && tok(stmt[n + 1])->kind == token_kind::identifier) {
        return found(t.line, t.text + " " + tok(stmt[n + 1])->text,
                     "a namespace-scope object with a user-written constructor or destructor "
                     "runs code before or after main");
      }
      break;
    }
    return std::nullopt;
  }

  std::string file_;
  std::string own_header_;
  const screen_includes& includes_;
  const std::vector<token>* toks_ = nullptr;
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
