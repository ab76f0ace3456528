#include "agent/heuristics/template_synthesis.hpp"

#include <algorithm>
#include <charconv>
#include <map>
#include <optional>
#include <regex>
#include <set>

#include "agent/kernel_text/local_headers.hpp"
#include "agent/kernel_text/source_text.hpp"
#include "agent/kernel_text/tiling_dataflow.hpp"
#include "agent/kernel_text/tiling_names.hpp"
#include "agent/kernel_text/tiling_usage.hpp"

namespace aopt::agent {

namespace {

bool is_pow2(int64_t v) {
  return v > 0 && (v & (v - 1)) == 0;
}

std::optional<int64_t> to_int(const std::string& text) {
  int64_t v = 0;
  const char* b = text.data();
  const char* e = text.data() + text.size();
  if (b != e && *b == '+') ++b;
  auto [ptr, ec] = std::from_chars(b, e, v);
  if (ec != std::errc() || ptr != e || b == e) return std::nullopt;
  return v;
}

// The cube's base tiles: whole 16 x 16 fractals, powers of two up to what L0 holds at fp16.
std::string cube_tile_domain(int64_t value) {
  std::string choice = "choice {16, 32, 64, 128, 256";
  if (value % 16 == 0 && value > 256) choice += ", " + std::to_string(value);
  return choice + "}";
}

// The annotation domain for a constant of `role` currently set to `value`.
std::string domain_for(tiling_role role, int64_t value, int64_t cores) {
  auto range = [](int64_t lo, int64_t hi, int64_t step) {
    std::string s = "range [" + std::to_string(lo) + ", " + std::to_string(hi) + "]";
    if (step != 1) s += " step " + std::to_string(step);
    return s;
  };
  switch (role) {
    case tiling_role::block_dim:
      return range(1, std::max(cores, value), 1);
    case tiling_role::buffer_num:
      if (value == 1 || value == 2) return "choice {1, 2}";
      return "choice {1, 2, " + std::to_string(value) + "}";
    case tiling_role::tile_size: {
      if (is_pow2(value)) {
        return "pow2 [" + std::to_string(std::max<int64_t>(1, value / 16)) + ", " +
               std::to_string(value * 16) + "]";
      }
      int64_t step = 1;
      while (step < 256 && value % (step * 2) == 0) step *= 2;
      return range(step, value * 4, step);
    }
    case tiling_role::tile_count:
      return range(1, std::max<int64_t>(8, value * 4), 1);
    case tiling_role::ub_size: {
      int64_t step = value % 32 == 0 ? 32 : 1;
      int64_t lo = std::max(step, value / 4 / step * step);
      return range(lo, value, step);
    }
    case tiling_role::none:
      break;
  }
  return {};
}

// The C++ type of an integer literal with `suffix`, as the preprocessor would have used it.
std::string literal_type(int64_t value, const std::string& suffix) {
  std::string s;
  for (char c : suffix) s += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  bool is_unsigned = s.find('u') != std::string::npos;
  size_t longs = static_cast<size_t>(std::count(s.begin(), s.end(), 'l'));
  if (longs >= 2) return is_unsigned ? "unsigned long long" : "long long";
  if (longs == 1) return is_unsigned ? "unsigned long" : "long";
  if (value > INT32_MAX || value < INT32_MIN) return is_unsigned ? "unsigned long" : "long";
  return is_unsigned ? "unsigned" : "int";
}

// For each '{' of the masked source: does it open a class or struct body?
std::vector<std::pair<size_t, bool>> brace_kinds(const std::string& masked) {
  std::vector<std::pair<size_t, bool>> kinds;
  size_t last_boundary = 0;
  static const std::regex class_head(R"((^|[^\w])(class|struct|union)\s+[\w:]+)");
  for (size_t i = 0; i < masked.size(); ++i) {
    char c = masked[i];
    if (c == '{') {
      std::string head = masked.substr(last_boundary, i - last_boundary);
      bool is_class = head.find('(') == std::string::npos && std::regex_search(head, class_head);
      kinds.emplace_back(i, is_class);
      last_boundary = i + 1;
    } else if (c == ';' || c == '}') {
      last_boundary = i + 1;
    }
  }
  return kinds;
}

// True when the innermost block around `pos` is a class body.
bool in_class_scope(const std::string& masked, const std::vector<std::pair<size_t, bool>>& kinds,
                    size_t pos) {
  std::vector<bool> stack;
  size_t k = 0;
  for (size_t i = 0; i < pos && i < masked.size(); ++i) {
    if (masked[i] == '{') {
      while (k < kinds.size() && kinds[k].first < i) ++k;
      stack.push_back(k < kinds.size() && kinds[k].first == i && kinds[k].second);
    } else if (masked[i] == '}' && !stack.empty()) {
      stack.pop_back();
    }
  }
  return !stack.empty() && stack.back();
}

struct rewrite {
  std::vector<std::string> lines_before;  // inserted before the line (SetBlockDim constants)
  std::string line;                       // the new text of the line
  bool declares_tunable = false;          // the new line itself is a tunable declaration
};

std::string trailing_comment(const std::string& original_line, size_t code_end) {
  size_t c = original_line.find("//", code_end);
  if (c == std::string::npos) return {};
  return trim(original_line.substr(c + 2));
}

}  // namespace

std::vector<std::string> synthesis_options::default_tiling_include_dirs() {
#ifdef AOPT_SIM_INCLUDE_DIR
  return {AOPT_SIM_INCLUDE_DIR};
#else
  return {};
#endif
}

result<synthesized_template> synthesize_template(const std::string& tiling,
                                                 const synthesis_options& options,
                                                 const std::string& kernel) {
  result<std::vector<tunable>> existing = parse_tunables(tiling);
  if (existing.ok()) return synthesized_template{tiling, std::move(*existing), false, {}, {}};
  if (existing.error().code() != status_code::not_found) return existing.error();

  static const std::regex const_decl(
      R"(^(\s*)(static\s+)?(const|constexpr)\s+(static\s+)?([A-Za-z_][\w:]*(?:\s+[A-Za-z_][\w:]*)*?)\s+([A-Za-z_]\w*)\s*=\s*([-+]?[0-9]+)([uUlL]*)\s*;\s*$)");
  static const std::regex define_decl(
      R"(^(\s*)#\s*define\s+([A-Za-z_]\w*)\s+\(?\s*([-+]?[0-9]+)([uUlL]*)\s*\)?\s*$)");
  static const std::regex integer_type(
      R"(^(?:(?:unsigned|signed|long|short|int|char)(?:\s+(?:unsigned|signed|long|short|int|char))*|(?:std::)?u?int(?:8|16|32|64)_t|(?:std::)?size_t)$)");

  const std::string masked = mask_comments_and_strings(tiling);
  const std::vector<std::string> lines = split_lines(tiling);
  const std::vector<std::string> masked_lines = split_lines(masked);
  const auto kinds = brace_kinds(masked);

  // Names used in preprocessor conditions cannot become constexpr.
  std::vector<std::string> condition_lines;
  for (const std::string& l : masked_lines) {
    std::string t = trim(l);
    if (t.rfind("#if", 0) == 0 || t.rfind("#elif", 0) == 0) condition_lines.push_back(t);
  }
  auto used_in_condition = [&](const std::string& name) {
    return std::any_of(condition_lines.begin(), condition_lines.end(), [&](const std::string& l) {
      return find_identifier(l, name) != std::string::npos;
    });
  };

  std::map<size_t, rewrite> rewrites;  // by 0-based line index
  std::vector<synthesized_lever> levers;
  std::vector<std::string> looked_at;
  std::vector<size_t> line_offsets;
  {
    size_t off = 0;
    for (const std::string& l : lines) {
      line_offsets.push_back(off);
      off += l.size() + 1;
    }
  }

  // Every positive integer constant, then its role from how the program uses it.
  struct constant {
    size_t index;  // line
    std::smatch m;
    bool is_define;
    int64_t value;
  };
  std::vector<constant> constants;
  std::vector<std::string> names;
  for (size_t i = 0; i < masked_lines.size(); ++i) {
    const std::string& ml = masked_lines[i];
    std::smatch m;
    if (std::regex_match(ml, m, const_decl)) {
      std::optional<int64_t> value = to_int(m[7]);
      if (!value || *value <= 0 || !std::regex_match(m[5].str(), integer_type)) continue;
      constants.push_back({i, m, false, *value});
      names.push_back(m[6]);
    } else if (std::regex_match(ml, m, define_decl)) {
      std::optional<int64_t> value = to_int(m[3]);
      if (!value || *value <= 0) continue;
      if (used_in_condition(m[2])) {
        looked_at.push_back(std::string(m[2]) + " (used in a preprocessor condition)");
        continue;
      }
      constants.push_back({i, m, true, *value});
      names.push_back(m[2]);
    }
  }
  const std::map<std::string, constant_usage> usage = classify_by_usage(tiling, kernel, names);
  const auto domain_of = [&](const constant_usage& u, int64_t value) {
    return u.cube_tile && value % 16 == 0 ? cube_tile_domain(value)
                                          : domain_for(u.role, value, options.cores);
  };

  for (const constant& c : constants) {
    const size_t i = c.index;
    const std::smatch& m = c.m;
    const std::string name = c.is_define ? m[2].str() : m[6].str();
    const constant_usage& u = usage.at(name);
    if (u.role == tiling_role::none) {
      looked_at.push_back(name + " (" + u.why + ")");
      continue;
    }
    levers.push_back({name, u.role, u.why});
    rewrite r;
    r.declares_tunable = true;
    if (!c.is_define) {
      std::string type = m[5];
      bool is_static = m[2].matched || m[4].matched;
      if (!is_static && in_class_scope(masked, kinds, line_offsets[i])) is_static = true;
      std::string comment =
          trailing_comment(lines[i], static_cast<size_t>(m.position(8) + m.length(8)));
      r.line = std::string(m[1]) + (is_static ? "static " : "") + "constexpr " + type + " " + name +
               " = " + std::string(m[7]) + std::string(m[8]) +
               ";  // tunable: " + domain_of(u, c.value) + "  " + u.why +
               (comment.empty() ? "" : "; " + comment);
    } else {
      bool is_static = in_class_scope(masked, kinds, line_offsets[i]);
      r.line = std::string(m[1]) + (is_static ? "static " : "") + "constexpr " +
               literal_type(c.value, m[4]) + " " + name + " = " + std::string(m[3]) +
               std::string(m[4]) + ";  // tunable: " + domain_of(u, c.value) + "  " + u.why;
    }
    rewrites[i] = std::move(r);
  }

  // Literals passed to the calls that decide the schedule, each call alone on its line:
  // `ctx->SetBlockDim(8);`, the Matmul tiling's `tiling.SetDim(8);` and
  // `tiling.SetFixSplit(128, 128, 64);` (-1, "let GetTiling decide", stays).
  struct literal_lever {
    const char* call;
    std::vector<const char*> names;  // per argument; nullptr: not a lever
    tiling_role role;
    bool cube_tile;
    const char* why;
  };
  const literal_lever literal_levers[] = {
      {"SetBlockDim",
       {"BLOCK_DIM"},
       tiling_role::block_dim,
       false,
       "core cap: the literal passed to SetBlockDim"},
      {"SetDim",
       {"MATMUL_CORES"},
       tiling_role::block_dim,
       false,
       "core cap: the literal of the matmul's core split, SetDim"},
      {"SetFixSplit",
       {"BASE_M", "BASE_N", "BASE_K"},
       tiling_role::tile_size,
       true,
       "tile size: a literal matmul base tile, SetFixSplit"},
  };
  std::string working_text = tiling;
  for (const literal_lever& lever : literal_levers) {
    for (const call_site& call : find_calls(tiling, masked, lever.call, {0, masked.size()})) {
      if (call.arguments.size() != lever.names.size()) continue;
      size_t index = line_number(masked, call.name_begin) - 1;
      if (rewrites.count(index) != 0) continue;
      const std::string& ml = masked_lines[index];
      size_t in_line = call.name_begin - line_offsets[index];
      size_t close_in_line = call.parens.end - line_offsets[index];
      static const std::regex receiver(R"(^\s*(?:[A-Za-z_]\w*\s*(?:->|\.)\s*)*$)");
      static const std::regex tail(R"(^\s*;\s*$)");
      if (!std::regex_match(ml.substr(0, in_line), receiver) ||
          !std::regex_match(ml.substr(close_in_line), tail)) {
        continue;
      }
      std::string indent = line_indent(tiling, line_offsets[index]);
      rewrite r;
      std::vector<std::string> args;
      for (size_t a = 0; a < call.arguments.size(); ++a) {
        std::optional<int64_t> value = to_int(trim(call.arguments[a]));
        const bool lever_arg = lever.names[a] != nullptr && value && *value > 0 &&
                               (!lever.cube_tile || *value % 16 == 0);
        if (!lever_arg) {
          args.push_back(trim(call.arguments[a]));
          continue;
        }
        std::string name = fresh_identifier(working_text, lever.names[a]);
        levers.push_back({name, lever.role, lever.why});
        working_text += "\n" + name;  // reserve the name for later literals
        const std::string domain = lever.cube_tile ? cube_tile_domain(*value)
                                                   : domain_for(lever.role, *value, options.cores);
        r.lines_before.push_back(indent + "constexpr uint32_t " + name + " = " +
                                 std::to_string(*value) + ";  // tunable: " + domain + "  " +
                                 lever.why);
        args.push_back(name);
      }
      if (r.lines_before.empty()) continue;
      std::string joined;
      for (const std::string& a : args) joined += (joined.empty() ? "" : ", ") + a;
      size_t arg_open = call.parens.begin - line_offsets[index];
      r.line =
          lines[index].substr(0, arg_open + 1) + joined + lines[index].substr(close_in_line - 1);
      rewrites[index] = std::move(r);
    }
  }

  // Computed levers: values the tiling function computes from the platform.
  if (options.read_dataflow) {
    // The tiling fields the kernel passes as InitBuffer's num and length (read with the headers
    // beside the kernel): a computed variable handed to one of the first is a buffer depth, a
    // value computed from constants handed to one of the second the elements a buffer holds.
    std::set<std::string> depth_fields;
    std::set<std::string> length_fields;
    if (!kernel.empty()) {
      const std::string whole = with_local_headers(kernel, options.kernel_file_name);
      depth_fields = buffer_depth_sources(whole);
      length_fields = buffer_length_sources(whole);
    }
    result<std::vector<computed_lever>> computed = find_computed_levers(
        tiling, options.include_dirs, options.file_name, depth_fields, length_fields);
    if (!computed.ok()) {
      looked_at.push_back("the tiling function's data flow (" + computed.error().message() + ")");
    } else {
      // A program that already caps its cores or sizes its UB with a constant lever keeps that
      // one lever for the quantity; a constant taken for its name alone (MAX_COPY_BLOCK_COUNT
      // "says" block dim) is no evidence of that.
      auto has_lever = [&](tiling_role role) {
        return std::any_of(levers.begin(), levers.end(), [&](const synthesized_lever& l) {
          return l.role == role && l.why.rfind("the name says", 0) != 0;
        });
      };
      const bool core_capped = has_lever(tiling_role::block_dim);
      const bool ub_sized = has_lever(tiling_role::ub_size);
      const bool depth_set = has_lever(tiling_role::buffer_num);
      const bool tile_set = has_lever(tiling_role::tile_size);
      for (const computed_lever& c : *computed) {
        // A statement over several lines is quoted on one: a note ends at its line.
        const auto one_line = [](const std::string& text) {
          std::string out;
          for (char ch : text) {
            const bool space = ch == ' ' || ch == '\t' || ch == '\r' || ch == '\n';
            if (!space) out += ch;
            if (space && !out.empty() && out.back() != ' ') out += ' ';
          }
          return out;
        };
        const std::string said = one_line(c.expression);
        if (c.kind == computed_lever_kind::not_lever) {
          looked_at.push_back(c.variable + " = `" + said + "` (" + c.why_not + ")");
          continue;
        }
        const bool bounded = c.kind == computed_lever_kind::core_count      ? core_capped
                             : c.kind == computed_lever_kind::ub_bytes      ? ub_sized
                             : c.kind == computed_lever_kind::buffer_depth  ? depth_set
                             : c.kind == computed_lever_kind::tile_elements ? tile_set
                                                                            : false;
        if (bounded) {
          looked_at.push_back("`" + said + "` (already bounded by a constant lever)");
          continue;
        }
        const size_t first = line_number(masked, c.statement_begin) - 1;
        const size_t last = line_number(masked, c.statement_end - 1) - 1;
        if (rewrites.count(first) != 0 || rewrites.count(last) != 0) continue;
        const std::string indent = line_indent(tiling, line_offsets[first]);
        rewrite r;
        std::string name;
        std::string why;
        if (c.kind == computed_lever_kind::tile_elements ||
            c.kind == computed_lever_kind::core_split) {
          // Tunables declared before the variable's last write, lines setting it after it.
          const std::string v = c.variable;
          const auto as_v = [&](const std::string& x) {
            return "static_cast<decltype(" + v + ")>(" + x + ")";
          };
          std::vector<std::string> after;
          if (c.kind == computed_lever_kind::tile_elements) {
            name = fresh_identifier(working_text, "TILE_CAP");
            why = "elements per loop: caps `" + v + "` of `" + said + "` (" + c.sized_by + ") at " +
                  name + ", within the bound it computes; 0 keeps it";
            r.lines_before.push_back(indent + "constexpr uint32_t " + name +
                                     " = 0;  // tunable: choice {0, 64, 128, 256, 512, 1024, "
                                     "2048, 4096, 8192}  " +
                                     why);
            std::string cond = name + " != 0 && " + v + " > " + as_v(name);
            if (!c.alignment.empty()) cond += " && " + as_v(name) + " >= " + as_v(c.alignment);
            after.push_back("if (" + cond + ") " + v + " = " + as_v(name) + ";");
            levers.push_back({name, tiling_role::tile_size, why, said});
            if (!c.alignment.empty()) {
              working_text += "\n" + name;
              const std::string mult = fresh_identifier(working_text, "TILE_ALIGN_MULT");
              const std::string why_mult =
                  "alignment block: rounds `" + v + "` down to a multiple of " + mult + " x `" +
                  one_line(c.alignment) + "`, 1 keeping the function's own block";
              r.lines_before.push_back(indent + "constexpr uint32_t " + mult +
                                       " = 1;  // tunable: choice {1, 2, 4, 8}  " + why_mult);
              const std::string block = as_v(mult + " * (" + c.alignment + ")");
              after.push_back("if (" + v + " >= " + block + ") " + v + " = " + v + " / " + block +
                              " * " + block + ";");
              levers.push_back({mult, tiling_role::none, why_mult, said});
              name = mult;  // reserved below
            }
          } else {
            name = fresh_identifier(working_text, "SPLIT_GRAIN");
            why = "core split: rounds the per-core share `" + v + "` of `" + said +
                  "` up to a multiple of " + name +
                  " (the cores used follow it, the last core takes the rest); 1 keeps it";
            r.lines_before.push_back(indent + "constexpr uint32_t " + name +
                                     " = 1;  // tunable: choice {1, 2, 4, 8, 16, 32, 64, 128}  " +
                                     why);
            after.push_back(v + " = (" + v + " + " + as_v(name) + " - 1) / " + as_v(name) + " * " +
                            as_v(name) + ";");
            levers.push_back({name, tiling_role::none, why, said});
          }
          std::string tail = lines[last];
          for (const std::string& a : after) tail += "\n" + indent + a;
          if (first == last) {
            r.line = tail;
          } else {
            r.line = lines[first];
            rewrite closing;
            closing.line = tail;
            rewrites[last] = std::move(closing);
          }
        } else if (c.kind == computed_lever_kind::core_count) {
          // The call must sit on one line to be rewritten in place.
          if (line_number(masked, c.begin) - 1 != first ||
              line_number(masked, c.end - 1) - 1 != first) {
            continue;
          }
          name = fresh_identifier(working_text, "CORE_COUNT");
          why = "core count: caps `" + c.expression + "`";
          r.lines_before.push_back(indent + "constexpr uint32_t " + name + " = " +
                                   std::to_string(options.cores) + ";  // tunable: range [1, " +
                                   std::to_string(options.cores) + "]  " + why);
          const size_t b = c.begin - line_offsets[first];
          const size_t e = c.end - line_offsets[first];
          r.line = lines[first].substr(0, b) + "(" + name + " < (" + c.expression + ") ? " + name +
                   " : (" + c.expression + "))" + lines[first].substr(e);
          levers.push_back({name, tiling_role::block_dim, why, c.expression});
        } else if (c.kind == computed_lever_kind::buffer_depth) {
          if (first != last) continue;
          // 0 keeps what the function computes (the baseline); 1 or 2 overrides it.
          name = fresh_identifier(working_text, "BUFFER_DEPTH");
          why = "buffer depth: overrides `" + c.variable + "` of `" + c.expression +
                "` (reaches an InitBuffer num of the kernel) unless 0";
          r.lines_before.push_back(indent + "constexpr uint32_t " + name +
                                   " = 0;  // tunable: choice {0, 1, 2}  " + why);
          r.line = lines[first] + "\n" + indent + "if (" + name + " != 0) " + c.variable + " = " +
                   name + ";";
          levers.push_back({name, tiling_role::buffer_num, why, c.expression});
        } else {
          if (first != last) continue;
          name = fresh_identifier(working_text, "UB_SHARE_64THS");
          why = "UB budget: the 64ths of `" + c.expression + "` the tiling divides (" + c.variable +
                ")";
          r.lines_before.push_back(indent + "constexpr uint32_t " + name +
                                   " = 64;  // tunable: range [16, 64]  " + why);
          r.line = lines[first] + "\n" + indent + c.variable + " = " + c.variable + " / 64 * " +
                   name + ";";
          levers.push_back({name, tiling_role::ub_size, why, c.expression});
        }
        working_text += "\n" + name;  // reserve the name
        rewrites[first] = std::move(r);
      }
    }
  }

  if (rewrites.empty()) {
    std::string seen;
    for (const std::string& l : looked_at) seen += (seen.empty() ? "" : ", ") + l;
    return failed_precondition(
        "no tiling lever (core cap, tile size or count, buffer depth, UB budget) found to mark as "
        "tunable; looked at " +
        (seen.empty() ? std::string("no integer constant") : seen));
  }

  // Emit, wrapping each run of consecutive tunable declarations in one block.
  std::vector<std::string> out;
  bool open = false;
  std::string open_indent;
  auto close_block = [&] {
    if (open) out.push_back(open_indent + "// EVOLVE-BLOCK-END");
    open = false;
  };
  for (size_t i = 0; i < lines.size(); ++i) {
    auto it = rewrites.find(i);
    if (it == rewrites.end()) {
      close_block();
      out.push_back(lines[i]);
      continue;
    }
    const rewrite& r = it->second;
    if (!r.lines_before.empty()) {
      close_block();
      std::string indent = line_indent(r.lines_before.front(), 0);
      out.push_back(indent + "// EVOLVE-BLOCK-START");
      for (const std::string& l : r.lines_before) out.push_back(l);
      out.push_back(indent + "// EVOLVE-BLOCK-END");
    }
    if (r.declares_tunable) {
      if (!open) {
        open_indent = line_indent(r.line, 0);
        out.push_back(open_indent + "// EVOLVE-BLOCK-START");
        open = true;
      }
    } else {
      close_block();
    }
    out.push_back(r.line);
  }
  close_block();

  synthesized_template t;
  t.source = join_lines(out, ends_with_newline(tiling));
  t.synthesized = true;
  result<std::vector<tunable>> parsed = parse_tunables(t.source);
  if (!parsed.ok())
    return internal_error("synthesized template does not parse: " + parsed.error().message());
  t.tunables = std::move(*parsed);
  t.levers = std::move(levers);
  t.looked_at = std::move(looked_at);
  return t;
}

}  // namespace aopt::agent
