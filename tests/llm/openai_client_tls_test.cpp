// openai_client over HTTPS against the stub server with a certificate made at test time.
#include <chrono>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>

#include <doctest/doctest.h>

#include "llm/openai_client.hpp"
#include "support/openai_stub_server.hpp"
#include "test_certificate.hpp"

namespace llm = aopt::llm;
namespace test = aopt::test;
using namespace std::chrono_literals;

namespace {

// A PEM file in a fresh temporary folder, removed with the object.
class temp_pem_file {
 public:
  explicit temp_pem_file(const std::string& pem) {
    std::random_device rd;
    dir_ = std::filesystem::temp_directory_path() /
           ("aopt-llm-tls-" + std::to_string(rd()) + std::to_string(rd()));
    std::filesystem::create_directories(dir_);
    std::ofstream(path()) << pem;
  }
  ~temp_pem_file() {
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
  }
  std::filesystem::path path() const { return dir_ / "ca.pem"; }

 private:
  std::filesystem::path dir_;
};

llm::client_options tls_options(const std::string& base_url) {
  llm::client_options o;
  o.base_url = base_url;
  o.model = "stub-model";
  o.api_key_env = "";
  o.max_retries = 2;
  o.backoff_initial = 10ms;
  o.backoff_max = 20ms;
  o.timeout = 10s;
  return o;
}

llm::chat_request hi() {
  llm::chat_request r;
  r.messages = {llm::user_message("hi")};
  return r;
}

}  // namespace

TEST_SUITE("llm") {
  TEST_CASE(
      "openai_client over HTTPS rejects an untrusted certificate by default and accepts it "
      "with a CA file") {
    const test::test_certificate cert = test::make_self_signed_certificate();
    test::openai_stub_server server(
        test::stub_tls_identity{cert.certificate_pem, cert.private_key_pem});
    REQUIRE(server.base_url().rfind("https://127.0.0.1:", 0) == 0);
    temp_pem_file ca(cert.certificate_pem);
    llm::http_runtime runtime;

    SUBCASE("verification is on by default and a self-signed endpoint fails, without retries") {
      auto client = llm::openai_client::make(runtime, tls_options(server.base_url()));
      REQUIRE(client.ok());
      llm::call_result<llm::chat_response> r = (*client)->chat(hi());
      REQUIRE_FALSE(r.ok());
      CHECK(r.error().kind() == llm::error_kind::connect_error);
      CHECK_MESSAGE(r.error().message().find("certificate") != std::string::npos,
                    r.error().message());
      CHECK(r.error().message().find("1 attempt") == std::string::npos);
      CHECK(server.requests() == 0);
    }

    SUBCASE("the CA file makes the same endpoint trusted") {
      server.script({test::reply("secure hello")});
      llm::client_options o = tls_options(server.base_url());
      o.ca_file = ca.path().string();
      auto client = llm::openai_client::make(runtime, o);
      REQUIRE_MESSAGE(client.ok(), client.error().to_string());
      llm::call_result<llm::chat_response> r = (*client)->chat(hi());
      REQUIRE_MESSAGE(r.ok(), r.error().to_string());
      CHECK(r->content == "secure hello");
      CHECK(server.chat_requests() == 1);
    }

    SUBCASE("a trusted certificate that names another host is rejected") {
      const test::test_certificate other =
          test::make_self_signed_certificate("DNS:example.invalid");
      test::openai_stub_server elsewhere(
          test::stub_tls_identity{other.certificate_pem, other.private_key_pem});
      temp_pem_file other_ca(other.certificate_pem);
      llm::client_options o = tls_options(elsewhere.base_url());
      o.ca_file = other_ca.path().string();
      auto client = llm::openai_client::make(runtime, o);
      REQUIRE(client.ok());
      llm::call_result<llm::chat_response> r = (*client)->chat(hi());
      REQUIRE_FALSE(r.ok());
      CHECK(r.error().kind() == llm::error_kind::connect_error);
      CHECK_MESSAGE(r.error().message().find("certificate") != std::string::npos,
                    r.error().message());
      CHECK(elsewhere.requests() == 0);
    }

    SUBCASE("verify_tls = false accepts any certificate") {
      server.script({test::reply("unverified")});
      llm::client_options o = tls_options(server.base_url());
      o.verify_tls = false;
      auto client = llm::openai_client::make(runtime, o);
      REQUIRE(client.ok());
      llm::call_result<llm::chat_response> r = (*client)->chat(hi());
      REQUIRE_MESSAGE(r.ok(), r.error().to_string());
      CHECK(r->content == "unverified");
    }

    SUBCASE("a missing CA file is refused when the client is made") {
      llm::client_options o = tls_options(server.base_url());
      o.ca_file = (ca.path().parent_path() / "absent.pem").string();
      auto client = llm::openai_client::make(runtime, o);
      REQUIRE_FALSE(client.ok());
      CHECK(client.error().code() == aopt::status_code::not_found);
      CHECK(client.error().message().find("absent.pem") != std::string::npos);
    }
  }

}  // TEST_SUITE
