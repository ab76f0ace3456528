#include "npu/cann/csv_table.hpp"

#include <fmt/format.h>

#include "base/text_trim.hpp"

namespace aopt::npu {

result<csv_table> csv_table::parse(const std::string& text, const std::string& source) {
  csv_table table;
  std::vector<std::vector<std::string>> records;
  std::vector<std::string> record;
  std::string field;
  size_t line = 1;
  size_t i = 0;
  if (text.compare(0, 3, "\xEF\xBB\xBF") == 0) i = 3;
  auto error = [&](const std::string& what) {
    return invalid_argument(fmt::format("{}:{}: {}", source, line, what));
  };
  // A record is complete at a line break outside quotes; blank lines are skipped.
  auto end_record = [&] {
    record.push_back(std::move(field));
    field.clear();
    if (!(record.size() == 1 && record[0].empty())) records.push_back(std::move(record));
    record.clear();
  };
  bool at_field_start = true;
  while (i < text.size()) {
    const char c = text[i];
    if (at_field_start && c == '"') {
      // A quoted field: up to the closing quote; "" is one quote; line breaks are data.
      const size_t opened_at = line;
      ++i;
      bool closed = false;
      while (i < text.size()) {
        if (text[i] == '"') {
          if (i + 1 < text.size() && text[i + 1] == '"') {
            field += '"';
            i += 2;
            continue;
          }
          ++i;
          closed = true;
          break;
        }
        if (text[i] == '\n') ++line;
        field += text[i++];
      }
      if (!closed) {
        line = opened_at;
        return error("unterminated quoted field");
      }
      if (i < text.size() && text[i] != ',' && text[i] != '\n' && text[i] != '\r') {
        return error("text after the closing quote of a field");
      }
      at_field_start = false;
      continue;
    }
    at_field_start = false;
    if (c == ',') {
      record.push_back(std::move(field));
      field.clear();
      at_field_start = true;
      ++i;
    } else if (c == '\r' && i + 1 < text.size() && text[i + 1] == '\n') {
      end_record();
      at_field_start = true;
      ++line;
      i += 2;
    } else if (c == '\n') {
      end_record();
      at_field_start = true;
      ++line;
      ++i;
    } else if (c == '"') {
      return error("a quote inside an unquoted field");
    } else {
      field += c;
      ++i;
    }
  }
  if (!field.empty() || !record.empty()) end_record();
  if (records.empty()) return invalid_argument(source + ": empty (no header line)");
  for (const auto& name : records.front()) table.header_.push_back(trim(name));
  for (size_t r = 1; r < records.size(); ++r) {
    if (records[r].size() != table.header_.size()) {
      return invalid_argument(fmt::format("{}: record {} has {} fields, the header has {}", source,
                                          r + 1, records[r].size(), table.header_.size()));
    }
    table.rows_.push_back(std::move(records[r]));
  }
  return table;
}

size_t csv_table::column(const std::vector<std::string>& names) const {
  for (const auto& name : names) {
    for (size_t i = 0; i < header_.size(); ++i) {
      if (header_[i] == name) return i;
    }
  }
  return npos;
}

}  // namespace aopt::npu
