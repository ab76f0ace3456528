#include "agent/kernel_text/tiling_dataflow.hpp"

#include <memory>

#include "base/libclang_handles.hpp"

namespace aopt::agent {

namespace {

using clang_handles::take;

// Byte offsets of a cursor's extent in the main file; false outside it.
bool extent_of(CXCursor c, size_t& begin, size_t& end) {
  CXSourceRange r = clang_getCursorExtent(c);
  CXFile fb = nullptr;
  CXFile fe = nullptr;
  unsigned b = 0;
  unsigned e = 0;
  clang_getFileLocation(clang_getRangeStart(r), &fb, nullptr, nullptr, &b);
  clang_getFileLocation(clang_getRangeEnd(r), &fe, nullptr, nullptr, &e);
  if (fb == nullptr || fe == nullptr || !clang_File_isEqual(fb, fe)) return false;
  if (!clang_Location_isFromMainFile(clang_getRangeStart(r))) return false;
  begin = b;
  end = e;
  return e >= b;
}

// The variable an argument names, through implicit casts and parentheses.
CXCursor named_variable(CXCursor arg) {
  if (clang_getCursorKind(arg) == CXCursor_DeclRefExpr) return clang_getCursorReferenced(arg);
  CXCursor found = clang_getNullCursor();
  clang_visitChildren(
      arg,
      [](CXCursor c, CXCursor, CXClientData data) {
        if (clang_getCursorKind(c) == CXCursor_DeclRefExpr) {
          *static_cast<CXCursor*>(data) = clang_getCursorReferenced(c);
          return CXChildVisit_Break;
        }
        return CXChildVisit_Recurse;
      },
      &found);
  return found;
}

struct walker {
  const std::string& source;
  const std::set<std::string>& depth_fields;
  std::vector<computed_lever> found;
  std::set<std::string> depth_variables;  // each computed depth once
  std::vector<CXCursor> stack;            // ancestors of the cursor being visited, outermost first

  // The statement holding the cursor: the outermost ancestor below the nearest compound
  // statement (or the translation unit, for a namespace-scope declaration).
  bool statement_of(size_t& begin, size_t& end) const {
    for (size_t i = stack.size(); i-- > 1;) {
      CXCursorKind parent = clang_getCursorKind(stack[i - 1]);
      if (parent == CXCursor_CompoundStmt || parent == CXCursor_TranslationUnit ||
          parent == CXCursor_Namespace) {
        if (!extent_of(stack[i], begin, end) || end == 0 || end > source.size()) return false;
        // An expression statement's extent stops before its ';'.
        if (source[end - 1] != ';') {
          size_t next = source.find_first_not_of(" \t\r\n", end);
          if (next == std::string::npos || source[next] != ';') return false;
          end = next + 1;
        }
        return end > 0 && source[end - 1] == ';';
      }
    }
    return false;
  }

  void call(CXCursor c) {
    const std::string name = take(clang_getCursorSpelling(c));
    const int args = clang_Cursor_getNumArguments(c);
    computed_lever lever;
    if (!extent_of(c, lever.begin, lever.end) || lever.end > source.size()) return;
    lever.expression = source.substr(lever.begin, lever.end - lever.begin);
    // A call spelled by a macro has no text of its own to rewrite.
    if (lever.expression.find(name) == std::string::npos) return;
    if (!statement_of(lever.statement_begin, lever.statement_end)) return;
    if ((name == "GetCoreNumAiv" || name == "GetCoreNum" || name == "GetCoreNumAic") && args == 0) {
      lever.kind = computed_lever_kind::core_count;
      found.push_back(std::move(lever));
    } else if (name.rfind("set_", 0) == 0 && args == 1 && depth_fields.count(name.substr(4)) != 0) {
      depth_setter(clang_Cursor_getArgument(c, 0));
    } else if (name == "GetCoreMemSize" && args == 2) {
      size_t b = 0;
      size_t e = 0;
      if (!extent_of(clang_Cursor_getArgument(c, 0), b, e) ||
          source.substr(b, e - b).find("UB") == std::string::npos) {
        return;
      }
      CXCursor var = named_variable(clang_Cursor_getArgument(c, 1));
      if (clang_Cursor_isNull(var) || clang_getCursorKind(var) != CXCursor_VarDecl) return;
      lever.kind = computed_lever_kind::ub_bytes;
      lever.variable = take(clang_getCursorSpelling(var));
      lever.variable_type = take(clang_getTypeSpelling(clang_getCursorType(var)));
      found.push_back(std::move(lever));
    }
  }

  // The variable a depth setter is given, when the function computes it in a declaration of
  // its own that a line can follow.
  void depth_setter(CXCursor arg) {
    CXCursor var = named_variable(arg);
    if (clang_Cursor_isNull(var) || clang_getCursorKind(var) != CXCursor_VarDecl) return;
    if (clang_isConstQualifiedType(clang_getCursorType(var)) != 0) return;
    const CXCursorKind scope = clang_getCursorKind(clang_getCursorSemanticParent(var));
    if (scope != CXCursor_FunctionDecl && scope != CXCursor_CXXMethod) return;
    const std::string name = take(clang_getCursorSpelling(var));
    if (depth_variables.count(name) != 0) return;
    computed_lever lever;
    if (!extent_of(var, lever.statement_begin, lever.end) || lever.end > source.size()) return;
    const size_t semi = source.find_first_not_of(" \t", lever.end);
    if (semi == std::string::npos || source[semi] != ';') return;  // `int a = 1, b = 2;`
    const size_t rest = source.find_first_not_of(" \t\r", semi + 1);
    if (rest != std::string::npos && source[rest] != '\n' && source.compare(rest, 2, "//") != 0) {
      return;  // more code on the line
    }
    lever.kind = computed_lever_kind::buffer_depth;
    lever.begin = lever.statement_begin;
    lever.statement_end = semi + 1;
    lever.expression = source.substr(lever.begin, lever.statement_end - lever.begin);
    lever.variable = name;
    lever.variable_type = take(clang_getTypeSpelling(clang_getCursorType(var)));
    depth_variables.insert(name);
    found.push_back(std::move(lever));
  }

  void visit(CXCursor c) {
    stack.push_back(c);
    if (clang_getCursorKind(c) == CXCursor_CallExpr &&
        clang_Location_isFromMainFile(clang_getCursorLocation(c))) {
      call(c);
    }
    clang_visitChildren(
        c,
        [](CXCursor child, CXCursor, CXClientData data) {
          auto* self = static_cast<walker*>(data);
          // Headers hold no lever of this operator: only the main file is walked.
          if (clang_Location_isFromMainFile(clang_getCursorLocation(child))) self->visit(child);
          return CXChildVisit_Continue;
        },
        this);
    stack.pop_back();
  }
};

}  // namespace

result<std::vector<computed_lever>> find_computed_levers(
    const std::string& source, const std::vector<std::string>& include_dirs,
    const std::string& file_name, const std::set<std::string>& depth_fields) {
  clang_handles::index index(clang_createIndex(0, 0));
  std::vector<std::string> arg_text = {"-x", "c++", "-std=c++17", "-fsyntax-only", "-w"};
  for (const std::string& dir : include_dirs) arg_text.push_back("-I" + dir);
  std::vector<const char*> args;
  for (const std::string& a : arg_text) args.push_back(a.c_str());
  CXUnsavedFile unsaved{file_name.c_str(), source.data(),
                        static_cast<unsigned long>(source.size())};
  CXTranslationUnit raw = nullptr;
  const CXErrorCode rc = clang_parseTranslationUnit2(index.get(), file_name.c_str(), args.data(),
                                                     static_cast<int>(args.size()), &unsaved, 1,
                                                     CXTranslationUnit_KeepGoing, &raw);
  clang_handles::translation_unit unit(raw);
  if (rc != CXError_Success || !unit) {
    return invalid_argument("libclang could not parse " + file_name + " (error " +
                            std::to_string(static_cast<int>(rc)) + ")");
  }
  walker w{source, depth_fields, {}, {}, {}};
  w.visit(clang_getTranslationUnitCursor(unit.get()));
  return std::move(w.found);
}

}  // namespace aopt::agent
