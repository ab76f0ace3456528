#include "npu/sim/device/screen_conditionals.hpp"

#include <cctype>
#include <cstring>
#include <filesystem>
#include <sstream>

namespace aopt::npu {
// Named, so that a unity build does not merge these helpers with another file's (static_screen.cpp
// has an ident_char of its own).
namespace conditionals {
namespace {

bool ident_start(char c) {
  return std::isalpha(static_cast<unsigned char>(c)) || c == '_';
}
bool ident_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
}

// Reserved to the implementation ([lex.name]): every macro a compiler predefines is one.
bool reserved(const std::string& name) {
  return name.size() >= 2 && name[0] == '_' &&
         (name[1] == '_' || std::isupper(static_cast<unsigned char>(name[1])));
}

std::string without_blanks(const std::string& s) {
  std::string out;
  for (char c : s)
    if (!std::isspace(static_cast<unsigned char>(c))) out += c;
  return out;
}

// A token of a logical line: an identifier, or one other character (a literal is `"`).
struct pp_token {
  std::string text;
  bool identifier = false;
  bool spaced = false;  // blanks (or a comment) before it
  bool header = false;  // the operand of __has_include: a header name ("" when unreadable)
};

struct logical_line {
  unsigned line = 0;  // the physical line it starts on
  std::vector<pp_token> tokens;
};

// `text` in logical lines as translation phases 1-3 make them: backslash-newlines spliced,
// comments a blank, literals one token.
std::vector<logical_line> logical_lines(const std::string& text) {
  std::string s;
  std::vector<unsigned> line_of;
  unsigned physical = 1;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '\\') {
      size_t k = i + 1;
      if (k < text.size() && text[k] == '\r') ++k;
      if (k < text.size() && text[k] == '\n') {
        ++physical;
        i = k;
        continue;
      }
    }
    s += text[i];
    line_of.push_back(physical);
    if (text[i] == '\n') ++physical;
  }
  std::vector<logical_line> out;
  logical_line cur{1, {}};
  bool spaced = false;
  auto push = [&](std::string t, bool identifier) {
    cur.tokens.push_back({std::move(t), identifier, spaced});
    spaced = false;
  };
  size_t i = 0;
  while (i < s.size()) {
    const char c = s[i];
    if (c == '\n') {
      if (!cur.tokens.empty()) out.push_back(std::move(cur));
      cur = logical_line{i + 1 < s.size() ? line_of[i + 1] : physical, {}};
      spaced = false;
      ++i;
    } else if (std::isspace(static_cast<unsigned char>(c))) {
      spaced = true;
      ++i;
    } else if (c == '/' && i + 1 < s.size() && s[i + 1] == '/') {
      while (i < s.size() && s[i] != '\n') ++i;
      spaced = true;
    } else if (c == '/' && i + 1 < s.size() && s[i + 1] == '*') {
      const size_t end = s.find("*/", i + 2);
      i = end == std::string::npos ? s.size() : end + 2;
      spaced = true;
    } else if (ident_start(c)) {
      size_t e = i;
      while (e < s.size() && ident_char(s[e])) ++e;
      std::string word = s.substr(i, e - i);
      i = e;
      const bool raw_prefix =
          word == "R" || word == "u8R" || word == "uR" || word == "UR" || word == "LR";
      if (raw_prefix && i < s.size() && s[i] == '"') {
        // A raw string: R"delim( ... )delim".
        const size_t open = s.find('(', i);
        const std::string close =
            ")" + (open == std::string::npos ? std::string() : s.substr(i + 1, open - i - 1)) +
            "\"";
        const size_t end = open == std::string::npos ? std::string::npos : s.find(close, open);
        i = end == std::string::npos ? s.size() : end + close.size();
        push("\"", false);
      } else {
        const bool has_include = word == "__has_include" || word == "__has_include_next";
        push(std::move(word), true);
        // Its operand is a header name, read raw: <a/b.h> or "a/b.h" (the name, no delimiters).
        size_t open = i;
        while (open < s.size() && (s[open] == ' ' || s[open] == '\t')) ++open;
        const size_t close = has_include && open < s.size() && s[open] == '(' ? s.find(')', open)
                                                                              : std::string::npos;
        if (close != std::string::npos && s.find('\n', open) > close) {
          std::string name = s.substr(open + 1, close - open - 1);
          const size_t b = name.find_first_of("<\""), e = name.find_last_of(">\"");
          name = b != std::string::npos && e != std::string::npos && e > b
                     ? name.substr(b + 1, e - b - 1)
                     : std::string();
          push("(", false);
          cur.tokens.push_back({name, false, false, true});
          push(")", false);
          i = close + 1;
        }
      }
    } else if (std::isdigit(static_cast<unsigned char>(c)) ||
               (c == '.' && i + 1 < s.size() &&
                std::isdigit(static_cast<unsigned char>(s[i + 1])))) {
      // A pp-number: its letters (0x1f, 10ULL, 1e+5) are no identifiers.
      size_t e = i + 1;
      while (e < s.size()) {
        if ((s[e] == '+' || s[e] == '-') && std::strchr("eEpP", s[e - 1]) != nullptr) {
          ++e;
        } else if (ident_char(s[e]) || s[e] == '.' || s[e] == '\'') {
          ++e;
        } else {
          break;
        }
      }
      i = e;
      push("0", false);
    } else if (c == '"' || c == '\'') {
      size_t e = i + 1;
      while (e < s.size() && s[e] != c && s[e] != '\n') e += s[e] == '\\' ? 2 : 1;
      i = e < s.size() && s[e] == c ? e + 1 : e;
      push("\"", false);
    } else if (c == '%' && i + 1 < s.size() && s[i + 1] == ':') {
      i += 2;
      push("#", false);  // the digraph of '#'
    } else {
      ++i;
      push(std::string(1, c), false);
    }
  }
  if (!cur.tokens.empty()) out.push_back(std::move(cur));
  return out;
}

// Whether the logical line is the directive `name` (`#` then the name).
bool directive(const logical_line& l, const char* name) {
  return l.tokens.size() >= 2 && l.tokens[0].text == "#" && l.tokens[1].text == name;
}

bool conditional(const logical_line& l) {
  for (const char* name : {"if", "elif", "ifdef", "ifndef", "elifdef", "elifndef"}) {
    if (directive(l, name)) return true;
  }
  return false;
}

struct macro_def {
  bool function_like = false;
  std::set<std::string> params;
  std::vector<pp_token> body;
};

macro_def read_define(const logical_line& l) {
  macro_def d;
  size_t k = 3;
  if (k < l.tokens.size() && l.tokens[k].text == "(" && !l.tokens[k].spaced) {
    d.function_like = true;
    for (++k; k < l.tokens.size() && l.tokens[k].text != ")"; ++k) {
      if (l.tokens[k].identifier) d.params.insert(l.tokens[k].text);
      if (l.tokens[k].text == ".") d.params.insert({"__VA_ARGS__", "__VA_OPT__"});
    }
    ++k;
  }
  for (; k < l.tokens.size(); ++k) d.body.push_back(l.tokens[k]);
  return d;
}

class condition_judge {
 public:
  condition_judge(const std::map<std::string, std::vector<macro_def>>& defs,
                  const predefined_macros& predefined, const std::set<std::string>& shim_macros)
      : defs_(defs), predefined_(predefined), shim_(shim_macros) {}

  // Why the identifier tokens[k] may not be tested ("" when it may); `skip` holds the
  // parameters of the macro body the tokens are from.
  std::string judge(const std::vector<pp_token>& tokens, const std::set<std::string>& skip) {
    for (size_t k = 0; k < tokens.size(); ++k) {
      const pp_token& t = tokens[k];
      if (!t.identifier || t.text == "defined" || skip.count(t.text) != 0) continue;
      const bool call = k + 1 < tokens.size() && tokens[k + 1].text == "(";
      const bool has_include = t.text == "__has_include" || t.text == "__has_include_next";
      // `defined(__has_include)` asks whether the query exists: both compilers have it.
      if (has_include && !call) continue;
      std::string why = has_include ? judge_header(k + 2 < tokens.size() && tokens[k + 2].header
                                                       ? tokens[k + 2].text
                                                       : std::string())
                                    : judge_name(t.text, call);
      if (!why.empty()) {
        offender_ = offender_.empty() ? t.text + (call ? "(" : "") : offender_;
        return why;
      }
    }
    return "";
  }

  const std::string& offender() const { return offender_; }

 private:
  // Both compilers search the package, the shim and the system's headers alike; only their own
  // include directories differ (clang's resource headers, GCC's).
  std::string judge_header(const std::string& name) {
    if (name.empty() || name.find("..") != std::string::npos)
      return "a __has_include whose header name the screen cannot read plainly";
    for (const std::string& dir : predefined_.private_include_dirs) {
      std::error_code ec;
      if (std::filesystem::exists(std::filesystem::path(dir) / name, ec))
        return "a __has_include of a header that one compiler's own include directory holds (" +
               dir + "): the two compilers answer it differently";
    }
    return "";
  }

  std::string judge_name(const std::string& name, bool call) {
    const auto def = defs_.find(name);
    const bool own = def != defs_.end();
    const bool shim = shim_.count(name) != 0;
    if (call) {
      bool function_like = shim;
      if (own)
        for (const macro_def& d : def->second) function_like = function_like || d.function_like;
      if (!function_like)
        return "a call that is no function-like macro of the package or the shim: the "
               "compiler's own queries (__has_builtin, __has_include...) answer differently "
               "for the screen's parser (clang) and for the compiler (g++)";
    }
    if (predefined_.any.count(name) != 0 && predefined_.alike.count(name) == 0)
      return "a macro the screen's parser (clang) and the compiler (g++) predefine differently: "
             "the screen would judge other code than the compiler builds";
    if (own) {
      if (!visited_.insert(name).second) return "";
      for (const macro_def& d : def->second) {
        std::string why = judge(d.body, d.params);
        if (!why.empty()) return why;
      }
      return "";
    }
    if (shim || !reserved(name) || predefined_.alike.count(name) != 0) return "";
    if (cann_pass_macros().count(name) != 0 && predefined_.any.count(name) == 0) return "";
    return "a name reserved to the compiler that neither the package nor the shim defines and "
           "the two compilers do not predefine alike (__COUNTER__, __INCLUDE_LEVEL__ and the "
           "other builtin macros answer differently for the screen's parser and the compiler)";
  }

  const std::map<std::string, std::vector<macro_def>>& defs_;
  const predefined_macros& predefined_;
  const std::set<std::string>& shim_;
  std::set<std::string> visited_;  // package macros judged so far (their bodies pass)
  std::string offender_;
};

}  // namespace
}  // namespace conditionals

const std::set<std::string>& cann_pass_macros() {
  static const std::set<std::string> names = {"__GET_CODE_CHANNEL__"};
  return names;
}

macro_table parse_macro_dump(const std::string& text) {
  macro_table out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    if (line.compare(0, 8, "#define ") != 0) continue;
    size_t e = 8;
    while (e < line.size() && conditionals::ident_char(line[e])) ++e;
    const std::string name = line.substr(8, e - 8);
    if (!name.empty()) out[name] = line.substr(e);
  }
  return out;
}

predefined_macros compare_predefines(const macro_table& screen, const macro_table& compiler) {
  predefined_macros p;
  for (const auto& [name, replacement] : screen) {
    p.any.insert(name);
    const auto it = compiler.find(name);
    if (it != compiler.end() &&
        conditionals::without_blanks(it->second) == conditionals::without_blanks(replacement))
      p.alike.insert(name);
  }
  for (const auto& entry : compiler) p.any.insert(entry.first);
  return p;
}

std::optional<screen_finding> check_conditionals(const std::vector<package_text>& files,
                                                 const predefined_macros& predefined,
                                                 const std::set<std::string>& shim_macros) {
  std::vector<std::vector<conditionals::logical_line>> lines;
  std::map<std::string, std::vector<conditionals::macro_def>> defs;
  for (const package_text& f : files) {
    lines.push_back(conditionals::logical_lines(*f.text));
    for (const conditionals::logical_line& l : lines.back()) {
      if (conditionals::directive(l, "define") && l.tokens.size() >= 3 && l.tokens[2].identifier)
        defs[l.tokens[2].text].push_back(conditionals::read_define(l));
    }
  }
  for (size_t i = 0; i < files.size(); ++i) {
    for (const conditionals::logical_line& l : lines[i]) {
      if (!conditionals::conditional(l)) continue;
      conditionals::condition_judge judge(defs, predefined, shim_macros);
      const std::vector<conditionals::pp_token> condition(l.tokens.begin() + 2, l.tokens.end());
      const std::string why = judge.judge(condition, {});
      if (why.empty()) continue;
      screen_finding s;
      s.file = files[i].path;
      s.line = l.line;
      s.construct = "#" + l.tokens[1].text + " " + judge.offender();
      s.reason = why;
      return s;
    }
  }
  return std::nullopt;
}

}  // namespace aopt::npu
