// The environment of every process the simulator device starts (compilers, linkers, candidates,
// references, probes, the judge): nothing of aopt's own, which may hold secrets (API keys,
// bearer tokens), and no locale.
//
// glibc.malloc.hugetlb=1 makes malloc back its large blocks with transparent huge pages
// (madvise), so a process touching tens of megabytes of tensors faults once per 2 MiB instead
// of once per 4 KiB page. Under a hypervisor that shadows page tables a first touch of a 4 KiB
// page costs tens of microseconds; on this project's CI machines that was most of a candidate's
// run (docs/architecture.md, "What an evaluation costs"). It changes no result: only where the
// kernel places pages.
#pragma once

#include <string>
#include <vector>

namespace aopt::npu {

inline std::vector<std::string> sandboxed_process_environment() {
  return {"PATH=/usr/bin:/bin", "LC_ALL=C", "GLIBC_TUNABLES=glibc.malloc.hugetlb=1"};
}

}  // namespace aopt::npu
