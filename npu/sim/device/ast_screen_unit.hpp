// The AST screen's parser process (aopt_screen_unit): the screen (ast_screen.hpp) starts it for
// each unit it has not judged before, under CPU-time and memory limits, because libclang makes
// whatever instantiations a package's templates ask for; in aopt's own process a template
// instantiated 2^30 times held aopt at 2 GB and growing after 9 minutes.
#pragma once

namespace aopt::npu {

// Parses and judges the unit that the request on `request_fd` describes (written by a screen,
// with everything the walk needs: the unit's folder, libclang's arguments, the shim's names and
// the predefined macros) and prints the verdict as JSON; 0 once printed.
int run_screen_unit(int request_fd);

}  // namespace aopt::npu
