#include "driver_spec.hpp"

#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>

namespace aopt::sim {
namespace {

using json = nlohmann::json;

[[noreturn]] void reject(const std::string& field, const std::string& reason) {
  throw std::invalid_argument(field + ": " + reason);
}

const json* find(const json& obj, const char* key) {
  auto it = obj.find(key);
  return it == obj.end() || it->is_null() ? nullptr : &*it;
}

double read_number(const json& obj, const char* key, double fallback) {
  const json* v = find(obj, key);
  if (v == nullptr) return fallback;
  if (!v->is_number()) reject(key, "expected a number, got " + v->dump());
  return v->get<double>();
}

uint64_t read_unsigned(const json& obj, const char* key, uint64_t fallback) {
  const json* v = find(obj, key);
  if (v == nullptr) return fallback;
  // JSON built in C++ stores a literal 0 as a signed integer; accept every non-negative one.
  if (!v->is_number_integer() || (!v->is_number_unsigned() && v->get<int64_t>() < 0)) {
    reject(key, "expected a non-negative integer, got " + v->dump());
  }
  return v->get<uint64_t>();
}

constexpr uint32_t max_input_sets = 100;
constexpr uint32_t max_repetitions = 10000;
constexpr uint32_t max_set_threads = 64;

void check_count(const char* key, uint64_t value, uint32_t max) {
  if (value < 1 || value > max) {
    reject(key, "expected 1.." + std::to_string(max) + ", got " + std::to_string(value));
  }
}

// A count of 1..max.
uint32_t read_setting(const json& obj, const char* key, uint32_t fallback, uint32_t max) {
  const uint64_t value = read_unsigned(obj, key, fallback);
  check_count(key, value, max);
  return static_cast<uint32_t>(value);
}

}  // namespace

void check_settings(const driver_spec& s) {
  check_count("input_sets", s.input_sets, max_input_sets);
  check_count("repetitions", s.repetitions, max_repetitions);
  check_count("set_threads", s.set_threads, max_set_threads);
  if (!(s.noise_stddev_fraction >= 0 && s.noise_stddev_fraction < 1)) {
    reject("noise_stddev_fraction", "expected a value in [0, 1)");
  }
  if (s.input_fds.size() > s.input_sets) {
    reject("input_fds", std::to_string(s.input_fds.size()) + " descriptors for " +
                            std::to_string(s.input_sets) + " input sets");
  }
  for (int fd : s.input_fds) {
    // 0, 1 and 2 are the standard streams; the parent passes its descriptors from 3 on.
    if (fd < 3) reject("input_fds", "expected descriptors >= 3, got " + std::to_string(fd));
  }
}

driver_spec parse_driver_spec(const json& j) {
  if (!j.is_object()) reject("spec", "expected a JSON object");
  driver_spec spec;
  const json* op = find(j, "op");
  if (op == nullptr) reject("op", "missing");
  auto parsed = npu::parse_nested_op_spec(*op, "op");
  if (!parsed.ok()) throw std::invalid_argument(parsed.error().message());
  spec.op = std::move(parsed).value();
  if (const json* hw = find(j, "hw"); hw != nullptr) spec.hw = hw->get<hw_profile>();
  spec.input_sets = read_setting(j, "input_sets", spec.input_sets, max_input_sets);
  if (const json* races = find(j, "detect_races"); races != nullptr) {
    if (!races->is_boolean()) reject("detect_races", "expected a boolean, got " + races->dump());
    spec.detect_races = races->get<bool>();
  }
  spec.noise_stddev_fraction = read_number(j, "noise_stddev_fraction", 0);
  spec.noise_seed = read_unsigned(j, "noise_seed", 0);
  spec.repetitions = read_setting(j, "repetitions", spec.repetitions, max_repetitions);
  spec.set_threads = read_setting(j, "set_threads", spec.set_threads, max_set_threads);
  if (const json* fds = find(j, "input_fds"); fds != nullptr) {
    if (!fds->is_array()) reject("input_fds", "expected an array, got " + fds->dump());
    for (const json& fd : *fds) {
      if (!fd.is_number_integer()) reject("input_fds", "expected integers, got " + fd.dump());
      spec.input_fds.push_back(fd.get<int>());
    }
  }
  check_settings(spec);
  return spec;
}

namespace {

constexpr char fd_prefix[] = "fd:";
// A spec is the op.json, a profile and a few settings: anything larger is not one.
constexpr size_t max_spec_bytes = 64ull << 20;

std::string read_descriptor(const std::string& digits) {
  char* end = nullptr;
  errno = 0;
  const long fd = std::strtol(digits.c_str(), &end, 10);
  if (digits.empty() || *end != '\0' || errno != 0 || fd < 3 || fd > 1 << 20) {
    reject("spec", "not a descriptor: fd:" + digits);
  }
  std::string text;
  char buffer[1 << 16];
  for (;;) {
    const ssize_t n = ::pread(static_cast<int>(fd), buffer, sizeof buffer, text.size());
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) reject("spec", "fd:" + digits + ": " + std::strerror(errno));
    if (n == 0) break;
    text.append(buffer, static_cast<size_t>(n));
    if (text.size() > max_spec_bytes) reject("spec", "fd:" + digits + ": too large");
  }
  return text;
}

}  // namespace

driver_spec read_driver_spec(const std::string& argument) {
  std::string text;
  if (argument.rfind(fd_prefix, 0) == 0) {
    text = read_descriptor(argument.substr(sizeof fd_prefix - 1));
  } else {
    std::ifstream in(argument, std::ios::binary);
    if (!in) reject("spec", "cannot open " + argument);
    std::ostringstream all;
    all << in.rdbuf();
    text = all.str();
  }
  json parsed = json::parse(text, nullptr, false);
  if (parsed.is_discarded()) reject("spec", argument + ": not JSON");
  return parse_driver_spec(parsed);
}

std::string spec_fd_argument(int fd) {
  return fd_prefix + std::to_string(fd);
}

void to_json(json& j, const driver_spec& s) {
  json hw;
  to_json(hw, s.hw);
  j = {{"op", s.op},
       {"hw", std::move(hw)},
       {"input_sets", s.input_sets},
       {"repetitions", s.repetitions},
       {"detect_races", s.detect_races},
       {"noise_stddev_fraction", s.noise_stddev_fraction},
       {"noise_seed", s.noise_seed}};
  if (!s.input_fds.empty()) j["input_fds"] = s.input_fds;
  if (s.set_threads != 1) j["set_threads"] = s.set_threads;
}

}  // namespace aopt::sim
