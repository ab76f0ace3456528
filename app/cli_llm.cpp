// `aopt llm check`: verifies the configured LLM endpoint with one tiny chat call and one
// embedding call (when llm.embedding_model is set) and prints what it found: the endpoint, the
// model that answered, its answer, the tokens it reported and the embedding size. The API key
// is never printed, only whether the variable naming it is set.
//
// The check does not retry: the first failure is what the user needs to see.
//
// Exit status: 0 the endpoint works; 1 it is unreachable or answered wrongly (the reason is
// printed); 2 the configuration is unusable (unreadable file, bad --set, no llm.model).
#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <memory>

#include <fmt/format.h>

#include "app/cli_commands.hpp"
#include "app/cli_config.hpp"
#include "app/exit_codes.hpp"
#include "llm/http_runtime.hpp"
#include "llm/openai_client.hpp"
#include "runtime/llm_factory.hpp"

namespace aopt::runtime {
namespace {

constexpr int exit_endpoint_failed = 1;
constexpr int exit_bad_config = 2;

std::string one_line(std::string text, size_t limit = 120) {
  for (char& c : text) {
    if (c == '\n' || c == '\r' || c == '\t') c = ' ';
  }
  if (text.size() > limit) text = text.substr(0, limit) + "...";
  return text;
}

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

int run_check(const config_options& options) {
  result<config::aopt_config> config = load_config(options);
  if (!config.ok()) {
    fmt::print(stderr, "aopt llm check: {}\n", config.error().to_string());
    return exit_bad_config;
  }
  const config::llm_config& c = config->llm;
  fmt::print("endpoint      {}\n", c.base_url);
  fmt::print("model         {}\n", c.model.empty() ? "(none)" : c.model);
  fmt::print("embeddings    {}\n", c.embedding_model.empty() ? "(none)" : c.embedding_model);
  if (c.api_key_env.empty()) {
    fmt::print("api key       none (llm.api_key_env is empty)\n");
  } else {
    const char* key = std::getenv(c.api_key_env.c_str());
    fmt::print("api key       ${} is {}\n", c.api_key_env,
               key != nullptr && *key != '\0' ? "set" : "not set: no Authorization header");
  }
  if (c.model.empty()) {
    fmt::print(stderr,
               "aopt llm check: llm.model is empty; set it in the configuration or with "
               "--set llm.model=NAME\n");
    return exit_bad_config;
  }

  llm::client_options client_options = runtime::client_options_from(c);
  client_options.max_retries = 0;
  llm::http_runtime runtime;
  result<std::unique_ptr<llm::openai_client>> client =
      llm::openai_client::make(runtime, client_options);
  if (!client.ok()) {
    fmt::print(stderr, "aopt llm check: {}\n", client.error().to_string());
    return exit_bad_config;
  }

  int exit_code = exit_ok;
  llm::chat_request chat;
  chat.messages = {llm::system_message("You are a connectivity check. Answer in one word."),
                   llm::user_message("Reply with the single word: pong")};
  chat.temperature = 0;
  chat.max_tokens = std::min<uint32_t>(c.max_tokens, 256);
  auto start = std::chrono::steady_clock::now();
  llm::call_result<llm::chat_response> answer = (*client)->chat(std::move(chat));
  if (answer.ok()) {
    fmt::print(
        "chat          ok in {:.2f} s: {} answered \"{}\" ({} prompt + {} completion tokens)\n",
        seconds_since(start), answer->model, one_line(answer->content), answer->usage.prompt_tokens,
        answer->usage.completion_tokens);
  } else {
    fmt::print("chat          FAILED: {}\n", answer.error().message());
    exit_code = exit_endpoint_failed;
  }

  if (c.embedding_model.empty()) {
    fmt::print("embedding     skipped: llm.embedding_model is empty (retrieval stays lexical)\n");
  } else {
    llm::embedding_request embed;
    embed.inputs = {"aopt connectivity check"};
    start = std::chrono::steady_clock::now();
    llm::call_result<llm::embedding_response> vectors = (*client)->embed(std::move(embed));
    if (vectors.ok()) {
      fmt::print("embedding     ok in {:.2f} s: {} dimensions from {}\n", seconds_since(start),
                 vectors->vectors.at(0).size(), vectors->model);
    } else {
      fmt::print("embedding     FAILED: {}\n", vectors.error().message());
      exit_code = exit_endpoint_failed;
    }
  }
  fmt::print("result        {}\n",
             exit_code == exit_ok ? "the endpoint works" : "the endpoint is not usable");
  return exit_code;
}

}  // namespace

void add_llm_command(CLI::App& app, cli_context& ctx) {
  CLI::App* llm_cmd = app.add_subcommand("llm", "work with the configured LLM endpoint");
  llm_cmd->require_subcommand(1);
  auto options = std::make_shared<config_options>();
  CLI::App* check = llm_cmd->add_subcommand(
      "check", "send one tiny chat and one embedding request to the configured endpoint");
  add_config_options(check, *options);
  check->callback([options, &ctx] { ctx.exit_code = run_check(*options); });
}

}  // namespace aopt::runtime
