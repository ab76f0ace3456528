#include "base/challenge_response.hpp"

#include <doctest/doctest.h>

TEST_CASE("challenge_answer is HMAC-SHA256 of the nonce followed by the identity") {
  // The well-known HMAC-SHA256 example: key "key", message "The quick brown fox jumps over the
  // lazy dog", split here into nonce and identity.
  CHECK(aopt::challenge_answer("key", "The quick brown fox ", "jumps over the lazy dog") ==
        "f7bc83f430538424b13298e6aa6fb143ef4d59a14946175997479dbc2d1a3cd8");
}

TEST_CASE("answer_matches accepts only the answer of the same secret, nonce and identity") {
  const std::string nonce = *aopt::random_nonce();
  const std::string good = aopt::challenge_answer("s3cret", nonce, "host:42");
  CHECK(aopt::answer_matches(good, "s3cret", nonce, "host:42"));
  CHECK_FALSE(aopt::answer_matches(good, "s3creT", nonce, "host:42"));
  CHECK_FALSE(aopt::answer_matches(good, "s3cret", *aopt::random_nonce(), "host:42"));
  CHECK_FALSE(aopt::answer_matches(good, "s3cret", nonce, "host:43"));
  CHECK_FALSE(aopt::answer_matches(good.substr(0, 63), "s3cret", nonce, "host:42"));
  CHECK_FALSE(aopt::answer_matches("", "s3cret", nonce, "host:42"));
  // An empty secret authenticates no one, not even with its own answer.
  CHECK_FALSE(aopt::answer_matches(aopt::challenge_answer("", nonce, "h"), "", nonce, "h"));
}

TEST_CASE("random_nonce gives 64 hex digits, different each time") {
  const aopt::result<std::string> a = aopt::random_nonce();
  const aopt::result<std::string> b = aopt::random_nonce();
  REQUIRE(a.ok());
  REQUIRE(b.ok());
  CHECK(a->size() == 64);
  CHECK(a->find_first_not_of("0123456789abcdef") == std::string::npos);
  CHECK(*a != *b);
}
