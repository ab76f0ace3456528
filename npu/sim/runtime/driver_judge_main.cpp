// main() of the judge process (issue 30 item 6): `<exe> <spec> <check threads>`. The trusted
// parent (npu/sim/device/judge_process.hpp) runs it under a CPU-time and address-space limit, so
// that the kernel, not a count of ours, bounds what judging a hostile delivery can cost. It
// reads, as the parent hands them over in sealed memfds:
//   3  the candidate's delivery (driver_report.hpp), undecoded: decoding is judging too;
//   4  the reference's expected outputs (driver_expected.hpp);
//   5  input set 0 as the input store shares it (shared_inputs.hpp), for the GM read replay;
// and delivers the judgement's eval_result as JSON on its channel (stdout). It runs nothing of
// any candidate. Exits 0 once delivered (a rejected delivery is a judgement too), 2 for unusable
// arguments or hand-over, 3 when the channel is gone, judge_memory_exit_code when an allocation
// failed (its address-space limit).
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <exception>
#include <iostream>
#include <new>
#include <stdexcept>
#include <string>

#include <nlohmann/json.hpp>

#include "driver_channel.hpp"
#include "driver_codec.hpp"
#include "driver_expected.hpp"
#include "driver_judge.hpp"
#include "driver_judge_process.hpp"
#include "driver_report.hpp"
#include "read_mapping.hpp"
#include "shared_inputs.hpp"

namespace {

// What judging cost this process, for whoever sets the limits (the parent logs nothing of it).
void report_cost() {
  rusage used{};
  if (::getrusage(RUSAGE_SELF, &used) != 0) return;
  const double cpu = static_cast<double>(used.ru_utime.tv_sec + used.ru_stime.tv_sec) +
                     static_cast<double>(used.ru_utime.tv_usec + used.ru_stime.tv_usec) / 1e6;
  std::cerr << "judge cost: cpu_s=" << cpu << " max_rss_kib=" << used.ru_maxrss << '\n';
}

}  // namespace

int main(int argc, char** argv) {
  aopt::sim::delivery_channel channel;
  if (argc != 3) {
    std::cerr << "usage: " << (argc > 0 ? argv[0] : "judge") << " <spec> <check threads>\n";
    return 2;
  }
  using aopt::sim::judge_fd;
  nlohmann::json verdict;
  try {
    const auto spec = aopt::sim::read_driver_spec(argv[1]);
    const auto threads = static_cast<uint32_t>(std::strtoul(argv[2], nullptr, 10));
    // Compared where they were read (read_mapping.hpp): the expected doubles are not copied again.
    const auto expected_bytes = aopt::sim::read_mapping::whole(judge_fd::expected);
    aopt::sim::expected_outputs expected = aopt::sim::view_expected(expected_bytes.view(), spec.op);
    const auto first_inputs = aopt::sim::map_shared_inputs(judge_fd::first_inputs, spec.op);
    expected.first_set_inputs = aopt::sim::input_starts(first_inputs.data(), spec.op);
    aopt::npu::eval_result result;
    try {
      // Judged where it was read: outputs and GM write data are not copied again.
      const auto delivery = aopt::sim::read_mapping::whole(judge_fd::delivery);
      const aopt::sim::run_report report =
          aopt::sim::decode_report(delivery.view(), aopt::sim::bulk_bytes::viewed);
      result = aopt::sim::judge_run(spec, report, expected, threads).result;
    } catch (const aopt::sim::malformed_delivery& e) {
      result = aopt::sim::failed_result(
          &spec, aopt::npu::eval_status::runtime_error, "malformed_delivery",
          std::string("the candidate's delivery of outputs and trace is malformed: ") + e.what());
    }
    verdict = result;
  } catch (const std::bad_alloc&) {
    std::cerr << "judge: out of memory\n";
    return aopt::sim::judge_memory_exit_code;
  } catch (const std::exception& e) {
    std::cerr << "judge: " << e.what() << '\n';
    return 2;
  }
  report_cost();
  if (!channel.deliver(verdict.dump())) {
    std::cerr << "judge: the delivery channel is gone\n";
    return 3;
  }
  return 0;
}
