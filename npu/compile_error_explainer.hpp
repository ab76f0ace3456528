// Turns the first error of a failed candidate compile into a message a kernel author can act
// on: the AscendC symbol g++ could not resolve and whether it is an API the simulator's shim does
// not provide yet (or only in part), pointing at docs/ascendc-api-coverage.md, or a mistake in
// the operator (a misspelt or undeclared name, a wrong overload of a provided API).
#pragma once

#include <string>

namespace aopt::npu {

// The identifier the first g++ error line is about ("Sort32" in "'Sort32' was not declared in
// this scope", "Gather" in "no matching function for call to 'Gather(...)'"), or "" when the
// line names none.
std::string missing_symbol(const std::string& error_line);

// The header of a "fatal error: <header>: No such file or directory" line, or "".
std::string missing_header(const std::string& error_line);

// `error_line` followed by the explanation, or `error_line` unchanged when it names no symbol.
std::string explain_compile_error(const std::string& error_line);

}  // namespace aopt::npu
