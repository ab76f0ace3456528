#include "agent/episode/depth_rewrite_screen.hpp"

#include <algorithm>
#include <map>
#include <regex>
#include <string_view>
#include <vector>

#include <fmt/format.h>

#include "agent/kernel_text/kernel_edits.hpp"
#include "agent/kernel_text/source_text.hpp"

namespace aopt::agent {

namespace {

// What the screen reads of one kernel: its InitBuffer calls and integer constants.
struct buffer_layout {
  std::string text;
  std::string masked;
  std::vector<call_site> calls;
  std::vector<int_constant> constants;
};

buffer_layout layout_of(const std::string& kernel) {
  buffer_layout l;
  l.text = kernel;
  l.masked = mask_comments_and_strings(kernel);
  l.calls = find_calls(l.text, l.masked, "InitBuffer", {0, l.masked.size()});
  l.constants = find_int_constants(l.masked);
  return l;
}

bool is_queue_init(const call_site& call) {
  return call.arguments.size() == 3;
}

// The text with every buffer count of a queue InitBuffer and every constant's value replaced by
// '#': two kernels with the same skeleton differ in nothing else.
std::string skeleton(const buffer_layout& l) {
  std::vector<text_range> holes;
  for (const call_site& call : l.calls) {
    if (is_queue_init(call)) holes.push_back(call.argument_ranges[1]);
  }
  for (const int_constant& c : l.constants) holes.push_back(c.literal);
  std::sort(holes.begin(), holes.end(),
            [](const text_range& a, const text_range& b) { return a.begin < b.begin; });
  std::string out;
  size_t at = 0;
  for (const text_range& h : holes) {
    if (h.begin < at) return {};  // overlapping holes: nothing to compare
    out.append(l.text, at, h.begin - at);
    out += '#';
    at = h.end;
  }
  out.append(l.text, at, std::string::npos);
  return out;
}

uint32_t line_at(const std::string& text, size_t offset) {
  return static_cast<uint32_t>(
      1 + std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(offset), '\n'));
}

// The template argument lists of queue declarations (`TQue<VECIN, BUFFER_NUM>`): a depth there
// is a queue's declared bound, not an allocation.
std::vector<text_range> queue_template_arguments(const std::string& masked) {
  std::vector<text_range> out;
  for (const char* type : {"TQue", "TQueBind"}) {
    for (size_t at = find_identifier(masked, type); at != std::string::npos;
         at = find_identifier(masked, type, at + 1)) {
      const size_t open = skip_space(masked, at + std::string_view(type).size());
      if (open >= masked.size() || masked[open] != '<') continue;
      const size_t close = masked.find('>', open);
      if (close != std::string::npos) out.push_back({open, close});
    }
  }
  return out;
}

// Occurrences of `name` in `masked` outside queue template arguments.
size_t occurrences(const std::string& masked, const std::string& name) {
  const std::vector<text_range> declared = queue_template_arguments(masked);
  size_t n = 0;
  for (size_t at = find_identifier(masked, name); at != std::string::npos;
       at = find_identifier(masked, name, at + name.size())) {
    const bool in_declaration = std::any_of(
        declared.begin(), declared.end(), [&](text_range r) { return at > r.begin && at < r.end; });
    if (!in_declaration) ++n;
  }
  return n;
}

std::optional<uint32_t> literal_count(const std::string& text) {
  static const std::regex literal(R"(^(\d{1,6})[uU]?$)");
  std::smatch m;
  if (!std::regex_match(text, m, literal)) return std::nullopt;
  return static_cast<uint32_t>(std::stoul(m[1]));
}

// One allocation of the rewrite: the parent's and the rewrite's buffer counts.
struct predicted_allocation {
  uint32_t line = 0;
  uint32_t parent_buffers = 0;
  uint32_t buffers = 0;
  uint64_t bytes_each = 0;
};

struct prediction {
  std::vector<predicted_allocation> allocations;
  bool constants_changed = false;  // a changed constant may also bound a queue (TQue<..., N>)
};

std::optional<prediction> predict(const std::string& parent_kernel, const npu::eval_profile& parent,
                                  const std::string& kernel) {
  const std::vector<npu::ub_allocation>& reported = parent.ub_allocations;
  if (reported.empty() || parent_kernel == kernel) return std::nullopt;
  const buffer_layout p = layout_of(parent_kernel);
  const buffer_layout c = layout_of(kernel);
  if (p.calls.size() != reported.size() || c.calls.size() != p.calls.size() ||
      c.constants.size() != p.constants.size()) {
    return std::nullopt;
  }
  const std::string shape = skeleton(p);
  if (shape.empty() || shape != skeleton(c)) return std::nullopt;

  // Constants whose value the rewrite changed, by name: each may be used only as a whole
  // buffer count (and in its own definition), so that no length depends on it.
  std::map<std::string, uint32_t> changed;
  for (size_t i = 0; i < p.constants.size(); ++i) {
    const int_constant& before = p.constants[i];
    const int_constant& after = c.constants[i];
    if (before.name != after.name) return std::nullopt;
    if (before.value == after.value) continue;
    if (after.value <= 0 || after.value > 64) return std::nullopt;
    changed[after.name] = static_cast<uint32_t>(after.value);
  }
  for (const auto& [name, value] : changed) {
    size_t as_count = 0;
    for (const call_site& call : c.calls) {
      if (is_queue_init(call) && call.arguments[1] == name) ++as_count;
    }
    if (occurrences(c.masked, name) != as_count + 1) return std::nullopt;
  }

  std::vector<predicted_allocation> out;
  uint64_t parent_total = 0;
  for (size_t i = 0; i < p.calls.size(); ++i) {
    const call_site& before = p.calls[i];
    const call_site& after = c.calls[i];
    const npu::ub_allocation& a = reported[i];
    const uint32_t first_line = line_at(p.text, before.name_begin);
    const uint32_t last_line = line_at(p.text, before.parens.end == 0 ? 0 : before.parens.end - 1);
    if (a.line < first_line || a.line > last_line) return std::nullopt;
    parent_total += uint64_t{a.buffers} * a.bytes_each;
    predicted_allocation next{a.line, a.buffers, a.buffers, a.bytes_each};
    if (is_queue_init(before)) {
      const std::string& count = after.arguments[1];
      if (std::optional<uint32_t> literal = literal_count(count)) {
        next.buffers = *literal;
      } else if (auto it = changed.find(count); it != changed.end()) {
        next.buffers = it->second;
      } else if (count != before.arguments[1]) {
        return std::nullopt;
      }
    }
    out.push_back(next);
  }
  if (parent_total != parent.ub_high_water_bytes) return std::nullopt;
  return prediction{std::move(out), !changed.empty()};
}

uint64_t total_of(const std::vector<predicted_allocation>& all) {
  uint64_t total = 0;
  for (const predicted_allocation& a : all) total += uint64_t{a.buffers} * a.bytes_each;
  return total;
}

}  // namespace

std::optional<uint64_t> predicted_ub_bytes(const std::string& parent_kernel,
                                           const npu::eval_profile& parent,
                                           const std::string& kernel) {
  std::optional<prediction> p = predict(parent_kernel, parent, kernel);
  if (!p) return std::nullopt;
  return total_of(p->allocations);
}

feasibility_verdict screen_depth_rewrite(const std::string& parent_kernel,
                                         const npu::eval_profile& parent,
                                         const std::string& kernel) {
  std::optional<prediction> p = predict(parent_kernel, parent, kernel);
  if (!p) return {};
  const std::vector<predicted_allocation>& all = p->allocations;
  const bool same_counts = std::all_of(all.begin(), all.end(), [](const predicted_allocation& a) {
    return a.buffers == a.parent_buffers;
  });
  if (same_counts && !p->constants_changed) {
    std::string counts;
    for (const predicted_allocation& a : all) {
      counts += fmt::format("{}line {}: {}", counts.empty() ? "" : ", ", a.line, a.buffers);
    }
    return {"unchanged",
            fmt::format("its buffer counts are the parent's at this tiling ({}): the same program",
                        counts)};
  }
  const uint64_t need = total_of(all);
  if (parent.ub_capacity_bytes == 0 || need <= parent.ub_capacity_bytes) return {};
  std::string changes;
  for (const predicted_allocation& a : all) {
    if (a.buffers == a.parent_buffers) continue;
    changes += fmt::format("{}line {}: {} -> {} buffer(s) of {} bytes", changes.empty() ? "" : ", ",
                           a.line, a.parent_buffers, a.buffers, a.bytes_each);
  }
  return {"ub_overflow",
          fmt::format("its InitBuffer calls would take {} bytes of UB at the parent's tiling "
                      "(the parent's {} with {}); the UB holds {}",
                      need, parent.ub_high_water_bytes, changes, parent.ub_capacity_bytes)};
}

}  // namespace aopt::agent
