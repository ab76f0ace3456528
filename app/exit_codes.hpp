// The exit statuses every `aopt` command shares; a command documents the meaning of each in its
// own header comment and defines any further status (3 and up) next to its code.
#pragma once

namespace aopt::runtime {

constexpr int exit_ok = 0;
constexpr int exit_failed = 1;     // the command ran and what it did failed
constexpr int exit_bad_input = 2;  // bad arguments, configuration or operator package

}  // namespace aopt::runtime
