#include "npu/sim/device/ast_screen.hpp"
#include "npu/sim/device/ast_screen_unit.hpp"

#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstring>
#include <deque>
#include <fstream>
#include <future>
#include <map>
#include <mutex>
#include <set>
#include <sstream>
#include <unordered_map>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "base/content_hash.hpp"
#include "base/libclang_handles.hpp"
#include "base/scratch_dir.hpp"
#include "base/subprocess.hpp"
#include "base/text_trim.hpp"
#include "npu/package_include.hpp"
#include "npu/sim/device/screen_allow_lists.hpp"
#include "npu/sim/device/screen_conditionals.hpp"
#include "npu/sim/device/screen_parser_pool.hpp"

namespace aopt::npu {

namespace fs = std::filesystem;
namespace ch = clang_handles;

// Outside the anonymous namespace: ast_screen::state, which has external linkage, keeps a PCH
// per role.
enum class unit_role { kernel, host };

namespace {

// Verdicts kept (one per unit text and package layout); a verdict is a few hundred bytes.
constexpr size_t verdict_cache_entries = 512;

// clang 14 has no _Float16 on x86-64 (the shim's half): the screen reads it as __fp16, which
// clang stores in 16 bits and computes in float, as GCC computes _Float16 in the shim.
// A narrowing of a non-constant in braces is an error to clang and a warning to GCC, which
// compiles the candidate (and to CANN's host build): gert::Shape{dim, n} with a uint64_t n.
const char* const clang_only_flags[] = {
    "-D_Float16=__fp16", "-Xclang", "-fallow-half-arguments-and-returns", "-Wno-c++11-narrowing"};

bool aopt_named(const std::string& name) {
  if (name.size() < 4) return false;
  std::string head = name.substr(0, 4);
  for (char& c : head) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return head == "aopt";
}

// The shim's namespaces of internals: detail and the simulator's own (aopt, aopt_sim, aopt_ref...).
// Two hold nothing but the bodies of public CANN API that their public macros and functions
// reach (REPORT_INNER_ERR_MSG's sink, memcpy_s's checks): a candidate expanding those macros
// inside its own macros names them legitimately, and they reach no state of the simulator. A
// third, aopt_lifted, holds the values of the tiling program's own constants, which the device's
// rewrite names (tiling_constant_lift.hpp) and the screen judges as compiled.
bool internal_namespace(const std::string& name) {
  if (name == "detail") return true;
  return aopt_named(name) && name != "aopt_err_msg" && name != "aopt_securec" &&
         name != "aopt_lifted";
}

bool is_ident_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
}

// The identifier starting at `offset` of `text` ("" when there is none).
std::string identifier_at(const std::string& text, unsigned offset) {
  size_t end = offset;
  while (end < text.size() && is_ident_char(text[end])) ++end;
  return text.substr(offset, end - offset);
}

// The names of the macros `text` defines (#define NAME, or %:define NAME).
void collect_macro_names(const std::string& text, std::set<std::string>& names) {
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    size_t i = line.find_first_not_of(" \t");
    if (i == std::string::npos) continue;
    if (line[i] == '#') {
      ++i;
    } else if (line.compare(i, 2, "%:") == 0) {
      i += 2;
    } else {
      continue;
    }
    i = line.find_first_not_of(" \t", i);
    if (i == std::string::npos || line.compare(i, 6, "define") != 0) continue;
    i = line.find_first_not_of(" \t", i + 6);
    if (i != std::string::npos) names.insert(identifier_at(line, static_cast<unsigned>(i)));
  }
}

std::string read_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

struct file_pos {
  CXFile file = nullptr;
  unsigned line = 0;
  unsigned offset = 0;
};

file_pos expansion_of(CXSourceLocation loc) {
  file_pos p;
  unsigned column = 0;
  clang_getExpansionLocation(loc, &p.file, &p.line, &column, &p.offset);
  return p;
}

// Where the text a location stands for was written: a macro argument's own place, else the
// expansion's.
file_pos written_at(CXSourceLocation loc) {
  file_pos p;
  unsigned column = 0;
  clang_getFileLocation(loc, &p.file, &p.line, &column, &p.offset);
  return p;
}

bool function_like(CXCursorKind k) {
  return k == CXCursor_FunctionDecl || k == CXCursor_CXXMethod || k == CXCursor_Constructor ||
         k == CXCursor_Destructor || k == CXCursor_ConversionFunction ||
         k == CXCursor_FunctionTemplate || k == CXCursor_LambdaExpr;
}

bool scope_kind(CXCursorKind k) {
  return k == CXCursor_Namespace || k == CXCursor_StructDecl || k == CXCursor_ClassDecl ||
         k == CXCursor_UnionDecl || k == CXCursor_EnumDecl || k == CXCursor_ClassTemplate ||
         k == CXCursor_ClassTemplatePartialSpecialization;
}

// The names of the namespaces and classes around `d`, outermost first; inline namespaces
// (std::__cxx11) and unnamed ones are no part of the name.
std::vector<std::string> scopes_of(CXCursor d) {
  std::vector<std::string> names;
  for (CXCursor p = clang_getCursorSemanticParent(d);
       !clang_Cursor_isNull(p) && clang_getCursorKind(p) != CXCursor_TranslationUnit &&
       !clang_isInvalid(clang_getCursorKind(p));
       p = clang_getCursorSemanticParent(p)) {
    const CXCursorKind k = clang_getCursorKind(p);
    if (!scope_kind(k)) continue;
    if (k == CXCursor_Namespace && clang_Cursor_isInlineNamespace(p)) continue;
    std::string name = ch::take(clang_getCursorSpelling(p));
    if (!name.empty()) names.push_back(std::move(name));
  }
  std::reverse(names.begin(), names.end());
  return names;
}

std::string qualified_name(CXCursor d) {
  std::string q;
  for (const std::string& s : scopes_of(d)) q += s + "::";
  return q + ch::take(clang_getCursorSpelling(d));
}

bool builtin_named(const std::string& name) {
  return name.rfind("__builtin_", 0) == 0 || name.rfind("__sync_", 0) == 0 ||
         name.rfind("__atomic_", 0) == 0;
}

// "<:" is "[", "%:" is "#"...: the screen reads digraphs as what they stand for.
std::string undigraph(std::string s) {
  static const std::map<std::string, std::string> digraphs = {
      {"<:", "["}, {":>", "]"}, {"<%", "{"}, {"%>", "}"}, {"%:", "#"}, {"%:%:", "##"}};
  auto it = digraphs.find(s);
  return it == digraphs.end() ? s : it->second;
}

struct package_file {
  std::string path;  // relative to the package root
  const std::string* text = nullptr;
};

// The inputs of one unit's parse.
struct unit_sources {
  unit_role role;
  std::string main_text;
  std::vector<package_file> files;
  std::set<std::string> package_macros;
};

}  // namespace

// What the screen keeps for its life: the PCHs, the shim's macro and internal names, the
// verdicts.
struct ast_screen::state {
  sim_toolchain toolchain;
  fs::path work_dir;
  std::string include_prefix;  // include_dir + "/"

  std::mutex pch_mutex;  // guards the members up to the next blank line
  std::optional<scratch_dir> pch_dir;
  std::map<unit_role, std::string> pch;  // role -> PCH file ("" when it failed)
  unsigned pch_builds = 0;               // names each PCH built here apart
  std::set<std::string> shim_macros;     // every macro the shim's headers define
  std::set<std::string> internal_names;  // declared only as shim internals...
  std::set<std::string> public_names;    // ...or also publicly
  bool prebuilt_names_read = false;      // the build's names file is in the two sets above
  // What clang (the screen) and the compiler predefine, learned on first use; nothing until the
  // compiler answered.
  std::optional<predefined_macros> predefines;

  struct verdict {
    std::map<std::string, std::string> read;  // package files the unit read -> text hash
    std::optional<screen_finding> finding;
  };
  std::unique_ptr<screen_parser_pool> parsers;  // where units are parsed and walked

  mutable std::mutex verdict_mutex;  // guards the members up to the next blank line
  std::map<std::string, verdict> verdicts;
  std::deque<std::string> verdict_order;
  uint64_t parsed = 0;

  // The PCH of the role's shim header (the build's, else built on first use), "" when it
  // cannot be built.
  std::string pch_for(unit_role role);
  // Parses the role's shim header for serialisation, learns the shim's names from it and saves
  // it to `out`; false when either fails.
  bool build_pch(unit_role role, const fs::path& out);
  // The build's PCH of the role (ast_screen::prebuild) when it exists, was built from the shim
  // headers as they are now and its names file reads; the names are then learned from that file.
  std::optional<std::string> prebuilt_pch(unit_role role);
  void learn_shim_names(CXTranslationUnit unit);
  // The predefined macros of both preprocessors (screen_conditionals.hpp); nothing when the
  // compiler could not be asked.
  std::optional<predefined_macros> predefined();

  // `validate_pch`: clang checks that every header the PCH was built from is unchanged.
  std::vector<std::string> unit_args(unit_role role, const std::string& pch_file,
                                     const std::string& root, bool validate_pch = false) const;
  // `retried`: the unit is parsed again after a stale PCH was dropped (drop_stale_pch).
  std::optional<screen_finding> screen_unit(const unit_sources& unit, bool retried = false);
  // Whether `file` is a PCH of the role that loads with every header it was built from unchanged.
  bool pch_loads(unit_role role, const fs::path& file);
  // Forgets the role's PCH when it no longer loads (the shim's headers changed under a running
  // process, as an upgrade does), so that the next unit builds a fresh one; false when it loads.
  bool drop_stale_pch(unit_role role);
};

namespace {

enum class place { package, shim, system, none };

// One parsed unit, walked once.
class unit_walk {
 public:
  unit_walk(CXTranslationUnit unit, const unit_sources& sources, std::string root,
            const std::string& include_prefix, const std::set<std::string>& shim_macros,
            const std::set<std::string>& internal_names, const std::set<std::string>& public_names,
            const predefined_macros& predefined)
      : unit_(unit),
        sources_(sources),
        root_(std::move(root)),
        include_prefix_(include_prefix),
        shim_macros_(shim_macros),
        predefined_(predefined),
        internal_names_(internal_names),
        public_names_(public_names) {}

  // The package files the unit read (entered by the preprocessor), by path.
  std::map<std::string, const package_file*> files_read() {
    struct ctx {
      unit_walk* walk;
      std::map<std::string, const package_file*> read;
    } cx{this, {}};
    clang_getInclusions(
        unit_,
        [](CXFile file, CXSourceLocation*, unsigned, CXClientData data) {
          auto* cx = static_cast<ctx*>(data);
          if (const package_file* f = cx->walk->package_of(file)) cx->read.emplace(f->path, f);
        },
        &cx);
    return cx.read;
  }

  std::optional<screen_finding> run() {
    // First, because the rest judges only the code clang's preprocessor kept. The files the
    // unit read, as the verdict cache keys them: when every conditional of those agrees, g++
    // reads the same files.
    std::vector<package_text> texts;
    for (const auto& [path, file] : files_read()) texts.push_back({path, file->text});
    if (auto f = check_conditionals(texts, predefined_, shim_macros_)) return f;
    if (auto f = check_diagnostics()) return f;
    if (auto f = check_inclusions()) return f;
    for (const auto& [path, file] : files_read()) {
      if (auto f = check_tokens(*file)) return f;
    }
    clang_visitChildren(clang_getTranslationUnitCursor(unit_), &unit_walk::visit, this);
    return found_;
  }

 private:
  screen_finding finding(const package_file& f, unsigned line, std::string construct,
                         std::string reason) const {
    screen_finding s;
    s.file = f.path;
    s.line = line;
    s.construct = std::move(construct);
    s.reason = std::move(reason);
    return s;
  }

  const package_file* package_of(CXFile file) {
    if (file == nullptr) return nullptr;
    auto it = package_files_.find(file);
    if (it != package_files_.end()) return it->second;
    const std::string name = ch::take(clang_getFileName(file));
    const package_file* found = nullptr;
    if (name.compare(0, root_.size(), root_) == 0) {
      const std::string rel = fs::path(name.substr(root_.size())).lexically_normal().string();
      for (const package_file& f : sources_.files) {
        if (f.path == rel) found = &f;
      }
    }
    package_files_.emplace(file, found);
    return found;
  }

  place place_of(CXCursor d) {
    const file_pos p = expansion_of(clang_getCursorLocation(d));
    if (p.file == nullptr) return place::none;
    if (package_of(p.file) != nullptr) return place::package;
    const std::string name = ch::take(clang_getFileName(p.file));
    if (name.compare(0, include_prefix_.size(), include_prefix_) == 0) return place::shim;
    if (name.compare(0, root_.size(), root_) == 0) return place::none;  // the generated unit
    return place::system;
  }

  // Whether the code at `loc` was written by a shim macro (its location is the name of an
  // expanded macro of the shim's public API), not by the candidate.
  bool from_shim_macro(CXSourceLocation loc) {
    const file_pos e = expansion_of(loc);
    const file_pos w = written_at(loc);
    if (e.file != w.file || e.offset != w.offset) return false;  // a macro argument
    const package_file* f = package_of(e.file);
    if (f == nullptr) return false;
    const std::string word = identifier_at(*f->text, e.offset);
    if (word.empty() || sources_.package_macros.count(word) != 0 ||
        package_macros_.count(word) != 0)
      return false;
    return shim_macros_.count(word) != 0 && !aopt_named(word);
  }

  std::optional<screen_finding> check_diagnostics() {
    const unsigned n = clang_getNumDiagnostics(unit_);
    for (unsigned i = 0; i < n; ++i) {
      ch::diagnostic d(clang_getDiagnostic(unit_, i));
      if (clang_getDiagnosticSeverity(d.get()) < CXDiagnostic_Error) continue;
      const file_pos p = expansion_of(clang_getDiagnosticLocation(d.get()));
      const package_file* f = package_of(p.file);
      screen_finding s;
      s.file = f != nullptr
                   ? f->path
                   : (sources_.role == unit_role::kernel ? kernel_unit_file : host_unit_file);
      s.line = f != nullptr ? p.line : 0;
      s.construct = "unparsed code";
      s.reason = "the screen cannot judge code it cannot parse (" +
                 ch::take(clang_getDiagnosticSpelling(d.get())) + ")";
      s.unjudged = true;
      return s;
    }
    return std::nullopt;
  }

  struct inclusion_state {
    unit_walk* walk;
    std::optional<screen_finding> found;
  };

  static void inclusion(CXFile included, CXSourceLocation* stack, unsigned depth,
                        CXClientData data) {
    auto* st = static_cast<inclusion_state*>(data);
    if (depth == 0 || st->found) return;
    const file_pos at = expansion_of(stack[0]);
    const package_file* includer = st->walk->package_of(at.file);
    if (includer == nullptr) return;  // the shim's and the system's own includes
    if (st->walk->package_of(included) != nullptr) return;
    const std::string name = ch::take(clang_getFileName(included));
    const std::string& shim = st->walk->include_prefix_;
    if (name.compare(0, shim.size(), shim) == 0) {
      const std::string rel = name.substr(shim.size());
      if (!aopt_named(rel)) return;
    } else if (is_allowed_std_header_path(name)) {
      return;
    }
    st->found =
        st->walk->finding(*includer, at.line, "#include " + fs::path(name).filename().string(),
                          "only the package's files, the shim's public AscendC and tiling "
                          "headers and the standard headers a kernel needs may be "
                          "included (this one resolved to " +
                              name + ")");
  }

  std::optional<screen_finding> check_inclusions() {
    inclusion_state st{this, std::nullopt};
    clang_getInclusions(unit_, &unit_walk::inclusion, &st);
    return st.found;
  }

  // The token-level constructs of a package file, its macro bodies included: directives and
  // pragmas, attributes (whatever their spelling), inline assembly, thread-local storage.
  std::optional<screen_finding> check_tokens(const package_file& f) {
    CXFile file = clang_getFile(unit_, (root_ + f.path).c_str());
    const CXSourceRange all = clang_getRange(
        clang_getLocationForOffset(unit_, file, 0),
        clang_getLocationForOffset(unit_, file, static_cast<unsigned>(f.text->size())));
    const ch::tokens toks(unit_, all);
    // Comments are no code (libclang returns them as tokens of a file's range).
    std::vector<std::string> text;
    std::vector<unsigned> lines;
    for (unsigned i = 0; i < toks.size(); ++i) {
      if (toks.kind(i) == CXToken_Comment) continue;
      text.push_back(undigraph(toks.spelling(i)));
      lines.push_back(toks.line(i));
    }
    auto at = [&](size_t i) -> const std::string& {
      static const std::string none;
      return i < text.size() ? text[i] : none;
    };
    for (size_t i = 0; i < text.size(); ++i) {
      const std::string& t = text[i];
      const unsigned line = lines[i];
      if (t == "#" && (i == 0 || lines[i - 1] != line)) {
        const std::string& name = at(i + 1);
        // The macros the package defines, as the preprocessor reads the directive (a comment
        // between '#' and define is none of the name's business).
        if (name == "define" && i + 2 < lines.size() && lines[i + 2] == line)
          package_macros_.insert(at(i + 2));
        if (!screen_allow::directive(name))
          return finding(f, line, "#" + name, "a preprocessing directive off the allow-list");
        if (name == "pragma") {
          std::string words;
          for (size_t j = i + 2; j < text.size() && lines[j] == line; ++j)
            words += (words.empty() ? "" : " ") + text[j];
          if (!screen_allow::pragma(words))
            return finding(f, line, "#pragma " + words, "a pragma off the allow-list");
        }
        continue;
      }
      if (t == "_Pragma" || t == "__pragma") {
        std::string words = at(i + 2);
        if (words.size() >= 2 && words.front() == '"') words = words.substr(1, words.size() - 2);
        if (at(i + 1) != "(" || !screen_allow::pragma(words))
          return finding(f, line, "_Pragma(" + words + ")", "a pragma off the allow-list");
        continue;
      }
      if (t == "asm" || t == "__asm" || t == "__asm__")
        return finding(f, line, t, "inline assembly");
      if (t == "thread_local" || t == "__thread")
        return finding(f, line, t, "thread-local storage (its constructors run outside the entry)");
      if (t == "__declspec") return finding(f, line, t, "an attribute off the allow-list");
      if (t == "__attribute__" || t == "__attribute") {
        // __attribute__((a, b(x), c)): the names at depth 2 after "((" or ",".
        int depth = 0;
        for (size_t j = i + 1; j < text.size(); ++j) {
          if (text[j] == "(") {
            ++depth;
          } else if (text[j] == ")") {
            if (--depth <= 0) break;
          } else if (depth == 2 && (text[j - 1] == "(" || text[j - 1] == ",") &&
                     !screen_allow::attribute(text[j])) {
            return finding(f, lines[j], text[j] + " attribute", "an attribute off the allow-list");
          }
          if (depth == 0) break;
        }
        continue;
      }
      if (t == "[" && at(i + 1) == "[") {
        // [[using ns: a, ns::b(x)]]: each attribute's last name before its arguments.
        size_t j = i + 2;
        if (at(j) == "using") j += 3;
        int depth = 0;
        std::string name;
        for (; j < text.size(); ++j) {
          const std::string& a = text[j];
          if (depth == 0 && (a == "," || a == "]")) {
            if (!name.empty() && !screen_allow::attribute(name))
              return finding(f, lines[j], name + " attribute", "an attribute off the allow-list");
            name.clear();
            if (a == "]") break;
            continue;
          }
          if (a == "(" || a == "[") ++depth;
          if (a == ")" || a == "]") --depth;
          if (depth == 0 && a != "::" && a != "(" && a != ")" &&
              (name.empty() || at(j - 1) == "::"))
            name = a;
        }
        i = j;
        continue;
      }
    }
    return std::nullopt;
  }

  static CXChildVisitResult visit(CXCursor c, CXCursor, CXClientData data) {
    auto* self = static_cast<unit_walk*>(data);
    const file_pos e = expansion_of(clang_getCursorLocation(c));
    const package_file* f = self->package_of(e.file);
    if (f == nullptr) return CXChildVisit_Continue;  // the shim's, the system's, the unit's
    self->found_ = self->judge(c, *f, e);
    return self->found_ ? CXChildVisit_Break : CXChildVisit_Recurse;
  }

  std::optional<screen_finding> judge(CXCursor c, const package_file& f, const file_pos& e) {
    const CXCursorKind k = clang_getCursorKind(c);
    if (k == CXCursor_GCCAsmStmt || k == CXCursor_MSAsmStmt || k == CXCursor_AsmLabelAttr)
      return finding(f, e.line, "asm", "inline assembly or an assembler name");
    if (k >= CXCursor_FirstAttr && k <= CXCursor_LastAttr) return judge_attribute(c, f, e);
    if (k == CXCursor_UnexposedDecl) {
      const ch::tokens toks(unit_, clang_getCursorExtent(c));
      if (toks.size() > 0) {
        const std::string first = toks.spelling(0);
        if (first == "asm" || first == "__asm" || first == "__asm__")
          return finding(f, e.line, first, "file-scope assembly");
      }
    }
    // (On an expression, libclang answers these for the declaration around it.)
    if (clang_isDeclaration(k) &&
        (clang_Cursor_hasVarDeclGlobalStorage(c) == 1 || clang_getCursorTLSKind(c) != CXTLS_None)) {
      if (auto found = judge_variable(c, f, e)) return found;
    }
    if (k == CXCursor_CallExpr) approve_phy_addr_in(c);
    if (clang_isReference(k) || clang_isExpression(k)) return judge_reference(c, f, e);
    return std::nullopt;
  }

  // GetPhyAddr only as the address a GlobalTensor is set to: `y.SetGlobalBuffer((__gm__
  // uint16_t*)x.GetPhyAddr() + n, len)` views the same GM through another element type, the
  // idiom of public kernels. The raw pointer reaches nothing but the traced GlobalTensor: from
  // the GetPhyAddr call to SetGlobalBuffer's first argument there are only casts, parentheses and
  // pointer addition or subtraction. Everywhere else it stays refused (judge_shim).
  void approve_phy_addr_in(CXCursor call) {
    if (callee_name(call) != "SetGlobalBuffer" || !global_tensor_member_call(call) ||
        clang_Cursor_getNumArguments(call) < 1)
      return;
    approve_on_value_path(clang_Cursor_getArgument(call, 0));
  }

  void approve_on_value_path(CXCursor c) {
    const CXCursorKind k = clang_getCursorKind(c);
    if (k == CXCursor_CallExpr && callee_name(c) == "GetPhyAddr") {
      const CXSourceRange r = clang_getCursorExtent(c);
      const file_pos begin = expansion_of(clang_getRangeStart(r));
      approved_phy_addrs_.push_back(
          {begin.file, begin.offset, expansion_of(clang_getRangeEnd(r)).offset});
      return;
    }
    const bool passes_value = k == CXCursor_CStyleCastExpr || k == CXCursor_CXXStaticCastExpr ||
                              k == CXCursor_CXXReinterpretCastExpr || k == CXCursor_ParenExpr ||
                              (k == CXCursor_UnexposedExpr && expression_children(c) == 1) ||
                              (k == CXCursor_BinaryOperator && additive(c));
    if (!passes_value) return;
    clang_visitChildren(
        c,
        [](CXCursor child, CXCursor, CXClientData data) {
          if (clang_isExpression(clang_getCursorKind(child)))
            static_cast<unit_walk*>(data)->approve_on_value_path(child);
          return CXChildVisit_Continue;
        },
        this);
  }

  bool approved_phy_addr(const file_pos& at) const { return inside(approved_phy_addrs_, at); }

  static unsigned expression_children(CXCursor c) {
    unsigned n = 0;
    clang_visitChildren(
        c,
        [](CXCursor child, CXCursor, CXClientData data) {
          if (clang_isExpression(clang_getCursorKind(child))) ++*static_cast<unsigned*>(data);
          return CXChildVisit_Continue;
        },
        &n);
    return n;
  }

  // A cursor's first child (a call's callee, a member reference's object, a binary
  // expression's left operand); the null cursor when it has none.
  static CXCursor first_child(CXCursor c) {
    CXCursor first = clang_getNullCursor();
    clang_visitChildren(
        c,
        [](CXCursor child, CXCursor, CXClientData data) {
          *static_cast<CXCursor*>(data) = child;
          return CXChildVisit_Break;
        },
        &first);
    return first;
  }

  // The operator of a binary expression is + or -: the token right after its left operand.
  bool additive(CXCursor c) {
    const CXCursor lhs = first_child(c);
    if (clang_Cursor_isNull(lhs)) return false;
    unsigned lhs_end = 0;
    clang_getSpellingLocation(clang_getRangeEnd(clang_getCursorExtent(lhs)), nullptr, nullptr,
                              nullptr, &lhs_end);
    const ch::tokens toks(unit_, clang_getCursorExtent(c));
    for (unsigned i = 0; i < toks.size(); ++i) {
      if (toks.offset(i) < lhs_end) continue;
      const std::string op = toks.spelling(i);
      return op == "+" || op == "-";
    }
    return false;
  }

  // The name a call calls: its spelling, or for a member call in a template the member's name.
  std::string callee_name(CXCursor call) {
    std::string name = ch::take(clang_getCursorSpelling(call));
    if (!name.empty()) return name;
    const CXCursor callee = first_child(call);
    if (clang_Cursor_isNull(callee) || clang_getCursorKind(callee) != CXCursor_MemberRefExpr)
      return "";
    return last_identifier(callee);
  }

  // Whether `call` calls a member of the shim's GlobalTensor on an object of that type (also
  // where the element type is a template's parameter).
  bool global_tensor_member_call(CXCursor call) {
    const CXCursor callee = first_child(call);
    if (clang_Cursor_isNull(callee) || clang_getCursorKind(callee) != CXCursor_MemberRefExpr)
      return false;
    const CXCursor object = first_child(callee);
    if (clang_Cursor_isNull(object)) return false;
    CXType t = clang_getCanonicalType(clang_getCursorType(object));
    if (t.kind == CXType_Pointer || t.kind == CXType_LValueReference)
      t = clang_getCanonicalType(clang_getPointeeType(t));
    CXCursor d = clang_getTypeDeclaration(t);
    if (clang_Cursor_isNull(d)) return false;
    const CXCursor from = clang_getSpecializedCursorTemplate(d);
    if (!clang_Cursor_isNull(from)) d = from;
    return ch::take(clang_getCursorSpelling(d)) == "GlobalTensor" &&
           place_of(clang_getCanonicalCursor(d)) == place::shim;
  }

  std::optional<screen_finding> judge_attribute(CXCursor c, const package_file& f,
                                                const file_pos& e) {
    switch (clang_getCursorKind(c)) {
      case CXCursor_AlignedAttr:
      case CXCursor_PackedAttr:
      case CXCursor_PureAttr:
      case CXCursor_ConstAttr:
      case CXCursor_WarnUnusedAttr:
      case CXCursor_WarnUnusedResultAttr:
      case CXCursor_CXXFinalAttr:
      case CXCursor_CXXOverrideAttr:
        return std::nullopt;
      case CXCursor_UnexposedAttr: {
        const CXSourceLocation loc = clang_getCursorLocation(c);
        if (from_shim_macro(loc)) return std::nullopt;
        const file_pos w = written_at(loc);
        const package_file* wf = package_of(w.file);
        const std::string word = wf != nullptr ? identifier_at(*wf->text, w.offset) : "";
        // The namespace of [[gnu::x]] or [[using gnu: x]]: the token scan judged the name.
        if (word == "gnu" || word == "__gnu__" || word == "clang" || word == "_Clang" ||
            screen_allow::attribute(word))
          return std::nullopt;
        return finding(f, e.line, (word.empty() ? "an" : word) + " attribute",
                       "an attribute off the allow-list (one a macro outside the shim wrote "
                       "counts as written here)");
      }
      default:
        return finding(f, e.line, ch::take(clang_getCursorKindSpelling(clang_getCursorKind(c))),
                       "an attribute off the allow-list");
    }
  }

  // Whether the declaration of `c` (before its name) says constexpr or constinit.
  bool spelled_constant(CXCursor c) {
    const ch::tokens toks(unit_, clang_getCursorExtent(c));
    const std::string name = ch::take(clang_getCursorSpelling(c));
    for (unsigned i = 0; i < toks.size(); ++i) {
      const std::string t = toks.spelling(i);
      if (t == name || t == "=" || t == "{") return false;
      if (t == "constexpr" || t == "constinit") return true;
    }
    return false;
  }

  // Whether destroying an object of type `t` runs a destructor the package wrote.
  bool runs_package_destructor(CXType t, int depth) {
    if (depth > 8) return false;
    t = clang_getCanonicalType(t);
    while (t.kind == CXType_ConstantArray || t.kind == CXType_IncompleteArray) {
      t = clang_getCanonicalType(clang_getArrayElementType(t));
    }
    const CXCursor d = clang_getTypeDeclaration(t);
    if (clang_Cursor_isNull(d) || place_of(d) != place::package) return false;
    struct ctx {
      unit_walk* walk;
      int depth;
      bool runs = false;
    } cx{this, depth};
    clang_visitChildren(
        d,
        [](CXCursor m, CXCursor, CXClientData data) {
          auto* cx = static_cast<ctx*>(data);
          const CXCursorKind k = clang_getCursorKind(m);
          if ((k == CXCursor_Destructor && !clang_CXXMethod_isDefaulted(m)) ||
              ((k == CXCursor_FieldDecl || k == CXCursor_CXXBaseSpecifier) &&
               cx->walk->runs_package_destructor(clang_getCursorType(m), cx->depth + 1))) {
            cx->runs = true;
            return CXChildVisit_Break;
          }
          return CXChildVisit_Continue;
        },
        &cx);
    return cx.runs;
  }

  // Whether `d` is the standard library's (an allowed name of namespace std).
  bool standard_library(CXCursor d) {
    if (place_of(d) != place::system) return false;
    const std::vector<std::string> scopes = scopes_of(d);
    if (scopes.empty() || scopes[0] != "std") return false;
    const std::string& next = scopes.size() > 1 ? scopes[1] : ch::take(clang_getCursorSpelling(d));
    return screen_allow::std_name(next) || next[0] == '_';
  }

  // Whether `t` is, or has among its template arguments, a class the package wrote (whose
  // constructors, operators or destructor a library type would run).
  bool involves_package_class(CXType t, int depth) {
    if (depth > 8) return false;
    t = clang_getCanonicalType(t);
    while (t.kind == CXType_ConstantArray || t.kind == CXType_IncompleteArray)
      t = clang_getCanonicalType(clang_getArrayElementType(t));
    const CXCursor d = clang_getTypeDeclaration(t);
    if (!clang_Cursor_isNull(d) && clang_getCursorKind(d) != CXCursor_EnumDecl &&
        place_of(d) == place::package)
      return true;
    const int n = clang_Type_getNumTemplateArguments(t);
    for (int i = 0; i < n; ++i) {
      const CXType a = clang_Type_getTemplateArgumentAsType(t, static_cast<unsigned>(i));
      if (a.kind != CXType_Invalid && involves_package_class(a, depth + 1)) return true;
    }
    return false;
  }

  std::optional<screen_finding> judge_variable(CXCursor c, const package_file& f,
                                               const file_pos& e) {
    const std::string name = ch::take(clang_getCursorSpelling(c));
    if (clang_getCursorTLSKind(c) != CXTLS_None)
      return finding(f, e.line, "thread_local " + name,
                     "thread-local storage (its constructors run outside the entry)");
    if (clang_Cursor_hasVarDeclGlobalStorage(c) != 1) return std::nullopt;
    const CXCursor scope = clang_getCursorSemanticParent(c);
    // A function's static is initialised on its first call: inside the entry.
    if (function_like(clang_getCursorKind(scope))) return std::nullopt;
    if (from_shim_macro(clang_getCursorLocation(c))) return judge_registration(c, f, e);
    if (runs_package_destructor(clang_getCursorType(c), 0))
      return finding(f, e.line, name,
                     "a namespace-scope or static object whose destructor the package wrote runs "
                     "code after the kernel's entry");
    if (spelled_constant(c)) return std::nullopt;  // the compiler requires a constant then
    const std::string runs = runs_at_initialisation(c, 0);
    if (runs.empty()) return std::nullopt;
    return finding(f, e.line, name,
                   "a namespace-scope or static variable initialised at run time (by " + runs +
                       ") runs code before the kernel's entry (make it constexpr, or compute it "
                       "inside the function)");
  }

  // What in the initialiser of `var` (or, for depth > 0, in a class's default member
  // initialisers) would run at dynamic initialisation: a call that does not fold to a constant,
  // a constructor the package or a library wrote, a lambda, a new-expression. "" when nothing:
  // literals, constants, addresses, aggregates, casts, defaulted constructors of classes whose
  // members are initialised so.
  std::string runs_at_initialisation(CXCursor root, int depth) {
    struct ctx {
      unit_walk* walk;
      int depth;
      std::string runs;
      bool library = false;          // a standard-library constructor runs
      std::string package_function;  // the package's function the initialiser names
    } cx{this, depth, "", false, ""};
    clang_visitChildren(
        root,
        [](CXCursor c, CXCursor, CXClientData data) {
          auto* cx = static_cast<ctx*>(data);
          const CXCursorKind k = clang_getCursorKind(c);
          if (k == CXCursor_LambdaExpr || k == CXCursor_CXXNewExpr || k == CXCursor_CXXThrowExpr) {
            cx->runs = ch::take(clang_getCursorKindSpelling(k));
            return CXChildVisit_Break;
          }
          if (k == CXCursor_DeclRefExpr) {
            const CXCursor d = clang_getCursorReferenced(c);
            if (function_like(clang_getCursorKind(d)) && cx->walk->place_of(d) == place::package)
              cx->package_function = ch::take(clang_getCursorSpelling(d));
          }
          if (k != CXCursor_CallExpr) return CXChildVisit_Recurse;
          const CXCursor callee = clang_getCursorReferenced(c);
          const CXCursorKind ck = clang_getCursorKind(callee);
          if (ck == CXCursor_Constructor && clang_CXXMethod_isDefaulted(callee)) {
            // The class's default member initialisers run in it.
            if (cx->depth < 8) {
              const CXCursor cls = clang_getCursorSemanticParent(callee);
              std::string inner;
              std::pair<ctx*, std::string*> in{cx, &inner};
              clang_visitChildren(
                  cls,
                  [](CXCursor m, CXCursor, CXClientData d) {
                    auto* in = static_cast<std::pair<ctx*, std::string*>*>(d);
                    if (clang_getCursorKind(m) != CXCursor_FieldDecl) return CXChildVisit_Continue;
                    *in->second = in->first->walk->runs_at_initialisation(m, in->first->depth + 1);
                    return in->second->empty() ? CXChildVisit_Continue : CXChildVisit_Break;
                  },
                  &in);
              if (!inner.empty()) {
                cx->runs = inner;
                return CXChildVisit_Break;
              }
            }
            return CXChildVisit_Recurse;
          }
          // A standard container or string built from constants (a table of sizes by dtype) runs
          // the library's code only, unless a class of the package is among its types.
          if (ck == CXCursor_Constructor && cx->walk->standard_library(callee) &&
              !cx->walk->involves_package_class(clang_getCursorType(c), 0)) {
            cx->library = true;
            return CXChildVisit_Recurse;
          }
          // A constexpr call with a scalar result folds; anything else runs.
          if (ck != CXCursor_Constructor) {
            if (CXEvalResult r = clang_Cursor_Evaluate(c)) {
              clang_EvalResult_dispose(r);
              return CXChildVisit_Continue;
            }
          }
          cx->runs =
              clang_Cursor_isNull(callee) ? "a call" : ch::take(clang_getCursorSpelling(callee));
          return CXChildVisit_Break;
        },
        &cx);
    // A library constructor handed the package's function may call it (a deleter, a comparator).
    if (cx.runs.empty() && cx.library && !cx.package_function.empty())
      return cx.package_function + ", handed to a library constructor";
    return cx.runs;
  }

  // A shim macro's static object (IMPL_OP_OPTILING(Op).Tiling(f), OP_ADD(Op)) is constructed
  // before the entry by the shim's code; what the candidate chains onto it may name the
  // package's functions (f above), never call them, nor hold a lambda.
  std::optional<screen_finding> judge_registration(CXCursor var, const package_file& f,
                                                   const file_pos& e) {
    struct ctx {
      unit_walk* walk;
      std::string called;
    } cx{this, ""};
    clang_visitChildren(
        var,
        [](CXCursor c, CXCursor, CXClientData data) {
          auto* cx = static_cast<ctx*>(data);
          const CXCursorKind k = clang_getCursorKind(c);
          // The shim macro's own code (OP_ADD's lambda) is the shim's.
          if (cx->walk->from_shim_macro(clang_getCursorLocation(c))) return CXChildVisit_Recurse;
          if (k == CXCursor_LambdaExpr) {
            cx->called = "a lambda";
            return CXChildVisit_Break;
          }
          if (k == CXCursor_CallExpr) {
            const CXCursor callee = clang_getCursorReferenced(c);
            if (!clang_Cursor_isNull(callee) && cx->walk->place_of(callee) == place::package) {
              cx->called = ch::take(clang_getCursorSpelling(callee));
              return CXChildVisit_Break;
            }
          }
          return CXChildVisit_Recurse;
        },
        &cx);
    if (cx.called.empty()) return std::nullopt;
    return finding(f, e.line, cx.called,
                   "called while a shim registration is initialised, before the kernel's entry");
  }

  // syscall only as the identity query of a log line's prefix: one argument that evaluates to
  // SYS_gettid or SYS_getpid. An approved call's callee is not judged again.
  static bool is_syscall(CXCursor c) {
    return !clang_Cursor_isNull(c) && clang_getCursorKind(c) == CXCursor_FunctionDecl &&
           ch::take(clang_getCursorSpelling(c)) == "syscall";
  }

  // The call of syscall at or under `c` (an implicit conversion wraps it), or a null cursor.
  static CXCursor syscall_call(CXCursor c) {
    if (clang_getCursorKind(c) == CXCursor_CallExpr) return c;
    CXCursor call = clang_getNullCursor();
    clang_visitChildren(
        c,
        [](CXCursor k, CXCursor, CXClientData data) {
          if (clang_getCursorKind(k) == CXCursor_CallExpr &&
              is_syscall(clang_getCursorReferenced(k))) {
            *static_cast<CXCursor*>(data) = k;
            return CXChildVisit_Break;
          }
          return CXChildVisit_Recurse;
        },
        &call);
    return call;
  }

  // syscall only as the identity query of a log line's prefix: one argument that evaluates to
  // SYS_gettid or SYS_getpid. An approved call's callee is not judged again.
  std::optional<screen_finding> judge_syscall(CXCursor c, const package_file& f,
                                              const file_pos& e) {
    const CXSourceLocation loc = clang_getCursorLocation(c);
    if (approved_syscall(written_at(loc))) return std::nullopt;
    const CXCursor call = syscall_call(c);
    bool identity = false;
    if (!clang_Cursor_isNull(call) && clang_Cursor_getNumArguments(call) == 1) {
      if (CXEvalResult r = clang_Cursor_Evaluate(clang_Cursor_getArgument(call, 0))) {
        if (clang_EvalResult_getKind(r) == CXEval_Int) {
          const long long n = clang_EvalResult_getAsLongLong(r);
          identity = n == SYS_gettid || n == SYS_getpid;
        }
        clang_EvalResult_dispose(r);
      }
    }
    if (!identity)
      return finding(f, e.line, "syscall",
                     "a system call: only syscall(SYS_gettid) and syscall(SYS_getpid), the "
                     "identity queries of a log line's prefix, are allowed");
    const CXSourceRange r = clang_getCursorExtent(call);
    const file_pos begin = written_at(clang_getRangeStart(r));
    approved_syscalls_.push_back(
        {begin.file, begin.offset, written_at(clang_getRangeEnd(r)).offset});
    return std::nullopt;
  }

  bool approved_syscall(const file_pos& at) const { return inside(approved_syscalls_, at); }

  // A name a template leaves unresolved until it is instantiated (an ADL call, a dependent
  // member): refused when only the shim's internals declare it.
  std::optional<screen_finding> judge_unresolved(const std::string& name, const package_file& f,
                                                 const file_pos& e) {
    if (name.empty()) return std::nullopt;
    if (name == "GetPhyAddr" && !approved_phy_addr(e)) return raw_pointer_finding(f, e);
    if (aopt_named(name) || (internal_names_.count(name) != 0 && public_names_.count(name) == 0))
      return finding(f, e.line, name,
                     "a name left for a template's instantiation to resolve that only the "
                     "simulator's internals declare");
    return std::nullopt;
  }

  // The last identifier of a cursor's tokens (a dependent member's name).
  std::string last_identifier(CXCursor c) {
    const ch::tokens toks(unit_, clang_getCursorExtent(c));
    for (unsigned i = toks.size(); i-- > 0;) {
      if (toks.kind(i) == CXToken_Identifier) return toks.spelling(i);
    }
    return "";
  }

  std::optional<screen_finding> judge_reference(CXCursor c, const package_file& f,
                                                const file_pos& e) {
    const CXCursorKind k = clang_getCursorKind(c);
    const CXSourceLocation loc = clang_getCursorLocation(c);
    if (from_shim_macro(loc)) return std::nullopt;
    if (k == CXCursor_OverloadedDeclRef) {
      const unsigned n = clang_getNumOverloadedDecls(c);
      if (n == 0) return judge_unresolved(ch::take(clang_getCursorSpelling(c)), f, e);
      for (unsigned i = 0; i < n; ++i) {
        if (auto found = judge_target(clang_getOverloadedDecl(c, i), f, e)) return found;
      }
      return std::nullopt;
    }
    const CXCursor target = clang_getCursorReferenced(c);
    if (clang_Cursor_isNull(target)) {
      if (k == CXCursor_MemberRefExpr || k == CXCursor_DeclRefExpr)
        return judge_unresolved(last_identifier(c), f, e);
      return std::nullopt;
    }
    if (clang_equalCursors(target, c)) return std::nullopt;
    const CXCursorKind tk = clang_getCursorKind(target);
    if (tk == CXCursor_OverloadedDeclRef || tk == CXCursor_MacroDefinition) return std::nullopt;
    if (is_syscall(target) && place_of(target) == place::system && scopes_of(target).empty())
      return judge_syscall(c, f, e);
    return judge_target(target, f, e);
  }

  // A member of one of the package's class templates, named by the template's own code (its
  // pattern, not an instantiation): a use from outside the template names the specialisation's
  // member and is judged there, and an instantiation only the template's code would ask for is
  // a symbol of the package's class (another operator's kernel file defines it upstream).
  // Only in the package's own namespaces: a class template reopened in a library's namespace
  // could be instantiated into a name the library defines.
  bool own_class_template_member(CXCursor d) {
    const CXCursor owner = clang_getCursorSemanticParent(d);
    const CXCursorKind ok = clang_getCursorKind(owner);
    if (ok != CXCursor_ClassTemplate && ok != CXCursor_ClassTemplatePartialSpecialization)
      return false;
    for (CXCursor s = clang_getCursorSemanticParent(owner);
         !clang_Cursor_isNull(s) && clang_getCursorKind(s) != CXCursor_TranslationUnit;
         s = clang_getCursorSemanticParent(s)) {
      if (clang_getCursorKind(s) == CXCursor_Namespace &&
          place_of(clang_getCanonicalCursor(s)) != place::package)
        return false;
    }
    return true;
  }

  bool needs_definition(CXCursor d) {
    const CXCursorKind k = clang_getCursorKind(d);
    if (k != CXCursor_FunctionDecl && k != CXCursor_CXXMethod && k != CXCursor_VarDecl &&
        k != CXCursor_ConversionFunction)
      return false;
    if (!clang_Cursor_isNull(clang_getCursorDefinition(d))) return false;
    if (own_class_template_member(d)) return false;
    if (k == CXCursor_CXXMethod && clang_CXXMethod_isPureVirtual(d)) return false;
    if (k == CXCursor_VarDecl) {
      if (function_like(clang_getCursorKind(clang_getCursorSemanticParent(d)))) return false;
      if (!clang_Cursor_isNull(clang_Cursor_getVarDeclInitializer(d))) return false;
    }
    // A function template's specialisation is defined by its template.
    const CXCursor from = clang_getSpecializedCursorTemplate(d);
    if (!clang_Cursor_isNull(from) && !clang_Cursor_isNull(clang_getCursorDefinition(from)))
      return false;
    return true;
  }

  std::optional<screen_finding> judge_target(CXCursor d, const package_file& f, const file_pos& e) {
    const CXCursorKind k = clang_getCursorKind(d);
    if (k == CXCursor_TemplateTypeParameter || k == CXCursor_NonTypeTemplateParameter ||
        k == CXCursor_TemplateTemplateParameter || k == CXCursor_ParmDecl)
      return std::nullopt;
    const std::string name = ch::take(clang_getCursorSpelling(d));
    if (builtin_named(name)) {
      if (screen_allow::builtin(name)) return std::nullopt;
      return finding(f, e.line, name,
                     "a compiler builtin off the allow-list (frame and return addresses, alloca, "
                     "non-local jumps reach the simulator's memory)");
    }
    const CXCursor canonical = clang_getCanonicalCursor(d);
    switch (place_of(canonical)) {
      case place::none:
        if (name.rfind("operator new", 0) == 0 || name.rfind("operator delete", 0) == 0 ||
            !(function_like(k) || k == CXCursor_VarDecl))
          return std::nullopt;
        return finding(f, e.line, name, "a declaration the screen cannot place");
      case place::package:
        if (needs_definition(canonical))
          return finding(f, e.line, name,
                         "declared by the package but defined nowhere in it: it would bind to a "
                         "library's or the simulator's symbol");
        return std::nullopt;
      case place::shim:
        return judge_shim(canonical, name, f, e);
      case place::system:
        return judge_system(canonical, name, f, e);
    }
    return std::nullopt;
  }

  std::optional<screen_finding> judge_shim(CXCursor d, const std::string& name,
                                           const package_file& f, const file_pos& e) {
    if (clang_getCursorKind(d) == CXCursor_Namespace && internal_namespace(name))
      return finding(f, e.line, qualified_name(d),
                     "the simulator's internals: only the shim's public AscendC and tiling API "
                     "may be used");
    // A member is reached through an object of its class, which the candidate cannot name when
    // the class is internal: a public member of a shim class (a TQue's AllocTensor declared in
    // detail::queue_base) is public API. Free functions, types and templates are judged by
    // their namespace.
    const CXCursorKind parent = clang_getCursorKind(clang_getCursorSemanticParent(d));
    const bool member = parent == CXCursor_StructDecl || parent == CXCursor_ClassDecl ||
                        parent == CXCursor_ClassTemplate || parent == CXCursor_UnionDecl ||
                        parent == CXCursor_ClassTemplatePartialSpecialization;
    for (const std::string& scope : scopes_of(d)) {
      if (!member && internal_namespace(scope))
        return finding(f, e.line, qualified_name(d),
                       "an internal of the simulator (namespace " + scope +
                           "): only the shim's public AscendC and tiling API may be used");
    }
    if (clang_getCursorKind(d) != CXCursor_Namespace && aopt_named(name))
      return finding(f, e.line, qualified_name(d),
                     "an internal of the simulator: only the shim's public API may be used");
    if (clang_getCXXAccessSpecifier(d) == CX_CXXPrivate)
      return finding(f, e.line, qualified_name(d), "a private member of the shim");
    if (name == "GetPhyAddr" && !approved_phy_addr(e)) return raw_pointer_finding(f, e);
    return std::nullopt;
  }

  std::optional<screen_finding> raw_pointer_finding(const package_file& f, const file_pos& e) {
    return finding(f, e.line, "GetPhyAddr",
                   "raw-pointer access to GM/UB bypasses the traced tensor API (use DataCopy, "
                   "the vector API, GetValue/SetValue; a GlobalTensor may be set to another's "
                   "address: y.SetGlobalBuffer((__gm__ T*)x.GetPhyAddr(), n))");
  }

  std::optional<screen_finding> judge_system(CXCursor d, const std::string& name,
                                             const package_file& f, const file_pos& e) {
    const CXCursorKind k = clang_getCursorKind(d);
    const std::vector<std::string> scopes = scopes_of(d);
    if (scopes.empty()) {
      if (!(function_like(k) || k == CXCursor_VarDecl) || screen_allow::c_library_name(name))
        return std::nullopt;
      return finding(f, e.line, name,
                     "not on the C library's allow-list (memory, strings, math): files, "
                     "processes, signals, sockets, dynamic loading and exit paths are refused");
    }
    if (scopes[0] == "__gnu_cxx") return std::nullopt;  // libstdc++'s iterators and helpers
    if (scopes[0] == "std") {
      const std::string& next = scopes.size() > 1 ? scopes[1] : name;
      // Names starting with '_' are libstdc++'s own, reached through an allowed template
      // (std::__detail::_Node_iterator of an unordered_map's iterator).
      if (screen_allow::std_name(next) || next[0] == '_') return std::nullopt;
    }
    return finding(f, e.line, qualified_name(d),
                   "not on the standard library's allow-list (containers, strings, algorithms, "
                   "math, type traits)");
  }

  CXTranslationUnit unit_;
  const unit_sources& sources_;
  std::string root_;  // the folder the unit's files were written to, with a trailing '/'
  const std::string& include_prefix_;
  const std::set<std::string>& shim_macros_;
  const predefined_macros& predefined_;
  const std::set<std::string>& internal_names_;
  const std::set<std::string>& public_names_;
  std::unordered_map<CXFile, const package_file*> package_files_;
  struct approved_call {
    CXFile file;
    unsigned begin, end;  // offsets, both in the call
  };
  // Whether `at` lies in one of the approved calls.
  static bool inside(const std::vector<approved_call>& calls, const file_pos& at) {
    return std::any_of(calls.begin(), calls.end(), [&](const approved_call& r) {
      return r.file == at.file && at.offset >= r.begin && at.offset <= r.end;
    });
  }
  std::vector<approved_call> approved_syscalls_;
  std::vector<approved_call> approved_phy_addrs_;  // GetPhyAddr calls setting a GlobalTensor
  std::set<std::string> package_macros_;           // defined in the package's files (check_tokens)
  std::optional<screen_finding> found_;
};

}  // namespace

std::vector<std::string> ast_screen::state::unit_args(unit_role role, const std::string& pch_file,
                                                      const std::string& root,
                                                      bool validate_pch) const {
  const std::vector<std::string> flags =
      role == unit_role::kernel ? kernel_unit_flags(toolchain) : host_unit_flags(toolchain);
  std::vector<std::string> args = {"-x", "c++"};
  const std::string gch_include = "-I" + toolchain.pch_dir.string();
  for (size_t i = 0; i < flags.size(); ++i) {
    const std::string& a = flags[i];
    // The shim's header comes from the screen's own PCH; GCC's are not clang's.
    if (a == "-include") {
      ++i;
      continue;
    }
    if (a.compare(0, gch_include.size(), gch_include) == 0) continue;
    if ((a == "-iquote" || a == "-idirafter") && i + 1 < flags.size()) {
      const std::string& dir = flags[++i];
      args.push_back(a);
      args.push_back(dir == "." ? root : root + "/" + dir);
      continue;
    }
    args.push_back(a);
  }
  for (const char* a : clang_only_flags) args.emplace_back(a);
  // The PCH is the screen's own, built from the shim it was given: checking every header's time
  // stamp per unit is wasted work.
  if (!validate_pch) args.insert(args.end(), {"-Xclang", "-fno-validate-pch"});
  args.emplace_back("-include-pch");
  args.push_back(pch_file);
  return args;
}

namespace {

const char* pch_name(unit_role role) {
  return role == unit_role::kernel ? "kernel.pch" : "host.pch";
}
constexpr char shim_names_file[] = "shim_names.json";

}  // namespace

std::string ast_screen::state::pch_for(unit_role role) {
  std::lock_guard<std::mutex> lock(pch_mutex);
  if (auto it = pch.find(role); it != pch.end()) return it->second;
  // Only a header that was built is remembered: a failure of the machine (no descriptors, a
  // full disk) must not refuse every later candidate of the process.
  if (!pch_dir) {
    // Under <work dir>/screen, beside the object cache: the device's own state, not an
    // evaluation's scratch. The units' files are written there too.
    std::error_code ec;
    fs::create_directories(work_dir / "screen", ec);
    auto dir = scratch_dir::create(work_dir / "screen", "ast-");
    if (!dir.ok()) return {};
    pch_dir.emplace(std::move(dir).value());
  }
  if (std::optional<std::string> built = prebuilt_pch(role)) return pch[role] = *built;
  const fs::path out = pch_dir->path() / (std::to_string(pch_builds++) + "-" + pch_name(role));
  if (!build_pch(role, out)) return {};
  return pch[role] = out.string();
}

bool ast_screen::state::build_pch(unit_role role, const fs::path& out) {
  const fs::path header = toolchain.include_dir /
                          (role == unit_role::kernel ? "kernel_operator.h" : "aopt_sim/host_api.h");
  std::vector<std::string> args = {"-x", "c++-header"};
  args.insert(args.end(), toolchain.candidate_flags.begin(), toolchain.candidate_flags.end());
  args.push_back("-I" + toolchain.include_dir.string());
  for (const char* a : clang_only_flags) args.emplace_back(a);
  std::vector<const char*> argv;
  for (const std::string& a : args) argv.push_back(a.c_str());
  ch::index index(clang_createIndex(0, 0));
  CXTranslationUnit raw = nullptr;
  if (clang_parseTranslationUnit2(index.get(), header.c_str(), argv.data(),
                                  static_cast<int>(argv.size()), nullptr, 0,
                                  CXTranslationUnit_Incomplete | CXTranslationUnit_ForSerialization,
                                  &raw) != CXError_Success)
    return false;
  ch::translation_unit unit(raw);
  learn_shim_names(unit.get());
  return clang_saveTranslationUnit(unit.get(), out.c_str(), clang_defaultSaveOptions(unit.get())) ==
         CXSaveError_None;
}

std::optional<std::string> ast_screen::state::prebuilt_pch(unit_role role) {
  const fs::path dir = toolchain.pch_dir / "screen";
  const fs::path file = dir / pch_name(role);
  std::error_code ec;
  if (!fs::is_regular_file(file, ec) || !pch_loads(role, file)) return std::nullopt;
  // One file holds the names of both roles' headers: read for the first role only.
  if (!prebuilt_names_read) {
    std::ifstream in(dir / shim_names_file);
    const nlohmann::json names = nlohmann::json::parse(in, nullptr, false);
    if (!names.is_object() || !names.contains("internal") || !names.contains("public"))
      return std::nullopt;
    for (const auto& n : names["internal"]) internal_names.insert(n.get<std::string>());
    for (const auto& n : names["public"]) public_names.insert(n.get<std::string>());
    prebuilt_names_read = true;
  }
  return file.string();
}

namespace {

// A unit parsed from one in-memory file, with the index it lives in (a unit must not outlive
// its index: members are destroyed in reverse order).
struct memory_unit {
  ch::index index;
  ch::translation_unit unit;
};

// `text` parsed as `file` with `args`; nothing when libclang cannot parse it at all.
std::optional<memory_unit> parse_in_memory(const std::vector<std::string>& args, const char* file,
                                           const char* text, unsigned long length,
                                           unsigned options) {
  std::vector<const char*> argv;
  for (const std::string& a : args) argv.push_back(a.c_str());
  CXUnsavedFile unsaved{file, text, length};
  memory_unit out{ch::index(clang_createIndex(0, 0)), nullptr};
  CXTranslationUnit raw = nullptr;
  if (clang_parseTranslationUnit2(out.index.get(), file, argv.data(), static_cast<int>(argv.size()),
                                  &unsaved, 1, options, &raw) != CXError_Success)
    return std::nullopt;
  out.unit.reset(raw);
  return out;
}

}  // namespace

bool ast_screen::state::pch_loads(unit_role role, const fs::path& file) {
  // Parsed with the PCH validated (every header it was built from unchanged), as the screen's
  // own units are not.
  const std::vector<std::string> args =
      unit_args(role, file.string(), file.parent_path().string(), true);
  static constexpr char probe_text[] = "int aopt_pch_probe;\n";
  const std::optional<memory_unit> parsed = parse_in_memory(
      args, "aopt_pch_probe.cpp", probe_text, sizeof(probe_text) - 1, CXTranslationUnit_None);
  if (!parsed) return false;
  const ch::translation_unit& unit = parsed->unit;
  for (unsigned i = 0; i < clang_getNumDiagnostics(unit.get()); ++i) {
    const ch::diagnostic d(clang_getDiagnostic(unit.get(), i));
    if (clang_getDiagnosticSeverity(d.get()) >= CXDiagnostic_Error) return false;
  }
  return true;
}

bool ast_screen::state::drop_stale_pch(unit_role role) {
  std::lock_guard<std::mutex> lock(pch_mutex);
  const auto it = pch.find(role);
  if (it == pch.end() || it->second.empty() || pch_loads(role, it->second)) return false;
  pch.erase(it);
  return true;
}

void ast_screen::state::learn_shim_names(CXTranslationUnit unit) {
  struct ctx {
    state* s;
  } cx{this};
  clang_visitChildren(
      clang_getTranslationUnitCursor(unit),
      [](CXCursor c, CXCursor, CXClientData data) {
        auto* cx = static_cast<ctx*>(data);
        const CXCursorKind k = clang_getCursorKind(c);
        if (!clang_isDeclaration(k)) return CXChildVisit_Continue;  // bodies, expressions
        CXFile file = nullptr;
        clang_getExpansionLocation(clang_getCursorLocation(c), &file, nullptr, nullptr, nullptr);
        if (file == nullptr) return CXChildVisit_Continue;
        const std::string path = ch::take(clang_getFileName(file));
        if (path.compare(0, cx->s->include_prefix.size(), cx->s->include_prefix) != 0)
          return CXChildVisit_Continue;  // the system's
        const std::string name = ch::take(clang_getCursorSpelling(c));
        if (!name.empty()) {
          // As judge_shim judges them: members by their access, the rest by their namespace.
          const CXCursorKind parent = clang_getCursorKind(clang_getCursorSemanticParent(c));
          const bool member = parent == CXCursor_StructDecl || parent == CXCursor_ClassDecl ||
                              parent == CXCursor_ClassTemplate || parent == CXCursor_UnionDecl;
          bool internal = aopt_named(name) || clang_getCXXAccessSpecifier(c) == CX_CXXPrivate;
          for (const std::string& scope : scopes_of(c))
            internal = internal || (!member && internal_namespace(scope));
          (internal ? cx->s->internal_names : cx->s->public_names).insert(name);
        }
        return function_like(k) ? CXChildVisit_Continue : CXChildVisit_Recurse;
      },
      &cx);
}

namespace {

// The macros clang predefines for the screen's arguments (its -D flags included): the macro
// definitions of an empty unit's preprocessing record.
macro_table clang_predefines(const sim_toolchain& toolchain) {
  std::vector<std::string> args = {"-x", "c++"};
  args.insert(args.end(), toolchain.candidate_flags.begin(), toolchain.candidate_flags.end());
  for (const char* a : clang_only_flags) args.emplace_back(a);
  macro_table macros;
  const std::optional<memory_unit> parsed = parse_in_memory(
      args, "aopt_predefines.cpp", "", 0, CXTranslationUnit_DetailedPreprocessingRecord);
  if (!parsed) return macros;
  const ch::translation_unit& unit = parsed->unit;
  struct walk {
    CXTranslationUnit unit;
    macro_table* macros;
  } w{unit.get(), &macros};
  clang_visitChildren(
      clang_getTranslationUnitCursor(unit.get()),
      [](CXCursor c, CXCursor, CXClientData data) {
        auto* w = static_cast<walk*>(data);
        if (clang_getCursorKind(c) != CXCursor_MacroDefinition) return CXChildVisit_Continue;
        const ch::tokens toks(w->unit, clang_getCursorExtent(c));
        std::string replacement;
        for (unsigned i = 1; i < toks.size(); ++i) replacement += toks.spelling(i) + " ";
        (*w->macros)[ch::take(clang_getCursorSpelling(c))] = replacement;
        return CXChildVisit_Continue;
      },
      &w);
  return macros;
}

// What the compiler prints for the candidate flags and `extra` (trusted runs: no candidate text
// is involved); nothing when it cannot be run.
std::optional<std::string> compiler_output(const sim_toolchain& toolchain,
                                           std::initializer_list<const char*> extra) {
  subprocess_options o;
  o.argv = {toolchain.compiler};
  o.argv.insert(o.argv.end(), toolchain.candidate_flags.begin(), toolchain.candidate_flags.end());
  o.argv.insert(o.argv.end(), extra.begin(), extra.end());
  o.limits.wall_seconds = 60;
  auto r = run_subprocess(o);
  if (!r.ok() || !r->exited || r->exit_code != 0) return std::nullopt;
  return r->stdout_text;
}

// The include directory of clang's own headers: where its <stddef.h> resolves.
std::optional<std::string> clang_resource_headers(const sim_toolchain& toolchain) {
  std::vector<std::string> args = {"-x", "c++"};
  args.insert(args.end(), toolchain.candidate_flags.begin(), toolchain.candidate_flags.end());
  static constexpr char probe_text[] = "#include <stddef.h>\n";
  const std::optional<memory_unit> parsed = parse_in_memory(
      args, "aopt_resource_probe.cpp", probe_text, sizeof(probe_text) - 1, CXTranslationUnit_None);
  if (!parsed) return std::nullopt;
  const ch::translation_unit& unit = parsed->unit;
  std::optional<std::string> dir;
  clang_getInclusions(
      unit.get(),
      [](CXFile file, CXSourceLocation*, unsigned depth, CXClientData data) {
        const std::string name = ch::take(clang_getFileName(file));
        auto* found = static_cast<std::optional<std::string>*>(data);
        if (depth == 1 && !*found && fs::path(name).filename() == "stddef.h")
          *found = fs::path(name).parent_path().string();
      },
      &dir);
  return dir;
}

screen_finding unjudged(const std::string& file, std::string reason) {
  screen_finding s;
  s.file = file;
  s.construct = "unparsed code";
  s.reason = std::move(reason);
  s.unjudged = true;
  return s;
}

// What the child answered: its finding, the package files the unit read, and whether the parser
// answered at all (a verdict worth keeping).
struct child_verdict {
  std::optional<screen_finding> finding;
  std::vector<std::string> read;
  bool judged = false;
};

// The unit's parse and walk run in a parser process (screen_parser_pool.hpp) under bounds:
// libclang instantiates whatever the package's templates ask for, and a template instantiated
// 2^30 times held aopt at 2 GB and growing after 9 minutes when the parse ran in aopt's process.
// The bounds are far above an honest unit (every wild operator's units screen within them:
// bench_dropin); a unit past them is refused as code the screen cannot bound, never as aopt's
// failure.
child_verdict parse_in_child(screen_parser_pool& parsers, const std::string& request,
                             const std::string& main_file) {
  child_verdict out;
  const parser_answer answer = parsers.parse(request);
  if (answer.outcome == parser_answer::kind::past_bounds) {
    screen_finding s;
    s.file = main_file;
    s.construct = "code the screen cannot parse within its bounds";
    s.past_bounds = true;
    s.reason = fmt::format(
        "parsing the unit took more than {} s of CPU time, {} MiB of memory or {} s (a template "
        "or macro explosion); no honest unit comes near",
        parsers.limits().cpu_seconds, parsers.limits().address_space_bytes >> 20,
        parsers.limits().wall_seconds);
    out.finding = s;
    return out;
  }
  const nlohmann::json verdict = nlohmann::json::parse(answer.verdict, nullptr, false);
  if (answer.outcome != parser_answer::kind::answered || verdict.is_discarded() ||
      !verdict.is_object()) {
    out.finding =
        unjudged(main_file, "the screen's parser failed (" +
                                (answer.failure.empty() ? "no verdict" : answer.failure) + ")");
    return out;
  }
  out.judged = verdict.value("parsed", false);
  out.read = verdict.value("read", std::vector<std::string>{});
  if (const auto f = verdict.find("finding"); f != verdict.end() && f->is_object()) {
    screen_finding s;
    s.file = f->value("file", "");
    s.line = f->value("line", 0u);
    s.construct = f->value("construct", "");
    s.reason = f->value("reason", "");
    s.unjudged = f->value("unjudged", false);
    out.finding = s;
  }
  return out;
}

}  // namespace

std::optional<predefined_macros> ast_screen::state::predefined() {
  std::lock_guard<std::mutex> lock(pch_mutex);
  if (predefines) return predefines;
  const std::optional<std::string> dump =
      compiler_output(toolchain, {"-dM", "-E", "-x", "c++", "/dev/null"});
  const std::optional<std::string> resource = clang_resource_headers(toolchain);
  if (!dump || !resource) return std::nullopt;
  predefined_macros p = compare_predefines(clang_predefines(toolchain), parse_macro_dump(*dump));
  p.private_include_dirs.push_back(*resource);
  for (const char* gcc_dir : {"-print-file-name=include", "-print-file-name=include-fixed"}) {
    const std::optional<std::string> printed = compiler_output(toolchain, {gcc_dir});
    if (!printed) return std::nullopt;
    const std::string dir = trim(*printed);
    std::error_code ec;
    if (fs::path(dir).is_absolute() && fs::is_directory(dir, ec))
      p.private_include_dirs.push_back(dir);
  }
  predefines = std::move(p);
  return predefines;
}

std::optional<screen_finding> ast_screen::state::screen_unit(const unit_sources& unit,
                                                             bool retried) {
  content_hasher key;
  key.add(unit.role == unit_role::kernel ? "kernel" : "host").add(unit.main_text);
  for (const package_file& f : unit.files) key.add(f.path);
  const std::string unit_key = key.hex();
  {
    std::lock_guard<std::mutex> lock(verdict_mutex);
    if (auto it = verdicts.find(unit_key); it != verdicts.end()) {
      const bool same =
          std::all_of(it->second.read.begin(), it->second.read.end(), [&](const auto& read) {
            return std::any_of(unit.files.begin(), unit.files.end(), [&](const package_file& f) {
              return f.path == read.first && content_hash({*f.text}) == read.second;
            });
          });
      if (same) return it->second.finding;
    }
  }

  const std::string pch_file = pch_for(unit.role);
  fs::path pch_dir_path;
  {
    std::lock_guard<std::mutex> lock(pch_mutex);
    if (pch_dir) pch_dir_path = pch_dir->path();
  }
  if (pch_file.empty()) {
    screen_finding s;
    s.file = unit.role == unit_role::kernel ? kernel_unit_file : host_unit_file;
    s.construct = "unparsed code";
    s.reason = "the screen could not precompile the shim's headers";
    s.unjudged = true;
    return s;
  }
  // The unit's files are written to a folder of their own, laid out as the build lays them
  // out: a quoted include that climbs ("../op_host/x.h") resolves as it does for the compiler.
  auto dir = scratch_dir::create(pch_dir_path, "unit-");
  bool written = dir.ok();
  const std::string root = written ? dir->path().string() : "";
  auto write = [&](const std::string& rel, const std::string& text) {
    const fs::path path = fs::path(rel).lexically_normal();
    if (path.is_absolute() || rel.find("..") != std::string::npos) return;
    std::error_code ec;
    fs::create_directories((dir->path() / path).parent_path(), ec);
    std::ofstream out(dir->path() / path, std::ios::binary);
    out << text;
    written = written && !ec && out.good();
  };
  const std::string main_file = unit.role == unit_role::kernel ? kernel_unit_file : host_unit_file;
  if (written) {
    for (const package_file& f : unit.files) write(f.path, *f.text);
    write(main_file, unit.main_text);
  }
  if (!written) {
    screen_finding s;
    s.file = main_file;
    s.construct = "unparsed code";
    s.reason = "the screen could not write the unit's files";
    s.unjudged = true;
    return s;
  }
  std::optional<screen_finding> finding;
  verdict v;
  bool judged = false;  // the parser answered: the verdict may be kept
  if (const std::optional<predefined_macros> macros = predefined(); !macros) {
    finding =
        unjudged(main_file, "the screen could not ask the compiler for its predefined macros");
  } else {
    nlohmann::json request = {{"role", unit.role == unit_role::kernel ? "kernel" : "host"},
                              {"root", root},
                              {"include_prefix", include_prefix},
                              {"args", unit_args(unit.role, pch_file, root)},
                              {"package_macros", unit.package_macros},
                              {"shim_macros", shim_macros},
                              {"internal_names", internal_names},
                              {"public_names", public_names},
                              {"predefined_any", macros->any},
                              {"predefined_alike", macros->alike},
                              {"private_include_dirs", macros->private_include_dirs}};
    for (const package_file& f : unit.files) request["files"].push_back(f.path);
    const child_verdict c = parse_in_child(*parsers, request.dump(), main_file);
    finding = c.finding;
    judged = c.judged;
    for (const std::string& path : c.read) {
      for (const package_file& f : unit.files)
        if (f.path == path) v.read[path] = content_hash({*f.text});
    }
  }
  if (finding && finding->unjudged && !retried && drop_stale_pch(unit.role))
    return screen_unit(unit, true);
  std::lock_guard<std::mutex> lock(verdict_mutex);
  ++parsed;
  if (judged && verdicts.count(unit_key) == 0) {
    v.finding = finding;
    verdicts.emplace(unit_key, std::move(v));
    verdict_order.push_back(unit_key);
    if (verdict_order.size() > verdict_cache_entries) {
      verdicts.erase(verdict_order.front());
      verdict_order.pop_front();
    }
  }
  return finding;
}

std::string judge_screen_request(const std::string& request) {
  const nlohmann::json r = nlohmann::json::parse(request, nullptr, false);
  if (!r.is_object()) return "";
  unit_sources unit{r.value("role", "") == "kernel" ? unit_role::kernel : unit_role::host,
                    "",
                    {},
                    r.value("package_macros", std::set<std::string>{})};
  const std::string root = r.value("root", "");
  std::deque<std::string> texts;
  for (const std::string& path : r.value("files", std::vector<std::string>{})) {
    texts.push_back(read_file(fs::path(root) / path));
    unit.files.push_back({path, &texts.back()});
  }
  const auto args = r.value("args", std::vector<std::string>{});
  std::vector<const char*> argv;
  for (const std::string& a : args) argv.push_back(a.c_str());
  const std::string main_file = unit.role == unit_role::kernel ? kernel_unit_file : host_unit_file;
  const std::string main_path = root + "/" + main_file;
  ch::index index(clang_createIndex(0, 0));
  CXTranslationUnit raw = nullptr;
  const CXErrorCode parsed = clang_parseTranslationUnit2(index.get(), main_path.c_str(),
                                                         argv.data(), static_cast<int>(argv.size()),
                                                         nullptr, 0, CXTranslationUnit_None, &raw);
  ch::translation_unit tu(raw);
  nlohmann::json out = {{"parsed", parsed == CXError_Success}, {"read", nlohmann::json::array()}};
  std::optional<screen_finding> finding;
  if (parsed != CXError_Success) {
    finding = unjudged(main_file, "libclang could not parse the unit");
  } else {
    const auto shim = r.value("shim_macros", std::set<std::string>{});
    const auto internal = r.value("internal_names", std::set<std::string>{});
    const auto publics = r.value("public_names", std::set<std::string>{});
    const predefined_macros predefined{r.value("predefined_any", std::set<std::string>{}),
                                       r.value("predefined_alike", std::set<std::string>{}),
                                       r.value("private_include_dirs", std::vector<std::string>{})};
    const std::string include_prefix = r.value("include_prefix", "");
    unit_walk walk(tu.get(), unit, root + "/", include_prefix, shim, internal, publics, predefined);
    finding = walk.run();
    for (const auto& entry : walk.files_read()) out["read"].push_back(entry.first);
  }
  if (finding) {
    out["finding"] = {{"file", finding->file},
                      {"line", finding->line},
                      {"construct", finding->construct},
                      {"reason", finding->reason},
                      {"unjudged", finding->unjudged}};
  }
  return out.dump();
}

ast_screen::ast_screen(const sim_toolchain& toolchain, const fs::path& work_dir,
                       screen_parser_limits limits)
    : state_(std::make_unique<state>()) {
  state_->parsers = std::make_unique<screen_parser_pool>(AOPT_SIM_SCREEN, limits);
  state_->toolchain = toolchain;
  state_->work_dir = work_dir;
  state_->include_prefix = toolchain.include_dir.string() + "/";
  // What screens killed before they could clean up left behind.
  scratch_dir::sweep(work_dir / "screen");
  std::error_code ec;
  for (fs::recursive_directory_iterator it(toolchain.include_dir, ec), end; !ec && it != end;
       it.increment(ec)) {
    if (it->is_regular_file(ec)) collect_macro_names(read_file(it->path()), state_->shim_macros);
  }
}

ast_screen::~ast_screen() = default;

status ast_screen::prebuild(const sim_toolchain& toolchain, const fs::path& dir) {
  state s;
  s.toolchain = toolchain;
  s.include_prefix = toolchain.include_dir.string() + "/";
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) return internal_error("screen PCH: cannot create " + dir.string() + ": " + ec.message());
  for (unit_role role : {unit_role::kernel, unit_role::host}) {
    if (!s.build_pch(role, dir / pch_name(role))) {
      return internal_error(std::string("screen PCH: libclang could not precompile the shim for ") +
                            pch_name(role));
    }
  }
  const nlohmann::json names = {{"internal", s.internal_names}, {"public", s.public_names}};
  std::ofstream out(dir / shim_names_file);
  out << names.dump();
  if (!out) return internal_error("screen PCH: cannot write " + (dir / shim_names_file).string());
  return status::ok_status();
}

std::optional<screen_finding> ast_screen::screen(const op_package& op,
                                                 const std::string& tiling_source,
                                                 const std::string* kernel_source) const {
  const op_spec& spec = op.spec;
  std::vector<package_file> files;
  std::set<std::string> named;
  auto add = [&](const std::string& path, const std::string& text) {
    if (!named.insert(path).second) return;
    files.push_back({path, &text});
  };
  // The named files first: a package's other file of the same path never wins (the build writes
  // the named ones last).
  add(spec.files.host, tiling_source);
  if (kernel_source != nullptr) add(spec.files.kernel, *kernel_source);
  add(spec.files.tiling_header, op.tiling_header_source);
  for (const auto& [path, text] : op.other_files) add(path, text);
  std::set<std::string> macros;
  for (const package_file& f : files) collect_macro_names(*f.text, macros);

  // The two units are parsed at once (as the compiler compiles them). A refusal wins over a
  // unit the screen could not read: it needs no compiler to confirm it.
  const unit_sources host{unit_role::host, host_unit_text(spec), files, macros};
  std::future<std::optional<screen_finding>> kernel_found;
  if (kernel_source != nullptr) {
    kernel_found = std::async(std::launch::async, [&] {
      const unit_sources kernel{unit_role::kernel, kernel_unit_text(spec), files, macros};
      return state_->screen_unit(kernel);
    });
  }
  std::optional<screen_finding> found = state_->screen_unit(host);
  if (kernel_found.valid()) {
    std::optional<screen_finding> in_kernel = kernel_found.get();
    if (!found || (found->unjudged && in_kernel && !in_kernel->unjudged)) found = in_kernel;
  }
  return found;
}

uint64_t ast_screen::units_parsed() const {
  std::lock_guard<std::mutex> lock(state_->verdict_mutex);
  return state_->parsed;
}

uint64_t ast_screen::parser_processes_started() const {
  return state_->parsers->processes_started();
}

}  // namespace aopt::npu
