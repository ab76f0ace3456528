// prompt_library: the prompt templates of the LLM policies, one Markdown file per role action
// (config/prompts/*.md), rendered with {{variable}} substitution.
//
// File format:
//
//   <!--
//   template: diagnosis
//   ...prose...
//   variables:
//     {{kernel}}   the device kernel K
//     {{profile}}  ...
//   -->
//   <!-- role: system -->
//   You are ...
//   <!-- role: user -->
//   Kernel:
//   {{kernel}}
//
// The leading comment is the header: every {{name}} in it declares a variable. The body may
// use only declared variables; a line `<!-- role: system|user|assistant -->` starts a message
// (text before the first one, or a body without any, is a user message).
//
// Rendering is one pass (a value containing "{{x}}" is inserted verbatim). It is an error, naming
// the template and the variable, to leave a declared variable without a value or to pass one
// the template does not declare: policy code and templates must agree.
//
// Thread-safety: immutable after load; const methods may be called from many threads.
#pragma once

#include <filesystem>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "base/status.hpp"
#include "llm/chat_types.hpp"

namespace aopt::llm {

struct prompt_template {
  std::string name;                    // the file stem: "tiling_mutation"
  std::string source;                  // where it came from, for messages
  std::set<std::string> variables;     // declared in the header
  std::vector<chat_message> messages;  // the body, unrendered
};

using prompt_variables = std::map<std::string, std::string>;

class prompt_library {
 public:
  // The actions aopt's policies render: template_synthesis, tiling_mutation, diagnosis,
  // refinement, rewind_step, distillation.
  static const std::vector<std::string>& standard_names();

  // Loads every *.md file of each folder in turn; a later folder's file replaces an earlier
  // one of the same name (the built-in folder first, then the user's). Errors: not_found for
  // a missing folder; invalid_argument for a malformed template, naming file and problem.
  static result<prompt_library> load(const std::vector<std::filesystem::path>& folders);

  // Parses one template; `source` names it in errors.
  static result<prompt_template> parse(const std::string& name, const std::string& text,
                                       const std::string& source);

  // Adds or replaces a template.
  void add(prompt_template t);

  // not_found naming the absent standard templates, if any.
  status check_complete() const;

  const prompt_template* find(const std::string& name) const;
  std::vector<std::string> names() const;

  // The messages of `name` with the variables substituted. Errors: not_found for an unknown
  // template; invalid_argument for a missing or undeclared variable.
  result<std::vector<chat_message>> render(const std::string& name,
                                           const prompt_variables& values) const;

 private:
  std::map<std::string, prompt_template> templates_;
};

}  // namespace aopt::llm
