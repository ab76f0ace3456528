#include "agent/kernel_text/tiling_data_layout.hpp"

#include <cstring>
#include <regex>

#include "agent/kernel_text/source_text.hpp"

namespace aopt::agent {

namespace {

struct scalar_type {
  uint32_t size;
  bool is_integer;
  bool is_signed;
};

bool scalar_of(const std::string& type, scalar_type& out) {
  static const std::map<std::string, scalar_type> types = {
      {"int8_t", {1, true, true}},        {"uint8_t", {1, true, false}},
      {"int16_t", {2, true, true}},       {"uint16_t", {2, true, false}},
      {"int32_t", {4, true, true}},       {"uint32_t", {4, true, false}},
      {"int64_t", {8, true, true}},       {"uint64_t", {8, true, false}},
      {"int", {4, true, true}},           {"unsigned", {4, true, false}},
      {"unsigned int", {4, true, false}}, {"bool", {1, true, false}},
      {"float", {4, false, true}},        {"double", {8, false, true}},
  };
  auto it = types.find(type);
  if (it == types.end()) return false;
  out = it->second;
  return true;
}

bool signed_type(const std::string& type) {
  scalar_type s{};
  return scalar_of(type, s) && s.is_signed;
}

}  // namespace

result<tiling_data_layout> parse_tiling_layout(const std::string& header) {
  const std::string masked = mask_comments_and_strings(header);
  static const std::regex begin(R"(\bBEGIN_TILING_DATA_DEF\s*\(\s*(\w+)\s*\))");
  static const std::regex end(R"(\bEND_TILING_DATA_DEF\b)");
  static const std::regex registered(R"(\bREGISTER_TILING_DATA_CLASS\s*\(\s*\w+\s*,\s*(\w+)\s*\))");
  static const std::regex field(
      R"(\bTILING_DATA_FIELD_DEF(_ARR|_STRUCT)?\s*\(\s*([^,()]+?)\s*,\s*(?:([^,()]+?)\s*,\s*)?(\w+)\s*\))");

  std::map<std::string, std::string> bodies;  // class -> its definition
  std::string last;
  for (auto it = std::sregex_iterator(masked.begin(), masked.end(), begin);
       it != std::sregex_iterator(); ++it) {
    const size_t from = static_cast<size_t>(it->position(0) + it->length(0));
    std::smatch m;
    const std::string rest = masked.substr(from);
    const size_t to =
        std::regex_search(rest, m, end) ? static_cast<size_t>(m.position(0)) : rest.size();
    last = (*it)[1].str();
    bodies[last] = rest.substr(0, to);
  }
  if (bodies.empty()) return not_found("no BEGIN_TILING_DATA_DEF in the tiling header");
  std::string chosen = last;
  std::smatch reg;
  if (std::regex_search(masked, reg, registered) && bodies.count(reg[1].str()) != 0)
    chosen = reg[1].str();

  tiling_data_layout layout;
  layout.class_name = chosen;
  uint64_t offset = 0;
  const std::string& body = bodies[chosen];
  for (auto it = std::sregex_iterator(body.begin(), body.end(), field);
       it != std::sregex_iterator(); ++it) {
    const std::string kind = (*it)[1].str();
    if (kind == "_STRUCT") break;
    tiling_field f;
    f.type = normalize_space((*it)[2].str());
    f.name = (*it)[4].str();
    scalar_type s{};
    if (!scalar_of(f.type, s)) break;
    if (kind == "_ARR") {
      try {
        f.count = static_cast<uint32_t>(std::stoul(trim((*it)[3].str())));
      } catch (const std::exception&) {
        break;  // a size given by a macro or constant: the layout ends here
      }
    }
    f.size = s.size;
    f.is_integer = s.is_integer;
    offset = (offset + f.size - 1) / f.size * f.size;
    f.offset = offset;
    offset += static_cast<uint64_t>(f.size) * f.count;
    layout.fields.push_back(std::move(f));
  }
  return layout;
}

std::map<std::string, int64_t> read_integer_fields(const tiling_data_layout& layout,
                                                   const std::vector<uint8_t>& data) {
  std::map<std::string, int64_t> out;
  for (const tiling_field& f : layout.fields) {
    if (!f.is_integer || f.count != 1 || f.offset + f.size > data.size()) continue;
    uint64_t raw = 0;
    std::memcpy(&raw, data.data() + f.offset, f.size);  // little-endian host
    int64_t value = static_cast<int64_t>(raw);
    if (signed_type(f.type) && f.size < 8) {
      const uint64_t sign = uint64_t{1} << (f.size * 8 - 1);
      value = static_cast<int64_t>((raw ^ sign) - sign);
    }
    out[f.name] = value;
  }
  return out;
}

}  // namespace aopt::agent
