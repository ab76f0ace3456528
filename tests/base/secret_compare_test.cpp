#include <doctest/doctest.h>

#include "base/secret_compare.hpp"

TEST_CASE("secret_matches accepts the same secret only, and never an empty expected one") {
  CHECK(aopt::secret_matches("s3cret-token", "s3cret-token"));
  CHECK_FALSE(aopt::secret_matches("s3cret-tokeN", "s3cret-token"));
  CHECK_FALSE(aopt::secret_matches("s3cret", "s3cret-token"));
  CHECK_FALSE(aopt::secret_matches("s3cret-token-and-more", "s3cret-token"));
  CHECK_FALSE(aopt::secret_matches("", ""));
  CHECK_FALSE(aopt::secret_matches("anything", ""));
}
