// What a package's conditional directives may test (issue 30 item 7, fourth red-team round). The
// AST screen (ast_screen.hpp) parses a package with libclang, and g++ compiles it: two
// preprocessors. Where they disagree, `#if` shows the screen other code than the compiler builds:
// `#if !defined(__clang__)` (or `#if __GNUC__ > 4`: clang says 4, g++ 12) around raw-pointer work
// made the screen judge an honest add and g++ build the attack, which scored ok at 8.1 us against
// the honest 19.0 us. The screen judges only the code its parser keeps, so both preprocessors
// must keep the same code.
//
// So the identifiers of a package's #if, #elif, #ifdef, #ifndef, #elifdef and #elifndef lines
// (and, transitively, of the bodies of the package's macros they name) are an allow-list:
//   * `defined`, and any identifier that is not reserved to the implementation (not starting
//     with two underscores or an underscore and a capital): neither compiler predefines one in
//     standard C++ mode, so it is the package's or the shim's macro or undefined in both;
//   * a reserved identifier only if the shim defines it (__CCE_AICORE__), both compilers
//     predefine it with the same replacement (__cplusplus), the package defines it and neither
//     compiler predefines it (an include guard such as __ADD_CUSTOM_H__), or it is one of CANN's
//     pass macros (cann_pass_macros()) that neither compiler predefines;
//   * an identifier followed by `(` only if it is a function-like macro of the package or the
//     shim: __has_builtin(...), __has_attribute(...) and the other queries are the compiler's own
//     and answer differently;
//   * __has_include(<name>) or ("name") only of a header that neither compiler's own include
//     directory holds: both then search the package, the shim and the system alike (CANN's
//     logging headers pick their log API so; `__has_include(<opencl-c.h>)` is clang's alone).
// Everything else (__clang__, __GNUC__, _Float16, which the screen defines for clang, __COUNTER__
// and the other dynamic macros) is refused, naming the file, the line and the identifier.
#pragma once

#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "npu/sim/device/static_screen.hpp"

namespace aopt::npu {

// A compiler's predefined macros: name -> replacement (a function-like macro's parameter list
// is part of the replacement, "(c) c ## L").
using macro_table = std::map<std::string, std::string>;

// The macros `g++ -dM -E` prints (one `#define NAME[(params)] [replacement]` per line).
macro_table parse_macro_dump(const std::string& text);

// What the two preprocessors predefine, compared.
struct predefined_macros {
  std::set<std::string> any;    // predefined by either
  std::set<std::string> alike;  // predefined by both with the same replacement (blanks ignored)
  // The compilers' own include directories (clang's resource headers, GCC's): a header there is
  // one the other compiler may lack.
  std::vector<std::string> private_include_dirs;
};
predefined_macros compare_predefines(const macro_table& screen, const macro_table& compiler);

// Macros CANN's kernel compiler defines only in passes other than the device compile the
// simulator stands for, so that a normal build leaves them undefined: __GET_CODE_CHANNEL__
// (DrivingSDK's furthest_point_sampling guards its copies with `#ifndef __GET_CODE_CHANNEL__`).
// Neither g++ nor clang defines one either (tests/npu/screen_conditionals_test.cpp asks g++), so
// both preprocessors keep the same code.
const std::set<std::string>& cann_pass_macros();

// One file of the package, its path relative to the package root.
struct package_text {
  std::string path;
  const std::string* text = nullptr;
};

// The first identifier a conditional directive of `files` may not test, or nothing.
// `shim_macros`: every macro the shim's headers define.
std::optional<screen_finding> check_conditionals(const std::vector<package_text>& files,
                                                 const predefined_macros& predefined,
                                                 const std::set<std::string>& shim_macros);

}  // namespace aopt::npu
