#include "npu/cann/cann_command.hpp"

#include <sstream>

#include <fmt/format.h>

#include "base/subprocess.hpp"

namespace aopt::npu {

namespace {

constexpr size_t output_limit = 256 * 1024;
constexpr size_t diagnostic_lines = 40;

std::string shell_quoted(const std::string& s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

std::vector<std::string> lines_of(const std::string& text, size_t max_lines) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    if (line.empty()) continue;
    if (lines.size() == max_lines) {
      lines.push_back("... (truncated)");
      break;
    }
    lines.push_back(line);
  }
  return lines;
}

}  // namespace

const char* to_string(command_step s) {
  switch (s) {
    case command_step::build:
      return "build";
    case command_step::install:
      return "install";
    case command_step::run:
      return "run";
    case command_step::profile:
      return "profile";
    case command_step::flush:
      return "flush";
    case command_step::version:
      return "version";
  }
  return "command";
}

std::string expand_command(const std::string& tmpl, const command_values& values) {
  const std::pair<const char*, const std::string*> placeholders[] = {
      {"{op_dir}", &values.op_dir},
      {"{work_dir}", &values.work_dir},
      {"{kernel_name}", &values.kernel_name},
      {"{device_id}", &values.device_id},
      {"{flush_bytes}", &values.flush_bytes}};
  std::string out;
  for (size_t i = 0; i < tmpl.size();) {
    bool replaced = false;
    for (const auto& [name, value] : placeholders) {
      const std::string key = name;
      if (tmpl.compare(i, key.size(), key) == 0) {
        out += shell_quoted(*value);
        i += key.size();
        replaced = true;
        break;
      }
    }
    if (!replaced) out += tmpl[i++];
  }
  return out;
}

command_outcome run_command(command_step step, const std::string& tmpl,
                            const command_values& values, const std::string& working_dir,
                            double timeout_seconds) {
  command_outcome out;
  const char* name = to_string(step);
  const std::string command = expand_command(tmpl, values);
  subprocess_options o;
  o.argv = {"/bin/sh", "-c", command};
  o.working_dir = working_dir;
  o.output_limit_bytes = output_limit;
  o.limits.wall_seconds = timeout_seconds;
  auto ran = run_subprocess(o);
  if (!ran.ok()) {
    out.status = eval_status::infra_error;
    out.error_kind = name;
    out.message = fmt::format("the {} command could not start: {}", name, ran.error().message());
    out.diagnostics.push_back("command: " + command);
    return out;
  }
  out.seconds = ran->wall_seconds;
  out.stdout_text = ran->stdout_text;
  out.diagnostics = lines_of(ran->stderr_text, diagnostic_lines);
  if (ran->succeeded()) {
    out.ok = true;
    return out;
  }
  const std::string first = out.diagnostics.empty() ? "" : ": " + out.diagnostics.front();
  out.diagnostics.push_back("command: " + command);
  if (ran->timed_out) {
    out.status = step == command_step::build ? eval_status::compile_error
                 : step == command_step::run || step == command_step::profile
                     ? eval_status::runtime_error
                     : eval_status::infra_error;
    out.error_kind = std::string(name) + "_timeout";
    out.message = fmt::format("the {} command ran longer than {:g} s and was killed{}", name,
                              timeout_seconds, first);
    return out;
  }
  out.status = step == command_step::build ? eval_status::compile_error
               : step == command_step::run ? eval_status::runtime_error
                                           : eval_status::infra_error;
  out.error_kind = step == command_step::build ? "compile"
                   : step == command_step::run ? "crash"
                                               : std::string(name) + "_failed";
  out.message = fmt::format("the {} command failed ({}){}", name, ran->describe(), first);
  return out;
}

}  // namespace aopt::npu
