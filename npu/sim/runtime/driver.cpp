#include "driver.hpp"

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <memory>
#include <optional>
#include <random>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "core_context.hpp"
#include "driver_spec.hpp"
#include "element_type.hpp"
#include "exe_graph/runtime/tiling_context.h"
#include "graph/types.h"
#include "hazard_detector.hpp"
#include "input_generator.hpp"
#include "roofline.hpp"
#include "tensor_check.hpp"
#include "timing_model.hpp"

namespace aopt::sim {
namespace {

using json = nlohmann::json;

constexpr uint64_t max_workspace_bytes = uint64_t{1} << 30;
constexpr uint32_t max_block_dim = 65535;  // CANN's limit on logical blocks per launch
// Simulated GM allocations start on 512-byte boundaries, like the device allocator's, so the
// timing model's alignment penalty reflects the kernel's offsets only.
constexpr size_t gm_alignment = 512;
constexpr uint8_t workspace_poison_byte = 0x5A;

// A failed evaluation: unwinds the run to run_driver, which turns it into the result.
class evaluation_failure : public std::runtime_error {
 public:
  evaluation_failure(std::string status, std::string kind, const std::string& message)
      : std::runtime_error(message), status_(std::move(status)), kind_(std::move(kind)) {}
  const std::string& status() const { return status_; }
  const std::string& kind() const { return kind_; }

 private:
  std::string status_;
  std::string kind_;
};

[[noreturn]] void fail(const char* status, const char* kind, const std::string& message) {
  throw evaluation_failure(status, kind, message);
}

// One simulated GM allocation.
class gm_buffer {
 public:
  explicit gm_buffer(uint64_t bytes) : bytes_(bytes) {
    if (bytes == 0) return;
    const size_t rounded = (bytes + gm_alignment - 1) / gm_alignment * gm_alignment;
    data_.reset(static_cast<uint8_t*>(std::aligned_alloc(gm_alignment, rounded)));
    if (!data_) throw std::bad_alloc();
  }
  uint8_t* data() const { return data_.get(); }
  uint64_t bytes() const { return bytes_; }

 private:
  struct free_deleter {
    void operator()(uint8_t* p) const { std::free(p); }
  };
  uint64_t bytes_;
  std::unique_ptr<uint8_t, free_deleter> data_;
};

ge::DataType to_ge(element_type t) {
  switch (t) {
    case element_type::float32:
      return ge::DT_FLOAT;
    case element_type::float16:
      return ge::DT_FLOAT16;
    case element_type::bfloat16:
      return ge::DT_BF16;
    case element_type::int8:
      return ge::DT_INT8;
    case element_type::uint8:
      return ge::DT_UINT8;
    case element_type::int16:
      return ge::DT_INT16;
    case element_type::int32:
      return ge::DT_INT32;
    case element_type::int64:
      return ge::DT_INT64;
    case element_type::boolean:
      return ge::DT_BOOL;
  }
  return ge::DT_UNDEFINED;
}

gert::Shape to_shape(const driver_tensor& t) {
  if (t.shape.size() > gert::Shape::kMaxDimNum) {
    fail("infra_error", "bad_spec",
         "tensor " + t.name + " has " + std::to_string(t.shape.size()) +
             " dimensions; CANN shapes hold at most 8");
  }
  gert::Shape shape;
  for (int64_t d : t.shape) shape.AppendDim(d);
  return shape;
}

// "add_custom" -> "AddCustom": the CANN op type of an operator named in snake case.
std::string camel_case(const std::string& snake) {
  std::string out;
  bool upper = true;
  for (char c : snake) {
    if (c == '_') {
      upper = true;
      continue;
    }
    out += upper ? static_cast<char>(std::toupper(static_cast<unsigned char>(c))) : c;
    upper = false;
  }
  return out;
}

// The profile name "ascend910b4" as CANN spells the SoC ("Ascend910B4") and its family
// ("Ascend910B"). A profile with another name reads as a 910B-family chip.
void fill_platform(const hw_profile& hw, fe::PlatFormInfos& p) {
  p.core_num_aiv = hw.vector_cores;
  p.core_num_aic = std::max<uint32_t>(1, hw.vector_cores / 2);  // A2 split AIC:AIV = 1:2
  p.ub_bytes = hw.ub_bytes;
  std::string lower = hw.name;
  for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  const std::string prefix = "ascend";
  if (lower.compare(0, prefix.size(), prefix) != 0) {
    p.soc_version = hw.name;
    p.short_soc_version = "Ascend910B";
    return;
  }
  std::string soc = "Ascend";
  for (size_t i = prefix.size(); i < lower.size(); ++i) {
    soc += static_cast<char>(std::toupper(static_cast<unsigned char>(lower[i])));
  }
  p.soc_version = soc;
  size_t end = soc.size();
  while (end > 0 && std::isdigit(static_cast<unsigned char>(soc[end - 1]))) --end;
  // Strip a SKU digit after a family letter ("Ascend910B4"), never the model number ("Ascend910").
  p.short_soc_version = end > prefix.size() ? soc.substr(0, end) : soc;
}

void add_attrs(const driver_op& op, gert::RuntimeAttrs& attrs) {
  for (const auto& a : op.attrs) {
    if (a.type == "float") {
      attrs.add_float(a.value.get<float>());
    } else if (a.type == "int") {
      attrs.add_int(a.value.get<int64_t>());
    } else if (a.type == "bool") {
      attrs.add_bool(a.value.get<bool>());
    } else if (a.type == "string") {
      attrs.add_string(a.value.get<std::string>());
    } else if (a.type == "list_int") {
      attrs.add_list_int(a.value.get<std::vector<int64_t>>());
    } else if (a.type == "list_float") {
      attrs.add_list_float(a.value.get<std::vector<float>>());
    }
  }
}

aopt_ref::attrs reference_attrs(const driver_op& op) {
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

std::string with_block(uint32_t block, const std::string& message) {
  return "block " + std::to_string(block) + ": " + message;
}

// What the tiling function decided for one input set.
struct tiling_outcome {
  uint32_t block_dim = 0;
  uint64_t tiling_key = 0;
  uint64_t workspace_bytes = 0;
  std::vector<uint8_t>
      tiling_bytes;  // the raw buffer's full capacity; bytes past data_size poisoned
  size_t tiling_data_size = 0;
};

tiling_outcome run_tiling(const driver_spec& spec, const candidate_entries& entries,
                          const std::vector<std::vector<uint8_t>>& inputs,
                          std::vector<std::string>& diagnostics, bool first_set) {
  const driver_op& op = spec.op;
  gert::TilingContext ctx(op.name, camel_case(op.name));
  for (size_t i = 0; i < op.inputs.size(); ++i) {
    ctx.add_input(to_ge(op.inputs[i].type), to_shape(op.inputs[i]), inputs[i].data());
  }
  for (const auto& out : op.outputs) ctx.add_output(to_ge(out.type), to_shape(out));
  add_attrs(op, ctx.mutable_attrs());
  fill_platform(spec.hw, ctx.mutable_platform());

  uint32_t status = 0;
  try {
    status = entries.tiling(&ctx);
  } catch (const std::exception& e) {
    fail("runtime_error", "tiling_failed", op.tiling_func + " threw: " + e.what());
  } catch (...) {
    fail("runtime_error", "tiling_failed", op.tiling_func + " threw a non-standard exception");
  }
  if (status != ge::GRAPH_SUCCESS) {
    fail("runtime_error", "tiling_failed",
         op.tiling_func + " returned " + std::to_string(status) +
             (status == ge::GRAPH_FAILED ? " (GRAPH_FAILED)" : "") + " instead of GRAPH_SUCCESS");
  }

  tiling_outcome t;
  t.block_dim = ctx.GetBlockDim();
  t.tiling_key = ctx.GetTilingKey();
  t.workspace_bytes = ctx.workspace_bytes();
  // Logical blocks above the core count are legal on CANN: they run in waves (timing_model).
  if (t.block_dim == 0 || t.block_dim > max_block_dim) {
    fail("runtime_error", "bad_block_dim",
         "blockDim " + std::to_string(t.block_dim) + ": " + op.tiling_func +
             " must call SetBlockDim with 1.." + std::to_string(max_block_dim) + " (" +
             spec.hw.name + " has " + std::to_string(spec.hw.vector_cores) +
             " vector cores; more blocks run in waves)");
  }
  if (t.workspace_bytes > max_workspace_bytes) {
    fail("runtime_error", "bad_workspace",
         op.tiling_func + " requested " + std::to_string(t.workspace_bytes) +
             " bytes of workspace; the simulator allows at most 1 GiB");
  }
  const gert::TilingData& raw = *ctx.GetRawTilingData();
  t.tiling_data_size = raw.GetDataSize();
  t.tiling_bytes.assign(raw.GetCapacity(), workspace_poison_byte);
  std::memcpy(t.tiling_bytes.data(), raw.GetData(), t.tiling_data_size);
  if (first_set && t.tiling_data_size == 0) {
    const auto* saved = static_cast<const uint8_t*>(raw.GetData());
    if (std::any_of(saved, saved + raw.GetCapacity(), [](uint8_t b) { return b != 0; })) {
      diagnostics.push_back(op.tiling_func +
                            " wrote tiling data but set its size to 0 (missing "
                            "GetRawTilingData()->SetDataSize?): the kernel reads garbage");
    }
  }
  return t;
}

// Runs blocks 0..blockDim-1 one after another, each on its own simulated core.
void run_blocks(const driver_spec& spec, const candidate_entries& entries,
                const kernel_launch& launch, uint8_t* const* args,
                std::vector<core_trace>* traces) {
  for (uint32_t block = 0; block < launch.block_num; ++block) {
    try {
      core_context core(launch, block);
      {
        scoped_core scope(core);
        entries.kernel(args);
      }
      core.finish();
      if (traces != nullptr) traces->push_back(core.take_trace());
    } catch (const sim_error& e) {
      fail("runtime_error", e.kind().c_str(), with_block(block, e.what()));
    } catch (const std::exception& e) {
      fail("runtime_error", "exception",
           with_block(block, "kernel " + spec.op.kernel_entry + " threw: " + e.what()));
    } catch (...) {
      fail("runtime_error", "exception",
           with_block(block, "kernel " + spec.op.kernel_entry + " threw a non-standard exception"));
    }
  }
}

aopt_ref::tensors run_reference(const driver_spec& spec, const candidate_entries& entries,
                                const std::vector<std::vector<uint8_t>>& inputs) {
  const driver_op& op = spec.op;
  aopt_ref::tensors in;
  for (size_t i = 0; i < op.inputs.size(); ++i) {
    const driver_tensor& t = op.inputs[i];
    in.push_back({t.name, to_string(t.type), t.shape, decode_tensor(t, inputs[i].data())});
  }
  aopt_ref::tensors out;
  for (const auto& t : op.outputs) {
    out.push_back({t.name, to_string(t.type), t.shape, std::vector<double>(t.numel(), 0.0)});
  }
  try {
    entries.reference(in, out, reference_attrs(op));
  } catch (const std::exception& e) {
    fail("runtime_error", "reference_failed", std::string("reference threw: ") + e.what());
  } catch (...) {
    fail("runtime_error", "reference_failed", "reference threw a non-standard exception");
  }
  if (out.size() != op.outputs.size()) {
    fail("runtime_error", "reference_failed",
         "reference returned " + std::to_string(out.size()) + " outputs instead of " +
             std::to_string(op.outputs.size()));
  }
  for (size_t i = 0; i < out.size(); ++i) {
    if (out[i].data.size() != op.outputs[i].numel()) {
      fail("runtime_error", "reference_failed",
           "reference resized output " + op.outputs[i].name + " to " +
               std::to_string(out[i].data.size()) + " elements instead of " +
               std::to_string(op.outputs[i].numel()));
    }
  }
  return out;
}

// Input set `set`: everything up to and including the output comparison. Fills `traces` (one
// per block) when non-null.
tiling_outcome run_input_set(const driver_spec& spec, const candidate_entries& entries,
                             uint32_t set, std::vector<core_trace>* traces,
                             std::vector<std::string>& diagnostics) {
  const driver_op& op = spec.op;
  const uint64_t seed = op.seed + set;
  const std::string where =
      "input set " + std::to_string(set) + " (seed " + std::to_string(seed) + "): ";
  try {
    std::mt19937_64 rng(seed);
    std::vector<std::vector<uint8_t>> inputs;
    for (const auto& t : op.inputs) inputs.push_back(generate_input(t, rng));

    tiling_outcome tiling = run_tiling(spec, entries, inputs, diagnostics, set == 0);

    std::vector<gm_buffer> gm;
    std::vector<uint8_t*> args;
    kernel_launch launch;
    launch.hw = spec.hw;
    launch.block_num = tiling.block_dim;
    launch.tiling_key = tiling.tiling_key;
    launch.record_trace = traces != nullptr;
    auto add_region = [&](const std::string& name, uint64_t bytes) -> uint8_t* {
      gm.emplace_back(bytes);
      launch.gm.push_back(gm_region{name, gm.back().data(), bytes});
      args.push_back(gm.back().data());
      return gm.back().data();
    };
    gm.reserve(op.inputs.size() + op.outputs.size() + 2);
    for (size_t i = 0; i < op.inputs.size(); ++i) {
      uint8_t* p = add_region(op.inputs[i].name, inputs[i].size());
      if (!inputs[i].empty()) std::memcpy(p, inputs[i].data(), inputs[i].size());
    }
    for (const auto& t : op.outputs) {
      uint8_t* p = add_region(t.name, t.bytes());
      if (p != nullptr) fill_poison(p, t.type, t.numel(), set);
    }
    uint8_t* workspace = add_region("workspace", tiling.workspace_bytes);
    if (workspace != nullptr) std::memset(workspace, workspace_poison_byte, tiling.workspace_bytes);
    uint8_t* tiling_gm = add_region("tiling", tiling.tiling_bytes.size());
    if (tiling_gm != nullptr) {
      std::memcpy(tiling_gm, tiling.tiling_bytes.data(), tiling.tiling_bytes.size());
    }

    run_blocks(spec, entries, launch, args.data(), traces);

    for (size_t i = 0; i < op.inputs.size(); ++i) {
      if (auto f = check_input_unchanged(op.inputs[i], inputs[i].data(), gm[i].data())) {
        fail("precision_error", f->kind.c_str(), f->message);
      }
    }
    const aopt_ref::tensors expected = run_reference(spec, entries, inputs);
    for (size_t i = 0; i < op.outputs.size(); ++i) {
      const driver_tensor& t = op.outputs[i];
      const uint8_t* actual = gm[op.inputs.size() + i].data();
      if (auto f = compare_output(t, actual, expected[i].data, op.tolerance_for(t), set)) {
        fail("precision_error", f->kind.c_str(), f->message);
      }
    }
    return tiling;
  } catch (const evaluation_failure& e) {
    throw evaluation_failure(e.status(), e.kind(), where + e.what());
  } catch (const std::bad_alloc&) {
    fail("runtime_error", "out_of_memory", where + "out of memory allocating simulated GM");
  }
}

struct timing_outcome {
  json profile;
  json roof;
  json latency;
  double latency_us = 0;
  double raw_latency_us = 0;
  double bound_us = 0;
  std::string roof_summary;
};

double median_of(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 == 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

json pipe_json(double busy_cycles, double total_cycles, const hw_profile& hw) {
  return {{"time_us", hw.cycles_to_us(busy_cycles)},
          {"ratio", total_cycles > 0 ? busy_cycles / total_cycles : 0.0}};
}

timing_outcome time_kernel(const driver_spec& spec, const std::vector<core_trace>& traces) {
  const hw_profile& hw = spec.hw;
  const auto block_dim = static_cast<uint32_t>(traces.size());
  std::vector<core_timing> cores;
  cores.reserve(traces.size());
  for (const auto& t : traces) cores.push_back(replay_core(t, hw, block_dim));
  const kernel_timing kt = combine_cores(cores, traces, hw);

  const core_timing& critical = cores.at(kt.critical_core);
  uint64_t ub_high = 0, gm_read = 0, gm_write = 0, bursts = 0, dma_bytes = 0, scalar = 0,
           vector = 0, instructions = 0;
  double vector_work = 0;
  for (size_t i = 0; i < cores.size(); ++i) {
    ub_high = std::max(ub_high, traces[i].ub_high_water_bytes);
    gm_read += traces[i].gm_read_bytes;
    gm_write += traces[i].gm_write_bytes;
    instructions += traces[i].instructions.size();
    bursts += cores[i].dma_bursts;
    dma_bytes += cores[i].dma_bytes;
    scalar += cores[i].scalar_accesses;
    vector += cores[i].vector_instructions;
    vector_work += cores[i].vector_work_cycles;
  }

  timing_outcome out;
  out.raw_latency_us = kt.latency_us;
  std::vector<double> samples(spec.repetitions, kt.latency_us);
  if (spec.noise_stddev_fraction > 0) {
    std::mt19937_64 rng(spec.noise_seed);
    std::normal_distribution<double> noise(0.0, spec.noise_stddev_fraction);
    // A draw below -95% would make a latency near zero or negative: not a measurement.
    for (double& s : samples) s = kt.latency_us * std::max(0.05, 1.0 + noise(rng));
  }
  out.latency_us = median_of(samples);
  double mean = 0;
  for (double s : samples) mean += s;
  mean /= static_cast<double>(samples.size());
  double variance = 0;
  for (double s : samples) variance += (s - mean) * (s - mean);
  variance /= static_cast<double>(samples.size());
  out.latency = {{"median_us", out.latency_us},
                 {"min_us", *std::min_element(samples.begin(), samples.end())},
                 {"max_us", *std::max_element(samples.begin(), samples.end())},
                 {"stddev_us", std::sqrt(variance)},
                 {"repetitions", samples.size()}};

  out.profile = {
      {"scalar",
       pipe_json(critical.busy_cycles[static_cast<int>(pipe::s)], critical.total_cycles, hw)},
      {"vector",
       pipe_json(critical.busy_cycles[static_cast<int>(pipe::v)], critical.total_cycles, hw)},
      {"mte2",
       pipe_json(critical.busy_cycles[static_cast<int>(pipe::mte2)], critical.total_cycles, hw)},
      {"mte3",
       pipe_json(critical.busy_cycles[static_cast<int>(pipe::mte3)], critical.total_cycles, hw)},
      {"block_dim", block_dim},
      {"ub_high_water_bytes", ub_high},
      {"ub_capacity_bytes", hw.ub_bytes},
      {"gm_read_bytes", gm_read},
      {"gm_write_bytes", gm_write},
      {"dma_bursts", bursts},
      {"mean_burst_bytes",
       bursts > 0 ? static_cast<double>(dma_bytes) / static_cast<double>(bursts) : 0.0},
      {"scalar_accesses", scalar},
      {"vector_instructions", vector},
      {"barrier_stall_us", hw.cycles_to_us(critical.barrier_stall_cycles)},
      {"flag_wait_us", hw.cycles_to_us(critical.flag_wait_cycles)},
      {"auto_sync_wait_us", hw.cycles_to_us(critical.auto_sync_wait_cycles)},
      {"waves", kt.waves},
      {"launch_overhead_us", kt.launch_overhead_us},
      {"core_time_max_us", kt.core_time_max_us},
      {"core_time_mean_us", kt.core_time_mean_us},
      {"trace_instructions", instructions}};

  const roofline roof = compute_roofline(spec.op.io_bytes(), vector_work, out.latency_us, hw);
  out.roof = roof;
  out.bound_us = roof.bound_us;
  out.roof_summary = "roofline bound " + format_value(roof.bound_us) + " us (memory " +
                     format_value(roof.memory_bound_us) + " us, vector " +
                     format_value(roof.vector_bound_us) + " us)";
  return out;
}

json empty_result(const driver_spec* spec) {
  json r = {{"status", "infra_error"},
            {"error_kind", ""},
            {"message", ""},
            {"latency_us", 0.0},
            {"latency_is_simulated", true},
            {"diagnostics", json::array()},
            {"device", "sim"},
            {"device_profile", spec != nullptr ? spec->hw.name : ""},
            {"run_seconds", 0.0}};
  return r;
}

}  // namespace

int run_driver(const json& spec_json, const candidate_entries& entries, json& result) {
  const auto started = std::chrono::steady_clock::now();
  auto elapsed = [&] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  };

  std::optional<driver_spec> spec;
  try {
    spec = parse_driver_spec(spec_json);
  } catch (const std::exception& e) {
    result = empty_result(nullptr);
    result["error_kind"] = "bad_spec";
    result["message"] = std::string("driver spec: ") + e.what();
    return 2;
  }
  result = empty_result(&*spec);
  if (entries.tiling == nullptr || entries.kernel == nullptr || entries.reference == nullptr) {
    result["error_kind"] = "bad_spec";
    result["message"] = "driver: the candidate lacks a tiling, kernel or reference entry point";
    return 2;
  }

  std::vector<std::string> diagnostics;
  try {
    std::vector<core_trace> traces;
    tiling_outcome first;
    for (uint32_t set = 0; set < spec->input_sets; ++set) {
      tiling_outcome t =
          run_input_set(*spec, entries, set, set == 0 ? &traces : nullptr, diagnostics);
      if (set == 0) {
        first = std::move(t);
        result["tiling_key"] = first.tiling_key;
        result["block_dim"] = first.block_dim;
        result["workspace_bytes"] = first.workspace_bytes;
      }
    }
    diagnostics.push_back("blockDim " + std::to_string(first.block_dim) + ", tiling key " +
                          std::to_string(first.tiling_key) + ", tiling data " +
                          std::to_string(first.tiling_data_size) + " bytes, workspace " +
                          std::to_string(first.workspace_bytes) + " bytes; " +
                          std::to_string(spec->input_sets) + " input sets passed");

    const timing_outcome timing = time_kernel(*spec, traces);
    result["latency_us"] = timing.latency_us;
    result["latency"] = timing.latency;
    result["profile"] = timing.profile;
    result["roofline"] = timing.roof;
    diagnostics.push_back(timing.roof_summary);

    if (spec->detect_races) {
      for (size_t block = 0; block < traces.size(); ++block) {
        if (auto race = find_first_race(traces[block])) {
          fail("precision_error", "data_race",
               with_block(static_cast<uint32_t>(block), race->message));
        }
      }
    }
    // Judged on the noise-free latency: noise models the measurement, not the kernel.
    if (timing.raw_latency_us < timing.bound_us * (1 - 1e-9)) {
      fail("precision_error", "suspicious",
           "simulated latency " + format_value(timing.raw_latency_us) + " us is below the " +
               timing.roof_summary +
               ": the kernel moves less data or does less work than the operator needs");
    }
    result["status"] = "ok";
  } catch (const evaluation_failure& e) {
    result["status"] = e.status();
    result["error_kind"] = e.kind();
    result["message"] = e.what();
  } catch (const std::exception& e) {
    // A driver-side failure (a bad hardware profile value reaching the timing model, ...).
    result["status"] = "infra_error";
    result["error_kind"] = "driver";
    result["message"] = std::string("driver: ") + e.what();
  }
  result["diagnostics"] = diagnostics;
  result["run_seconds"] = elapsed();
  return 0;
}

}  // namespace aopt::sim
