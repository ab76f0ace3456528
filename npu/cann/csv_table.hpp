// A CSV table as msprof writes it: RFC 4180 records (fields separated by commas, records by CRLF
// or LF, fields optionally enclosed in double quotes, a quote inside a quoted field doubled),
// the first record being the header. No library in aopt's stack reads CSV, so this is the one
// small splitter aopt has; it reads text only and knows nothing about msprof.
//
// Thread-safety: value type.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "base/status.hpp"

namespace aopt::npu {

class csv_table {
 public:
  // Splits `text` into records. Errors (invalid_argument, naming `source` and the line): a quote
  // inside an unquoted field, text after a closing quote, an unterminated quoted field, a record
  // whose field count differs from the header's. A final empty line and a UTF-8 byte-order mark
  // are ignored; blank lines between records are skipped.
  static result<csv_table> parse(const std::string& text, const std::string& source);

  const std::vector<std::string>& header() const { return header_; }
  const std::vector<std::vector<std::string>>& rows() const { return rows_; }

  // Index of the first header field equal to one of `names` (in the order given, after trimming
  // spaces around header fields), or npos.
  size_t column(const std::vector<std::string>& names) const;
  static constexpr size_t npos = static_cast<size_t>(-1);

 private:
  std::vector<std::string> header_;
  std::vector<std::vector<std::string>> rows_;
};

}  // namespace aopt::npu
