// A uniquely named directory that removes itself (and everything in it) when destroyed,
// unless keep() was called. Move-only; not thread-safe (one owner).
//
// A live scratch directory <parent>/<name> holds an flock on <parent>/.<name>.owner (beside it,
// out of reach of what runs inside) for as long as the object exists; the kernel releases the
// lock when the owning process dies, however it dies. sweep() removes the directories whose
// lock is free: what runs killed with `kill -9` left behind. A kept directory gives up its
// lock file, so sweep() leaves it for inspection.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>

#include "base/status.hpp"

namespace aopt {

class scratch_dir {
 public:
  // Creates <parent>/<prefix>XXXXXX (the parent too, when missing). Running out of space or
  // descriptors is resource_exhausted; anything else internal.
  static result<scratch_dir> create(const std::filesystem::path& parent, const std::string& prefix);

  // Removes every directory directly under `parent` that a dead process's scratch_dir left
  // (its owner file exists and is not locked), with its owner file. Returns how many it removed; a
  // missing parent is 0. Safe while other processes create and use scratch directories in `parent`.
  static uint64_t sweep(const std::filesystem::path& parent);

  scratch_dir(scratch_dir&& other) noexcept;
  scratch_dir& operator=(scratch_dir&& other) noexcept;
  scratch_dir(const scratch_dir&) = delete;
  scratch_dir& operator=(const scratch_dir&) = delete;
  ~scratch_dir();

  const std::filesystem::path& path() const { return path_; }
  // Leaves the directory on disk (to inspect a failed evaluation).
  void keep();

 private:
  scratch_dir() = default;
  void remove() noexcept;

  std::filesystem::path path_;  // empty once moved from
  std::filesystem::path lock_path_;
  int lock_fd_ = -1;
  bool keep_ = false;
};

// Whether `dir` can take a build or a run: a directory the process owns, or handed over to the
// identity sandboxed children run as (base/sandbox.hpp), with owner rwx, free space on its file
// system, and descriptors left. An error is the machine's state (infra), never the candidate's:
// resource_exhausted for a full disk or no descriptors, failed_precondition for an unusable
// directory.
status check_scratch_usable(const std::filesystem::path& dir);

// The machine's part of check_scratch_usable: free space on the file system of `dir` and
// descriptors left in this process, not the directory's owner or mode. What decides after a
// candidate ran whether the machine failed it: the candidate may change its own scratch dir (its
// mode, its contents), so only aopt's own state counts (issue 30).
status check_machine_usable(const std::filesystem::path& dir);

// Free bytes for an unprivileged writer on the file system of `dir` (0 when it cannot be read).
uint64_t free_bytes(const std::filesystem::path& dir);

// The bytes the files beneath `dir` occupy on disk (allocated blocks), whatever their modes; what
// cannot be read counts as nothing.
uint64_t directory_bytes(const std::filesystem::path& dir);

}  // namespace aopt
