// The folder a bench keeps its databases in. Without --work: a fresh temporary folder, removed
// at the end. With --work DIR: DIR is kept, and the bench run again with the same DIR resumes
// every campaign it started there (campaigns resume by id from their database) instead of
// evaluating it again, so a bench of hours survives an interruption and can be finished later.
// DIR remembers the build that made it (a content hash of the bench executable, the programs it
// runs and the source folders candidates are compiled with, such as the simulator's); another
// build refuses it, so one table never mixes two versions of the code.
#pragma once

#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <system_error>
#include <vector>

#include <fmt/format.h>

#include "base/content_hash.hpp"
#include "base/status.hpp"

namespace aopt::bench {

class bench_work_dir {
 public:
  // `given` is --work's value ("" for a temporary folder named after `temp_prefix`); `inputs`
  // are the files and folders besides the bench executable that the results depend on.
  static result<bench_work_dir> open(const std::string& given, const std::string& temp_prefix,
                                     const std::vector<std::string>& inputs = {}) {
    namespace fs = std::filesystem;
    bench_work_dir dir;
    if (given.empty()) {
      dir.path_ = fs::temp_directory_path() / fmt::format("{}-{}", temp_prefix, ::getpid());
      dir.temporary_ = true;
    } else {
      dir.path_ = fs::absolute(given);
    }
    std::error_code ec;
    fs::create_directories(dir.path_, ec);
    if (ec) return invalid_argument(fmt::format("--work {}: {}", dir.path_.string(), ec.message()));
    std::vector<std::string> files = {"/proc/self/exe"};
    for (const std::string& input : inputs) {
      if (!fs::is_directory(input)) {
        files.push_back(input);
        continue;
      }
      std::vector<std::string> inside;
      for (const auto& e : fs::recursive_directory_iterator(input)) {
        if (e.is_regular_file()) inside.push_back(e.path().string());
      }
      std::sort(inside.begin(), inside.end());
      files.insert(files.end(), inside.begin(), inside.end());
    }
    // One file in memory at a time: the executables are tens of megabytes.
    content_hasher hasher;
    for (const std::string& file : files) {
      std::ifstream in(file, std::ios::binary);
      if (!in) return not_found(fmt::format("cannot read {} to identify the build", file));
      hasher.add(std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()));
    }
    const std::string build = hasher.hex();
    const fs::path stamp = dir.path_ / "build.id";
    if (std::ifstream in(stamp); in) {
      std::string made_by;
      std::getline(in, made_by);
      if (made_by != build) {
        return failed_precondition(fmt::format(
            "--work {}: made by another build ({}, this one is {}); its results would mix two "
            "versions of the code: remove it or give another folder",
            dir.path_.string(), made_by, build));
      }
      dir.resumed_ = true;
    } else {
      std::ofstream(stamp) << build << "\n";
    }
    return dir;
  }

  bench_work_dir(bench_work_dir&& other) noexcept
      : path_(std::move(other.path_)), temporary_(other.temporary_), resumed_(other.resumed_) {
    other.temporary_ = false;
  }
  bench_work_dir& operator=(bench_work_dir&&) = delete;
  bench_work_dir(const bench_work_dir&) = delete;
  bench_work_dir& operator=(const bench_work_dir&) = delete;
  ~bench_work_dir() {
    if (!temporary_) return;
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }

  const std::filesystem::path& path() const { return path_; }
  // True when DIR held an earlier run of this build.
  bool resumed() const { return resumed_; }

 private:
  bench_work_dir() = default;

  std::filesystem::path path_;
  bool temporary_ = false;
  bool resumed_ = false;
};

}  // namespace aopt::bench
