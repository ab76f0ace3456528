#include "npu/protocol/json_fields.hpp"

namespace aopt::npu {

std::string json_type_phrase(const nlohmann::json& v) {
  switch (v.type()) {
    case nlohmann::json::value_t::null:
      return "null";
    case nlohmann::json::value_t::object:
      return "an object";
    case nlohmann::json::value_t::array:
      return "an array";
    case nlohmann::json::value_t::string:
      return "a string";
    case nlohmann::json::value_t::boolean:
      return "a boolean";
    case nlohmann::json::value_t::number_integer:
    case nlohmann::json::value_t::number_unsigned:
    case nlohmann::json::value_t::number_float:
      return "a number";
    case nlohmann::json::value_t::binary:
      return "binary data";
    case nlohmann::json::value_t::discarded:
      break;
  }
  return "nothing";
}

json_fields::json_fields(const nlohmann::json& value, std::string path)
    : value_(&value), path_(std::move(path)) {}

std::string json_fields::field(const std::string& key) const {
  return path_.empty() ? key : path_ + "." + key;
}

std::string json_fields::element(size_t index) const {
  return path_ + "[" + std::to_string(index) + "]";
}

status json_fields::error(const std::string& key, const std::string& reason) const {
  return invalid_argument(field(key) + ": " + reason);
}

status json_fields::error(const std::string& reason) const {
  return invalid_argument(path_.empty() ? reason : path_ + ": " + reason);
}

bool json_fields::has(const std::string& key) const {
  return value_->is_object() && value_->contains(key);
}

const nlohmann::json* json_fields::find(const std::string& key) const {
  if (!value_->is_object()) return nullptr;
  const auto it = value_->find(key);
  return it == value_->end() ? nullptr : &*it;
}

status json_fields::expect_object() const {
  if (value_->is_object()) return {};
  return error("expected an object, got " + json_type_phrase(*value_));
}

status json_fields::locate(const std::string& key, bool required,
                           const nlohmann::json*& out) const {
  AOPT_RETURN_IF_ERROR(expect_object());
  out = find(key);
  if (out == nullptr && required) return error(key, "missing");
  return {};
}

status json_fields::wrong_type(const std::string& key, const char* expected,
                               const nlohmann::json& v) const {
  return error(key, std::string("expected ") + expected + ", got " + json_type_phrase(v));
}

status json_fields::read(const std::string& key, std::string& out, bool required) const {
  const nlohmann::json* v = nullptr;
  AOPT_RETURN_IF_ERROR(locate(key, required, v));
  if (v == nullptr) return {};
  if (!v->is_string()) return wrong_type(key, "a string", *v);
  out = v->get_ref<const std::string&>();
  return {};
}

status json_fields::read(const std::string& key, bool& out, bool required) const {
  const nlohmann::json* v = nullptr;
  AOPT_RETURN_IF_ERROR(locate(key, required, v));
  if (v == nullptr) return {};
  if (!v->is_boolean()) return wrong_type(key, "true or false", *v);
  out = v->get<bool>();
  return {};
}

status json_fields::read(const std::string& key, int64_t& out, bool required) const {
  const nlohmann::json* v = nullptr;
  AOPT_RETURN_IF_ERROR(locate(key, required, v));
  if (v == nullptr) return {};
  if (!v->is_number_integer()) return wrong_type(key, "an integer", *v);
  // An unsigned number beyond int64_t's range would wrap.
  if (v->is_number_unsigned() && v->get<uint64_t>() > uint64_t{INT64_MAX}) {
    return error(key, "expected an integer of at most 2^63 - 1, got " + v->dump());
  }
  out = v->get<int64_t>();
  return {};
}

status json_fields::read(const std::string& key, double& out, bool required) const {
  const nlohmann::json* v = nullptr;
  AOPT_RETURN_IF_ERROR(locate(key, required, v));
  if (v == nullptr) return {};
  if (!v->is_number()) return wrong_type(key, "a number", *v);
  out = v->get<double>();
  return {};
}

status json_fields::read_elements(const std::string& key, std::vector<json_fields>& out,
                                  bool required) const {
  out.clear();
  const nlohmann::json* v = nullptr;
  AOPT_RETURN_IF_ERROR(locate(key, required, v));
  if (v == nullptr) return {};
  return json_fields(*v, field(key)).elements(out);
}

status json_fields::elements(std::vector<json_fields>& out) const {
  out.clear();
  if (!value_->is_array()) return error("expected an array, got " + json_type_phrase(*value_));
  out.reserve(value_->size());
  for (size_t i = 0; i < value_->size(); ++i) out.emplace_back((*value_)[i], element(i));
  return {};
}

}  // namespace aopt::npu
