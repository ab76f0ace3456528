#include "agent/motifs/kernel_rule_support.hpp"

#include <algorithm>
#include <regex>
#include <set>
#include <vector>

namespace aopt::agent {

const std::map<std::string, elementwise_op>& elementwise_apis() {
  static const std::map<std::string, elementwise_op> apis = {
      {"Add", {"+", false}},  {"Sub", {"-", false}},   {"Mul", {"*", false}},
      {"Div", {"/", false}},  {"Max", {"max", false}}, {"Min", {"min", false}},
      {"Adds", {"+", true}},  {"Muls", {"*", true}},   {"Maxs", {"max", true}},
      {"Mins", {"min", true}}};
  return apis;
}

std::optional<std::string> compute_type(const std::string& element_type) {
  static const std::set<std::string> floats = {"half", "float", "bfloat16_t", "float16_t",
                                               "half_t"};
  static const std::set<std::string> ints = {"int8_t",  "uint8_t",  "int16_t", "uint16_t",
                                             "int32_t", "uint32_t", "int64_t", "int"};
  if (floats.count(element_type) != 0) return std::string("float");
  if (ints.count(element_type) != 0) return std::string("int64_t");
  return std::nullopt;
}

std::optional<std::string> shifted_operand(const std::string& operand, const std::string& offset) {
  static const std::regex plain(R"(^([A-Za-z_]\w*)$)");
  static const std::regex subscript(R"(^([A-Za-z_]\w*)\s*\[([\s\S]*)\]$)");
  std::string t = trim(operand);
  std::smatch m;
  if (std::regex_match(t, m, plain)) return std::string(m[1]) + "[" + offset + "]";
  if (std::regex_match(t, m, subscript)) {
    std::string inner = m[2];
    if (std::count(inner.begin(), inner.end(), '[') !=
        std::count(inner.begin(), inner.end(), ']')) {
      return std::nullopt;
    }
    return std::string(m[1]) + "[(" + trim(inner) + ") + " + offset + "]";
  }
  return std::nullopt;
}

bool is_stage_call(const kernel_facts& facts, text_range statement) {
  static const std::regex call(R"(^\s*([A-Za-z_]\w*)\s*\([\s\S]*\)\s*;\s*$)");
  std::string s = facts.masked().substr(statement.begin, statement.end - statement.begin);
  std::smatch m;
  if (!std::regex_match(s, m, call)) return false;
  std::string name = m[1];
  if (is_vector_api(name) || name == "DataCopy" || name == "DataCopyPad" || name == "PipeBarrier") {
    return false;
  }
  return find_function_body(facts.masked(), name).has_value();
}

bool is_rows_per_tile(const std::string& name) {
  std::vector<std::string> words = identifier_words(name);
  auto has = [&](const char* w) { return std::find(words.begin(), words.end(), w) != words.end(); };
  return (has("rows") || has("row")) && (has("tile") || has("tiles"));
}

}  // namespace aopt::agent
