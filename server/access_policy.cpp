#include "server/access_policy.hpp"

#include <openssl/crypto.h>
#include <openssl/sha.h>

namespace aopt::server {

bool constant_time_equals(std::string_view a, std::string_view b) {
  unsigned char da[SHA256_DIGEST_LENGTH];
  unsigned char db[SHA256_DIGEST_LENGTH];
  SHA256(reinterpret_cast<const unsigned char*>(a.data()), a.size(), da);
  SHA256(reinterpret_cast<const unsigned char*>(b.data()), b.size(), db);
  return CRYPTO_memcmp(da, db, SHA256_DIGEST_LENGTH) == 0;
}

bool access_policy::admits(std::string_view authorization) const {
  if (token_.empty()) return true;
  constexpr std::string_view scheme = "Bearer ";
  if (authorization.size() < scheme.size()) return false;
  // The scheme name is case-insensitive (RFC 9110 §11.1).
  for (size_t i = 0; i < scheme.size(); ++i) {
    if (std::tolower(static_cast<unsigned char>(authorization[i])) !=
        std::tolower(static_cast<unsigned char>(scheme[i]))) {
      return false;
    }
  }
  return constant_time_equals(authorization.substr(scheme.size()), token_);
}

}  // namespace aopt::server
