// A kernel whose class sits in a header beside it (a split kernel: `#include "knn.h"` in knn.cpp,
// as public operators are often written) keeps its InitBuffer calls, queues and loops in that
// header. Readers of the kernel's structure (the buffer depths and lengths template synthesis
// looks for) read the kernel together with such headers.
#pragma once

#include <filesystem>
#include <string>

namespace aopt::agent {

// `kernel`, followed by the text of every header it includes with quotes that exists in the
// folder of `kernel_file` (the kernel's real path), and of the headers those include in turn,
// each once. Headers elsewhere (the shim's, CANN's) are not read. An empty `kernel_file`, or
// one without such headers, gives `kernel` unchanged.
std::string with_local_headers(const std::string& kernel, const std::filesystem::path& kernel_file);

}  // namespace aopt::agent
