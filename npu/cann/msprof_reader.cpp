#include "npu/cann/msprof_reader.hpp"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include <fmt/format.h>

#include "npu/cann/csv_table.hpp"

namespace aopt::npu {

namespace fs = std::filesystem;

namespace {

// `lhs = *expr`, or return expr's error from the enclosing function.
#define CANN_ASSIGN_OR_RETURN(lhs, expr) CANN_ASSIGN_OR_RETURN_(lhs, expr, CANN_CAT(r_, __LINE__))
#define CANN_CAT(a, b) CANN_CAT_(a, b)
#define CANN_CAT_(a, b) a##b
#define CANN_ASSIGN_OR_RETURN_(lhs, expr, tmp) \
  auto tmp = (expr);                           \
  if (!tmp.ok()) return tmp.error();           \
  lhs = std::move(*tmp)

// One column and every spelling CANN versions have used for it, the documented name first.
struct column_spec {
  std::vector<std::string> spellings;
};

const column_spec task_duration{{"Task Duration(us)"}};
const column_spec block_dim{{"Block Dim", "Block Num"}};
const column_spec device_id{{"Device ID", "Device Id"}};
const column_spec current_freq{{"Current Freq", "Current Freq(MHz)"}};
const column_spec rated_freq{{"Rated Freq", "Rated Freq(MHz)"}};
const column_spec op_name{{"Op Name", "OP Name"}};
const column_spec aiv_time{{"aiv_time(us)"}};
const column_spec vec_time{{"aiv_vec_time(us)"}};
const column_spec vec_ratio{{"aiv_vec_ratio"}};
const column_spec scalar_time{{"aiv_scalar_time(us)"}};
const column_spec scalar_ratio{{"aiv_scalar_ratio"}};
const column_spec mte2_time{{"aiv_mte2_time(us)"}};
const column_spec mte2_ratio{{"aiv_mte2_ratio"}};
const column_spec mte3_time{{"aiv_mte3_time(us)"}};
const column_spec mte3_ratio{{"aiv_mte3_ratio"}};
const column_spec gm_to_ub{{"GM_to_UB_datas(KB)"}};
const column_spec ub_to_gm{{"UB_to_GM_datas(KB)"}};

constexpr const char* basic_info_file = "OpBasicInfo.csv";
constexpr const char* pipe_file = "PipeUtilization.csv";
constexpr const char* memory_file = "Memory.csv";

std::string spelled(const column_spec& c) {
  std::string out = "'" + c.spellings.front() + "'";
  for (size_t i = 1; i < c.spellings.size(); ++i) out += " (or '" + c.spellings[i] + "')";
  return out;
}

// A CSV file that has been read, with the name used in messages.
struct csv_file {
  std::string name;
  csv_table table;

  result<size_t> required(const column_spec& c) const {
    size_t i = table.column(c.spellings);
    if (i == csv_table::npos) return invalid_argument(name + ": no column " + spelled(c));
    return i;
  }
  size_t optional(const column_spec& c) const { return table.column(c.spellings); }

  // The number in row `r`, column `col`; msprof writes "N/A" for a metric it did not collect,
  // which is an error for a required value.
  result<double> number(size_t r, size_t col) const {
    const std::string& text = table.rows()[r][col];
    const size_t b = text.find_first_not_of(" \t");
    const size_t e = text.find_last_not_of(" \t");
    const std::string value = b == std::string::npos ? "" : text.substr(b, e - b + 1);
    char* end = nullptr;
    errno = 0;
    const double v = std::strtod(value.c_str(), &end);
    if (value.empty() || end != value.c_str() + value.size() || errno == ERANGE ||
        !std::isfinite(v)) {
      return invalid_argument(fmt::format("{}: row {}, column '{}': '{}' is not a number", name,
                                          r + 2, table.header()[col], text));
    }
    return v;
  }
};

result<csv_file> read_csv(const fs::path& path, const std::string& name) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return not_found(name + ": cannot open " + path.string());
  std::ostringstream text;
  text << in.rdbuf();
  CANN_ASSIGN_OR_RETURN(csv_table table, csv_table::parse(text.str(), name));
  if (table.rows().empty()) return invalid_argument(name + ": no data rows");
  return csv_file{name, std::move(table)};
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 == 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

// Task Duration(us) of `rows` and the block dim / device / clock of the first.
status read_basic(const csv_file& f, const std::vector<size_t>& rows, msprof_metrics& m) {
  CANN_ASSIGN_OR_RETURN(size_t duration_col, f.required(task_duration));
  CANN_ASSIGN_OR_RETURN(size_t block_col, f.required(block_dim));
  for (size_t r : rows) {
    CANN_ASSIGN_OR_RETURN(double d, f.number(r, duration_col));
    if (d <= 0) {
      return invalid_argument(fmt::format("{}: row {}, column '{}': {} is not a duration", f.name,
                                          r + 2, f.table.header()[duration_col], d));
    }
    m.task_durations_us.push_back(d);
  }
  m.task_duration_us = median(m.task_durations_us);
  CANN_ASSIGN_OR_RETURN(double blocks, f.number(rows.front(), block_col));
  m.block_dim = static_cast<uint32_t>(blocks);
  if (size_t c = f.optional(device_id); c != csv_table::npos) {
    m.device_id = f.table.rows()[rows.front()][c];
  }
  if (size_t c = f.optional(current_freq); c != csv_table::npos) {
    CANN_ASSIGN_OR_RETURN(m.current_freq_mhz, f.number(rows.front(), c));
  }
  if (size_t c = f.optional(rated_freq); c != csv_table::npos) {
    CANN_ASSIGN_OR_RETURN(m.rated_freq_mhz, f.number(rows.front(), c));
  }
  return {};
}

status read_pipe(const csv_file& f, size_t row, const column_spec& time, const column_spec& ratio,
                 pipe_busy& out) {
  CANN_ASSIGN_OR_RETURN(size_t t, f.required(time));
  CANN_ASSIGN_OR_RETURN(size_t r, f.required(ratio));
  CANN_ASSIGN_OR_RETURN(out.time_us, f.number(row, t));
  CANN_ASSIGN_OR_RETURN(out.ratio, f.number(row, r));
  return {};
}

// The slowest block's pipe times (eval_profile's convention: the critical core).
status read_pipes(const csv_file& f, msprof_metrics& m) {
  CANN_ASSIGN_OR_RETURN(size_t total_col, f.required(aiv_time));
  size_t slowest = 0;
  for (size_t r = 0; r < f.table.rows().size(); ++r) {
    CANN_ASSIGN_OR_RETURN(double t, f.number(r, total_col));
    if (r == 0 || t > m.aiv_time_us) {
      m.aiv_time_us = t;
      slowest = r;
    }
  }
  AOPT_RETURN_IF_ERROR(read_pipe(f, slowest, vec_time, vec_ratio, m.vector));
  AOPT_RETURN_IF_ERROR(read_pipe(f, slowest, scalar_time, scalar_ratio, m.scalar));
  AOPT_RETURN_IF_ERROR(read_pipe(f, slowest, mte2_time, mte2_ratio, m.mte2));
  AOPT_RETURN_IF_ERROR(read_pipe(f, slowest, mte3_time, mte3_ratio, m.mte3));
  m.has_pipes = true;
  return {};
}

status read_memory(const csv_file& f, msprof_metrics& m) {
  CANN_ASSIGN_OR_RETURN(size_t in_col, f.required(gm_to_ub));
  CANN_ASSIGN_OR_RETURN(size_t out_col, f.required(ub_to_gm));
  double in_kb = 0;
  double out_kb = 0;
  for (size_t r = 0; r < f.table.rows().size(); ++r) {
    CANN_ASSIGN_OR_RETURN(double a, f.number(r, in_col));
    CANN_ASSIGN_OR_RETURN(double b, f.number(r, out_col));
    in_kb += a;
    out_kb += b;
  }
  m.gm_read_bytes = static_cast<uint64_t>(std::llround(in_kb * 1024));
  m.gm_write_bytes = static_cast<uint64_t>(std::llround(out_kb * 1024));
  m.has_memory = true;
  return {};
}

bool starts_with(const std::string& s, const char* prefix) {
  return s.rfind(prefix, 0) == 0;
}

}  // namespace

result<fs::path> newest_opprof_dir(const fs::path& prof_dir) {
  std::error_code ec;
  fs::path best;
  auto consider = [&](const fs::path& dir, int depth, auto& self) -> void {
    for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
      if (!it->is_directory(ec)) continue;
      const std::string name = it->path().filename().string();
      if (starts_with(name, "OPPROF_")) {
        if (best.empty() || name > best.filename().string()) best = it->path();
      } else if (depth == 0) {
        self(it->path(), 1, self);
      }
    }
  };
  consider(prof_dir, 0, consider);
  if (best.empty()) return not_found("no OPPROF_* directory under " + prof_dir.string());
  return best;
}

result<msprof_metrics> read_opprof_dir(const fs::path& dir) {
  msprof_metrics m;
  m.source = dir.string();
  std::error_code ec;
  if (!fs::is_regular_file(dir / basic_info_file, ec)) {
    return invalid_argument(dir.filename().string() + ": no " + basic_info_file);
  }
  CANN_ASSIGN_OR_RETURN(csv_file basic, read_csv(dir / basic_info_file, basic_info_file));
  AOPT_RETURN_IF_ERROR(read_basic(basic, {0}, m));
  if (fs::is_regular_file(dir / pipe_file, ec)) {
    CANN_ASSIGN_OR_RETURN(csv_file pipes, read_csv(dir / pipe_file, pipe_file));
    AOPT_RETURN_IF_ERROR(read_pipes(pipes, m));
  }
  if (fs::is_regular_file(dir / memory_file, ec)) {
    CANN_ASSIGN_OR_RETURN(csv_file memory, read_csv(dir / memory_file, memory_file));
    AOPT_RETURN_IF_ERROR(read_memory(memory, m));
  }
  return m;
}

result<msprof_metrics> read_op_summary(const fs::path& file, const std::string& kernel_name) {
  const std::string name = file.filename().string();
  CANN_ASSIGN_OR_RETURN(csv_file f, read_csv(file, name));
  CANN_ASSIGN_OR_RETURN(size_t name_col, f.required(op_name));
  std::vector<size_t> rows;
  for (size_t r = 0; r < f.table.rows().size(); ++r) {
    if (f.table.rows()[r][name_col].find(kernel_name) != std::string::npos) rows.push_back(r);
  }
  if (rows.empty())
    return not_found(name + ": no row whose Op Name contains '" + kernel_name + "'");
  msprof_metrics m;
  m.source = file.string();
  AOPT_RETURN_IF_ERROR(read_basic(f, rows, m));
  // The summary has ratios but no per-pipe times: times follow from the core time.
  if (size_t t = f.optional(aiv_time); t != csv_table::npos) {
    CANN_ASSIGN_OR_RETURN(m.aiv_time_us, f.number(rows.front(), t));
    const std::pair<const column_spec*, pipe_busy*> pipes[] = {{&vec_ratio, &m.vector},
                                                               {&scalar_ratio, &m.scalar},
                                                               {&mte2_ratio, &m.mte2},
                                                               {&mte3_ratio, &m.mte3}};
    for (const auto& [column, busy] : pipes) {
      if (size_t c = f.optional(*column); c != csv_table::npos) {
        CANN_ASSIGN_OR_RETURN(busy->ratio, f.number(rows.front(), c));
        busy->time_us = busy->ratio * m.aiv_time_us;
        m.has_pipes = true;
      }
    }
  }
  return m;
}

result<msprof_metrics> read_profiler_output(const fs::path& prof_dir,
                                            const std::string& kernel_name) {
  auto dir = newest_opprof_dir(prof_dir);
  if (dir.ok()) return read_opprof_dir(*dir);
  // The system profiler's summary, anywhere below (it nests PROF_*/device_*/summary/).
  std::error_code ec;
  fs::path newest;
  for (fs::recursive_directory_iterator it(prof_dir, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (starts_with(name, "op_summary_") && it->path().extension() == ".csv" &&
        (newest.empty() || name > newest.filename().string())) {
      newest = it->path();
    }
  }
  if (newest.empty()) {
    return not_found(
        "the profiler wrote neither an OPPROF_* directory nor an op_summary_*.csv "
        "under " +
        prof_dir.string());
  }
  return read_op_summary(newest, kernel_name);
}

#undef CANN_ASSIGN_OR_RETURN_
#undef CANN_CAT_
#undef CANN_CAT
#undef CANN_ASSIGN_OR_RETURN

}  // namespace aopt::npu
