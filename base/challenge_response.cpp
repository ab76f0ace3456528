#include "base/challenge_response.hpp"

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/rand.h>

#include <array>
#include <string>

#include <fmt/format.h>

namespace aopt {
namespace {

std::string hex(const unsigned char* bytes, size_t n) {
  std::string out;
  out.reserve(2 * n);
  for (size_t i = 0; i < n; ++i) out += fmt::format("{:02x}", bytes[i]);
  return out;
}

}  // namespace

result<std::string> random_nonce() {
  std::array<unsigned char, 32> bytes{};
  if (RAND_bytes(bytes.data(), static_cast<int>(bytes.size())) != 1) {
    return unavailable("random_nonce: OpenSSL's RAND_bytes failed");
  }
  return hex(bytes.data(), bytes.size());
}

std::string challenge_answer(std::string_view secret, std::string_view nonce,
                             std::string_view identity) {
  std::string message;
  message.reserve(nonce.size() + identity.size());
  message.append(nonce).append(identity);
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  HMAC(EVP_sha256(), secret.data(), static_cast<int>(secret.size()),
       reinterpret_cast<const unsigned char*>(message.data()), message.size(), digest, &length);
  return hex(digest, length);
}

bool answer_matches(std::string_view answer, std::string_view secret, std::string_view nonce,
                    std::string_view identity) {
  if (secret.empty()) return false;
  const std::string expected = challenge_answer(secret, nonce, identity);
  // The length of an answer is public (64 hex digits); only its content is compared.
  if (answer.size() != expected.size()) return false;
  return CRYPTO_memcmp(answer.data(), expected.data(), expected.size()) == 0;
}

}  // namespace aopt
