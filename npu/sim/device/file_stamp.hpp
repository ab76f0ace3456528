// What identifies a file's version without reading it: its canonical path, size and modification
// time. The device's caches key their entries on the stamps of the tools and libraries that made
// them (the compiler, its precompiled headers, the simulator's libraries).
#pragma once

#include <filesystem>
#include <string>

namespace aopt::npu {

// "<canonical path>:<size>:<mtime ticks>", or "<path>:missing".
std::string file_stamp(const std::filesystem::path& path);

}  // namespace aopt::npu
