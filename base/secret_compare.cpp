#include "base/secret_compare.hpp"

#include <openssl/crypto.h>
#include <openssl/sha.h>

namespace aopt {

bool secret_matches(std::string_view presented, std::string_view expected) {
  unsigned char a[SHA256_DIGEST_LENGTH];
  unsigned char b[SHA256_DIGEST_LENGTH];
  SHA256(reinterpret_cast<const unsigned char*>(presented.data()), presented.size(), a);
  SHA256(reinterpret_cast<const unsigned char*>(expected.data()), expected.size(), b);
  const bool equal = CRYPTO_memcmp(a, b, sizeof a) == 0;
  return equal && !expected.empty();
}

}  // namespace aopt
