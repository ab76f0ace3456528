// Reads a file named by a relative path inside a folder without ever leaving the folder: every
// component of the path is opened with O_NOFOLLOW relative to the one before, so neither a
// symbolic link (to /etc/shadow, or to a file of another package) nor a FIFO or device node can
// stand in for a file of the folder. The folder itself is opened as named (the caller decided it
// may be read, e.g. path_roots for the daemon).
//
// Used for every file of an operator package (op.json and the sources it names), whether the
// package comes through the API, an upload, `aopt submit --upload` or the CLI.
//
// Hard links are not detected: a hard link is a file of the folder in its own right, and
// creating one to a file needs the right to read it on hardened kernels (protected_hardlinks).
//
// Thread-safety: reentrant.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>

#include "base/status.hpp"

namespace aopt {

// The contents of <dir>/<relative>. Errors:
//   invalid_argument  - `relative` is empty, absolute or has a ".." component; the file is not a
//                       regular file; it is larger than `max_bytes`
//   failed_precondition - a component is a symbolic link ("<dir>/op_kernel/x.cpp -> /etc/shadow:
//                       ..."): refused, as path_roots refuses a path outside the roots (the
//                       API answers both with 403)
//   not_found         - the folder or a component does not exist
//   internal          - any other file system failure (named)
result<std::string> read_file_beneath(const std::filesystem::path& dir, const std::string& relative,
                                      uint64_t max_bytes);

}  // namespace aopt
