#include "driver_expected.hpp"

#include <random>

#include "driver_codec.hpp"
#include "input_generator.hpp"

namespace aopt::sim {
namespace {

constexpr char expected_magic[] = "AOPTEXP2";
constexpr char end_magic[] = "AOPTEND1";
constexpr size_t magic_size = 8;

std::string run_reference(const npu::op_spec& op, reference_fn reference,
                          const std::vector<std::vector<uint8_t>>& inputs, expected_set& out) {
  aopt_ref::tensors in;
  for (size_t i = 0; i < op.inputs.size(); ++i) {
    const npu::tensor_spec& t = op.inputs[i];
    in.push_back({t.name, to_string(t.type), t.shape, decode_tensor(t, inputs[i].data())});
  }
  aopt_ref::tensors result;
  for (const auto& t : op.outputs) {
    result.push_back({t.name, to_string(t.type), t.shape, std::vector<double>(t.numel(), 0.0)});
  }
  try {
    reference(in, result, reference_attrs(op));
  } catch (const std::exception& e) {
    return std::string("reference threw: ") + e.what();
  } catch (...) {
    return "reference threw a non-standard exception";
  }
  if (result.size() != op.outputs.size()) {
    return "reference returned " + std::to_string(result.size()) + " outputs instead of " +
           std::to_string(op.outputs.size());
  }
  for (size_t i = 0; i < result.size(); ++i) {
    if (result[i].data.size() != static_cast<size_t>(op.outputs[i].numel())) {
      return "reference resized output " + op.outputs[i].name + " to " +
             std::to_string(result[i].data.size()) + " elements instead of " +
             std::to_string(op.outputs[i].numel());
    }
    out.outputs.push_back(std::move(result[i].data));
  }
  return {};
}

}  // namespace

void make_inputs_into(const npu::op_spec& op, uint32_t set, uint8_t* out) {
  std::mt19937_64 rng(op.seed + set);
  for (const auto& t : op.inputs) {
    generate_input_into(t, rng, out);
    out += t.bytes();
  }
}

std::vector<std::vector<uint8_t>> make_inputs(const npu::op_spec& op, uint32_t set) {
  std::mt19937_64 rng(op.seed + set);
  std::vector<std::vector<uint8_t>> inputs;
  for (const auto& t : op.inputs) inputs.push_back(generate_input(t, rng));
  return inputs;
}

aopt_ref::attrs reference_attrs(const npu::op_spec& op) {
  aopt_ref::attrs attrs;
  for (const auto& a : op.attrs) {
    if (a.type == "float" || a.type == "int") {
      attrs.numbers[a.name] = a.value.get<double>();
    } else if (a.type == "bool") {
      attrs.numbers[a.name] = a.value.get<bool>() ? 1.0 : 0.0;
    } else if (a.type == "string") {
      attrs.strings[a.name] = a.value.get<std::string>();
    } else {
      attrs.lists[a.name] = a.value.get<std::vector<double>>();
    }
  }
  return attrs;
}

expected_outputs compute_expected(const npu::op_spec& op, reference_fn reference, uint32_t sets,
                                  const input_source& source) {
  expected_outputs e;
  for (uint32_t set = 0; set < sets; ++set) {
    const auto inputs = source ? source(set) : make_inputs(op, set);
    expected_set s;
    for (const auto& in : inputs) s.input_fingerprints.push_back(fingerprint(in.data(), in.size()));
    e.failure = run_reference(op, reference, inputs, s);
    if (!e.failure.empty()) {
      e.failure = "input set " + std::to_string(set) + " (seed " + std::to_string(op.seed + set) +
                  "): " + e.failure;
      e.sets.clear();
      return e;
    }
    e.sets.push_back(std::move(s));
  }
  return e;
}

std::string encode_expected(const expected_outputs& e) {
  // Sized once: the outputs are hundreds of MiB for a large operator, and growing the text by
  // doubling would copy them again at every step.
  size_t bytes = 2 * magic_size + 3 * sizeof(uint64_t) + e.failure.size() + sizeof(double);
  for (const expected_set& s : e.sets) {
    bytes += 2 * sizeof(uint64_t) + s.input_fingerprints.size() * sizeof(uint64_t);
    for (const auto& o : s.outputs) bytes += sizeof(uint64_t) + o.size() * sizeof(double);
  }
  byte_writer w;
  w.reserve(bytes);
  w.put_raw(expected_magic, magic_size);
  w.put_string(e.failure);
  w.pad_to(sizeof(double));
  w.put<uint64_t>(e.sets.size());
  for (const expected_set& s : e.sets) {
    w.put<uint64_t>(s.outputs.size());
    for (const auto& o : s.outputs) w.put_bytes(o.data(), o.size() * sizeof(double));
    w.put<uint64_t>(s.input_fingerprints.size());
    for (uint64_t f : s.input_fingerprints) w.put(f);
  }
  w.put_raw(end_magic, magic_size);
  return std::move(w.text());
}

namespace {

// What reading a delivery does with the values: copies them, points at them, or only checks.
enum class values_read { copy, view, check };

expected_outputs read_expected(std::string_view bytes, const npu::op_spec& op, values_read mode) {
  byte_reader r(bytes.data(), bytes.size());
  r.expect(expected_magic, magic_size, "expected outputs header");
  expected_outputs e;
  e.failure = r.get_string("failure");
  r.skip_to(sizeof(double), "padding");
  e.sets.resize(r.count("sets", 16));
  for (expected_set& s : e.sets) {
    const uint64_t outputs = r.count("outputs", 8);
    if (outputs != op.outputs.size()) throw malformed_delivery("expected outputs: wrong count");
    for (uint64_t i = 0; i < outputs; ++i) {
      const uint64_t n = r.count("expected output", 1);
      if (n != static_cast<uint64_t>(op.outputs[i].numel()) * sizeof(double)) {
        throw malformed_delivery("expected output " + op.outputs[i].name + ": wrong size");
      }
      if (mode == values_read::check) {
        r.skip_array<double>(op.outputs[i].numel(), "expected values");
        continue;
      }
      if (mode == values_read::view) {
        s.viewed.push_back(r.view_array<double>(op.outputs[i].numel(), "expected values"));
        continue;
      }
      std::vector<double> v(op.outputs[i].numel());
      r.get_array(v.data(), v.size(), "expected values");
      s.outputs.push_back(std::move(v));
    }
    s.input_fingerprints.resize(r.count("input fingerprints", 8));
    for (uint64_t& f : s.input_fingerprints) f = r.get<uint64_t>("input fingerprint");
  }
  r.expect(end_magic, magic_size, "expected outputs end marker");
  return e;
}

}  // namespace

expected_outputs decode_expected(std::string_view bytes, const npu::op_spec& op) {
  return read_expected(bytes, op, values_read::copy);
}

expected_outputs view_expected(std::string_view bytes, const npu::op_spec& op) {
  return read_expected(bytes, op, values_read::view);
}

void check_expected(std::string_view bytes, const npu::op_spec& op) {
  read_expected(bytes, op, values_read::check);
}

}  // namespace aopt::sim
