#include "driver.hpp"

#include <algorithm>
#include <atomic>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <memory>
#include <random>
#include <stdexcept>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "block_runner.hpp"
#include "byte_arena.hpp"
#include "core_context.hpp"
#include "core_memory_pool.hpp"
#include "driver_codec.hpp"
#include "driver_expected.hpp"
#include "driver_failure.hpp"
#include "driver_spec.hpp"
#include "element_codec.hpp"
#include "exe_graph/runtime/tiling_context.h"
#include "gm_allocation.hpp"
#include "gm_guard.hpp"
#include "graph/types.h"
#include "huge_page_memory.hpp"
#include "shared_inputs.hpp"
#include "tensor_check.hpp"
#include "tiling_crash_guard.hpp"

namespace aopt::sim {
namespace {

// One simulated GM allocation: the tensor's bytes, then its padding and over-read zone poisoned.
// On huge pages (huge_page_memory.hpp): every byte of it is written before the kernel runs.
class gm_buffer {
 public:
  // `backed_when_empty`: even an empty allocation has an address (the workspace: CANN hands a
  // kernel a valid workspace pointer when its tiling asks for none), though no byte of it may be
  // accessed.
  explicit gm_buffer(uint64_t bytes, bool backed_when_empty = false) : bytes_(bytes) {
    if (bytes == 0 && !backed_when_empty) return;
    const uint64_t with_tail = bytes + cann_padding(bytes) + gm_over_read_bytes;
    const size_t rounded = std::max<size_t>(
        gm_alignment, (with_tail + gm_alignment - 1) / gm_alignment * gm_alignment);
    memory_ = huge_page_memory(rounded);
    std::memset(memory_.data() + bytes, gm_tail_poison_byte, rounded - bytes);
  }
  uint8_t* data() const { return memory_.data(); }
  uint64_t bytes() const { return bytes_; }
  gm_guard::span mapped() const { return {memory_.data(), memory_.size()}; }

 private:
  uint64_t bytes_;
  huge_page_memory memory_;
};

ge::DataType to_ge(npu::dtype t) {
  switch (t) {
    case npu::dtype::float32:
      return ge::DT_FLOAT;
    case npu::dtype::float16:
      return ge::DT_FLOAT16;
    case npu::dtype::bfloat16:
      return ge::DT_BF16;
    case npu::dtype::int8:
      return ge::DT_INT8;
    case npu::dtype::uint8:
      return ge::DT_UINT8;
    case npu::dtype::int16:
      return ge::DT_INT16;
    case npu::dtype::int32:
      return ge::DT_INT32;
    case npu::dtype::int64:
      return ge::DT_INT64;
    case npu::dtype::boolean:
      return ge::DT_BOOL;
  }
  return ge::DT_UNDEFINED;
}

gert::Shape to_shape(const npu::tensor_spec& t) {
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
  p.core_num_aic = hw.cube_cores;
  p.ub_bytes = hw.ub_bytes;
  p.l1_bytes = hw.l1_bytes;
  p.l0_a_bytes = hw.l0a_bytes;
  p.l0_b_bytes = hw.l0b_bytes;
  p.l0_c_bytes = hw.l0c_bytes;
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

void add_attrs(const npu::op_spec& op, gert::RuntimeAttrs& attrs) {
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

constexpr size_t max_warnings = 20;

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

}  // namespace

tiling_call call_tiling(const driver_spec& spec, uint32_t (*tiling)(gert::TilingContext*),
                        const std::vector<const uint8_t*>& inputs) {
  const npu::op_spec& op = spec.op;
  gert::TilingContext ctx(op.name, camel_case(op.name));
  for (size_t i = 0; i < op.inputs.size(); ++i) {
    if (op.inputs[i].absent) {
      ctx.add_absent_input(to_ge(op.inputs[i].type));
    } else {
      // The data only of an input declared value-depending, as CANN hands a TilingFunc: host
      // code that saw every input could compute the outputs and pass them in the tiling data.
      ctx.add_input(to_ge(op.inputs[i].type), to_shape(op.inputs[i]),
                    op.inputs[i].value_depend ? inputs[i] : nullptr);
    }
  }
  for (const auto& out : op.outputs) ctx.add_output(to_ge(out.type), to_shape(out));
  add_attrs(op, ctx.mutable_attrs());
  fill_platform(spec.hw, ctx.mutable_platform());

  tiling_call call;
  try {
    const tiling_crash_guard guard(op.tiling_func);
    call.status = tiling(&ctx);
  } catch (const std::exception& e) {
    call.exception = std::string(": ") + e.what();
  } catch (...) {
    call.exception = " a non-standard exception";
  }
  call.block_dim = ctx.GetBlockDim();
  call.tiling_key = ctx.GetTilingKey();
  call.workspace_bytes = ctx.workspace_bytes();
  const gert::TilingData& raw = *ctx.GetRawTilingData();
  call.data_size = raw.GetDataSize();
  call.data.assign(raw.GetCapacity(), workspace_poison_byte);
  std::memcpy(call.data.data(), raw.GetData(), std::min<size_t>(call.data_size, raw.GetCapacity()));
  if (call.data_size == 0) {
    const auto* saved = static_cast<const uint8_t*>(raw.GetData());
    call.wrote_without_size =
        std::any_of(saved, saved + raw.GetCapacity(), [](uint8_t b) { return b != 0; });
  }
  return call;
}

namespace {

tiling_outcome run_tiling(const driver_spec& spec, const candidate_entries& entries,
                          const std::vector<const uint8_t*>& inputs,
                          std::vector<std::string>& diagnostics, bool first_set) {
  const npu::op_spec& op = spec.op;
  const tiling_call call = call_tiling(spec, entries.tiling, inputs);
  if (!call.exception.empty()) {
    fail("runtime_error", "tiling_failed", op.tiling_func + " threw" + call.exception);
  }
  if (call.status != ge::GRAPH_SUCCESS) {
    fail("runtime_error", "tiling_failed",
         op.tiling_func + " returned " + std::to_string(call.status) +
             (call.status == ge::GRAPH_FAILED ? " (GRAPH_FAILED)" : "") +
             " instead of GRAPH_SUCCESS");
  }

  tiling_outcome t;
  t.block_dim = call.block_dim;
  t.tiling_key = call.tiling_key;
  t.workspace_bytes = call.workspace_bytes;
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
  t.tiling_data_size = call.data_size;
  t.tiling_bytes = call.data;
  if (first_set && t.tiling_data_size == 0 && call.wrote_without_size) {
    diagnostics.push_back(op.tiling_func +
                          " wrote tiling data but set its size to 0 (missing "
                          "GetRawTilingData()->SetDataSize?): the kernel reads garbage");
  }
  return t;
}

// Runs the launch's cores (launch_layout.hpp: blocks 0..blockDim-1, or the AIC and AIVs of each
// MIX group), each on its own simulated core: one after another, except that a core calling
// SyncAll, IBWait or CrossCoreWaitFlag waits there for the others (block_runner.hpp). SyncAll
// synchronises the cores of one kind.
void run_blocks(const driver_spec& spec, const candidate_entries& entries,
                const kernel_launch& launch, uint8_t* const* args, std::vector<core_trace>& traces,
                std::vector<std::string>& warnings) {
  const launch_layout layout = launch.layout();
  std::vector<uint32_t> sync_class(layout.cores());
  for (uint32_t c = 0; c < layout.cores(); ++c)
    sync_class[c] = static_cast<uint32_t>(layout.identity(c).kind);
  block_runner runner(std::move(sync_class));
  const std::unique_ptr<core_memory_pool> core_memory = make_core_memory_pool(launch.hw);
  kernel_launch with_runner = launch;
  with_runner.runner = &runner;
  with_runner.core_memory = core_memory.get();
  std::atomic<size_t> recorded_instructions{0};
  with_runner.recorded_instructions = &recorded_instructions;
  std::vector<core_trace> by_block(layout.cores());
  const auto name = [&](uint32_t core) {
    const core_identity id = layout.identity(core);
    if (id.kind == core_kind::whole) return std::string();
    return std::string(to_string(id.kind)) + " " + std::to_string(id.block_idx) + " (group " +
           std::to_string(id.group) + "): ";
  };
  const auto run_block = [&](uint32_t block) {
    try {
      core_context core(with_runner, block);
      {
        scoped_core scope(core);
        const gm_kernel_scope guarded(with_runner.guard);
        entries.kernel(args);
      }
      core.finish();
      by_block[block] = core.take_trace();
      const size_t recorded = by_block[block].instructions.size();
      if (recorded > recorded_instructions.load()) recorded_instructions.store(recorded);
      for (std::string& w : core.take_warnings()) {
        w = with_block(block, name(block) + w);
        // Per block the same finding differs only in its block number: one of each suffices.
        const auto same = [&](const std::string& seen) {
          return seen.substr(seen.find(':')) == w.substr(w.find(':'));
        };
        if (warnings.size() < max_warnings && std::none_of(warnings.begin(), warnings.end(), same))
          warnings.push_back(std::move(w));
      }
    } catch (const sim_error& e) {
      fail("runtime_error", e.kind().c_str(), with_block(block, name(block) + e.what()));
    } catch (const std::exception& e) {
      fail("runtime_error", "exception",
           with_block(block, "kernel " + spec.op.kernel_entry + " threw: " + e.what()));
    } catch (...) {
      fail("runtime_error", "exception",
           with_block(block, "kernel " + spec.op.kernel_entry + " threw a non-standard exception"));
    }
  };
  try {
    runner.run(run_block);
  } catch (const sim_error& e) {  // the runner's own finding (a SyncAll some block never reached)
    fail("runtime_error", e.kind().c_str(), e.what());
  }
  for (core_trace& t : by_block) traces.push_back(std::move(t));
}

// One launch of input set `set`: tiling, the cores, and what the trusted side needs to judge them.
// A core that declares a MIX type while `aiv_per_aic` is 0 stores it in `declared`.
set_report run_launch(const driver_spec& spec, const candidate_entries& entries, uint32_t set,
                      uint32_t aiv_per_aic, std::atomic<uint32_t>& declared,
                      std::vector<std::string>& diagnostics, std::vector<std::string>& warnings);

// Input set `set`, launched as its kernel declares.
set_report run_input_set(const driver_spec& spec, const candidate_entries& entries, uint32_t set,
                         std::vector<std::string>& diagnostics,
                         std::vector<std::string>& warnings) {
  // A kernel that declares a MIX type in a launch that is not one runs the set again as one.
  uint32_t aiv_per_aic = 0;
  for (;;) {
    std::atomic<uint32_t> declared{0};
    set_report report =
        run_launch(spec, entries, set, aiv_per_aic, declared, diagnostics, warnings);
    if (aiv_per_aic != 0 || declared.load() == 0) return report;
    aiv_per_aic = declared.load();
  }
}

set_report run_launch(const driver_spec& spec, const candidate_entries& entries, uint32_t set,
                      uint32_t aiv_per_aic, std::atomic<uint32_t>& declared,
                      std::vector<std::string>& diagnostics, std::vector<std::string>& warnings) {
  const npu::op_spec& op = spec.op;
  set_report report;
  try {
    const input_set inputs(spec, set);
    tiling_outcome tiling = run_tiling(spec, entries, inputs.data(), diagnostics, set == 0);
    report.block_dim = tiling.block_dim;
    report.tiling_key = tiling.tiling_key;
    report.workspace_bytes = tiling.workspace_bytes;
    report.tiling_data_size = tiling.tiling_data_size;
    report.tiling_bytes = tiling.tiling_bytes;

    std::vector<gm_buffer> gm;
    std::vector<uint8_t*> args;
    kernel_launch launch;
    launch.hw = spec.hw;
    launch.block_num = tiling.block_dim;
    launch.aiv_per_aic = aiv_per_aic;
    launch.declared_aiv_per_aic = &declared;
    report.aiv_per_aic = aiv_per_aic;
    if (aiv_per_aic != 0 && tiling.block_dim > spec.hw.cube_cores) {
      fail("runtime_error", "bad_block_dim",
           "blockDim " + std::to_string(tiling.block_dim) +
               " of a MIX kernel: each block is one "
               "AIC with its AIVs, and " +
               spec.hw.name + " has " + std::to_string(spec.hw.cube_cores) +
               " (a MIX launch may not exceed its physical cores)");
    }
    launch.tiling_key = tiling.tiling_key;
    // Only the timed first set records instructions; every set records its GM writes.
    launch.record_trace = set == 0;
    std::atomic<uint64_t> write_seq{0};
    launch.gm_write_seq = &write_seq;
    byte_arena write_snapshots;
    launch.write_snapshots = &write_snapshots;
    auto add_region = [&](const std::string& name, uint64_t bytes, bool output = false,
                          bool backed_when_empty = false) -> uint8_t* {
      gm.emplace_back(bytes, backed_when_empty);
      launch.gm.push_back(gm_region{name, gm.back().data(), bytes, gm_padding_bytes(bytes),
                                    bytes != 0 ? gm_over_read_bytes : 0, output});
      args.push_back(gm.back().data());
      return gm.back().data();
    };
    // An output updated in place (op.json "inplace"): its input's argument points to it, and
    // so does its own when it has one (CANN's ref output). The input's own region stays as it
    // was given (nothing addresses it), so the regions keep their order and the input its
    // fingerprint.
    const auto pass_in_place = [&](const npu::tensor_spec& out, uint8_t* buffer) {
      if (!out.has_own_argument()) args.pop_back();
      for (size_t i = 0; i < op.inputs.size(); ++i) {
        if (op.inputs[i].name == out.inplace_of) args[i] = buffer;
      }
    };
    gm.reserve(op.inputs.size() + op.outputs.size() + 2);
    for (size_t i = 0; i < op.inputs.size(); ++i) {
      const uint64_t bytes = op.inputs[i].bytes();
      uint8_t* p = add_region(op.inputs[i].name, bytes);
      if (bytes != 0) std::memcpy(p, inputs.data(i), bytes);
    }
    for (const auto& t : op.outputs) {
      uint8_t* p = add_region(t.name, t.bytes(), true);
      if (!t.inplace_of.empty()) pass_in_place(t, p);
      if (p == nullptr) continue;
      // An output the framework allocates with contents (op.json "init") starts with them.
      if (t.init == npu::tensor_spec::initial::value) {
        const size_t size = npu::dtype_size(t.type);
        for (int64_t e = 0; e < t.numel(); ++e) {
          encode_element(t.init_value, t.type, p + static_cast<size_t>(e) * size);
        }
      } else if (t.init == npu::tensor_spec::initial::copy) {
        for (size_t i = 0; i < op.inputs.size(); ++i) {
          if (op.inputs[i].name == t.init_source) std::memcpy(p, inputs.data(i), t.bytes());
        }
      } else {
        fill_poison(p, t.type, t.numel(), set);
        launch.gm.back().starts_poisoned = true;
      }
    }
    uint8_t* workspace = add_region("workspace", tiling.workspace_bytes, false, true);
    std::memset(workspace, workspace_poison_byte, tiling.workspace_bytes);
    uint8_t* tiling_gm = add_region("tiling", tiling.tiling_bytes.size());
    launch.gm.back().tiling_data = true;
    if (tiling_gm != nullptr) {
      std::memcpy(tiling_gm, tiling.tiling_bytes.data(), tiling.tiling_bytes.size());
    }

    {
      // Everything but the tiling data, which GET_TILING_DATA reads in the kernel's own code.
      std::vector<gm_guard::span> guarded;
      for (size_t i = 0; i + 1 < gm.size(); ++i) guarded.push_back(gm[i].mapped());
      gm_guard guard(std::move(guarded));
      launch.guard = &guard;
      run_blocks(spec, entries, launch, args.data(), report.traces, warnings);
      launch.guard = nullptr;
    }

    for (size_t i = 0; i < op.inputs.size(); ++i) {
      const uint8_t* after = gm[i].data();
      const uint64_t bytes = op.inputs[i].bytes();
      report.input_fingerprints.push_back(fingerprint(after, bytes));
      const bool changed = bytes != 0 && std::memcmp(after, inputs.data(i), bytes) != 0;
      report.changed_inputs.push_back(changed ? std::vector<uint8_t>(after, after + bytes)
                                              : std::vector<uint8_t>());
    }
    // Delivered from where the kernel left them: a copy would be as much fresh memory again.
    for (size_t i = 0; i < op.outputs.size(); ++i) {
      auto held = std::make_shared<gm_buffer>(std::move(gm[op.inputs.size() + i]));
      const uint8_t* p = held->data();
      report.outputs.push_back(byte_block::adopt(std::move(held), p, op.outputs[i].bytes()));
    }
  } catch (const evaluation_failure& e) {
    report.failed_status = e.status();
    report.failed_kind = e.kind();
    report.message = e.what();
  } catch (const std::bad_alloc&) {
    report.failed_status = "runtime_error";
    report.failed_kind = "out_of_memory";
    report.message = "out of memory allocating simulated GM";
  }
  return report;
}

}  // namespace

run_report collect_report(const driver_spec& spec, const candidate_entries& entries) {
  install_crash_report();
  run_report report;
  const uint32_t sets = spec.input_sets;
  const uint32_t threads = std::min(spec.set_threads, sets);
  if (threads <= 1) {
    for (uint32_t set = 0; set < sets; ++set) {
      report.sets.push_back(run_input_set(spec, entries, set, report.diagnostics, report.warnings));
      if (!report.sets.back().failed_status.empty()) break;
    }
    return report;
  }
  // Sets on several threads: each has its own GM, launch, cores (core_context binds a core to its
  // thread) and diagnostics, so they share nothing but the read-only spec. The report is then
  // put together in set order and cut after the first failed set, exactly as the loop above
  // leaves it; a set that starts after a failure is skipped as the loop would skip it.
  std::vector<set_report> by_set(sets);
  std::vector<std::vector<std::string>> notes(sets);
  std::vector<std::vector<std::string>> set_warnings(sets);
  std::vector<std::exception_ptr> errors(sets);
  std::atomic<uint32_t> next{0};
  std::atomic<uint32_t> first_failed{sets};
  auto worker = [&] {
    for (uint32_t set; (set = next.fetch_add(1)) < sets;) {
      if (set > first_failed.load()) continue;
      try {
        by_set[set] = run_input_set(spec, entries, set, notes[set], set_warnings[set]);
      } catch (...) {
        errors[set] = std::current_exception();
      }
      if (errors[set] || !by_set[set].failed_status.empty()) {
        uint32_t seen = first_failed.load();
        while (set < seen && !first_failed.compare_exchange_weak(seen, set)) {
        }
      }
    }
  };
  std::vector<std::thread> pool;
  for (uint32_t i = 1; i < threads; ++i) pool.emplace_back(worker);
  worker();
  for (auto& t : pool) t.join();
  for (uint32_t set = 0; set < sets; ++set) {
    if (errors[set]) std::rethrow_exception(errors[set]);
    for (auto& note : notes[set]) report.diagnostics.push_back(std::move(note));
    for (auto& w : set_warnings[set]) {
      // As the loop above would have kept them: each once, at most max_warnings.
      if (report.warnings.size() < max_warnings &&
          std::find(report.warnings.begin(), report.warnings.end(), w) == report.warnings.end())
        report.warnings.push_back(std::move(w));
    }
    report.sets.push_back(std::move(by_set[set]));
    if (!report.sets.back().failed_status.empty()) break;
  }
  return report;
}

}  // namespace aopt::sim
