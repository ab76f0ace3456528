#include "base/content_hash.hpp"

#include <cstdint>
#include <new>

#include <xxhash.h>

namespace aopt {

struct content_hasher::state {
  XXH3_state_t* xxh = XXH3_createState();
  state() {
    if (xxh == nullptr) throw std::bad_alloc();
    XXH3_128bits_reset(xxh);
  }
  ~state() { XXH3_freeState(xxh); }
  state(const state&) = delete;
  state& operator=(const state&) = delete;
};

content_hasher::content_hasher() : state_(std::make_unique<state>()) {}
content_hasher::~content_hasher() = default;
content_hasher::content_hasher(content_hasher&&) noexcept = default;
content_hasher& content_hasher::operator=(content_hasher&&) noexcept = default;

content_hasher& content_hasher::add(std::string_view part) {
  unsigned char length[8];
  auto n = static_cast<uint64_t>(part.size());
  for (int i = 0; i < 8; ++i) length[i] = static_cast<unsigned char>(n >> (8 * i));
  XXH3_128bits_update(state_->xxh, length, sizeof length);
  XXH3_128bits_update(state_->xxh, part.data(), part.size());
  return *this;
}

std::string content_hasher::hex() const {
  XXH128_canonical_t canonical;
  XXH128_canonicalFromHash(&canonical, XXH3_128bits_digest(state_->xxh));
  static constexpr char digits[] = "0123456789abcdef";
  std::string out;
  out.reserve(2 * sizeof canonical.digest);
  for (unsigned char byte : canonical.digest) {
    out += digits[byte >> 4];
    out += digits[byte & 0xf];
  }
  return out;
}

std::string content_hash(std::initializer_list<std::string_view> parts) {
  content_hasher h;
  for (auto part : parts) h.add(part);
  return h.hex();
}

std::string content_hash(const std::vector<std::string>& parts) {
  content_hasher h;
  for (const auto& part : parts) h.add(part);
  return h.hex();
}

}  // namespace aopt
