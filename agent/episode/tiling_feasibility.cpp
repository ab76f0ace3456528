#include "agent/episode/tiling_feasibility.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "agent/kernel_text/source_text.hpp"
#include "agent/kernel_text/tiling_names.hpp"
#include "agent/kernel_text/tiling_usage.hpp"
#include "npu/validation_shapes.hpp"

namespace aopt::agent {

namespace {

// The simulator's bounds (npu/sim/runtime/driver_failure.hpp; agent/ does not include the
// simulator's runtime): CANN's limit on logical blocks per launch and the workspace it allows.
constexpr uint64_t max_block_dim = 65535;
constexpr uint64_t max_workspace_bytes = uint64_t{1} << 30;
constexpr uint64_t ub_block_bytes = 32;

bool has_word(const std::vector<std::string>& words, std::initializer_list<const char*> any) {
  return std::any_of(words.begin(), words.end(), [&](const std::string& w) {
    return std::any_of(any.begin(), any.end(), [&](const char* a) { return w == a; });
  });
}

struct named_value {
  std::string name;
  int64_t value = 0;
};

// The first field (in layout order) whose name satisfies `pred`.
template <typename Pred>
std::optional<named_value> first_field(const tiling_data_layout& layout,
                                       const std::map<std::string, int64_t>& values, Pred pred) {
  for (const tiling_field& f : layout.fields) {
    auto it = values.find(f.name);
    if (it != values.end() && pred(f.name)) return named_value{f.name, it->second};
  }
  return std::nullopt;
}

feasibility_verdict reject(std::string kind, std::string message) {
  return {std::move(kind), std::move(message)};
}

}  // namespace

feasibility_facts facts_of(const npu::op_package& op, const std::string& kernel,
                           uint64_t ub_bytes) {
  feasibility_facts f;
  f.tiling_func = op.spec.tiling_func;
  f.ub_bytes = ub_bytes;
  int64_t largest = 0;
  for (const auto* list : {&op.spec.inputs, &op.spec.outputs}) {
    for (const npu::tensor_spec& t : *list) largest = std::max(largest, t.numel());
  }
  // Every input as large as the largest tensor is staged in UB a tile at a time; outputs may be
  // computed in place, so they do not count towards the lower bound.
  for (const npu::tensor_spec& t : op.spec.inputs) {
    if (t.numel() != largest || largest == 0) continue;
    const uint32_t size = npu::dtype_size(t.type);
    f.tile_bytes_per_element += size;
    f.element_bytes = f.element_bytes == 0 ? size : std::min(f.element_bytes, size);
  }
  const std::string masked = mask_comments_and_strings(kernel);
  f.kernel_pads_tails = find_identifier(masked, "DataCopyPad") != std::string::npos;
  f.buffer_depth_names = buffer_depth_sources(kernel);
  if (result<tiling_data_layout> layout = parse_tiling_layout(op.tiling_header_source);
      layout.ok()) {
    f.layout = std::move(*layout);
  }
  return f;
}

feasibility_verdict judge_tiling(const npu::tiling_probe_result& probe,
                                 const feasibility_facts& facts) {
  using kind = npu::tiling_probe_result::kind;
  switch (probe.result) {
    case kind::unavailable:
      return {};
    case kind::compile_error:
      return reject("compile_error", probe.message);
    case kind::crashed:
      return reject("tiling_crash", probe.message);
    case kind::ran:
      break;
  }
  const std::string& func = facts.tiling_func;
  if (!probe.exception.empty()) return reject("tiling_failed", func + " threw" + probe.exception);
  if (probe.status != 0) {
    return reject("tiling_failed",
                  fmt::format("{} returned {} instead of GRAPH_SUCCESS", func, probe.status));
  }
  if (probe.block_dim == 0 || probe.block_dim > max_block_dim) {
    return reject("bad_block_dim", fmt::format("{} set blockDim {}; it must be 1..{}", func,
                                               probe.block_dim, max_block_dim));
  }
  if (probe.workspace_bytes > max_workspace_bytes) {
    return reject("bad_workspace", fmt::format("{} requested {} bytes of workspace (at most {})",
                                               func, probe.workspace_bytes, max_workspace_bytes));
  }
  if (!facts.layout) return {};
  const tiling_data_layout& layout = *facts.layout;
  const std::map<std::string, int64_t> values = read_integer_fields(layout, probe.tiling_data);

  // A tile length in elements (or bytes), not a count of rows or tokens per tile.
  const auto tile = first_field(layout, values, [](const std::string& n) {
    return classify_tiling_name(n) == tiling_role::tile_size &&
           has_word(identifier_words(n),
                    {"length", "len", "size", "elems", "elements", "bytes", "byte"});
  });
  const auto depth = first_field(
      layout, values, [&](const std::string& n) { return facts.buffer_depth_names.count(n) != 0; });
  const auto total = first_field(layout, values, [](const std::string& n) {
    const auto w = identifier_words(n);
    return has_word(w, {"total"}) && has_word(w, {"length", "len"});
  });
  const auto per_block = first_field(layout, values, [](const std::string& n) {
    const auto w = identifier_words(n);
    return has_word(w, {"block", "core"}) && has_word(w, {"length", "len"});
  });

  if (tile && tile->value <= 0) {
    return reject("uncovered", fmt::format("tiling data {} = {}: no element is processed",
                                           tile->name, tile->value));
  }
  if (total && per_block && total->value > 0 &&
      static_cast<long double>(probe.block_dim) * per_block->value < total->value) {
    return reject(
        "uncovered",
        fmt::format("blockDim {} x {} {} = {} leaves {} of {} {} elements uncovered",
                    probe.block_dim, per_block->name, per_block->value,
                    static_cast<int64_t>(probe.block_dim) * per_block->value,
                    total->value - static_cast<int64_t>(probe.block_dim) * per_block->value,
                    total->name, total->value));
  }
  if (!tile) return {};
  const bool in_bytes = has_word(identifier_words(tile->name), {"bytes", "byte"});
  const int64_t buffers = depth && depth->value > 0 ? depth->value : 1;
  if (facts.ub_bytes > 0 && facts.tile_bytes_per_element > 0) {
    const long double need = static_cast<long double>(tile->value) * buffers *
                             (in_bytes ? 1 : facts.tile_bytes_per_element);
    if (need > static_cast<long double>(facts.ub_bytes)) {
      return reject("ub_overflow",
                    fmt::format("{} {} x {} {} x {} bytes per element of the inputs = {} bytes; "
                                "the UB holds {}",
                                tile->name, tile->value, depth ? depth->name : "buffer depth",
                                buffers, in_bytes ? 1 : facts.tile_bytes_per_element,
                                static_cast<uint64_t>(need), facts.ub_bytes));
    }
  }
  if (!facts.kernel_pads_tails && facts.element_bytes > 0 && !in_bytes &&
      (static_cast<uint64_t>(tile->value) * facts.element_bytes) % ub_block_bytes != 0) {
    return reject("misaligned",
                  fmt::format("{} {} x {} bytes is not a multiple of 32 bytes, and the kernel "
                              "copies no tail with DataCopyPad",
                              tile->name, tile->value, facts.element_bytes));
  }
  return {};
}

// The operator's own shapes first, then each of its validation shapes: a tiling that cannot work
// on one of them would make the final best fail validation and be discarded, so it is rejected
// before it costs an evaluation.
tiling_screen make_probe_screen(std::shared_ptr<npu::tiling_prober> prober, uint64_t ub_bytes) {
  return [prober = std::move(prober), ub_bytes](
             const npu::op_package& op, const std::string& tiling, const std::string& kernel) {
    feasibility_verdict verdict =
        judge_tiling(prober->probe_tiling(op, tiling), facts_of(op, kernel, ub_bytes));
    const std::vector<npu::shape_set>& shapes = op.spec.validation_shapes;
    for (size_t i = 0; i < shapes.size() && verdict.feasible(); ++i) {
      const npu::op_package shaped = npu::with_shapes(op, shapes[i]);
      verdict =
          judge_tiling(prober->probe_tiling(shaped, tiling), facts_of(shaped, kernel, ub_bytes));
      if (!verdict.feasible()) {
        verdict.message = fmt::format("on validation shape {} ({}): {}", i,
                                      npu::describe_shapes(shapes[i]), verdict.message);
      }
    }
    return verdict;
  };
}

}  // namespace aopt::agent
