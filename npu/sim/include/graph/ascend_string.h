// aopt simulator: host-side CANN API shim (clean-room, from public documentation).
// ge::AscendString: the string type of the graph APIs (names, attribute values).
#pragma once

#include <cstddef>
#include <string>

namespace ge {

class AscendString {
 public:
  AscendString() = default;
  AscendString(const char* name) : value_(name == nullptr ? "" : name) {}  // NOLINT
  AscendString(const char* name, size_t length)
      : value_(name == nullptr ? "" : std::string(name, length)) {}

  const char* GetString() const { return value_.c_str(); }
  size_t GetLength() const { return value_.size(); }

  bool operator<(const AscendString& o) const { return value_ < o.value_; }
  bool operator>(const AscendString& o) const { return value_ > o.value_; }
  bool operator<=(const AscendString& o) const { return value_ <= o.value_; }
  bool operator>=(const AscendString& o) const { return value_ >= o.value_; }
  bool operator==(const AscendString& o) const { return value_ == o.value_; }
  bool operator!=(const AscendString& o) const { return value_ != o.value_; }

 private:
  std::string value_;
};

}  // namespace ge
