// The AST screen's parser process (aopt_screen_unit): the screen (ast_screen.hpp) keeps a few
// running (screen_parser_pool.hpp) and hands each the units it has not judged before, under
// CPU-time and memory limits, because libclang makes whatever instantiations a package's
// templates ask for; in aopt's own process a template instantiated 2^30 times held aopt at 2 GB
// and growing after 9 minutes.
#pragma once

#include <string>

namespace aopt::npu {

// Parses and judges the unit that `request` describes (written by a screen, with everything the
// walk needs: the unit's folder, libclang's arguments, the shim's names and the predefined
// macros) and returns the verdict as JSON; "" for a request that is not a JSON object.
std::string judge_screen_request(const std::string& request);

}  // namespace aopt::npu
