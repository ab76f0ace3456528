// Reading msprof op's OPPROF_* directories and the system profiler's op_summary_*.csv, in the
// old and new column spellings (docs/ascendc-reference.md §5).
#include "npu/cann/msprof_reader.hpp"

#include <fstream>

#include <doctest/doctest.h>

#include "support/temp_dir.hpp"

namespace fs = std::filesystem;
using namespace aopt::npu;

namespace {

void write(const fs::path& p, const std::string& text) {
  fs::create_directories(p.parent_path());
  std::ofstream(p, std::ios::binary) << text;
}

const char* basic_old =
    "Op Name,Op Type,Task Duration(us),Block Dim,Mix Block Dim,Device ID,PID,Current Freq,Rated "
    "Freq\nadd_custom,AddCustom,21.35,8,0,3,4242,1500,1500\n";
const char* basic_new =
    "Op Name,Op Type,Task Duration(us),Block Num,Mix Block Dim,Device ID,PID,Current Freq,Rated "
    "Freq\nadd_custom,AddCustom,19.5,16,0,1,4242,1400,1500\n";
const char* pipes =
    "block_id,aiv_time(us),aiv_total_cycles,aiv_vec_time(us),aiv_vec_ratio,aiv_scalar_time(us),"
    "aiv_scalar_ratio,aiv_mte2_time(us),aiv_mte2_ratio,aiv_mte3_time(us),aiv_mte3_ratio,aiv_"
    "icache_miss_rate\n"
    "0,10.0,15000,2.0,0.2,1.0,0.1,6.0,0.6,3.0,0.3,0.01\n"
    "1,12.0,18000,3.0,0.25,1.2,0.1,7.2,0.6,2.4,0.2,0.01\n";
const char* memory =
    "block_id,GM_to_UB_datas(KB),UB_to_GM_datas(KB),aiv_gm_to_ub_bw(GB/s)\n0,64,32,100\n1,64,32,"
    "100\n";

}  // namespace

TEST_CASE("an OPPROF directory parses in the old spelling (Block Dim), the slowest block's pipes") {
  aopt::testing::temp_dir tmp;
  const fs::path dir = tmp.path() / "prof" / "OPPROF_20260101120000_ABC";
  write(dir / "OpBasicInfo.csv", basic_old);
  write(dir / "PipeUtilization.csv", pipes);
  write(dir / "Memory.csv", memory);
  auto m = read_profiler_output(tmp.path() / "prof", "add_custom");
  REQUIRE_MESSAGE(m.ok(), m.error().to_string());
  CHECK(m->task_duration_us == doctest::Approx(21.35));
  CHECK(m->block_dim == 8);
  CHECK(m->device_id == "3");
  CHECK(m->current_freq_mhz == 1500);
  REQUIRE(m->has_pipes);
  CHECK(m->aiv_time_us == 12.0);
  CHECK(m->vector.time_us == 3.0);
  CHECK(m->vector.ratio == 0.25);
  CHECK(m->mte2.time_us == doctest::Approx(7.2));
  CHECK(m->mte3.ratio == 0.2);
  CHECK(m->scalar.time_us == doctest::Approx(1.2));
  REQUIRE(m->has_memory);
  CHECK(m->gm_read_bytes == 128 * 1024);
  CHECK(m->gm_write_bytes == 64 * 1024);
}

TEST_CASE("the newest OPPROF directory wins, and the new spelling (Block Num) parses") {
  aopt::testing::temp_dir tmp;
  write(tmp.path() / "OPPROF_20260101120000_A" / "OpBasicInfo.csv", basic_old);
  // Some msprof versions nest a device folder.
  write(tmp.path() / "device_1" / "OPPROF_20260101120500_B" / "OpBasicInfo.csv", basic_new);
  auto newest = newest_opprof_dir(tmp.path());
  REQUIRE(newest.ok());
  CHECK(newest->filename() == "OPPROF_20260101120500_B");
  auto m = read_profiler_output(tmp.path(), "add_custom");
  REQUIRE_MESSAGE(m.ok(), m.error().to_string());
  CHECK(m->task_duration_us == 19.5);
  CHECK(m->block_dim == 16);
  CHECK(m->current_freq_mhz == 1400);
  CHECK_FALSE(m->has_pipes);
}

TEST_CASE("a missing column names the file and the column") {
  aopt::testing::temp_dir tmp;
  const fs::path dir = tmp.path() / "OPPROF_1_X";
  write(dir / "OpBasicInfo.csv", "Op Name,Task Duration(us),PID\nadd,3.5,1\n");
  auto m = read_opprof_dir(dir);
  REQUIRE_FALSE(m.ok());
  CHECK(m.error().message() == "OpBasicInfo.csv: no column 'Block Dim' (or 'Block Num')");

  write(dir / "OpBasicInfo.csv", basic_old);
  write(dir / "PipeUtilization.csv", "aiv_time(us),aiv_vec_time(us)\n1,2\n");
  m = read_opprof_dir(dir);
  REQUIRE_FALSE(m.ok());
  CHECK(m.error().message() == "PipeUtilization.csv: no column 'aiv_vec_ratio'");

  fs::remove(dir / "PipeUtilization.csv");
  write(dir / "Memory.csv", "GM_to_UB_datas(KB)\n1\n");
  m = read_opprof_dir(dir);
  REQUIRE_FALSE(m.ok());
  CHECK(m.error().message() == "Memory.csv: no column 'UB_to_GM_datas(KB)'");

  fs::remove(dir / "Memory.csv");
  write(dir / "OpBasicInfo.csv", "Task Duration(us),Block Dim\nN/A,8\n");
  m = read_opprof_dir(dir);
  REQUIRE_FALSE(m.ok());
  CHECK(m.error().message() ==
        "OpBasicInfo.csv: row 2, column 'Task Duration(us)': 'N/A' is not a number");
}

TEST_CASE("op_summary parses in both spellings, keeping the kernel's rows only") {
  aopt::testing::temp_dir tmp;
  write(tmp.path() / "PROF_1" / "device_0" / "summary" / "op_summary_0_1_1.csv",
        "Op Name,OP Type,Task Type,Task Duration(us),Block Dim,Input Shapes,aiv_time(us),"
        "aiv_vec_ratio,aiv_mte2_ratio\n"
        "other_op,Other,AI_VECTOR_CORE,99,40,\"1,2\",90,0.5,0.5\n"
        "add_custom,AddCustom,AI_VECTOR_CORE,10,8,\"8,2048\",9,0.25,0.5\n"
        "add_custom,AddCustom,AI_VECTOR_CORE,12,8,\"8,2048\",11,0.25,0.5\n"
        "add_custom,AddCustom,AI_VECTOR_CORE,30,8,\"8,2048\",29,0.25,0.5\n");
  auto m = read_profiler_output(tmp.path(), "add_custom");
  REQUIRE_MESSAGE(m.ok(), m.error().to_string());
  CHECK(m->task_durations_us == std::vector<double>{10, 12, 30});
  CHECK(m->task_duration_us == 12);
  CHECK(m->block_dim == 8);
  CHECK(m->vector.time_us == doctest::Approx(0.25 * 9));

  write(tmp.path() / "op_summary_0_1_2.csv",
        "OP Name,Task Duration(us),Block Num\nadd_custom,7.25,4\n");
  m = read_profiler_output(tmp.path(), "add_custom");
  REQUIRE_MESSAGE(m.ok(), m.error().to_string());
  CHECK(m->task_duration_us == 7.25);
  CHECK(m->block_dim == 4);

  auto none = read_profiler_output(tmp.path(), "mul_custom");
  REQUIRE_FALSE(none.ok());
  CHECK(none.error().message() ==
        "op_summary_0_1_2.csv: no row whose Op Name contains 'mul_custom'");
}

TEST_CASE("no profiler output at all is not_found, naming both formats") {
  aopt::testing::temp_dir tmp;
  auto m = read_profiler_output(tmp.path(), "add_custom");
  REQUIRE_FALSE(m.ok());
  CHECK(m.error().code() == aopt::status_code::not_found);
  CHECK(m.error().message().find("neither an OPPROF_* directory nor an op_summary_*.csv") !=
        std::string::npos);
}
