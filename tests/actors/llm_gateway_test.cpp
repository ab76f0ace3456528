// The gateway actor over a real llm::gateway and client, against the OpenAI stub server on
// loopback: calls by message, bounded concurrency, the budget cap, accounting, and shutdown.
#include <doctest/doctest.h>

#include <chrono>
#include <future>
#include <memory>
#include <string>

#include "actors/llm_gateway.hpp"
#include "actors/messages.hpp"
#include "llm/gateway.hpp"
#include "support/openai_stub_server.hpp"

namespace {

namespace actors = aopt::actors;
namespace llm = aopt::llm;
namespace test = aopt::test;
using namespace std::chrono_literals;

caf::actor_system_config& with_aopt_types(caf::actor_system_config& cfg) {
  cfg.add_message_types<caf::id_block::aopt>();
  cfg.set("scheduler.max-threads", 2);
  return cfg;
}

// Members are destroyed bottom-up after the destructor body: the actor system (whose destructor
// waits for the actor), then the client and runtime, then the server.
struct gateway_actor_fixture {
  explicit gateway_actor_fixture(llm::gateway_options options,
                                 std::chrono::milliseconds timeout = 10s) {
    llm::client_options o;
    o.base_url = server.base_url();
    o.model = "stub-model";
    o.embedding_model = "stub-embed";
    o.api_key_env = "";
    o.max_retries = 0;
    o.timeout = timeout;
    auto made = llm::openai_client::make(runtime, o);
    REQUIRE_MESSAGE(made.ok(), made.error().to_string());
    client = std::move(*made);
    gateway = std::make_unique<llm::gateway>(runtime, *client, &cache, std::move(options));
    actor = actors::spawn_llm_gateway(sys, *gateway);
  }
  // The gateway goes before the actor system: cancelling its open calls must find the system.
  ~gateway_actor_fixture() {
    caf::anon_send_exit(actor, caf::exit_reason::user_shutdown);
    gateway.reset();
  }

  actors::llm_usage usage() {
    caf::scoped_actor self{sys};
    std::optional<actors::llm_usage> out;
    self->request(actor, caf::infinite, actors::usage_atom_v)
        .receive([&](const actors::llm_usage_report& u) { out = *u.value; },
                 [](caf::error& e) { FAIL("usage: " << caf::to_string(e)); });
    REQUIRE(out);
    return *out;
  }

  test::openai_stub_server server;
  llm::http_runtime runtime;
  std::unique_ptr<llm::openai_client> client;
  llm::memory_response_cache cache;
  std::unique_ptr<llm::gateway> gateway;
  caf::actor_system_config cfg;
  caf::actor_system sys{with_aopt_types(cfg)};
  actors::llm_gateway_actor actor;
};

llm::chat_request ask(const std::string& text) {
  llm::chat_request r;
  r.messages = {llm::user_message(text)};
  return r;
}

const llm::call_context mutator{"c1", "add_custom", "mutator"};
const llm::call_context retriever{"c1", "add_custom", "retriever"};

}  // namespace

TEST_SUITE("actors") {
  TEST_CASE("the gateway actor answers chat and embedding calls by message and accounts them") {
    llm::gateway_options options;
    options.prices = {2.0, 4.0};
    gateway_actor_fixture f(options);
    f.server.script({test::reply("first answer", 120, 30), test::reply("second answer", 80, 10)});
    actors::llm_gateway_port port(f.sys, f.actor);

    auto first = port.chat(mutator, ask("tune BLOCK_DIM"));
    REQUIRE_MESSAGE(first.ok(), first.error().to_string());
    CHECK(first->content == "first answer");
    auto second = port.chat(mutator, ask("tune TILE_LENGTH"));
    REQUIRE(second.ok());
    CHECK(second->content == "second answer");
    auto vectors = port.embed(retriever, {{"mte2 bound", "scalar loop"}, std::nullopt});
    REQUIRE_MESSAGE(vectors.ok(), vectors.error().to_string());
    CHECK(vectors->vectors.size() == 2);
    // The same prompt again: the gateway's cache answers, the endpoint is not called.
    auto replay = port.chat(mutator, ask("tune BLOCK_DIM"));
    REQUIRE(replay.ok());
    CHECK(replay->from_cache);
    CHECK(f.server.chat_requests() == 2);

    const actors::llm_usage u = f.usage();
    const test::stub_usage reported = f.server.reported_usage();
    CHECK(u.ledger.total().billed.prompt_tokens == reported.prompt_tokens);
    CHECK(u.ledger.total().billed.completion_tokens == reported.completion_tokens);
    const llm::ledger_entry& m = u.ledger.entries().at(mutator);
    CHECK(m.calls == 3);
    CHECK(m.cache_hits == 1);
    CHECK(m.billed == llm::token_usage{200, 40});
    CHECK(m.used == llm::token_usage{320, 70});
    CHECK(u.ledger.cost(m) == doctest::Approx(0.2 * 2.0 + 0.04 * 4.0));
    CHECK(u.ledger.entries().at(retriever).billed.prompt_tokens > 0);
    CHECK(u.stats.sent == 3);
  }

  TEST_CASE("the gateway actor holds calls beyond max_concurrency in the gateway's queue") {
    llm::gateway_options options;
    options.max_concurrency = 1;
    gateway_actor_fixture f(options, 2s);
    f.server.script({test::stall(), test::reply("second"), test::reply("third")});
    caf::scoped_actor a{f.sys}, b{f.sys}, c{f.sys};
    auto job = [](const std::string& text) {
      return actors::make_local(actors::llm_chat_call{mutator, ask(text)});
    };
    auto first = a->request(f.actor, caf::infinite, actors::chat_atom_v, job("one"));
    auto second = b->request(f.actor, caf::infinite, actors::chat_atom_v, job("two"));
    auto third = c->request(f.actor, caf::infinite, actors::chat_atom_v, job("three"));

    // The actor took the three calls in order before this request; the first one stalls.
    const actors::llm_usage busy = f.usage();
    CHECK(busy.stats.in_flight == 1);
    CHECK(busy.stats.queued == 2);

    std::vector<std::string> answers;
    auto collect = [&](const actors::llm_chat_outcome& o) {
      const auto& r = *o.value;
      answers.push_back(r.ok() ? r->content : std::string(llm::to_string(r.error().kind())));
    };
    auto fail = [](caf::error& e) { FAIL("chat: " << caf::to_string(e)); };
    first.receive(collect, fail);
    second.receive(collect, fail);
    third.receive(collect, fail);
    CHECK(answers == std::vector<std::string>{"timeout", "second", "third"});
    CHECK(f.server.chat_requests() == 3);
  }

  TEST_CASE("a spent budget makes the gateway actor refuse new calls without sending them") {
    llm::gateway_options options;
    options.budget_tokens = 100;
    gateway_actor_fixture f(options);
    f.server.script({test::reply("expensive", 90, 30), test::reply("never sent")});
    actors::llm_gateway_port port(f.sys, f.actor);

    REQUIRE(port.chat(mutator, ask("first")).ok());
    auto refused = port.chat(mutator, ask("second"));
    REQUIRE_FALSE(refused.ok());
    CHECK(refused.error().kind() == llm::error_kind::budget_exhausted);
    CHECK(refused.error().message().find("used 120 of its 100 LLM tokens") != std::string::npos);
    CHECK(f.server.chat_requests() == 1);
    CHECK(f.server.scripted_left() == 1);
    CHECK(f.usage().stats.refused_budget == 1);
  }

  TEST_CASE("an exit fails the gateway actor's open calls so no caller waits forever") {
    gateway_actor_fixture f(llm::gateway_options{});
    f.server.script({test::stall()});
    actors::llm_gateway_port port(f.sys, f.actor);
    auto waiting = std::async(std::launch::async, [&] { return port.chat(mutator, ask("x")); });
    REQUIRE(f.server.wait_for_requests(1, 10s));
    caf::anon_send_exit(f.actor, caf::exit_reason::user_shutdown);
    auto r = waiting.get();
    REQUIRE_FALSE(r.ok());
    CHECK(r.error().kind() == llm::error_kind::cancelled);
    CHECK(r.error().message().find("gateway actor did not answer") != std::string::npos);
    // Once the actor is gone, a new call fails at once instead of hanging.
    CHECK(port.chat(mutator, ask("y")).error().kind() == llm::error_kind::cancelled);
  }
}
