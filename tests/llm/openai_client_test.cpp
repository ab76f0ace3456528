// openai_client against the OpenAI stub server on loopback: answers, retries, faults, secrets.
#include <chrono>
#include <cstdlib>
#include <functional>
#include <future>
#include <memory>
#include <string>

#include <doctest/doctest.h>
#include <boost/asio/ip/tcp.hpp>

#include "llm/openai_client.hpp"
#include "support/openai_stub_server.hpp"

namespace llm = aopt::llm;
namespace test = aopt::test;
using namespace std::chrono_literals;

namespace {

llm::client_options options_for(const std::string& base_url) {
  llm::client_options o;
  o.base_url = base_url;
  o.model = "stub-model";
  o.api_key_env = "";
  o.backoff_initial = 10ms;
  o.backoff_max = 40ms;
  o.connect_timeout = 2s;
  o.timeout = 10s;
  o.max_retries = 3;
  return o;
}

// Member order is teardown order reversed: the client goes first (cancelling its calls), then
// the runtime, then the server.
struct client_fixture {
  explicit client_fixture(const std::function<void(llm::client_options&)>& adjust = {}) {
    llm::client_options o = options_for(server.base_url());
    if (adjust) adjust(o);
    client = make(std::move(o));
  }

  std::unique_ptr<llm::openai_client> make(llm::client_options o) {
    auto made = llm::openai_client::make(runtime, std::move(o));
    REQUIRE_MESSAGE(made.ok(), made.error().to_string());
    return std::move(*made);
  }

  test::openai_stub_server server;
  llm::http_runtime runtime;
  std::unique_ptr<llm::openai_client> client;
};

llm::chat_request hello() {
  llm::chat_request r;
  r.messages = {llm::user_message("say hello")};
  return r;
}

llm::embedding_request embedding_texts(std::vector<std::string> inputs) {
  llm::embedding_request r;
  r.inputs = std::move(inputs);
  return r;
}

uint16_t closed_port() {
  boost::asio::io_context io;
  boost::asio::ip::tcp::acceptor acceptor(io, {boost::asio::ip::make_address("127.0.0.1"), 0});
  return acceptor.local_endpoint().port();  // closed when the acceptor goes away
}

}  // namespace

TEST_SUITE("llm") {
  TEST_CASE("openai_client returns the first choice and the usage the endpoint reported") {
    client_fixture f;
    f.server.script({test::reply("hello there", 12, 3)});
    llm::call_result<llm::chat_response> r = f.client->chat(hello());
    REQUIRE_MESSAGE(r.ok(), r.error().to_string());
    CHECK(r->content == "hello there");
    CHECK(r->finish_reason == "stop");
    CHECK(r->model == "stub-model");
    CHECK(r->usage.prompt_tokens == 12);
    CHECK(r->usage.completion_tokens == 3);
    CHECK(r->attempts == 1);
    CHECK_FALSE(r->from_cache);
    CHECK(f.server.chat_requests() == 1);
  }

  TEST_CASE("openai_client sends model, messages, parameters and extra headers") {
    client_fixture f([&](llm::client_options& o) {
      o.temperature = 0.25;
      o.max_tokens = 77;
      o.extra_headers = {{"X-Title", "aopt-test"}};
    });
    f.server.script({test::reply("ok")});
    llm::chat_request request;
    request.messages = {llm::system_message("be brief"), llm::user_message("hi")};
    request.seed = 1234;
    REQUIRE(f.client->chat(request).ok());
    const auto seen = f.server.received();
    REQUIRE(seen.size() == 1);
    CHECK(seen[0].target == "/v1/chat/completions");
    CHECK(seen[0].headers.at("x-title") == "aopt-test");
    CHECK(seen[0].headers.at("content-type") == "application/json");
    CHECK(seen[0].headers.count("authorization") == 0);
    const auto& body = seen[0].body;
    CHECK(body["model"] == "stub-model");
    CHECK(body["temperature"] == 0.25);
    CHECK(body["max_tokens"] == 77);
    CHECK(body["seed"] == 1234);
    REQUIRE(body["messages"].size() == 2);
    CHECK(body["messages"][0]["role"] == "system");
    CHECK(body["messages"][1]["content"] == "hi");
  }

  TEST_CASE("openai_client returns one embedding per input, in input order") {
    client_fixture f([&](llm::client_options& o) { o.embedding_model = "stub-embed"; });
    llm::call_result<llm::embedding_response> r = f.client->embed(
        embedding_texts({"mte2 bound copy", "vector bound compute", "mte2 bound copy"}));
    REQUIRE_MESSAGE(r.ok(), r.error().to_string());
    REQUIRE(r->vectors.size() == 3);
    CHECK(r->vectors[0].size() == 64);
    CHECK(r->vectors[0] == r->vectors[2]);
    CHECK(r->vectors[0] != r->vectors[1]);
    CHECK(r->usage.prompt_tokens == 9);
    CHECK(f.server.received()[0].target == "/v1/embeddings");
    CHECK(f.server.received()[0].body["model"] == "stub-embed");
  }

  TEST_CASE("openai_client retries a 429 after the delay Retry-After asks for") {
    client_fixture f;
    f.server.script({test::fault_429(1), test::reply("finally")});
    const auto start = std::chrono::steady_clock::now();
    llm::call_result<llm::chat_response> r = f.client->chat(hello());
    const auto elapsed = std::chrono::steady_clock::now() - start;
    REQUIRE_MESSAGE(r.ok(), r.error().to_string());
    CHECK(r->content == "finally");
    CHECK(r->attempts == 2);
    CHECK(f.server.chat_requests() == 2);
    CHECK(elapsed >= 1s);
    const auto seen = f.server.received();
    REQUIRE(seen.size() == 2);
    CHECK(seen[1].received_at - seen[0].received_at >= 1s);
  }

  TEST_CASE("openai_client reports http_429 once the retries are used up") {
    client_fixture f([&](llm::client_options& o) { o.max_retries = 1; });
    f.server.script({test::fault_429(0), test::fault_429(0), test::reply("never")});
    llm::call_result<llm::chat_response> r = f.client->chat(hello());
    REQUIRE_FALSE(r.ok());
    CHECK(r.error().kind() == llm::error_kind::http_429);
    CHECK(r.error().code() == aopt::status_code::unavailable);
    CHECK(r.error().message().find("http_429") != std::string::npos);
    CHECK(r.error().message().find("2 attempts") != std::string::npos);
    CHECK(f.server.chat_requests() == 2);
  }

  TEST_CASE("openai_client retries a 500 and then succeeds") {
    client_fixture f;
    f.server.script({test::fault_500(), test::fault_500(), test::reply("recovered")});
    llm::call_result<llm::chat_response> r = f.client->chat(hello());
    REQUIRE_MESSAGE(r.ok(), r.error().to_string());
    CHECK(r->content == "recovered");
    CHECK(r->attempts == 3);
    CHECK(f.server.chat_requests() == 3);
  }

  TEST_CASE("openai_client gives up on 5xx after max_retries with http_5xx") {
    client_fixture f;  // max_retries = 3
    f.server.script({test::fault_500(), test::fault_500(), test::fault_status(503),
                     test::fault_500(), test::reply("too late")});
    llm::call_result<llm::chat_response> r = f.client->chat(hello());
    REQUIRE_FALSE(r.ok());
    CHECK(r.error().kind() == llm::error_kind::http_5xx);
    CHECK(r.error().message().find("HTTP 500") != std::string::npos);
    CHECK(f.server.chat_requests() == 4);
    CHECK(f.server.scripted_left() == 1);
  }

  TEST_CASE("openai_client does not retry a 400 and reports the endpoint's message") {
    client_fixture f;
    f.server.script({test::fault_status(400, R"({"error":{"message":"unknown model 'x'"}})"),
                     test::reply("not reached")});
    llm::call_result<llm::chat_response> r = f.client->chat(hello());
    REQUIRE_FALSE(r.ok());
    CHECK(r.error().kind() == llm::error_kind::http_4xx);
    CHECK(r.error().message().find("unknown model 'x'") != std::string::npos);
    CHECK(r.error().message().find("/v1/chat/completions") != std::string::npos);
    CHECK(f.server.chat_requests() == 1);
  }

  TEST_CASE("openai_client retries a connection dropped before the answer") {
    client_fixture f;
    f.server.script({test::drop_connection(), test::reply("second time")});
    llm::call_result<llm::chat_response> r = f.client->chat(hello());
    REQUIRE_MESSAGE(r.ok(), r.error().to_string());
    CHECK(r->content == "second time");
    CHECK(f.server.chat_requests() == 2);
  }

  TEST_CASE("openai_client reports connect_error after its retries when nothing listens") {
    llm::http_runtime runtime;
    llm::client_options o =
        options_for("http://127.0.0.1:" + std::to_string(closed_port()) + "/v1");
    o.max_retries = 2;
    auto client = llm::openai_client::make(runtime, o);
    REQUIRE(client.ok());
    llm::call_result<llm::chat_response> r = (*client)->chat(hello());
    REQUIRE_FALSE(r.ok());
    CHECK(r.error().kind() == llm::error_kind::connect_error);
    CHECK(r.error().code() == aopt::status_code::unavailable);
    CHECK(r.error().message().find("3 attempts") != std::string::npos);
  }

  TEST_CASE(
      "openai_client times out on a stalled connection within its bounds and does not retry") {
    client_fixture f([&](llm::client_options& o) { o.timeout = 500ms; });
    f.server.script({test::stall(), test::reply("not reached")});
    const auto start = std::chrono::steady_clock::now();
    llm::call_result<llm::chat_response> r = f.client->chat(hello());
    const auto elapsed = std::chrono::steady_clock::now() - start;
    REQUIRE_FALSE(r.ok());
    CHECK(r.error().kind() == llm::error_kind::timeout);
    CHECK(r.error().code() == aopt::status_code::deadline_exceeded);
    CHECK(elapsed >= 500ms);
    CHECK(elapsed < 5s);
    CHECK(f.server.chat_requests() == 1);
  }

  TEST_CASE("openai_client classifies unusable answers") {
    client_fixture f;
    SUBCASE("a body that is not JSON is malformed_body") {
      f.server.script({test::malformed_body()});
      llm::call_result<llm::chat_response> r = f.client->chat(hello());
      REQUIRE_FALSE(r.ok());
      CHECK(r.error().kind() == llm::error_kind::malformed_body);
    }
    SUBCASE("an answer without choices is empty_choice") {
      f.server.script({test::empty_choices()});
      llm::call_result<llm::chat_response> r = f.client->chat(hello());
      REQUIRE_FALSE(r.ok());
      CHECK(r.error().kind() == llm::error_kind::empty_choice);
    }
    SUBCASE("finish_reason length is truncated and keeps the billed tokens") {
      f.server.script({test::truncated("int main() {", 30, 8)});
      llm::call_result<llm::chat_response> r = f.client->chat(hello());
      REQUIRE_FALSE(r.ok());
      CHECK(r.error().kind() == llm::error_kind::truncated);
      CHECK(r.error().billed().prompt_tokens == 30);
      CHECK(r.error().billed().completion_tokens == 8);
    }
    CHECK(f.server.chat_requests() == 1);  // none of them is retried
  }

  TEST_CASE("openai_client sends the API key as a bearer token and never puts it in an error") {
    const std::string key = "sk-aopt-test-5f3c9e1d7a";
    REQUIRE(setenv("AOPT_LLM_TEST_KEY", key.c_str(), 1) == 0);
    client_fixture f([&](llm::client_options& o) {
      o.api_key_env = "AOPT_LLM_TEST_KEY";
      o.max_retries = 0;
      o.timeout = 300ms;
    });
    CHECK(f.client->has_api_key());

    test::stub_action echo = test::malformed_body();
    echo.body = "not json, but it echoes Bearer " + key;
    f.server.script({test::reply("ok"),
                     test::fault_status(401, R"({"error":{"message":"bad key )" + key + "\"}}"),
                     test::fault_500(), echo, test::stall()});
    REQUIRE(f.client->chat(hello()).ok());
    CHECK(f.server.received()[0].headers.at("authorization") == "Bearer " + key);

    std::vector<llm::call_result<llm::chat_response>> failures;
    for (int i = 0; i < 4; ++i) failures.push_back(f.client->chat(hello()));
    llm::client_options refused = f.client->options();
    refused.base_url = "http://127.0.0.1:" + std::to_string(closed_port()) + "/v1";
    auto other = llm::openai_client::make(f.runtime, refused);
    REQUIRE(other.ok());
    failures.push_back((*other)->chat(hello()));

    const llm::error_kind expected[] = {llm::error_kind::http_4xx, llm::error_kind::http_5xx,
                                        llm::error_kind::malformed_body, llm::error_kind::timeout,
                                        llm::error_kind::connect_error};
    REQUIRE(failures.size() == 5);
    for (size_t i = 0; i < failures.size(); ++i) {
      REQUIRE_FALSE(failures[i].ok());
      CHECK(failures[i].error().kind() == expected[i]);
      CHECK_MESSAGE(failures[i].error().to_string().find(key) == std::string::npos,
                    failures[i].error().to_string());
    }
    CHECK(failures[0].error().message().find("[redacted]") != std::string::npos);
    unsetenv("AOPT_LLM_TEST_KEY");
  }

  TEST_CASE("openai_client explains a 401 when the API key variable is unset") {
    unsetenv("AOPT_LLM_TEST_UNSET_KEY");
    client_fixture f([&](llm::client_options& o) { o.api_key_env = "AOPT_LLM_TEST_UNSET_KEY"; });
    CHECK_FALSE(f.client->has_api_key());
    f.server.script({test::fault_status(401)});
    llm::call_result<llm::chat_response> r = f.client->chat(hello());
    REQUIRE_FALSE(r.ok());
    CHECK(r.error().message().find("AOPT_LLM_TEST_UNSET_KEY is not set") != std::string::npos);
  }

  TEST_CASE("openai_client refuses a request without a model, without calling the endpoint") {
    client_fixture f([&](llm::client_options& o) { o.model = ""; });
    llm::call_result<llm::chat_response> r = f.client->chat(hello());
    REQUIRE_FALSE(r.ok());
    CHECK(r.error().kind() == llm::error_kind::invalid_request);
    CHECK(f.server.requests() == 0);
    llm::chat_request named = hello();
    named.model = "named-model";
    f.server.script({test::reply("ok")});
    CHECK(f.client->chat(named).ok());
    CHECK(f.server.received()[0].body["model"] == "named-model");
  }

  TEST_CASE("openai_client refuses a blocking call made on a runtime thread") {
    client_fixture f;
    f.server.script({test::reply("outer")});
    std::promise<llm::call_result<llm::chat_response>> inner;
    f.client->async_chat(hello(), [&](llm::call_result<llm::chat_response>) {
      inner.set_value(f.client->chat(hello()));
    });
    llm::call_result<llm::chat_response> r = inner.get_future().get();
    REQUIRE_FALSE(r.ok());
    CHECK(r.error().kind() == llm::error_kind::invalid_request);
  }

  TEST_CASE("openai_client cancels its calls in flight when destroyed") {
    client_fixture f;
    f.server.script({test::stall()});
    std::promise<llm::call_result<llm::chat_response>> done;
    f.client->async_chat(
        hello(), [&](llm::call_result<llm::chat_response> r) { done.set_value(std::move(r)); });
    REQUIRE(f.server.wait_for_requests(1, 5s));
    f.client.reset();
    auto future = done.get_future();
    REQUIRE(future.wait_for(5s) == std::future_status::ready);
    llm::call_result<llm::chat_response> r = future.get();
    REQUIRE_FALSE(r.ok());
    CHECK(r.error().kind() == llm::error_kind::cancelled);
  }

  TEST_CASE("openai_client refuses a bad base URL") {
    llm::http_runtime runtime;
    llm::client_options o;
    o.base_url = "ftp://example.com/v1";
    auto client = llm::openai_client::make(runtime, o);
    REQUIRE_FALSE(client.ok());
    CHECK(client.error().code() == aopt::status_code::invalid_argument);
    CHECK(client.error().message().find("http:// or https://") != std::string::npos);
  }

}  // TEST_SUITE
