// gateway against the OpenAI stub server: cache modes, token accounting, budget, admission.
#include <atomic>
#include <chrono>
#include <functional>
#include <future>
#include <memory>
#include <string>
#include <vector>

#include <doctest/doctest.h>

#include "llm/gateway.hpp"
#include "support/openai_stub_server.hpp"

namespace llm = aopt::llm;
namespace test = aopt::test;
using namespace std::chrono_literals;

namespace {

// Teardown order matters: gateways, then the client, then the runtime, then the server.
struct gateway_fixture {
  explicit gateway_fixture(const std::function<void(llm::client_options&)>& adjust = {}) {
    llm::client_options o;
    o.base_url = server.base_url();
    o.model = "stub-model";
    o.embedding_model = "stub-embed";
    o.api_key_env = "";
    o.backoff_initial = 10ms;
    o.backoff_max = 20ms;
    o.timeout = 10s;
    if (adjust) adjust(o);
    auto made = llm::openai_client::make(runtime, o);
    REQUIRE_MESSAGE(made.ok(), made.error().to_string());
    client = std::move(*made);
  }

  std::unique_ptr<llm::gateway> make_gateway(llm::gateway_options options,
                                             llm::response_cache* with_cache = nullptr) {
    return std::make_unique<llm::gateway>(runtime, *client, with_cache, std::move(options));
  }

  test::openai_stub_server server;
  llm::http_runtime runtime;
  std::unique_ptr<llm::openai_client> client;
  llm::memory_response_cache cache;
};

llm::chat_request ask(const std::string& text, uint64_t sample = 0) {
  llm::chat_request r;
  r.messages = {llm::user_message(text)};
  r.sample_index = sample;
  return r;
}

llm::embedding_request texts(std::vector<std::string> inputs) {
  llm::embedding_request r;
  r.inputs = std::move(inputs);
  return r;
}

const llm::call_context mutator{"c1", "add_custom", "mutator"};
const llm::call_context refiner{"c1", "add_custom", "refiner"};
const llm::call_context other_op{"c1", "softmax_custom", "diagnoser"};

// A manual clock for the rate limiter.
struct fake_clock {
  std::atomic<int64_t> ms{0};
  llm::steady_clock_fn fn() {
    return [this] {
      return std::chrono::steady_clock::time_point(std::chrono::milliseconds(ms.load()));
    };
  }
};

template <class T>
struct pending {
  std::promise<llm::call_result<T>> promise;
  std::future<llm::call_result<T>> future = promise.get_future();
  std::function<void(llm::call_result<T>)> callback() {
    return [this](llm::call_result<T> r) { promise.set_value(std::move(r)); };
  }
};

}  // namespace

TEST_SUITE("llm") {
  TEST_CASE("gateway replays answers from the cache in read mode without calling the endpoint") {
    gateway_fixture f;
    f.server.script({test::reply("sample zero"), test::reply("sample one")});
    {
      auto writer = f.make_gateway({}, &f.cache);  // readwrite by default
      auto a = writer->chat(mutator, ask("tune it", 0));
      auto b = writer->chat(mutator, ask("tune it", 1));
      REQUIRE(a.ok());
      REQUIRE(b.ok());
      CHECK(a->content == "sample zero");
      CHECK(b->content == "sample one");
      CHECK_FALSE(a->from_cache);
    }
    CHECK(f.server.chat_requests() == 2);
    CHECK(f.cache.size() == 2);

    llm::gateway_options read_only;
    read_only.cache = llm::cache_mode::read;
    auto reader = f.make_gateway(read_only, &f.cache);
    auto a = reader->chat(mutator, ask("tune it", 0));
    auto b = reader->chat(mutator, ask("tune it", 1));
    REQUIRE(a.ok());
    REQUIRE(b.ok());
    CHECK(a->content == "sample zero");
    CHECK(b->content == "sample one");
    CHECK(a->from_cache);
    CHECK(b->from_cache);
    CHECK(f.server.chat_requests() == 2);  // zero new calls
    CHECK(reader->stats().cache_hits == 2);

    // A miss in read mode goes to the endpoint but is not stored.
    f.server.script({test::reply("sample two")});
    auto c = reader->chat(mutator, ask("tune it", 2));
    REQUIRE(c.ok());
    CHECK_FALSE(c->from_cache);
    CHECK(f.server.chat_requests() == 3);
    CHECK(f.cache.size() == 2);
  }

  TEST_CASE("gateway with the cache off neither reads nor writes it") {
    gateway_fixture f;
    f.server.script({test::reply("first"), test::reply("second")});
    llm::gateway_options off;
    off.cache = llm::cache_mode::off;
    auto g = f.make_gateway(off, &f.cache);
    REQUIRE(g->chat(mutator, ask("same")).ok());
    auto again = g->chat(mutator, ask("same"));
    REQUIRE(again.ok());
    CHECK(again->content == "second");
    CHECK(f.cache.size() == 0);
    CHECK(f.server.chat_requests() == 2);
  }

  TEST_CASE("gateway cache keys separate model, parameters and sample index") {
    gateway_fixture f;
    const llm::endpoint_url url = f.client->url();
    const llm::chat_request base = f.client->with_defaults(ask("x"));
    llm::chat_request hotter = base;
    hotter.temperature = 1.5;
    llm::chat_request other_model = base;
    other_model.model = "another";
    llm::chat_request sample = base;
    sample.sample_index = 1;
    const std::string key = llm::chat_cache_key(url, base);
    CHECK(key.size() == 32);
    CHECK(key == llm::chat_cache_key(url, f.client->with_defaults(ask("x"))));
    CHECK(key != llm::chat_cache_key(url, hotter));
    CHECK(key != llm::chat_cache_key(url, other_model));
    CHECK(key != llm::chat_cache_key(url, sample));
    CHECK(key != llm::chat_cache_key(url, f.client->with_defaults(ask("y"))));
  }

  TEST_CASE("gateway token totals equal the usage the endpoint reported") {
    gateway_fixture f;
    f.server.script({test::reply("a", 100, 20), test::reply("b", 50, 5),
                     test::truncated("c", 40, 64), test::reply("d")});
    llm::gateway_options options;
    options.prices = {0.5, 2.0};
    auto g = f.make_gateway(options, &f.cache);
    REQUIRE(g->chat(mutator, ask("one")).ok());
    REQUIRE(g->chat(refiner, ask("two")).ok());
    CHECK(g->chat(refiner, ask("three")).error().kind() == llm::error_kind::truncated);
    REQUIRE(g->chat(other_op, ask("four words right here")).ok());
    REQUIRE(g->embed(other_op, texts({"mte2 bound", "vector bound"})).ok());
    REQUIRE(g->chat(mutator, ask("one")).ok());  // a cache hit: used, not billed

    const llm::token_ledger ledger = g->ledger();
    const llm::ledger_entry total = ledger.total();
    const test::stub_usage reported = f.server.reported_usage();
    CHECK(total.billed.prompt_tokens == reported.prompt_tokens);
    CHECK(total.billed.completion_tokens == reported.completion_tokens);
    CHECK(total.used.prompt_tokens == reported.prompt_tokens + 100);
    CHECK(total.cache_hits == 1);
    CHECK(total.failures == 1);

    const llm::ledger_entry& m = ledger.entries().at(mutator);
    CHECK(m.calls == 2);
    CHECK(m.billed.prompt_tokens == 100);
    CHECK(m.used.prompt_tokens == 200);
    const llm::ledger_entry& r = ledger.entries().at(refiner);
    CHECK(r.billed.prompt_tokens == 90);
    CHECK(r.billed.completion_tokens == 69);
    CHECK(ledger.cost(r) == doctest::Approx(0.090 * 0.5 + 0.069 * 2.0));
    CHECK(ledger.campaign_total("c1").billed.total() == total.billed.total());
    CHECK(ledger.campaign_total("c2").calls == 0);
  }

  TEST_CASE("gateway refuses new calls once the campaign's token budget is spent") {
    gateway_fixture f;
    f.server.script({test::reply("a", 10, 10), test::reply("b", 10, 10), test::reply("c")});
    llm::gateway_options options;
    options.budget_tokens = 30;
    auto g = f.make_gateway(options, &f.cache);
    REQUIRE(g->chat(mutator, ask("one")).ok());
    CHECK(g->budget_left("c1"));
    REQUIRE(g->chat(mutator, ask("two")).ok());  // 20 < 30 when admitted
    CHECK_FALSE(g->budget_left("c1"));
    auto refused = g->chat(refiner, ask("three"));
    REQUIRE_FALSE(refused.ok());
    CHECK(refused.error().kind() == llm::error_kind::budget_exhausted);
    CHECK(refused.error().code() == aopt::status_code::resource_exhausted);
    CHECK(refused.error().message().find("'c1' used 40 of its 30") != std::string::npos);
    CHECK(f.server.chat_requests() == 2);
    CHECK(g->stats().refused_budget == 1);

    // Another campaign has its own budget.
    auto other = g->chat({"c2", "add_custom", "mutator"}, ask("four"));
    REQUIRE(other.ok());
    CHECK(f.server.chat_requests() == 3);
  }

  TEST_CASE("gateway keeps at most max_concurrency calls in flight and cancels on destruction") {
    gateway_fixture f;
    f.server.script({test::stall(), test::reply("second")});
    llm::gateway_options options;
    options.max_concurrency = 1;
    auto g = f.make_gateway(options);
    pending<llm::chat_response> first, second;
    g->async_chat(mutator, ask("first"), first.callback());
    g->async_chat(mutator, ask("second"), second.callback());
    const llm::gateway_stats s = g->stats();
    CHECK(s.in_flight == 1);
    CHECK(s.queued == 1);
    REQUIRE(f.server.wait_for_requests(1, 5s));
    CHECK(g->stats().queued == 1);
    CHECK(f.server.chat_requests() == 1);

    g.reset();
    REQUIRE(first.future.wait_for(5s) == std::future_status::ready);
    REQUIRE(second.future.wait_for(5s) == std::future_status::ready);
    CHECK(first.future.get().error().kind() == llm::error_kind::cancelled);
    CHECK(second.future.get().error().kind() == llm::error_kind::cancelled);
    CHECK(f.server.chat_requests() == 1);
  }

  TEST_CASE("gateway starts the next queued call when a slot frees up") {
    gateway_fixture f;
    f.server.script({test::reply("one"), test::reply("two"), test::reply("three")});
    llm::gateway_options options;
    options.max_concurrency = 1;
    auto g = f.make_gateway(options);
    pending<llm::chat_response> calls[3];
    for (int i = 0; i < 3; ++i)
      g->async_chat(mutator, ask("q" + std::to_string(i)), calls[i].callback());
    std::vector<std::string> answers;
    for (auto& c : calls) {
      REQUIRE(c.future.wait_for(10s) == std::future_status::ready);
      auto r = c.future.get();
      REQUIRE(r.ok());
      answers.push_back(r->content);
    }
    CHECK(answers == std::vector<std::string>{"one", "two", "three"});
    CHECK(g->stats().sent == 3);
    CHECK(g->stats().in_flight == 0);
  }

  TEST_CASE("gateway holds calls beyond requests_per_minute until its clock allows them") {
    gateway_fixture f;
    f.server.script({test::reply("1"), test::reply("2"), test::reply("3")});
    fake_clock clock;
    llm::gateway_options options;
    options.requests_per_minute = 2;
    options.clock = clock.fn();
    options.rate_recheck = 5ms;
    auto g = f.make_gateway(options);
    pending<llm::chat_response> calls[3];
    for (int i = 0; i < 3; ++i)
      g->async_chat(mutator, ask("q" + std::to_string(i)), calls[i].callback());
    REQUIRE(calls[0].future.wait_for(5s) == std::future_status::ready);
    REQUIRE(calls[1].future.wait_for(5s) == std::future_status::ready);
    // The clock stands still, so the third call cannot have started.
    CHECK(g->stats().queued == 1);
    CHECK(calls[2].future.wait_for(0s) == std::future_status::timeout);
    CHECK(f.server.chat_requests() == 2);

    clock.ms += 29000;  // a token takes 30 s at 2 per minute
    CHECK(g->stats().queued == 1);
    clock.ms += 2000;
    REQUIRE(calls[2].future.wait_for(5s) == std::future_status::ready);
    CHECK(calls[2].future.get().ok());
    CHECK(f.server.chat_requests() == 3);
  }

  TEST_CASE("gateway serves embeddings through the cache too") {
    gateway_fixture f;
    auto g = f.make_gateway({}, &f.cache);
    auto first = g->embed(other_op, texts({"double buffering hides MTE2 latency"}));
    auto second = g->embed(other_op, texts({"double buffering hides MTE2 latency"}));
    REQUIRE(first.ok());
    REQUIRE(second.ok());
    CHECK(second->from_cache);
    CHECK(first->vectors == second->vectors);
    CHECK(f.server.embedding_requests() == 1);
  }

  TEST_CASE("gateway goes on without a cache that fails") {
    struct broken_cache final : llm::response_cache {
      aopt::result<std::optional<nlohmann::json>> get(const std::string&) override {
        return aopt::internal_error("disk on fire");
      }
      aopt::status put(const std::string&, const nlohmann::json&) override {
        return aopt::internal_error("disk still on fire");
      }
    } cache;
    gateway_fixture f;
    f.server.script({test::reply("works anyway")});
    auto g = f.make_gateway({}, &cache);
    auto r = g->chat(mutator, ask("x"));
    REQUIRE(r.ok());
    CHECK(r->content == "works anyway");
    CHECK(g->stats().cache_errors == 2);
    CHECK(g->stats().last_cache_error.find("disk still on fire") != std::string::npos);
  }

}  // TEST_SUITE
