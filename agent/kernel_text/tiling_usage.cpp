#include "agent/kernel_text/tiling_usage.hpp"

#include <algorithm>
#include <regex>
#include <set>

#include "agent/kernel_text/source_text.hpp"

namespace aopt::agent {

namespace {

using id_set = std::set<std::string>;

struct statement {
  std::string text;  // masked, whitespace collapsed
  id_set ids;
};

id_set identifiers(const std::string& text) {
  static const std::regex id(R"([A-Za-z_]\w*)");
  id_set out;
  for (auto it = std::sregex_iterator(text.begin(), text.end(), id); it != std::sregex_iterator();
       ++it) {
    out.insert(it->str());
  }
  return out;
}

// Preprocessor lines blanked (they end without ';' and would merge with the next statement).
std::string without_preprocessor_lines(std::string masked) {
  size_t pos = 0;
  while (pos < masked.size()) {
    size_t end = line_end(masked, pos);
    size_t first = skip_space(masked, pos);
    if (first < end && masked[first] == '#') {
      for (size_t k = first; k < end; ++k) masked[k] = ' ';
    }
    pos = end + 1;
  }
  return masked;
}

// The statements of masked `text`, cut at ';', '{' and '}'.
std::vector<statement> statements_of(const std::string& masked) {
  std::vector<statement> out;
  std::string current;
  for (char c : masked) {
    if (c == ';' || c == '{' || c == '}') {
      std::string s = normalize_space(current);
      if (!s.empty()) out.push_back({s, identifiers(s)});
      current.clear();
    } else {
      current += c;
    }
  }
  std::string s = normalize_space(current);
  if (!s.empty()) out.push_back({s, identifiers(s)});
  return out;
}

// Variable -> identifiers its value is computed from, over every assignment of the program.
std::map<std::string, id_set> dependencies(const std::vector<statement>& statements) {
  static const std::regex assignment(
      R"(^(?:[A-Za-z_][\w:<>]*\s*[*&]?\s+)*(?:this\s*->\s*)?([A-Za-z_]\w*)\s*([-+*/%|&^]?=)([^=].*)$)");
  std::map<std::string, id_set> deps;
  for (const statement& s : statements) {
    std::smatch m;
    if (!std::regex_match(s.text, m, assignment)) continue;
    id_set rhs = identifiers(m[3].str());
    if (m[2].str() != "=") rhs.insert(m[1].str());
    deps[m[1].str()].insert(rhs.begin(), rhs.end());
  }
  return deps;
}

// Everything `ids` is computed from, transitively (the ids included).
id_set closure(const id_set& ids, const std::map<std::string, id_set>& deps) {
  id_set seen = ids;
  std::vector<std::string> todo(ids.begin(), ids.end());
  while (!todo.empty()) {
    std::string v = todo.back();
    todo.pop_back();
    auto it = deps.find(v);
    if (it == deps.end()) continue;
    for (const std::string& d : it->second) {
      if (seen.insert(d).second) todo.push_back(d);
    }
  }
  return seen;
}

bool intersects(const id_set& a, const id_set& b) {
  return std::any_of(a.begin(), a.end(), [&](const std::string& x) { return b.count(x) != 0; });
}

// `name` appears as (a factor of) a divisor in `text`: `x / NAME`, `x / (A * NAME * ...)`.
// Whether `name` caps a core count in the statement `text`: it and a core-count operand (a
// variable holding one, or a query call) are the two sides of a comparison or the two
// arguments of a min/max. A constant merely multiplied with the core count (a per-core
// workspace size, a byte size) caps nothing.
bool caps_core_count(const std::string& text, const std::string& name, const id_set& core_vars) {
  auto is_core = [&](const std::string& operand) {
    static const std::regex form(
        R"(^\(?\s*(?:[A-Za-z_]\w*\s*(?:\.|->)\s*)?([A-Za-z_]\w*)\s*(\(\s*\))?\s*\)?$)");
    std::smatch m;
    return std::regex_match(operand, m, form) && core_vars.count(m[1].str()) != 0;
  };
  const std::string id = "(?:[A-Za-z_]\\w*\\s*(?:\\.|->)\\s*)?[A-Za-z_]\\w*(?:\\s*\\(\\s*\\))?";
  const std::string op = "\\s*(?:<=|>=|==|!=|<|>)\\s*";
  const std::regex after("(?:^|[^\\w.>])" + name + op + "(" + id + ")");
  const std::regex before("(" + id + ")" + op + name + "(?:$|[^\\w(<])");
  for (const std::regex* r : {&after, &before}) {
    for (std::sregex_iterator it(text.begin(), text.end(), *r), end; it != end; ++it) {
      if (is_core((*it)[1].str())) return true;
    }
  }
  static const std::regex min_max(
      R"(\b(?:min|max)\s*(?:<[^<>()]*>)?\s*\(\s*([^(),]*(?:\(\s*\))?)\s*,\s*([^(),]*(?:\(\s*\))?)\s*\))");
  for (std::sregex_iterator it(text.begin(), text.end(), min_max), end; it != end; ++it) {
    const std::string a = trim((*it)[1].str());
    const std::string b = trim((*it)[2].str());
    if ((a == name && is_core(b)) || (b == name && is_core(a))) return true;
  }
  return false;
}

bool used_as_divisor(const std::string& text, const std::string& name) {
  const std::regex divisor("/\\s*(?:\\(\\s*)?(?:[\\w.]+\\s*\\*\\s*)*" + name + "\\b");
  return std::regex_search(text, divisor);
}

std::string quote(const std::string& statement_text) {
  constexpr size_t max = 80;
  std::string s =
      statement_text.size() > max ? statement_text.substr(0, max - 3) + "..." : statement_text;
  return "`" + s + "`";
}

// The tiling-data fields a statement sets, with the expression it sets them to.
std::vector<std::pair<std::string, std::string>> field_sets(const statement& s) {
  static const std::regex setter(
      R"(\b[A-Za-z_]\w*\s*(?:\.|->)\s*set_([A-Za-z_]\w*)\s*\((.*)\)\s*$)");
  static const std::regex member(R"(^\s*([A-Za-z_]\w*)\s*(?:\.|->)\s*([A-Za-z_]\w*)\s*=([^=].*)$)");
  std::vector<std::pair<std::string, std::string>> out;
  std::smatch m;
  if (std::regex_search(s.text, m, setter)) {
    out.emplace_back(m[1].str(), m[2].str());
  } else if (std::regex_match(s.text, m, member)) {
    std::string receiver = m[1].str();
    std::transform(receiver.begin(), receiver.end(), receiver.begin(), ::tolower);
    if (receiver.find("tiling") != std::string::npos) out.emplace_back(m[2].str(), m[3].str());
  }
  return out;
}

}  // namespace

namespace {

// The identifiers one argument of the kernel's InitBuffer calls is computed from, transitively;
// `argument` picks it from a call's arguments (nullptr: the call has no such argument).
id_set init_buffer_sources(const std::string& kernel,
                           const std::string* (*argument)(const std::vector<std::string>&)) {
  if (kernel.empty()) return {};
  const std::string masked = mask_comments_and_strings(kernel);
  const std::map<std::string, id_set> deps =
      dependencies(statements_of(without_preprocessor_lines(masked)));
  id_set found;
  for (const call_site& call : find_calls(kernel, masked, "InitBuffer", {0, masked.size()})) {
    const std::string* arg = argument(call.arguments);
    if (arg == nullptr) continue;
    id_set ids = identifiers(mask_comments_and_strings(*arg));
    found.insert(ids.begin(), ids.end());
  }
  return closure(found, deps);
}

}  // namespace

id_set buffer_depth_sources(const std::string& kernel) {
  // InitBuffer(queue, num, len): the num.
  return init_buffer_sources(
      kernel, [](const std::vector<std::string>& a) { return a.size() >= 3 ? &a[1] : nullptr; });
}

id_set buffer_length_sources(const std::string& kernel) {
  // InitBuffer(queue, num, len) or InitBuffer(tbuf, len): the len.
  return init_buffer_sources(kernel, [](const std::vector<std::string>& a) {
    return a.size() == 2 || a.size() == 3 ? &a.back() : nullptr;
  });
}

std::map<std::string, constant_usage> classify_by_usage(const std::string& tiling,
                                                        const std::string& kernel,
                                                        const std::vector<std::string>& names) {
  const std::string masked = without_preprocessor_lines(mask_comments_and_strings(tiling));
  const std::vector<statement> statements = statements_of(masked);
  const std::map<std::string, id_set> deps = dependencies(statements);
  const id_set core_queries = {"GetCoreNumAiv", "GetCoreNum", "GetCoreNumAic"};

  // Variables assigned a core count (directly, or as a copy of one) or the UB capacity.
  id_set core_vars = core_queries;
  for (bool grew = true; grew;) {
    grew = false;
    for (const auto& [var, d] : deps) {
      const bool direct = intersects(d, core_queries);
      const bool copy = d.size() == 1 && core_vars.count(*d.begin()) != 0;
      if ((direct || copy) && core_vars.insert(var).second) grew = true;
    }
  }
  id_set ub_vars;
  for (const call_site& call : find_calls(tiling, masked, "GetCoreMemSize", {0, masked.size()})) {
    if (call.arguments.size() == 2) {
      id_set ids = identifiers(mask_comments_and_strings(call.arguments[1]));
      ub_vars.insert(ids.begin(), ids.end());
    }
  }
  const id_set buffer_num_sources = buffer_depth_sources(kernel);

  // The constants a tiling program picks its inputs, outputs and attributes by: an index into
  // the operator's signature (`context->GetInputShape(POS_INPUT_BOXES_B)`), however it is
  // named. Changing one reads another tensor's shape: never a lever.
  std::map<std::string, std::string> index_uses;  // constant -> the call it indexes
  for (const char* accessor :
       {"GetInputShape", "GetInputTensor", "GetInputDesc", "GetOptionalInputShape",
        "GetOptionalInputTensor", "GetOptionalInputDesc", "GetRequiredInputShape",
        "GetRequiredInputTensor", "GetOutputShape", "GetOutputDesc", "GetAttrPointer", "GetInt",
        "GetFloat", "GetBool", "GetStr", "GetListInt", "GetDynamicInputShape"}) {
    for (const call_site& call : find_calls(tiling, masked, accessor, {0, masked.size()})) {
      if (call.arguments.empty()) continue;
      for (const std::string& id : identifiers(mask_comments_and_strings(call.arguments[0]))) {
        index_uses.emplace(id, call.arguments[0] == id ? std::string(accessor) + "(" + id + ")"
                                                       : std::string(accessor));
      }
    }
  }

  std::map<std::string, constant_usage> out;
  for (const std::string& name : names) {
    constant_usage& u = out[name];
    // The use decides before the name: an index is named as one even when its name also reads
    // as a fixed quantity (ATTR_MODE).
    if (auto it = index_uses.find(name); it != index_uses.end()) {
      u.why = "an index into the operator's signature: " + it->second;
      continue;
    }
    if (never_tunable_name(name)) {
      u.why = "the name says it is a fixed quantity";
      continue;
    }
    const tiling_role by_name = classify_tiling_name(name);
    bool used = false;
    for (const statement& s : statements) {
      if (s.ids.count(name) == 0) continue;
      // Its own declaration is not a use.
      if (s.text.find(name + " =") != std::string::npos &&
          std::regex_search(s.text, std::regex("^(?:[\\w:]+\\s+)+" + name + " = [-+(]?[0-9]"))) {
        continue;
      }
      used = true;
      // A tile or buffer constant may share a statement with the core count (a per-core
      // length); only a constant not named for another role becomes a core cap that way.
      const bool may_be_cap = by_name == tiling_role::none || by_name == tiling_role::block_dim;
      if (may_be_cap && intersects(s.ids, core_vars) && caps_core_count(s.text, name, core_vars)) {
        u.role = tiling_role::block_dim;
        u.why = "core cap: used with the core count in " + quote(s.text);
        break;
      }
      if (s.text.find("SetBlockDim") != std::string::npos) {
        u.role = tiling_role::block_dim;
        u.why = "core cap: passed to SetBlockDim in " + quote(s.text);
        break;
      }
      // The Matmul tiling API (MultiCoreMatmulTiling/MatmulApiTiling): the cores the matmul is
      // split over, and its base tile.
      if (s.text.find("SetDim(") != std::string::npos && may_be_cap) {
        u.role = tiling_role::block_dim;
        u.why = "core cap: the matmul's core split, SetDim in " + quote(s.text);
        break;
      }
      if (s.text.find("SetFixSplit(") != std::string::npos) {
        u.role = tiling_role::tile_size;
        u.cube_tile = true;
        u.why = "tile size: a matmul base tile, SetFixSplit in " + quote(s.text);
        break;
      }
    }
    if (u.role != tiling_role::none) continue;
    // Tiling-data fields the constant reaches.
    for (const statement& s : statements) {
      for (const auto& [field, expr] : field_sets(s)) {
        if (closure(identifiers(expr), deps).count(name) == 0) continue;
        // A divisor on the way (elements per block, a count of queues) is no tile.
        const bool divides =
            std::any_of(statements.begin(), statements.end(), [&](const statement& t) {
              return t.ids.count(name) != 0 && used_as_divisor(t.text, name);
            });
        if (buffer_num_sources.count(field) != 0) {
          u.role = tiling_role::buffer_num;
          u.why = "buffer depth: reaches tiling field " + field +
                  ", the num of the kernel's InitBuffer";
          break;
        }
        tiling_role field_role = classify_tiling_name(field);
        if ((field_role == tiling_role::tile_size || field_role == tiling_role::tile_count) &&
            by_name == tiling_role::none && !divides) {
          u.role = field_role;
          u.why = std::string(field_role == tiling_role::tile_size ? "tile size" : "tile count") +
                  ": reaches tiling field " + field + " in " + quote(s.text);
          break;
        }
      }
      if (u.role != tiling_role::none) break;
    }
    if (u.role != tiling_role::none) continue;
    for (const statement& s : statements) {
      if (s.ids.count(name) != 0 && intersects(s.ids, ub_vars) && by_name == tiling_role::ub_size) {
        u.role = tiling_role::ub_size;
        u.why = "UB budget: bounds the UB capacity in " + quote(s.text);
        break;
      }
    }
    if (u.role != tiling_role::none) continue;
    if (by_name == tiling_role::buffer_num && !kernel.empty()) {
      u.why = used ? "named like a buffer count but reaches no InitBuffer num of the kernel (a "
                     "count of queues)"
                   : "named like a buffer count but unused";
      continue;
    }
    if (by_name != tiling_role::none) {
      u.role = by_name;
      u.why = std::string("the name says ") + to_string(by_name);
      continue;
    }
    u.why = used ? "no tiling use recognised" : "not used by the tiling program";
  }
  return out;
}

}  // namespace aopt::agent
