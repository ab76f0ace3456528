#include "llm/prompt_library.hpp"
#include "base/text_trim.hpp"

#include <algorithm>
#include <fstream>
#include <sstream>

namespace aopt::llm {

namespace {

bool is_name_char(char c, bool first) {
  return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
         (!first && c >= '0' && c <= '9');
}

// The identifier between "{{" and "}}" (spaces around it allowed), or "" if it is none.
std::string placeholder_name(std::string_view inner) {
  while (!inner.empty() && inner.front() == ' ') inner.remove_prefix(1);
  while (!inner.empty() && inner.back() == ' ') inner.remove_suffix(1);
  if (inner.empty()) return {};
  for (size_t i = 0; i < inner.size(); ++i)
    if (!is_name_char(inner[i], i == 0)) return {};
  return std::string(inner);
}

// Calls on_text(literal) and on_var(name) for the pieces of `text`, in order.
template <class OnText, class OnVar>
void scan(std::string_view text, OnText on_text, OnVar on_var) {
  size_t at = 0;
  while (at < text.size()) {
    const size_t open = text.find("{{", at);
    if (open == std::string_view::npos) break;
    const size_t close = text.find("}}", open + 2);
    if (close == std::string_view::npos) break;
    const std::string name = placeholder_name(text.substr(open + 2, close - open - 2));
    if (name.empty()) {
      on_text(text.substr(at, open + 2 - at));
      at = open + 2;
      continue;
    }
    on_text(text.substr(at, open - at));
    on_var(name);
    at = close + 2;
  }
  on_text(text.substr(at));
}

std::string trim_blank_lines(std::string text) {
  const size_t first = text.find_first_not_of(" \t\r\n");
  if (first == std::string::npos) return {};
  const size_t line_start = text.rfind('\n', first);
  text.erase(0, line_start == std::string::npos ? 0 : line_start + 1);
  const size_t last = text.find_last_not_of(" \t\r\n");
  text.erase(last + 1);
  return text;
}

// "system" for the line "<!-- role: system -->", "" for any other line.
std::string role_marker(std::string_view line) {
  const std::string t = trim(line);
  const std::string prefix = "<!-- role:";
  const std::string suffix = "-->";
  if (t.size() < prefix.size() + suffix.size() || t.compare(0, prefix.size(), prefix) != 0 ||
      t.compare(t.size() - suffix.size(), suffix.size(), suffix) != 0)
    return {};
  return trim(std::string_view(t).substr(prefix.size(), t.size() - prefix.size() - suffix.size()));
}

}  // namespace

const std::vector<std::string>& prompt_library::standard_names() {
  static const std::vector<std::string> names = {"template_synthesis", "tiling_mutation",
                                                 "diagnosis",          "refinement",
                                                 "rewind_step",        "distillation"};
  return names;
}

result<prompt_template> prompt_library::parse(const std::string& name, const std::string& text,
                                              const std::string& source) {
  const std::string where = "prompt '" + name + "' (" + source + ")";
  std::string_view rest = text;
  if (rest.rfind("\xEF\xBB\xBF", 0) == 0) rest.remove_prefix(3);
  const size_t start = rest.find_first_not_of(" \t\r\n");
  if (start == std::string_view::npos || rest.compare(start, 4, "<!--") != 0)
    return invalid_argument(where +
                            ": must start with a <!-- ... --> header documenting its "
                            "variables");
  const size_t end = rest.find("-->", start + 4);
  if (end == std::string_view::npos) return invalid_argument(where + ": header is not closed");

  prompt_template t;
  t.name = name;
  t.source = source;
  scan(
      rest.substr(start + 4, end - start - 4), [](std::string_view) {},
      [&](const std::string& var) { t.variables.insert(var); });

  std::string_view body = rest.substr(end + 3);
  std::string role = "user";
  std::string content;
  auto flush = [&] {
    std::string trimmed = trim_blank_lines(content);
    if (!trimmed.empty()) t.messages.push_back({role, std::move(trimmed)});
    content.clear();
  };
  size_t line_no = static_cast<size_t>(std::count(rest.begin(), rest.begin() + end + 3, '\n')) + 1;
  while (!body.empty()) {
    const size_t nl = body.find('\n');
    std::string_view line = body.substr(0, nl);
    body.remove_prefix(nl == std::string_view::npos ? body.size() : nl + 1);
    const std::string marker = role_marker(line);
    if (!marker.empty()) {
      if (marker != "system" && marker != "user" && marker != "assistant")
        return invalid_argument(where + ": line " + std::to_string(line_no) + ": unknown role '" +
                                marker + "'");
      flush();
      role = marker;
    } else {
      std::string undeclared;
      scan(
          line, [](std::string_view) {},
          [&](const std::string& var) {
            if (!t.variables.count(var) && undeclared.empty()) undeclared = var;
          });
      if (!undeclared.empty())
        return invalid_argument(where + ": line " + std::to_string(line_no) + ": uses {{" +
                                undeclared + "}}, which the header does not declare");
      content.append(line);
      content.push_back('\n');
    }
    ++line_no;
  }
  flush();
  if (t.messages.empty()) return invalid_argument(where + ": has no text after its header");
  return t;
}

result<prompt_library> prompt_library::load(const std::vector<std::filesystem::path>& folders) {
  prompt_library library;
  for (const std::filesystem::path& folder : folders) {
    std::error_code ec;
    if (!std::filesystem::is_directory(folder, ec))
      return not_found("prompt folder '" + folder.string() + "' does not exist");
    std::vector<std::filesystem::path> files;
    for (const auto& entry : std::filesystem::directory_iterator(folder, ec))
      if (entry.is_regular_file() && entry.path().extension() == ".md")
        files.push_back(entry.path());
    if (ec) return internal_error("prompt folder '" + folder.string() + "': " + ec.message());
    std::sort(files.begin(), files.end());
    for (const std::filesystem::path& file : files) {
      std::ifstream in(file, std::ios::binary);
      std::ostringstream text;
      text << in.rdbuf();
      if (!in && !in.eof())
        return internal_error("prompt file '" + file.string() + "': cannot read");
      result<prompt_template> t = parse(file.stem().string(), text.str(), file.string());
      if (!t.ok()) return t.error();
      library.add(std::move(*t));
    }
  }
  return library;
}

void prompt_library::add(prompt_template t) {
  std::string name = t.name;
  templates_[name] = std::move(t);
}

status prompt_library::check_complete() const {
  std::string missing;
  for (const std::string& name : standard_names())
    if (!templates_.count(name)) missing += (missing.empty() ? "" : ", ") + name;
  if (!missing.empty()) return not_found("prompt templates missing: " + missing);
  return {};
}

const prompt_template* prompt_library::find(const std::string& name) const {
  auto it = templates_.find(name);
  return it == templates_.end() ? nullptr : &it->second;
}

std::vector<std::string> prompt_library::names() const {
  std::vector<std::string> out;
  for (const auto& [name, t] : templates_) out.push_back(name);
  return out;
}

result<std::vector<chat_message>> prompt_library::render(const std::string& name,
                                                         const prompt_variables& values) const {
  const prompt_template* t = find(name);
  if (!t) return not_found("prompt '" + name + "': no such template");
  const std::string where = "prompt '" + name + "' (" + t->source + ")";
  for (const auto& [var, value] : values)
    if (!t->variables.count(var))
      return invalid_argument(where + ": variable {{" + var + "}} is not declared by the template");
  for (const std::string& var : t->variables)
    if (!values.count(var))
      return invalid_argument(where + ": no value for variable {{" + var + "}}");
  std::vector<chat_message> out;
  for (const chat_message& m : t->messages) {
    std::string text;
    scan(
        m.content, [&](std::string_view literal) { text.append(literal); },
        [&](const std::string& var) { text.append(values.at(var)); });
    out.push_back({m.role, std::move(text)});
  }
  return out;
}

}  // namespace aopt::llm
