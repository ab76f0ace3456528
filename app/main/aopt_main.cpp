#include <exception>
#include <iostream>

#include <CLI/CLI.hpp>

#include "app/cli_commands.hpp"

namespace {

// Exit statuses shared by every command: 2 is bad input (CLI11's own codes 100-115 included),
// 3 is aopt's own failure.
constexpr int exit_bad_input = 2;
constexpr int exit_internal = 3;

}  // namespace

int main(int argc, char** argv) {
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
  aopt::runtime::add_worker_command(app, ctx);
  aopt::runtime::add_serve_command(app, ctx);
  aopt::runtime::add_client_commands(app, ctx);
  // CLI11 would only say "A subcommand is required" for a misspelt command.
  if (argc > 1 && argv[1][0] != '-') {
    bool known = false;
    for (const CLI::App* sub : app.get_subcommands([](CLI::App*) { return true; })) {
      known = known || sub->check_name(argv[1]);
    }
    if (!known) {
      std::cerr << "aopt: unknown command '" << argv[1] << "' (aopt --help lists them)\n";
      return exit_bad_input;
    }
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    // Prints the message (or the help text, for --help, which exits 0).
    return app.exit(e) == 0 ? 0 : exit_bad_input;
  } catch (const std::exception& e) {
    // The commands run inside parse(); one that throws is a bug, reported instead of an abort.
    std::cerr << "aopt: internal error: " << e.what() << "\n";
    return exit_internal;
  }
  return ctx.exit_code;
}
