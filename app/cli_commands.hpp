// Registration of the `aopt` subcommands. Each command lives in its own app/cli_<name>.cpp and
// adds itself to the CLI11 app; `exit_code` receives the command's exit status.
#pragma once

#include <CLI/CLI.hpp>

namespace aopt::runtime {

struct cli_context {
  int exit_code = 0;
};

void add_eval_command(CLI::App& app, cli_context& ctx);
// `aopt init <op-dir>`: op.json's skeleton from the operator's OpDef (issue 34).
void add_init_command(CLI::App& app, cli_context& ctx);
// run, resume, status, report
void add_run_commands(CLI::App& app, cli_context& ctx);
void add_corpus_command(CLI::App& app, cli_context& ctx);
void add_llm_command(CLI::App& app, cli_context& ctx);
void add_bank_command(CLI::App& app, cli_context& ctx);
void add_calibrate_command(CLI::App& app, cli_context& ctx);
// `aopt roles`: the hooked roles of the role table (docs/roles.md).
void add_roles_command(CLI::App& app, cli_context& ctx);
// `aopt worker`: evaluation slots for a coordinator on another host (issue 19).
void add_worker_command(CLI::App& app, cli_context& ctx);
// `aopt serve`, the daemon (server/).
void add_serve_command(CLI::App& app, cli_context& ctx);
// submit, pause, cancel, watch, and --server for status and resume, which talk to a running
// daemon (server/http_client). Call after add_run_commands, whose status and resume it extends.
void add_client_commands(CLI::App& app, cli_context& ctx);

}  // namespace aopt::runtime
