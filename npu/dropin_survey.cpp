#include "npu/dropin_survey.hpp"

#include <algorithm>
#include <atomic>
#include <thread>

#include <fmt/format.h>

#include "npu/op_package.hpp"

namespace aopt::npu {

namespace fs = std::filesystem;

namespace {

std::string first_line(const std::string& text) {
  std::string line = text.substr(0, text.find('\n'));
  // A table cell: no column separator inside.
  std::replace(line.begin(), line.end(), '|', '/');
  return line;
}

dropin_row evaluate_package(const fs::path& dir, device& target, const eval_options& options,
                            const package_load_options& load) {
  dropin_row row;
  row.package = dir.filename().string();
  result<op_package> op = load_op_package(dir, load);
  if (!op.ok()) {
    row.status = "load_error";
    row.reason = first_line(op.error().message());
    return row;
  }
  const eval_result r = target.evaluate(*op, op->host_source, op->kernel_source, options);
  row.status = to_string(r.status);
  row.error_kind = r.error_kind;
  row.reason = first_line(r.message);
  row.latency_us = r.ok() ? r.latency_us : 0;
  return row;
}

}  // namespace

std::vector<fs::path> dropin_packages(const fs::path& root) {
  std::vector<fs::path> dirs;
  std::error_code ec;
  for (fs::directory_iterator it(root, ec), end; !ec && it != end; it.increment(ec)) {
    if (fs::is_regular_file(it->path() / "op.json", ec)) dirs.push_back(it->path());
  }
  std::sort(dirs.begin(), dirs.end());
  return dirs;
}

std::vector<dropin_row> survey_packages(const std::vector<fs::path>& dirs, device& target,
                                        const eval_options& options, uint32_t jobs,
                                        const package_load_options& load) {
  std::vector<dropin_row> rows(dirs.size());
  std::atomic<size_t> next{0};
  auto worker = [&] {
    for (size_t i; (i = next.fetch_add(1)) < dirs.size();) {
      rows[i] = evaluate_package(dirs[i], target, options, load);
    }
  };
  std::vector<std::thread> threads;
  for (uint32_t t = 1; t < std::max<uint32_t>(1, jobs); ++t) threads.emplace_back(worker);
  worker();
  for (auto& t : threads) t.join();
  return rows;
}

size_t count_ok(const std::vector<dropin_row>& rows) {
  return static_cast<size_t>(
      std::count_if(rows.begin(), rows.end(), [](const dropin_row& r) { return r.ok(); }));
}

std::string dropin_table(const std::vector<dropin_row>& rows) {
  std::string out = "| package | status (error_kind) | first line of the reason | latency |\n";
  out += "|---|---|---|---|\n";
  for (const dropin_row& r : rows) {
    const std::string status =
        r.error_kind.empty() ? r.status : fmt::format("{} ({})", r.status, r.error_kind);
    const std::string latency = r.ok() ? fmt::format("{:.1f} us", r.latency_us) : "-";
    out += fmt::format("| {} | {} | {} | {} |\n", r.package, status,
                       r.reason.empty() ? "" : "`" + r.reason + "`", latency);
  }
  const size_t ok = count_ok(rows);
  out += fmt::format(
      "\ndrop-in rate: {} of {} ok ({:.0f} %)\n", ok, rows.size(),
      rows.empty() ? 0.0 : 100.0 * static_cast<double>(ok) / static_cast<double>(rows.size()));
  return out;
}

}  // namespace aopt::npu
