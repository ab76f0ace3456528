// What starting a child process costs the daemon, and what an idle actor system costs it.
//
// Child start: the median wall time of starting /bin/true and reaping it, while this process
// holds --rss MiB of touched memory (a daemon running several campaigns holds hundreds): a plain
// fork + execve + waitpid (what aopt did before: fork copies the parent's page tables and exit
// tears the copy down), against aopt's run_subprocess (clone with CLONE_VM | CLONE_VFORK, no
// copy), unconfined and sandboxed (the sandbox's Landlock ruleset, seccomp filters and network
// namespace included).
//
// Idle actor system: the CPU time an actor system with one idle actor takes per second of wall
// time, with CAF's default work-stealing scheduler (idle threads poll) against aopt's
// configuration (actors/actor_system_setup.hpp: threads block on a shared queue).
//
//   bench_child_start [--rss MiB,...] [--reps N] [--idle-seconds S]
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <string>
#include <thread>
#include <vector>

#include <fmt/format.h>
#include <CLI/CLI.hpp>
#include <caf/all.hpp>

#include "actors/actor_system_setup.hpp"
#include "base/subprocess.hpp"

namespace {

using clock_type = std::chrono::steady_clock;

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0.0 : v[v.size() / 2];
}

template <typename Start>
double median_ms(int reps, Start start) {
  std::vector<double> ms;
  for (int i = 0; i < reps; ++i) {
    const auto t0 = clock_type::now();
    if (!start()) return -1;
    ms.push_back(std::chrono::duration<double, std::milli>(clock_type::now() - t0).count());
  }
  return median(ms);
}

bool fork_exec_true() {
  char* const argv[] = {const_cast<char*>("/bin/true"), nullptr};
  char* const envp[] = {nullptr};
  pid_t pid = ::fork();
  if (pid < 0) return false;
  if (pid == 0) {
    ::execve(argv[0], argv, envp);
    ::_exit(127);
  }
  int status = 0;
  return ::waitpid(pid, &status, 0) == pid && WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

bool run_true(bool sandboxed) {
  aopt::subprocess_options o;
  o.argv = {"/bin/true"};
  o.sandbox = sandboxed;
  auto r = aopt::run_subprocess(o);
  return r.ok() && r->succeeded();
}

double cpu_seconds() {
  rusage usage{};
  ::getrusage(RUSAGE_SELF, &usage);
  auto s = [](const timeval& t) { return t.tv_sec + t.tv_usec / 1e6; };
  return s(usage.ru_utime) + s(usage.ru_stime);
}

// CPU milliseconds per wall second of an actor system holding one idle actor.
double idle_cpu_ms_per_s(caf::actor_system_config& cfg, double seconds) {
  cfg.set("scheduler.max-threads", std::max(2u, std::thread::hardware_concurrency()));
  caf::actor_system system{cfg};
  caf::actor idle = system.spawn([]() -> caf::behavior { return {[](int x) { return x; }}; });
  const double cpu0 = cpu_seconds();
  const auto t0 = clock_type::now();
  std::this_thread::sleep_for(std::chrono::duration<double>(seconds));
  const double wall = std::chrono::duration<double>(clock_type::now() - t0).count();
  const double cpu = cpu_seconds() - cpu0;
  caf::anon_send_exit(idle, caf::exit_reason::user_shutdown);
  return 1000.0 * cpu / wall;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"What starting a child and an idle actor system cost the daemon"};
  std::vector<size_t> rss_mib = {0, 256, 1024};
  int reps = 40;
  double idle_seconds = 3;
  app.add_option("--rss", rss_mib, "Touched memory held while starting children (MiB)")
      ->delimiter(',')
      ->capture_default_str();
  app.add_option("--reps", reps, "Children started per figure")
      ->check(CLI::Range(1, 10000))
      ->capture_default_str();
  app.add_option("--idle-seconds", idle_seconds, "Idle time measured per scheduler")
      ->check(CLI::Range(0.1, 600.0))
      ->capture_default_str();
  CLI11_PARSE(app, argc, argv);

  fmt::print("child start, median of {} (/bin/true, started and reaped), ms\n", reps);
  fmt::print("{:>10} {:>12} {:>14} {:>16} {:>10}\n", "held MiB", "fork+exec", "aopt clone",
             "aopt sandboxed", "fork/clone");
  for (size_t mib : rss_mib) {
    std::vector<char> held(mib << 20);
    for (size_t i = 0; i < held.size(); i += 4096) held[i] = static_cast<char>(i);
    const double forked = median_ms(reps, fork_exec_true);
    const double cloned = median_ms(reps, [] { return run_true(false); });
    const double sandboxed = median_ms(reps, [] { return run_true(true); });
    if (forked < 0 || cloned < 0 || sandboxed < 0) {
      fmt::print(stderr, "bench: starting /bin/true failed\n");
      return 1;
    }
    fmt::print("{:>10} {:>12.3f} {:>14.3f} {:>16.3f} {:>9.1f}x\n", mib, forked, cloned, sandboxed,
               forked / cloned);
    std::fflush(stdout);
  }

  fmt::print("\nidle actor system ({} threads, one idle actor), CPU ms per wall second\n",
             std::max(2u, std::thread::hardware_concurrency()));
  caf::actor_system_config stealing;
  const double stealing_ms = idle_cpu_ms_per_s(stealing, idle_seconds);
  caf::actor_system_config configured;
  aopt::actors::configure_actor_system(configured);
  const double configured_ms = idle_cpu_ms_per_s(configured, idle_seconds);
  fmt::print("{:>28} {:>8.1f}\n{:>28} {:>8.1f}\n", "work-stealing (CAF default)", stealing_ms,
             "aopt (sharing)", configured_ms);
  return 0;
}
