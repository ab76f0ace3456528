#include "gm_guard.hpp"

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <system_error>
#include <utility>

namespace aopt::sim {
namespace {

// The process's protection key for guarded GM, allocated once, or -1 where the CPU or kernel has
// none (then the guard changes the pages' protection instead). A key's access is a per-thread
// register (PKRU) the runtime writes without a system call, so a window costs a few cycles
// rather than two mprotect calls per guarded buffer.
int guard_key() {
  static const int key = ::pkey_alloc(0, 0);
  return key;
}

}  // namespace

gm_guard::gm_guard(std::vector<span> spans, mechanism how)
    : spans_(std::move(spans)), key_(how == mechanism::pages ? -1 : guard_key()) {
  spans_.erase(std::remove_if(spans_.begin(), spans_.end(),
                              [](const span& s) { return s.begin == nullptr || s.bytes == 0; }),
               spans_.end());
  const bool all = key_ >= 0 ? tag(key_) : protect(PROT_NONE);
  if (!all) {
    const int error = errno;
    release();
    throw std::system_error(error, std::generic_category(), "protecting simulated GM");
  }
}

gm_guard::~gm_guard() {
  release();
}

void gm_guard::kernel_starts() const noexcept {
  if (key_ >= 0) ::pkey_set(key_, PKEY_DISABLE_ACCESS);
}

void gm_guard::kernel_ended() const noexcept {
  if (key_ >= 0) ::pkey_set(key_, 0);
}

void gm_guard::open() {
  if (depth_++ != 0) return;
  if (key_ >= 0) {
    ::pkey_set(key_, 0);
  } else if (!protect(PROT_READ | PROT_WRITE)) {
    throw std::system_error(errno, std::generic_category(), "opening simulated GM");
  }
}

void gm_guard::close() noexcept {
  if (--depth_ != 0) return;
  // Taking access away from a whole mapping of our own does not fail (and a destructor's caller
  // could not act on it).
  if (key_ >= 0)
    ::pkey_set(key_, PKEY_DISABLE_ACCESS);
  else
    protect(PROT_NONE);
}

bool gm_guard::protect(int access) const noexcept {
  bool all = true;
  for (const span& s : spans_) all = ::mprotect(s.begin, s.bytes, access) == 0 && all;
  return all;
}

bool gm_guard::tag(int key) const noexcept {
  bool all = true;
  for (const span& s : spans_)
    all = ::pkey_mprotect(s.begin, s.bytes, PROT_READ | PROT_WRITE, key) == 0 && all;
  return all;
}

void gm_guard::release() const noexcept {
  if (key_ >= 0)
    tag(0);  // the default key, which every thread may use
  else
    protect(PROT_READ | PROT_WRITE);
}

}  // namespace aopt::sim
