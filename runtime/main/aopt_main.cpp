#include <CLI/CLI.hpp>

#include "runtime/cli_commands.hpp"

int main(int argc, char** argv) {
  CLI::App app{"aopt: optimizes AscendC operators with an episodic agent (AscendOptimizer)"};
  app.require_subcommand(1);
  aopt::runtime::cli_context ctx;
  aopt::runtime::add_eval_command(app, ctx);
  aopt::runtime::add_run_commands(app, ctx);
  aopt::runtime::add_corpus_command(app, ctx);
  aopt::runtime::add_llm_command(app, ctx);
  aopt::runtime::add_bank_command(app, ctx);
  aopt::runtime::add_calibrate_command(app, ctx);
  aopt::runtime::add_serve_command(app, ctx);
  aopt::runtime::add_client_commands(app, ctx);
  CLI11_PARSE(app, argc, argv);
  return ctx.exit_code;
}
