// Reads what CANN's profilers write (docs/ascendc-reference.md §5) into the numbers aopt uses:
//
//   msprof op --output=DIR ...   DIR/OPPROF_<timestamp>_<x>/ with
//     OpBasicInfo.csv      Task Duration(us), Block Dim (newer CANN: Block Num), Device ID,
//                          Current Freq, Rated Freq (the last three optional)
//     PipeUtilization.csv  one row per block: aiv_time(us), aiv_{vec,scalar,mte2,mte3}_time(us)
//                          and aiv_*_ratio; the slowest block (largest aiv_time) is reported
//     Memory.csv           GM_to_UB_datas(KB), UB_to_GM_datas(KB), summed over blocks
//   the system profiler      op_summary_*.csv: Op Name, Task Duration(us), Block Dim|Block Num,
//                          and, when present, aiv_time(us) and the aiv_*_ratio columns
//
// Every column has its accepted spellings in one table (msprof_reader.cpp); a required column
// that is missing, or a value that is not a number, is an invalid_argument naming the file and
// the column. The caller maps that to an infra_error: the profiler, not the candidate, failed.
//
// Thread-safety: free functions without shared state.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "base/status.hpp"
#include "npu/protocol/eval_result.hpp"

namespace aopt::npu {

struct msprof_metrics {
  std::vector<double> task_durations_us;  // one per launch row (msprof --launch-count)
  double task_duration_us = 0;            // their median: the latency of this profile run
  uint32_t block_dim = 0;
  std::string device_id;        // "" when the file has no Device ID column
  double current_freq_mhz = 0;  // 0 when absent
  double rated_freq_mhz = 0;
  bool has_pipes = false;
  double aiv_time_us = 0;  // the slowest block's
  pipe_busy scalar, vector, mte2, mte3;
  bool has_memory = false;
  uint64_t gm_read_bytes = 0;
  uint64_t gm_write_bytes = 0;
  std::string source;  // the directory or file read
};

// The OPPROF_* directory with the greatest name (names start with a timestamp) directly under
// `prof_dir` or one level below (msprof nests a device folder on some versions); not_found
// when there is none.
result<std::filesystem::path> newest_opprof_dir(const std::filesystem::path& prof_dir);

// Reads OpBasicInfo.csv (required), PipeUtilization.csv and Memory.csv (each optional as a
// file, but a present file must have its columns).
result<msprof_metrics> read_opprof_dir(const std::filesystem::path& dir);

// Reads the rows of an op_summary_*.csv whose Op Name contains `kernel_name` (every row when
// `kernel_name` is empty); not_found when no row matches.
result<msprof_metrics> read_op_summary(const std::filesystem::path& file,
                                       const std::string& kernel_name);

// The newest OPPROF_* directory under `prof_dir`, else the newest op_summary_*.csv anywhere
// under it; not_found naming both when neither exists.
result<msprof_metrics> read_profiler_output(const std::filesystem::path& prof_dir,
                                            const std::string& kernel_name);

}  // namespace aopt::npu
