// The bulk bytes a candidate's report carries (an output tensor after the run, an input the
// kernel changed, the data of a traced GM write): owned, as the candidate records them, or a
// view into the delivery the judge has mapped. Decoding a delivery of a few tens of MiB by
// copying it into fresh memory cost the judge more than comparing it (each new page is a fault
// on these machines), so the judge decodes views (decode_report's bulk_bytes::viewed).
//
// A view becomes owned bytes at the first change (mutable_bytes), so a view is never written
// through. Copies of a view are views of the same bytes. A view may keep what holds its bytes
// alive (adopt): the candidate delivers an output from the simulated GM it was written to.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <memory>
#include <utility>
#include <vector>

namespace aopt::sim {

class byte_block {
 public:
  byte_block() = default;
  // Owned bytes (implicit, as a std::vector<uint8_t> was before).
  byte_block(std::vector<uint8_t> bytes) : owned_(std::move(bytes)) {}  // NOLINT
  byte_block(std::initializer_list<uint8_t> bytes) : owned_(bytes) {}
  byte_block(size_t n, uint8_t value) : owned_(n, value) {}
  byte_block(const uint8_t* first, const uint8_t* last) : owned_(first, last) {}

  // REQUIRES: [data, data + size) stays valid and unchanged while the block or a copy of it is
  // used.
  static byte_block view(const uint8_t* data, size_t size) {
    byte_block b;
    b.view_ = data;
    b.view_size_ = size;
    return b;
  }

  // A view of `size` bytes at `data` inside what `holder` keeps alive; copies share it.
  static byte_block adopt(std::shared_ptr<const void> holder, const uint8_t* data, size_t size) {
    byte_block b = view(data, size);
    b.holder_ = std::move(holder);
    return b;
  }

  const uint8_t* data() const { return view_ != nullptr ? view_ : owned_.data(); }
  size_t size() const { return view_ != nullptr ? view_size_ : owned_.size(); }
  bool empty() const { return size() == 0; }
  const uint8_t* begin() const { return data(); }
  const uint8_t* end() const { return data() + size(); }
  uint8_t operator[](size_t i) const { return data()[i]; }
  bool is_view() const { return view_ != nullptr; }
  // What keeps a view's bytes alive (adopt); null for owned bytes and plain views.
  const std::shared_ptr<const void>& holder() const { return holder_; }

  // The bytes to change in place; a view is copied into owned bytes first.
  std::vector<uint8_t>& mutable_bytes() {
    if (view_ != nullptr) {
      owned_.assign(view_, view_ + view_size_);
      view_ = nullptr;
      view_size_ = 0;
      holder_.reset();
    }
    return owned_;
  }

  friend bool operator==(const byte_block& a, const byte_block& b) {
    return a.size() == b.size() && (a.empty() || std::memcmp(a.data(), b.data(), a.size()) == 0);
  }

 private:
  std::vector<uint8_t> owned_;
  const uint8_t* view_ = nullptr;
  size_t view_size_ = 0;
  std::shared_ptr<const void> holder_;
};

}  // namespace aopt::sim
