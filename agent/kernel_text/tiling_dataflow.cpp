#include "agent/kernel_text/tiling_dataflow.hpp"

#include <algorithm>
#include <map>
#include <memory>
#include <optional>

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

std::vector<CXCursor> children_of(CXCursor c) {
  std::vector<CXCursor> out;
  clang_visitChildren(
      c,
      [](CXCursor child, CXCursor, CXClientData data) {
        static_cast<std::vector<CXCursor>*>(data)->push_back(child);
        return CXChildVisit_Continue;
      },
      &out);
  return out;
}

// Strips parentheses and implicit conversions (UnexposedExpr) around an expression.
CXCursor stripped(CXCursor c) {
  for (;;) {
    const CXCursorKind k = clang_getCursorKind(c);
    if (k != CXCursor_ParenExpr && k != CXCursor_UnexposedExpr) return c;
    const std::vector<CXCursor> kids = children_of(c);
    if (kids.size() != 1) return c;
    c = kids.front();
  }
}

bool integer_cursor_type(CXType t) {
  switch (clang_getCanonicalType(t).kind) {
    case CXType_UShort:
    case CXType_UInt:
    case CXType_ULong:
    case CXType_ULongLong:
    case CXType_Short:
    case CXType_Int:
    case CXType_Long:
    case CXType_LongLong:
      return true;
    default:
      return false;
  }
}

bool is_core_query(const std::string& name) {
  return name == "GetCoreNumAiv" || name == "GetCoreNum" || name == "GetCoreNumAic";
}

// The smallest cap TILE_CAP offers (template_synthesis.cpp): a length at or below it cannot move.
constexpr int64_t min_tile_cap = 64;

// The data flow of one function body, over its local integer variables: which writes define
// each, what they are computed from, and where each is read. Enough to tell a quotient of the
// UB size or of the core count from a quantity that merely passes through.
class function_flow {
 public:
  function_flow(const std::string& source, CXCursor body,
                const std::set<std::string>& length_fields)
      : source_(source), body_(body), length_fields_(length_fields) {}

  std::vector<computed_lever> levers() {
    walk(body_);
    close();
    std::vector<computed_lever> out;
    tile_levers(out);
    split_levers(out);
    return out;
  }

 private:
  struct write {
    CXCursor rhs;
    size_t statement_begin = 0;
    size_t statement_end = 0;
    bool top_level = false;
    // The statement of the function's body that holds it (itself when top_level): an `if`
    // whose branch writes the variable ends at its '}'. Both 0 when there is none.
    size_t body_statement_begin = 0;
    size_t body_statement_end = 0;
  };
  struct variable {
    std::string name;
    std::string type;
    bool candidate = false;  // a non-const local integer
    std::vector<write> writes;
    std::set<size_t> deps;  // variables its writes read
    std::vector<size_t> reads;
    bool ub_root = false;
    bool ub = false;          // computed from the UB size
    bool ub_count = false;    // a quotient of it
    bool core = false;        // computed from the core count
    bool core_count = false;  // a count of cores: the query, or a cap or min of it (no quotient)
    bool to_kernel = false;
    bool to_buffer_length = false;  // handed to a field the kernel sizes a buffer by
  };

  const std::string& source_;
  CXCursor body_;
  const std::set<std::string>& length_fields_;
  std::vector<variable> vars_;
  std::map<unsigned, size_t> by_offset_;  // a VarDecl's offset -> its index
  std::set<size_t> write_refs_;           // offsets of references that are written
  std::vector<CXCursor> block_dims_;      // SetBlockDim's arguments
  std::vector<CXCursor> stack_;

  std::string text(CXCursor c) const {
    size_t b = 0;
    size_t e = 0;
    if (!extent_of(c, b, e) || e > source_.size()) return {};
    return source_.substr(b, e - b);
  }

  std::optional<size_t> variable_of(CXCursor ref) const {
    ref = stripped(ref);
    if (clang_getCursorKind(ref) != CXCursor_DeclRefExpr) return std::nullopt;
    CXCursor decl = clang_getCursorReferenced(ref);
    if (clang_getCursorKind(decl) != CXCursor_VarDecl) return std::nullopt;
    unsigned off = 0;
    clang_getFileLocation(clang_getCursorLocation(decl), nullptr, nullptr, nullptr, &off);
    auto it = by_offset_.find(off);
    if (it == by_offset_.end()) return std::nullopt;
    return it->second;
  }

  // The operator of a binary expression: the token after its left operand.
  std::string binary_operator(CXCursor op, CXCursor lhs) const {
    size_t b = 0;
    size_t e = 0;
    size_t ob = 0;
    size_t oe = 0;
    if (!extent_of(lhs, b, e) || !extent_of(op, ob, oe)) return {};
    size_t at = source_.find_first_not_of(" \t\r\n", e);
    std::string out;
    while (at < oe && at < source_.size() &&
           std::string("=+-*/%<>&|^!").find(source_[at]) != std::string::npos) {
      out += source_[at++];
    }
    return out;
  }

  // The bytes of statement `c` through the ';' that ends it (an expression statement's extent
  // stops before it); with `compound`, also a statement no ';' follows that ends in its '}' (an
  // if, a loop).
  bool statement_extent(CXCursor c, bool compound, size_t& begin, size_t& end) const {
    if (!extent_of(c, begin, end) || end == 0 || end > source_.size()) return false;
    if (source_[end - 1] == ';') return true;
    const size_t next = source_.find_first_not_of(" \t\r\n", end);
    if (next != std::string::npos && source_[next] == ';') {
      end = next + 1;
      return true;
    }
    return compound && source_[end - 1] == '}';
  }

  // The statement holding the cursor being visited: the ancestor right below a compound.
  bool statement(size_t& begin, size_t& end, bool& top_level) const {
    for (size_t i = stack_.size(); i-- > 1;) {
      if (clang_getCursorKind(stack_[i - 1]) != CXCursor_CompoundStmt) continue;
      if (!statement_extent(stack_[i], false, begin, end)) return false;
      top_level = clang_equalCursors(stack_[i - 1], body_) != 0;
      return true;
    }
    return false;
  }

  // The statement of the function's body that holds the cursor being visited (for a top-level
  // write, the statement itself). False when there is none.
  bool body_statement(size_t& begin, size_t& end) const {
    for (size_t i = 1; i < stack_.size(); ++i) {
      if (clang_equalCursors(stack_[i - 1], body_) != 0)
        return statement_extent(stack_[i], true, begin, end);
    }
    return false;
  }

  void add_write(size_t var, CXCursor rhs) {
    write w{rhs};
    if (!statement(w.statement_begin, w.statement_end, w.top_level)) w.top_level = false;
    if (!body_statement(w.body_statement_begin, w.body_statement_end)) {
      w.body_statement_begin = w.body_statement_end = 0;
    }
    vars_[var].writes.push_back(w);
  }

  void walk(CXCursor c) {
    stack_.push_back(c);
    const CXCursorKind kind = clang_getCursorKind(c);
    if (kind == CXCursor_VarDecl) {
      variable v;
      v.name = take(clang_getCursorSpelling(c));
      const CXType type = clang_getCursorType(c);
      v.type = take(clang_getTypeSpelling(type));
      v.candidate = integer_cursor_type(type) && clang_isConstQualifiedType(type) == 0 &&
                    clang_getCursorKind(clang_getCursorSemanticParent(c)) != CXCursor_Namespace;
      unsigned off = 0;
      clang_getFileLocation(clang_getCursorLocation(c), nullptr, nullptr, nullptr, &off);
      by_offset_[off] = vars_.size();
      vars_.push_back(std::move(v));
      const std::vector<CXCursor> kids = children_of(c);
      if (!kids.empty() && clang_isExpression(clang_getCursorKind(kids.back())) != 0) {
        add_write(vars_.size() - 1, kids.back());
      }
    } else if (kind == CXCursor_BinaryOperator || kind == CXCursor_CompoundAssignOperator) {
      const std::vector<CXCursor> kids = children_of(c);
      if (kids.size() == 2) {
        const std::string op = binary_operator(c, kids[0]);
        const bool assigns = kind == CXCursor_CompoundAssignOperator || op == "=";
        if (std::optional<size_t> var = variable_of(kids[0]); assigns && var) {
          add_write(*var, kids[1]);
          // A plain `=` does not read its target; `x op= y` does, and is itself a write.
          size_t b = 0;
          size_t e = 0;
          if (op == "=" && extent_of(stripped(kids[0]), b, e)) write_refs_.insert(b);
        }
      }
    } else if (kind == CXCursor_DeclRefExpr) {
      if (std::optional<size_t> var = variable_of(c)) {
        size_t b = 0;
        size_t e = 0;
        if (extent_of(c, b, e)) vars_[*var].reads.push_back(b);
      }
    } else if (kind == CXCursor_CallExpr) {
      const std::string name = take(clang_getCursorSpelling(c));
      const int args = clang_Cursor_getNumArguments(c);
      if (name == "GetCoreMemSize" && args == 2 &&
          text(clang_Cursor_getArgument(c, 0)).find("UB") != std::string::npos) {
        if (std::optional<size_t> var = variable_of(clang_Cursor_getArgument(c, 1))) {
          vars_[*var].ub_root = true;
          size_t b = 0;
          size_t e = 0;
          if (extent_of(stripped(clang_Cursor_getArgument(c, 1)), b, e)) write_refs_.insert(b);
        }
      } else if (name.rfind("set_", 0) == 0 && args == 1) {
        const bool length = length_fields_.count(name.substr(4)) != 0;
        for (size_t var : references(clang_Cursor_getArgument(c, 0))) {
          vars_[var].to_kernel = true;
          if (length) vars_[var].to_buffer_length = true;
        }
      } else if (name == "SetBlockDim" && args == 1) {
        block_dims_.push_back(clang_Cursor_getArgument(c, 0));
      }
    }
    for (CXCursor child : children_of(c)) {
      if (clang_Location_isFromMainFile(clang_getCursorLocation(child))) walk(child);
    }
    stack_.pop_back();
  }

  // The variables an expression reads.
  std::set<size_t> references(CXCursor expr) const {
    std::set<size_t> out;
    if (std::optional<size_t> v = variable_of(expr)) out.insert(*v);
    std::vector<CXCursor> todo = children_of(expr);
    while (!todo.empty()) {
      CXCursor c = todo.back();
      todo.pop_back();
      if (std::optional<size_t> v = variable_of(c)) out.insert(*v);
      for (CXCursor k : children_of(c)) todo.push_back(k);
    }
    return out;
  }

  // Every sub-expression of `expr` (itself included) that `pred` accepts.
  template <typename F>
  void each_node(CXCursor expr, F&& f) const {
    std::vector<CXCursor> todo{expr};
    while (!todo.empty()) {
      CXCursor c = todo.back();
      todo.pop_back();
      f(c);
      for (CXCursor k : children_of(c)) todo.push_back(k);
    }
  }

  // The divisions in an expression: (dividend, divisor) of `a / b` and of the division
  // helpers real tiling programs call (Ceil, DivCeil, CeilDiv, DivFloor, ...).
  std::vector<std::pair<CXCursor, CXCursor>> divisions(CXCursor expr) const {
    static const std::set<std::string> helpers = {
        "Ceil",     "CeilDiv",  "DivCeil",    "CeilDivision", "DivRoundUp",
        "FloorDiv", "DivFloor", "CeilDivide", "CeilA2B",      "DivUp"};
    std::vector<std::pair<CXCursor, CXCursor>> out;
    each_node(expr, [&](CXCursor c) {
      const CXCursorKind k = clang_getCursorKind(c);
      if (k == CXCursor_BinaryOperator) {
        const std::vector<CXCursor> kids = children_of(c);
        if (kids.size() == 2 && binary_operator(c, kids[0]) == "/") {
          out.emplace_back(kids[0], kids[1]);
        }
      } else if (k == CXCursor_CallExpr && clang_Cursor_getNumArguments(c) == 2 &&
                 helpers.count(take(clang_getCursorSpelling(c))) != 0) {
        out.emplace_back(clang_Cursor_getArgument(c, 0), clang_Cursor_getArgument(c, 1));
      }
    });
    return out;
  }

  bool calls_core_query(CXCursor expr) const {
    bool found = false;
    each_node(expr, [&](CXCursor c) {
      if (clang_getCursorKind(c) == CXCursor_CallExpr &&
          is_core_query(take(clang_getCursorSpelling(c)))) {
        found = true;
      }
    });
    return found;
  }

  bool reads_where(CXCursor expr, bool variable::*flag) const {
    if ((flag == &variable::core || flag == &variable::core_count) && calls_core_query(expr)) {
      return true;
    }
    for (size_t v : references(expr)) {
      if (vars_[v].*flag) return true;
    }
    return false;
  }

  // Closes the properties over the writes, to a fixed point.
  void close() {
    for (variable& v : vars_) {
      v.ub = v.ub_root;
      for (const write& w : v.writes) {
        for (size_t d : references(w.rhs)) v.deps.insert(d);
        if (calls_core_query(w.rhs)) v.core = v.core_count = true;
      }
    }
    for (bool changed = true; changed;) {
      changed = false;
      for (variable& v : vars_) {
        const bool ub = v.ub || std::any_of(v.deps.begin(), v.deps.end(),
                                            [&](size_t d) { return vars_[d].ub; });
        const bool core = v.core || std::any_of(v.deps.begin(), v.deps.end(),
                                                [&](size_t d) { return vars_[d].core; });
        bool count = v.ub_count || std::any_of(v.deps.begin(), v.deps.end(),
                                               [&](size_t d) { return vars_[d].ub_count; });
        for (const write& w : v.writes) {
          for (const auto& [dividend, divisor] : divisions(w.rhs)) {
            if (reads_where(dividend, &variable::ub)) count = true;
          }
        }
        bool cores = v.core_count;
        if (!cores) {
          bool quotient = false;
          bool reads_cores = false;
          for (const write& w : v.writes) {
            if (!divisions(w.rhs).empty()) quotient = true;
            if (reads_where(w.rhs, &variable::core_count)) reads_cores = true;
          }
          cores = reads_cores && !quotient;
        }
        if (ub != v.ub || core != v.core || count != v.ub_count || cores != v.core_count) {
          changed = true;
        }
        v.ub = ub;
        v.core = core;
        v.ub_count = count;
        v.core_count = cores;
      }
    }
  }

  bool depends_on(size_t v, size_t on) const {
    std::set<size_t> seen;
    std::vector<size_t> todo(vars_[v].deps.begin(), vars_[v].deps.end());
    while (!todo.empty()) {
      const size_t d = todo.back();
      todo.pop_back();
      if (d == on) return true;
      if (!seen.insert(d).second) continue;
      todo.insert(todo.end(), vars_[d].deps.begin(), vars_[d].deps.end());
    }
    return false;
  }

  // A lever for `v` at its last write, when a line after that write can set it: every write
  // is a statement of the body (with `nested`, or inside one, a branch: the line then follows
  // that statement) and no read comes before the last one ends.
  std::optional<computed_lever> at_last_write(size_t index, computed_lever_kind kind,
                                              bool nested = false) const {
    const variable& v = vars_[index];
    if (v.writes.empty()) return std::nullopt;
    for (const write& w : v.writes) {
      if (!w.top_level && (!nested || w.body_statement_end == 0)) return std::nullopt;
    }
    // A top-level write's body statement is its own statement.
    const write& last = v.writes.back();
    const size_t last_begin = last.body_statement_begin;
    const size_t last_end = last.body_statement_end;
    for (size_t r : v.reads) {
      if (write_refs_.count(r) != 0) continue;
      const bool in_write = std::any_of(v.writes.begin(), v.writes.end(), [&](const write& w) {
        return r >= w.statement_begin && r < w.statement_end;
      });
      if (!in_write && r < last_end) return std::nullopt;
    }
    // The statement must end its line: the line after it is the function's own.
    const size_t rest = source_.find_first_not_of(" \t\r", last_end);
    if (rest != std::string::npos && source_[rest] != '\n' && source_.compare(rest, 2, "//") != 0) {
      return std::nullopt;
    }
    computed_lever lever;
    lever.kind = kind;
    lever.variable = v.name;
    lever.variable_type = v.type;
    lever.statement_begin = last_begin;
    lever.statement_end = last_end;
    lever.begin = last_begin;
    lever.end = last_end;
    lever.expression = source_.substr(lever.begin, lever.end - lever.begin);
    return lever;
  }

  // The largest value the writes of `v` give it, when clang evaluates every one to an integer.
  static std::optional<int64_t> largest_constant_write(const variable& v) {
    std::optional<int64_t> largest;
    for (const write& w : v.writes) {
      CXEvalResult r = clang_Cursor_Evaluate(w.rhs);
      if (r == nullptr) return std::nullopt;
      const bool integer = clang_EvalResult_getKind(r) == CXEval_Int;
      const int64_t value = integer ? clang_EvalResult_getAsLongLong(r) : 0;
      clang_EvalResult_dispose(r);
      if (!integer) return std::nullopt;
      largest = largest ? std::max(*largest, value) : value;
    }
    return largest;
  }

  // The block the last write of `v` rounds down to: its whole right-hand side (through casts)
  // is `x / A * A` or `FloorAlign(x, A)`. A rounding inside a larger expression (`min(x / A * A,
  // n)`, `x / A * A / size`) says nothing of the result.
  std::string alignment_of(const variable& v) const {
    static const std::set<std::string> floor_align = {"FloorAlign", "AlignDown", "FloorAlignA2B",
                                                      "RoundDown"};
    CXCursor c = stripped(v.writes.back().rhs);
    for (CXCursorKind k = clang_getCursorKind(c);
         k == CXCursor_CStyleCastExpr || k == CXCursor_CXXStaticCastExpr ||
         k == CXCursor_CXXFunctionalCastExpr;
         k = clang_getCursorKind(c)) {
      const std::vector<CXCursor> kids = children_of(c);
      if (kids.empty() || clang_isExpression(clang_getCursorKind(kids.back())) == 0) break;
      c = stripped(kids.back());
    }
    const CXCursorKind k = clang_getCursorKind(c);
    if (k == CXCursor_CallExpr && clang_Cursor_getNumArguments(c) == 2 &&
        floor_align.count(take(clang_getCursorSpelling(c))) != 0) {
      return text(clang_Cursor_getArgument(c, 1));
    }
    if (k != CXCursor_BinaryOperator) return {};
    const std::vector<CXCursor> kids = children_of(c);
    if (kids.size() != 2 || binary_operator(c, kids[0]) != "*") return {};
    const CXCursor q = stripped(kids[0]);
    if (clang_getCursorKind(q) != CXCursor_BinaryOperator) return {};
    const std::vector<CXCursor> qk = children_of(q);
    if (qk.size() == 2 && binary_operator(q, qk[0]) == "/" && !text(qk[1]).empty() &&
        text(qk[1]) == text(kids[1])) {
      return text(kids[1]);
    }
    return {};
  }

  // Elements per loop: quotients of the UB size the kernel is given, and lengths the kernel
  // sizes its buffers by that the function computes from constants (`BLOCK_SIZE /
  // SIZE_OF_DATA`, halved for a dtype in a branch), the first of a chain.
  void tile_levers(std::vector<computed_lever>& out) const {
    std::vector<size_t> quotients;
    std::vector<size_t> lengths;
    for (size_t i = 0; i < vars_.size(); ++i) {
      const variable& v = vars_[i];
      if (!v.candidate || v.ub_root) continue;
      if (v.ub_count && v.to_kernel) {
        quotients.push_back(i);
      } else if (v.to_buffer_length && v.deps.empty()) {
        // A length computed from constants alone: one computed from the shape or another local
        // may be tied to a count the kernel reads with it (tileNum x tileLength = total).
        lengths.push_back(i);
      }
    }
    for (size_t i : quotients) {
      const bool derived = std::any_of(quotients.begin(), quotients.end(),
                                       [&](size_t j) { return j != i && depends_on(i, j); });
      if (derived) continue;
      std::optional<computed_lever> lever = at_last_write(i, computed_lever_kind::tile_elements);
      if (!lever) continue;
      lever->alignment = alignment_of(vars_[i]);
      lever->sized_by = "a quotient of the UB size the kernel is given";
      out.push_back(std::move(*lever));
    }
    // A length reads no local, so none is derived from another.
    for (size_t i : lengths) {
      // A factor of a UB quotient (a group size the budget is divided by) is the quotient's to
      // move, not a tile of its own.
      const bool factor = std::any_of(quotients.begin(), quotients.end(),
                                      [&](size_t q) { return depends_on(q, i); });
      if (factor) continue;
      // A length no cap can lower (an index block of 8): no lever.
      if (const std::optional<int64_t> largest = largest_constant_write(vars_[i]);
          largest && *largest <= min_tile_cap) {
        continue;
      }
      std::optional<computed_lever> lever =
          at_last_write(i, computed_lever_kind::tile_elements, true);
      if (!lever) continue;
      lever->sized_by = "the length the kernel sizes its buffers by";
      out.push_back(std::move(*lever));
    }
  }

  // Per-core shares: quotients of the work by the core count, which the cores used follow.
  void split_levers(std::vector<computed_lever>& out) const {
    for (size_t i = 0; i < vars_.size(); ++i) {
      const variable& v = vars_[i];
      if (!v.candidate || !v.to_kernel || v.core_count) continue;
      bool by_cores = false;
      for (const write& w : v.writes) {
        for (const auto& [dividend, divisor] : divisions(w.rhs)) {
          if (reads_where(divisor, &variable::core_count)) {
            by_cores = true;
          }
        }
      }
      if (!by_cores) continue;
      // The cores used: SetBlockDim's argument, or what it is computed from, divides by v.
      bool followed = false;
      auto divides_by_v = [&](CXCursor expr) {
        for (const auto& [dividend, divisor] : divisions(expr)) {
          if (references(divisor).count(i) != 0) return true;
        }
        return false;
      };
      for (CXCursor arg : block_dims_) {
        if (divides_by_v(arg)) followed = true;
        for (size_t u : references(arg)) {
          std::set<size_t> closure{u};
          std::vector<size_t> todo{u};
          while (!todo.empty()) {
            const size_t d = todo.back();
            todo.pop_back();
            for (size_t e : vars_[d].deps) {
              if (closure.insert(e).second) todo.push_back(e);
            }
          }
          for (size_t d : closure) {
            for (const write& w : vars_[d].writes) {
              if (d != i && divides_by_v(w.rhs)) followed = true;
            }
          }
        }
      }
      if (!followed) {
        computed_lever no;
        no.kind = computed_lever_kind::not_lever;
        no.variable = v.name;
        no.expression = text(v.writes.back().rhs);
        no.why_not = block_dims_.empty()
                         ? "a per-core share, but the function sets no block dim"
                         : "a per-core share the cores used do not follow (SetBlockDim gets `" +
                               text(block_dims_.front()) +
                               "`): the kernel's offsets depend on it, so it stays";
        out.push_back(std::move(no));
        continue;
      }
      if (std::optional<computed_lever> lever = at_last_write(i, computed_lever_kind::core_split)) {
        out.push_back(std::move(*lever));
      }
    }
  }
};

struct walker {
  const std::string& source;
  const std::set<std::string>& depth_fields;
  const std::set<std::string>& length_fields;
  std::vector<computed_lever> found;
  std::set<std::string> depth_variables;   // each computed depth once
  std::vector<CXCursor> stack;             // ancestors of the cursor being visited, outermost first
  std::vector<computed_lever> flow_found;  // tile and split levers, after the calls'

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
    const CXCursorKind kind = clang_getCursorKind(c);
    if ((kind == CXCursor_FunctionDecl || kind == CXCursor_CXXMethod ||
         kind == CXCursor_FunctionTemplate) &&
        clang_isCursorDefinition(c) != 0) {
      for (CXCursor child : children_of(c)) {
        if (clang_getCursorKind(child) != CXCursor_CompoundStmt) continue;
        for (computed_lever& l : function_flow(source, child, length_fields).levers()) {
          flow_found.push_back(std::move(l));
        }
      }
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
    const std::string& file_name, const std::set<std::string>& depth_fields,
    const std::set<std::string>& length_fields) {
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
  walker w{source, depth_fields, length_fields, {}, {}, {}, {}};
  w.visit(clang_getTranslationUnitCursor(unit.get()));
  for (computed_lever& l : w.flow_found) w.found.push_back(std::move(l));
  return std::move(w.found);
}

}  // namespace aopt::agent
