#include "tiling_crash_guard.hpp"

#include <utility>

namespace aopt::sim {

tiling_crash_guard::tiling_crash_guard(std::string function_name)
    : function_name_(std::move(function_name)) {
  install_crash_report();
  set_running_tiling_function(&function_name_);
}

tiling_crash_guard::~tiling_crash_guard() {
  set_running_tiling_function(nullptr);
}

}  // namespace aopt::sim
