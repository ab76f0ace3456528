#include "npu/optest_case.hpp"

#include <algorithm>
#include <fstream>
#include <vector>

namespace aopt::npu {

namespace fs = std::filesystem;

namespace {

// A field that may be a value or a list of alternatives: the first. A shape ([8, 16]) and a
// range ([-1, 1]) are lists of numbers, not of alternatives.
const nlohmann::json& first_alternative(const nlohmann::json& v) {
  return v.is_array() && !v.empty() && !v[0].is_number() && !v[0].is_array() ? v[0] : v;
}

nlohmann::json desc_field(const nlohmann::json& desc, const char* key) {
  return desc.is_object() ? desc.value(key, nlohmann::json()) : nlohmann::json();
}

}  // namespace

optest_case first_optest_case(const fs::path& package_dir) {
  std::error_code ec;
  std::vector<fs::path> candidates;
  for (fs::directory_iterator it(package_dir, ec), end; !ec && it != end; it.increment(ec)) {
    if (it->path().extension() == ".json" && it->path().filename() != "op.json" &&
        it->is_regular_file(ec) && !it->is_symlink(ec)) {
      candidates.push_back(it->path());
    }
  }
  std::sort(candidates.begin(), candidates.end());
  for (const fs::path& file : candidates) {
    std::ifstream in(file);
    nlohmann::json cases = nlohmann::json::parse(in, nullptr, false);
    if (!cases.is_array() || cases.empty() || !cases[0].is_object()) continue;
    const nlohmann::json& c = cases[0];
    if (!c.contains("input_desc") || !c["input_desc"].is_array()) continue;
    const nlohmann::json name = c.value("case_name", nlohmann::json("1"));
    return {c, file.filename().string() + " case " +
                   (name.is_string() ? name.get<std::string>() : name.dump())};
  }
  return {};
}

std::string optest_dtype(const nlohmann::json& desc) {
  const nlohmann::json type = desc_field(desc, "type");
  const nlohmann::json& t = first_alternative(type);
  if (!t.is_string()) return "";
  const std::string name = t.get<std::string>();
  if (name == "float" || name == "float32") return "float32";
  if (name == "bf16") return "bfloat16";
  for (const char* known :
       {"float16", "bfloat16", "int8", "uint8", "int16", "int32", "int64", "bool"}) {
    if (name == known) return known;
  }
  return "";
}

nlohmann::json optest_shape(const nlohmann::json& desc) {
  nlohmann::json shape = desc_field(desc, "shape");
  if (shape.is_array() && !shape.empty() && shape[0].is_array()) shape = shape[0];
  const bool positive = shape.is_array() && !shape.empty() &&
                        std::all_of(shape.begin(), shape.end(), [](const nlohmann::json& n) {
                          return n.is_number_integer() && n.get<int64_t>() > 0;
                        });
  return positive ? shape : nlohmann::json();
}

nlohmann::json optest_range(const nlohmann::json& desc) {
  nlohmann::json range = desc_field(desc, "value_range");
  if (range.is_array() && !range.empty() && range[0].is_array()) range = range[0];
  if (range.is_array() && range.size() == 2 && range[0].is_number() && range[1].is_number() &&
      range[0].get<double>() <= range[1].get<double>()) {
    return range;
  }
  return nullptr;
}

}  // namespace aopt::npu
