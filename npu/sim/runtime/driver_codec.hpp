// Little-endian byte encoding for what the candidate and reference processes hand the trusted
// checker (driver_report.hpp, driver_expected.hpp). The reader checks every length against what
// is left, so a truncated or hostile delivery fails with malformed_delivery naming the field
// instead of reading past the end or allocating without bound.
#pragma once

#include <cstdint>
#include <cstring>
#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

namespace aopt::sim {

// A delivery that cannot be decoded; what() names the field.
class malformed_delivery : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Appends values to a text, or streams them: with a sink, the bytes go to it in order whenever
// `flush_at` of them are buffered, and a large block (an operator's output) goes straight from
// where it is, so a delivery of hundreds of MiB is never copied whole into memory.
class byte_writer {
 public:
  using sink = std::function<bool(const char* data, size_t size)>;

  byte_writer() = default;
  explicit byte_writer(sink to, size_t flush_at = size_t{1} << 20)
      : sink_(std::move(to)), flush_at_(flush_at) {}

  template <typename T>
  void put(T v) {
    static_assert(std::is_trivially_copyable<T>::value, "plain values only");
    char bytes[sizeof(T)];
    std::memcpy(bytes, &v, sizeof(T));
    out_.append(bytes, sizeof(T));
    if (sink_ && out_.size() >= flush_at_) flush();
  }
  void put_bytes(const void* p, size_t n) {
    put<uint64_t>(n);
    put_raw(static_cast<const char*>(p), n);
  }
  void put_string(const std::string& s) { put_bytes(s.data(), s.size()); }
  void put_raw(const char* p, size_t n) {
    if (sink_ && out_.size() + n >= flush_at_) {
      flush();
      if (n >= flush_at_) {
        send(p, n);
        return;
      }
    }
    out_.append(p, n);
  }
  void reserve(size_t n) { out_.reserve(n); }
  // Zero bytes up to the next multiple of `alignment` from the start.
  void pad_to(size_t alignment) {
    const size_t at = sent_ + out_.size();
    out_.resize(out_.size() + (alignment - at % alignment) % alignment);
  }
  // Sends what is buffered; false once the sink refused any bytes (a streaming writer).
  bool flush() {
    if (sink_ && !out_.empty()) {
      send(out_.data(), out_.size());
      out_.clear();
    }
    return ok_;
  }

  // Everything put, without a sink.
  std::string& text() { return out_; }

 private:
  void send(const char* p, size_t n) {
    if (ok_) ok_ = sink_(p, n);
    sent_ += n;
  }
  sink sink_;
  size_t flush_at_ = 0;
  size_t sent_ = 0;
  bool ok_ = true;
  std::string out_;
};

class byte_reader {
 public:
  byte_reader(const char* data, size_t size) : begin_(data), p_(data), end_(data + size) {}

  template <typename T>
  T get(const char* field) {
    need(sizeof(T), field);
    T v;
    std::memcpy(&v, p_, sizeof(T));
    p_ += sizeof(T);
    return v;
  }
  // A count of items of at least `item_bytes` each: never more than the bytes left could hold.
  uint64_t count(const char* field, size_t item_bytes) {
    const auto n = get<uint64_t>(field);
    if (item_bytes != 0 && n > remaining() / item_bytes) {
      throw malformed_delivery(std::string(field) + ": " + std::to_string(n) +
                               " items announced, more than the delivery holds");
    }
    return n;
  }
  // `n` values of T, copied at once (the delivery is in this machine's layout).
  template <typename T>
  void get_array(T* out, size_t n, const char* field) {
    if (n > remaining() / sizeof(T)) {
      throw malformed_delivery(std::string(field) + ": the delivery ends early (truncated)");
    }
    if (n != 0) std::memcpy(out, p_, n * sizeof(T));
    p_ += n * sizeof(T);
  }
  // Passes over the padding byte_writer::pad_to wrote.
  void skip_to(size_t alignment, const char* field) {
    const size_t at = static_cast<size_t>(p_ - begin_);
    const size_t padding = (alignment - at % alignment) % alignment;
    need(padding, field);
    p_ += padding;
  }
  // `n` values of T where they are, without a copy. REQUIRES: the bytes stay mapped while the
  // pointer is used. Throws malformed_delivery when they are not aligned for T.
  template <typename T>
  const T* view_array(size_t n, const char* field) {
    if (n > remaining() / sizeof(T)) {
      throw malformed_delivery(std::string(field) + ": the delivery ends early (truncated)");
    }
    if (reinterpret_cast<uintptr_t>(p_) % alignof(T) != 0) {
      throw malformed_delivery(std::string(field) + ": not aligned");
    }
    const T* values = reinterpret_cast<const T*>(p_);
    p_ += n * sizeof(T);
    return values;
  }
  // Passes over `n` values of T without reading them.
  template <typename T>
  void skip_array(size_t n, const char* field) {
    if (n > remaining() / sizeof(T)) {
      throw malformed_delivery(std::string(field) + ": the delivery ends early (truncated)");
    }
    p_ += n * sizeof(T);
  }
  std::string get_string(const char* field) {
    const uint64_t n = count(field, 1);
    std::string s(p_, n);
    p_ += n;
    return s;
  }
  std::vector<uint8_t> get_bytes(const char* field) {
    const uint64_t n = count(field, 1);
    std::vector<uint8_t> v(reinterpret_cast<const uint8_t*>(p_),
                           reinterpret_cast<const uint8_t*>(p_) + n);
    p_ += n;
    return v;
  }
  void expect(const char* magic, size_t n, const char* field) {
    need(n, field);
    if (std::memcmp(p_, magic, n) != 0) throw malformed_delivery(std::string(field) + ": missing");
    p_ += n;
  }
  size_t remaining() const { return static_cast<size_t>(end_ - p_); }

 private:
  void need(size_t n, const char* field) const {
    if (remaining() < n) {
      throw malformed_delivery(std::string(field) + ": the delivery ends early (truncated)");
    }
  }
  const char* begin_;
  const char* p_;
  const char* end_;
};

// FNV-1a over bytes: the fingerprint of an input tensor (not a security hash: it tells an honest
// kernel that overwrote its input from one that did not).
uint64_t fingerprint(const uint8_t* data, size_t n);

}  // namespace aopt::sim
