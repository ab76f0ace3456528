// What the AST screen (ast_screen.hpp) lets a candidate's own code name and write besides its own
// declarations and the shim's public API: the allow-lists, kept apart from the walk that applies
// them so that a review reads them in one place. Each list holds what honest operators use (the
// corpus, the expert kernels, the test packages and the wild operators were screened to derive
// them) and what is plainly of the same kind (the rest of the math functions, say). Nothing
// here reaches a file, a process, a socket, a signal, dynamic loading or an exit path.
#pragma once

#include <string>

namespace aopt::npu::screen_allow {

// Whether the standard library's std::<name>... may be named: `name` is the component right
// after std (and its inline namespaces), e.g. "vector" for std::vector<int>::push_back.
bool std_name(const std::string& name);

// Whether the C library's function or object `name` (declared in the global namespace of a
// system header, std::memcpy included: libstdc++ declares it with `using ::memcpy`) may be named.
// syscall is not: the screen allows its identity-query calls only (ast_screen.hpp).
bool c_library_name(const std::string& name);

// Whether the compiler builtin `name` (__builtin_*, __sync_*, __atomic_*) may be called.
bool builtin(const std::string& name);

// Whether an attribute (GNU or standard spelling, without its namespace or underscores
// around it: "always_inline" for __always_inline__) may be written.
bool attribute(const std::string& name);

// Whether `#pragma <text>` (or _Pragma("<text>")) may be written: `text` as written after the
// word pragma.
bool pragma(const std::string& text);

// Whether the preprocessing directive #<name> may be written.
bool directive(const std::string& name);

}  // namespace aopt::npu::screen_allow
