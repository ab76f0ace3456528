// Typed reads of JSON that comes from outside aopt (op.json, a msOpST-style test-case file beside
// an operator, what a package's OpDef reader prints) that never throw.
//
// nlohmann's get<>(), at() and value(key, default) throw (type_error, out_of_range) on a field of
// another type or a missing one, so a malformed file read with them becomes an exception instead
// of an error naming the field: a fuzzed op.json once made loading a package throw "type must be
// string, but is number" (issue 34). Code reading such JSON reads it through a json_fields view,
// whose every read returns a status saying which field is wrong and why:
//   "inputs[0].dtype: expected a string, got a number".
//
// A view holds a reference to its value: the value must outlive it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/status.hpp"

namespace aopt::npu {

// "a string", "a number", "an object", "an array", "a boolean", "null": how errors name a JSON
// value's type.
std::string json_type_phrase(const nlohmann::json& v);

class json_fields {
 public:
  // `path` names `value` in errors ("inputs[0]"; empty for a document's root).
  json_fields(const nlohmann::json& value, std::string path);

  const nlohmann::json& value() const { return *value_; }
  const std::string& path() const { return path_; }
  // How errors name the field `key` ("inputs[0].dtype") and the element `index` ("inputs[0]").
  std::string field(const std::string& key) const;
  std::string element(size_t index) const;

  // An error (invalid_argument) about the field `key`: "<path>.<key>: <reason>".
  status error(const std::string& key, const std::string& reason) const;
  // An error about the value itself: "<path>: <reason>".
  status error(const std::string& reason) const;

  bool is_object() const { return value_->is_object(); }
  // Whether the value is an object holding `key` (of any type).
  bool has(const std::string& key) const;
  // The field `key` of any type; null when the value is not an object or does not hold it.
  const nlohmann::json* find(const std::string& key) const;

  // The field `key` read into `out` when it has the type asked. Absent: `out` is left as it is
  // (its default), or an error "missing" when `required`. The value not an object, or the field
  // of another type: an error naming it.
  status read(const std::string& key, std::string& out, bool required = false) const;
  status read(const std::string& key, bool& out, bool required = false) const;
  status read(const std::string& key, int64_t& out, bool required = false) const;
  status read(const std::string& key, double& out, bool required = false) const;

  // The elements of the array field `key`, each a view named "<path>.<key>[i]"; absent: none
  // (or "missing" when `required`); another type: an error naming it.
  status read_elements(const std::string& key, std::vector<json_fields>& out,
                       bool required = false) const;
  // The elements of the value itself, which must be an array.
  status elements(std::vector<json_fields>& out) const;
  // The value itself must be an object.
  status expect_object() const;

 private:
  // The field `key`, or an error when the value is not an object; null when absent (then an
  // error "missing" when `required`).
  status locate(const std::string& key, bool required, const nlohmann::json*& out) const;
  status wrong_type(const std::string& key, const char* expected, const nlohmann::json& v) const;

  const nlohmann::json* value_;
  std::string path_;
};

}  // namespace aopt::npu
