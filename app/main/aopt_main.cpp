#include <exception>
#include <iostream>
#include <optional>
#include <string>

#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>
#include <CLI/CLI.hpp>

#include "app/cli_commands.hpp"
#include "app/json_stdout.hpp"

namespace {

// Exit statuses shared by every command: 2 is bad input (CLI11's own codes 100-115 included),
// 3 is aopt's own failure.
constexpr int exit_bad_input = 2;
constexpr int exit_internal = 3;

}  // namespace

int main(int argc, char** argv) {
  // Logs and warnings go to stderr, whatever the command: stdout is the command's output (one
  // JSON document with --json).
  spdlog::set_default_logger(spdlog::stderr_color_mt("aopt"));
  CLI::App app{"aopt: optimizes AscendC operators with an episodic agent (AscendOptimizer)"};
  app.require_subcommand(1);
  aopt::runtime::cli_context ctx;
  aopt::runtime::add_eval_command(app, ctx);
  aopt::runtime::add_init_command(app, ctx);
  aopt::runtime::add_run_commands(app, ctx);
  aopt::runtime::add_corpus_command(app, ctx);
  aopt::runtime::add_llm_command(app, ctx);
  aopt::runtime::add_bank_command(app, ctx);
  aopt::runtime::add_calibrate_command(app, ctx);
  aopt::runtime::add_roles_command(app, ctx);
  aopt::runtime::add_worker_command(app, ctx);
  aopt::runtime::add_serve_command(app, ctx);
  aopt::runtime::add_client_commands(app, ctx);
  // With --json, stdout carries exactly one JSON document whatever happens (app/json_stdout).
  std::optional<aopt::runtime::json_stdout_capture> json;
  if (aopt::runtime::wants_json(argc, argv)) json.emplace();
  auto finish = [&](int code, const std::string& error = "") {
    if (json) json->finish(code, error);
    return code;
  };
  // CLI11 would only say "A subcommand is required" for a misspelt command.
  if (argc > 1 && argv[1][0] != '-') {
    bool known = false;
    for (const CLI::App* sub : app.get_subcommands([](CLI::App*) { return true; })) {
      known = known || sub->check_name(argv[1]);
    }
    if (!known) {
      const std::string message =
          std::string("aopt: unknown command '") + argv[1] + "' (aopt --help lists them)";
      std::cerr << message << "\n";
      return finish(exit_bad_input, message);
    }
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::RuntimeError& e) {
    // A command that ended the parse with its own exit status (app/cli_client.cpp's --server
    // diversion): it has said why on stderr, and its status is the answer.
    return finish(e.get_exit_code());
  } catch (const CLI::ParseError& e) {
    // Prints the message (or the help text, for --help, which exits 0).
    const int code = app.exit(e) == 0 ? 0 : exit_bad_input;
    return finish(code, e.what());
  } catch (const std::exception& e) {
    // The commands run inside parse(); one that throws is a bug, reported instead of an abort.
    const std::string message = std::string("aopt: internal error: ") + e.what();
    std::cerr << message << "\n";
    return finish(exit_internal, message);
  }
  return finish(ctx.exit_code);
}
