#include "npu/compile_error_explainer.hpp"

#include <array>
#include <cctype>
#include <string_view>

#include "npu/ascendc_api_coverage.hpp"

namespace aopt::npu {
namespace {

// g++ quotes names with ' or, in a UTF-8 locale, with U+2018/U+2019.
constexpr std::string_view open_quotes[] = {"'", "\xE2\x80\x98"};
constexpr std::string_view close_quotes[] = {"'", "\xE2\x80\x99"};

// The text between the first opening quote at or after `from` and its closing quote.
std::string quoted(const std::string& line, size_t from) {
  for (size_t q = 0; q < 2; ++q) {
    const size_t begin = line.find(open_quotes[q], from);
    if (begin == std::string::npos) continue;
    const size_t start = begin + open_quotes[q].size();
    const size_t end = line.find(close_quotes[q], start);
    if (end != std::string::npos) return line.substr(start, end - start);
  }
  return "";
}

bool is_ident(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_';
}

// "AscendC::Gather<float>(...)" -> "Gather": the last identifier before any template arguments
// or call parentheses.
std::string bare_name(const std::string& text) {
  size_t end = text.find_first_of("<(");
  if (end == std::string::npos) end = text.size();
  while (end > 0 && !is_ident(text[end - 1])) --end;
  size_t begin = end;
  while (begin > 0 && is_ident(text[begin - 1])) --begin;
  return text.substr(begin, end - begin);
}

}  // namespace

std::string missing_header(const std::string& line) {
  // g++: "k.cpp:6:10: fatal error: lib/matmul_intf.h: No such file or directory"
  static constexpr std::string_view fatal = "fatal error: ";
  static constexpr std::string_view missing = ": No such file or directory";
  const size_t at = line.find(fatal);
  if (at == std::string::npos) return "";
  const size_t begin = at + fatal.size();
  const size_t end = line.find(missing, begin);
  if (end == std::string::npos) return "";
  return line.substr(begin, end - begin);
}

std::string missing_symbol(const std::string& line) {
  static constexpr std::array<std::string_view, 4> name_first = {
      "was not declared in this scope", "is not a member of", "does not name a type",
      "has not been declared"};
  for (std::string_view phrase : name_first)
    if (line.find(phrase) != std::string::npos) {
      const size_t error = line.find("error:");
      return bare_name(quoted(line, error == std::string::npos ? 0 : error));
    }
  for (std::string_view phrase :
       {std::string_view("no matching function for call to"),
        std::string_view("has no member named"), std::string_view("undefined reference to")}) {
    const size_t at = line.find(phrase);
    if (at == std::string::npos) continue;
    if (phrase == "has no member named") return bare_name(quoted(line, at));
    std::string text = quoted(line, at);
    if (text.empty()) {  // the linker quotes with ` and '
      const size_t tick = line.find('`', at);
      if (tick != std::string::npos) text = line.substr(tick + 1, line.find('\'', tick) - tick - 1);
    }
    return bare_name(text);
  }
  return "";
}

std::string explain_compile_error(const std::string& line) {
  const std::string table = "docs/ascendc-api-coverage.md";
  const std::string header = missing_header(line);
  if (!header.empty()) {
    const ascendc_api* api = find_ascendc_api(header);
    if (api != nullptr && api->support != api_support::supported) {
      return line + " -- '" + header + "' is a CANN header the simulator does not provide yet (" +
             api->note + "; see " + table + ", \"" + api->group + "\")";
    }
    return line + " -- '" + header +
           "' is neither a header of the simulator's AscendC shim nor a file of the package: "
           "the shim provides the CANN headers " +
           table +
           " lists (\"Kernel: scalar helpers, constants and CANN headers\"); a header of the "
           "operator's own must be in the package";
  }
  const std::string name = missing_symbol(line);
  if (name.empty()) return line;
  const ascendc_api* api = find_ascendc_api(name);
  if (api == nullptr) {
    return line + " -- '" + name + "' is not an AscendC API the simulator knows (" + table +
           " lists every API it provides or lacks): most likely a mistake in the operator (a "
           "misspelt name, a missing declaration or include)";
  }
  const std::string row = table + ", \"" + api->group + "\"";
  switch (api->support) {
    case api_support::not_yet:
      return line + " -- '" + name + "' is an AscendC API the simulator does not provide yet (" +
             api->note + "; see " + row + ")";
    case api_support::partial:
      return line + " -- '" + name + "' is provided only in part by the simulator (" + api->note +
             "; see " + row + "): a missing form, or a mistake in the operator";
    case api_support::supported:
      break;
  }
  return line + " -- '" + name +
         "' is provided by the simulator: check this call against the AscendC reference (a "
         "mistake in the operator, or a form " +
         row + " does not list)";
}

}  // namespace aopt::npu
