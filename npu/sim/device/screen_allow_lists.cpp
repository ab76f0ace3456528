#include "npu/sim/device/screen_allow_lists.hpp"

#include <set>
#include <sstream>

namespace aopt::npu::screen_allow {

namespace {

// Containers, strings, algorithms, numerics, type traits and utilities: memory and computation
// only. No streams bound to files (only the in-memory string streams), threads, clocks or
// random devices; the C library's functions std:: re-exports are judged as C library names.
const std::set<std::string> std_names = {
    // containers, strings, views
    "vector", "array", "deque", "list", "forward_list", "map", "multimap", "set", "multiset",
    "unordered_map", "unordered_multimap", "unordered_set", "unordered_multiset", "queue",
    "priority_queue", "stack", "bitset", "basic_string", "string", "wstring", "u16string",
    "u32string", "basic_string_view", "string_view", "char_traits", "initializer_list", "pair",
    "tuple", "optional", "nullopt", "nullopt_t", "make_optional", "variant", "monostate", "visit",
    "holds_alternative", "get_if", "bad_optional_access", "bad_variant_access", "allocator",
    "allocator_traits", "hash", "equal_to", "not_equal_to", "less", "less_equal", "greater",
    "greater_equal", "plus", "minus", "multiplies", "divides", "modulus", "negate", "logical_and",
    "logical_or", "logical_not", "bit_and", "bit_or", "bit_xor", "function", "bind", "ref", "cref",
    "reference_wrapper", "mem_fn", "invoke", "placeholders",
    // in-memory string streams (host log helpers format into them)
    "basic_ostringstream", "basic_istringstream", "basic_stringstream", "ostringstream",
    "istringstream", "stringstream", "basic_ostream", "basic_istream", "basic_ios", "ios_base",
    "ostream", "istream", "endl", "ends", "flush", "setw", "setfill", "setprecision", "fixed",
    "scientific", "hex", "dec", "oct", "boolalpha", "noboolalpha", "left", "right", "showpos",
    "uppercase", "nouppercase", "defaultfloat", "hexfloat", "operator<<", "operator>>", "to_string",
    // the library's non-member operators: comparing and joining strings, pairs, optionals and
    // iterators (host code tests a string attribute with reduceType != "sum")
    "operator==", "operator!=", "operator<", "operator>", "operator<=", "operator>=", "operator<=>",
    "operator+", "operator-", "operator&", "operator|", "operator^", "operator~", "stoi", "stol",
    "stoll", "stoul", "stoull", "stof", "stod", "stold", "getline",
    // the standard streams: a debug line (the driver points the standard output at the capped
    // stderr before any package code runs)
    "cout", "cerr", "clog",
    // memory
    "unique_ptr", "shared_ptr", "weak_ptr", "make_unique", "make_shared", "default_delete",
    "enable_shared_from_this", "addressof", "align", "static_pointer_cast", "dynamic_pointer_cast",
    "const_pointer_cast", "nothrow", "nothrow_t", "launder",
    // utilities
    "move", "forward", "swap", "exchange", "declval", "as_const", "make_pair", "make_tuple", "tie",
    "forward_as_tuple", "get", "tuple_size", "tuple_element", "tuple_cat", "apply",
    "integer_sequence", "index_sequence", "make_index_sequence", "make_integer_sequence",
    "index_sequence_for", "ignore", "piecewise_construct", "in_place", "in_place_t", "byte",
    "size_t", "ptrdiff_t", "nullptr_t", "max_align_t", "intmax_t", "uintmax_t", "int8_t", "int16_t",
    "int32_t", "int64_t", "uint8_t", "uint16_t", "uint32_t", "uint64_t", "intptr_t", "uintptr_t",
    "size", "data", "empty", "begin", "end", "cbegin", "cend", "rbegin", "rend", "distance",
    "advance", "next", "prev", "back_inserter", "front_inserter", "inserter", "iterator_traits",
    "reverse_iterator", "move_iterator", "make_move_iterator", "back_insert_iterator",
    "insert_iterator", "iterator", "random_access_iterator_tag", "bidirectional_iterator_tag",
    "forward_iterator_tag", "input_iterator_tag", "output_iterator_tag", "numeric_limits",
    "float_denorm_style", "float_round_style", "exception", "runtime_error", "logic_error",
    "invalid_argument", "out_of_range", "length_error", "domain_error", "range_error",
    "overflow_error", "underflow_error", "bad_alloc", "bad_function_call", "bad_cast",
    // algorithms and numerics
    "min", "max", "minmax", "min_element", "max_element", "minmax_element", "clamp", "sort",
    "stable_sort", "partial_sort", "nth_element", "reverse", "rotate", "fill", "fill_n", "copy",
    "copy_n", "copy_if", "copy_backward", "move_backward", "transform", "for_each", "find",
    "find_if", "find_if_not", "count", "count_if", "all_of", "any_of", "none_of", "equal",
    "mismatch", "search", "unique", "remove", "remove_if", "replace", "replace_if", "lower_bound",
    "upper_bound", "equal_range", "binary_search", "merge", "iota", "accumulate", "reduce",
    "inner_product", "partial_sum", "adjacent_difference", "inclusive_scan", "exclusive_scan",
    "gcd", "lcm", "generate", "generate_n", "lexicographical_compare", "is_sorted", "partition",
    "stable_partition", "includes", "set_union", "set_intersection", "set_difference", "make_heap",
    "push_heap", "pop_heap", "sort_heap", "iter_swap", "swap_ranges",
    // math (<cmath> overloads libstdc++ declares in std)
    "abs", "fabs", "sqrt", "cbrt", "exp", "exp2", "expm1", "log", "log2", "log10", "log1p", "pow",
    "sin", "cos", "tan", "asin", "acos", "atan", "atan2", "sinh", "cosh", "tanh", "asinh", "acosh",
    "atanh", "erf", "erfc", "tgamma", "lgamma", "ceil", "floor", "round", "lround", "llround",
    "trunc", "rint", "lrint", "nearbyint", "fmod", "remainder", "fmin", "fmax", "fdim", "fma",
    "hypot", "frexp", "ldexp", "modf", "scalbn", "ilogb", "logb", "copysign", "nextafter", "isnan",
    "isinf", "isfinite", "isnormal", "signbit", "fpclassify", "div", "ldiv",
    // type traits
    "integral_constant", "bool_constant", "true_type", "false_type", "enable_if", "enable_if_t",
    "conditional", "conditional_t", "decay", "decay_t", "remove_reference", "remove_reference_t",
    "remove_cv", "remove_cv_t", "remove_const", "remove_const_t", "remove_volatile",
    "remove_pointer", "remove_pointer_t", "remove_extent", "add_const", "add_pointer",
    "add_lvalue_reference", "add_rvalue_reference", "make_signed", "make_signed_t", "make_unsigned",
    "make_unsigned_t", "underlying_type", "underlying_type_t", "common_type", "common_type_t",
    "result_of", "invoke_result", "invoke_result_t", "void_t", "is_same", "is_same_v",
    "is_integral", "is_integral_v", "is_floating_point", "is_floating_point_v", "is_arithmetic",
    "is_arithmetic_v", "is_signed", "is_signed_v", "is_unsigned", "is_unsigned_v", "is_pointer",
    "is_pointer_v", "is_reference", "is_const", "is_enum", "is_enum_v", "is_class", "is_void",
    "is_array", "is_base_of", "is_base_of_v", "is_convertible", "is_convertible_v",
    "is_constructible", "is_trivially_copyable", "is_trivially_copyable_v", "is_standard_layout",
    "is_pod", "is_empty", "is_fundamental", "is_scalar", "is_object", "is_function", "is_invocable",
    "conjunction", "disjunction", "negation", "extent", "rank", "alignment_of", "aligned_storage",
    "is_default_constructible", "is_copy_constructible", "is_move_constructible",
    "is_nothrow_move_constructible", "is_assignable", "is_lvalue_reference", "is_rvalue_reference",
    "is_member_pointer", "has_virtual_destructor"};

// The C library's memory, string and math functions, the identity queries a log line's prefix
// needs, reading the environment (a candidate runs without aopt's), formatting into memory,
// printing a debug line to the standard output (the driver points it at the capped stderr before
// any package code runs; only the calls that take no FILE*, which could be forged) and
// allocation. The other C I/O, process, signal and exit functions are not here.
const std::set<std::string> c_library_names = {
    "memcpy",     "memmove",      "memset",        "memcmp",
    "memchr",     "strlen",       "strnlen",       "strcmp",
    "strncmp",    "strcpy",       "strncpy",       "strcat",
    "strncat",    "strchr",       "strrchr",       "strstr",
    "strspn",     "strcspn",      "strtok",        "strtok_r",
    "strcasecmp", "strncasecmp",  "printf",        "vprintf",
    "puts",       "putchar",      "strtol",        "strtoul",
    "strtoll",    "strtoull",     "strtof",        "strtod",
    "strtold",    "atoi",         "atol",          "atoll",
    "atof",       "abs",          "labs",          "llabs",
    "div",        "ldiv",         "lldiv",         "toupper",
    "tolower",    "isdigit",      "isalpha",       "isalnum",
    "isspace",    "isupper",      "islower",       "isxdigit",
    "ispunct",    "isprint",      "snprintf",      "vsnprintf",
    "sprintf",    "vsprintf",     "sscanf",        "malloc",
    "calloc",     "realloc",      "free",          "aligned_alloc",
    "qsort",      "bsearch",      "getenv",        "secure_getenv",
    "getpid",     "gettid",       "__assert_fail", "__errno_location",
    "fabs",       "fabsf",        "fabsl",         "sqrt",
    "sqrtf",      "sqrtl",        "cbrt",          "cbrtf",
    "exp",        "expf",         "exp2",          "exp2f",
    "expm1",      "expm1f",       "log",           "logf",
    "log2",       "log2f",        "log10",         "log10f",
    "log1p",      "log1pf",       "pow",           "powf",
    "sin",        "sinf",         "cos",           "cosf",
    "tan",        "tanf",         "asin",          "asinf",
    "acos",       "acosf",        "atan",          "atanf",
    "atan2",      "atan2f",       "sinh",          "sinhf",
    "cosh",       "coshf",        "tanh",          "tanhf",
    "asinh",      "acosh",        "atanh",         "erf",
    "erff",       "erfc",         "erfcf",         "tgamma",
    "lgamma",     "ceil",         "ceilf",         "floor",
    "floorf",     "round",        "roundf",        "lround",
    "llround",    "trunc",        "truncf",        "rint",
    "rintf",      "lrint",        "nearbyint",     "fmod",
    "fmodf",      "remainder",    "fmin",          "fminf",
    "fmax",       "fmaxf",        "fdim",          "fma",
    "fmaf",       "hypot",        "hypotf",        "frexp",
    "frexpf",     "ldexp",        "ldexpf",        "modf",
    "modff",      "scalbn",       "ilogb",         "logb",
    "copysign",   "copysignf",    "nextafter",     "nextafterf",
    "nan",        "nanf",         "isnan",         "isinf",
    "isfinite",   "__isnan",      "__isnanf",      "__isinf",
    "__isinff",   "__finite",     "__finitef",     "__signbit",
    "__signbitf", "__fpclassify", "__fpclassifyf"};

// Bit counting, branch hints, the math the compiler folds, and the va_list machinery a
// printf-style log helper needs. Never the frame or return address (they walk into the
// driver's stack), alloca, setjmp/longjmp or the exception-return builtins.
const std::set<std::string> builtins = {"__builtin_expect",       "__builtin_unreachable",
                                        "__builtin_assume",       "__builtin_assume_aligned",
                                        "__builtin_constant_p",   "__builtin_clz",
                                        "__builtin_clzl",         "__builtin_clzll",
                                        "__builtin_ctz",          "__builtin_ctzl",
                                        "__builtin_ctzll",        "__builtin_popcount",
                                        "__builtin_popcountl",    "__builtin_popcountll",
                                        "__builtin_ffs",          "__builtin_ffsl",
                                        "__builtin_ffsll",        "__builtin_parity",
                                        "__builtin_bswap16",      "__builtin_bswap32",
                                        "__builtin_bswap64",      "__builtin_abs",
                                        "__builtin_labs",         "__builtin_fabs",
                                        "__builtin_fabsf",        "__builtin_sqrt",
                                        "__builtin_sqrtf",        "__builtin_inf",
                                        "__builtin_inff",         "__builtin_huge_val",
                                        "__builtin_huge_valf",    "__builtin_nan",
                                        "__builtin_nanf",         "__builtin_isnan",
                                        "__builtin_isinf",        "__builtin_isfinite",
                                        "__builtin_signbit",      "__builtin_isinf_sign",
                                        "__builtin_fpclassify",   "__builtin_isnormal",
                                        "__builtin_memcpy",       "__builtin_memset",
                                        "__builtin_memmove",      "__builtin_memcmp",
                                        "__builtin_strlen",       "__builtin_va_start",
                                        "__builtin_va_end",       "__builtin_va_copy",
                                        "__builtin_va_arg",       "__builtin_offsetof",
                                        "__builtin_add_overflow", "__builtin_sub_overflow",
                                        "__builtin_mul_overflow", "__builtin_is_constant_evaluated",
                                        "__builtin_launder",      "__builtin_addressof",
                                        "__builtin_bit_cast"};

// Layout, inlining and warning attributes. Never constructor/destructor/init_priority (code
// before or after the entry), alias/ifunc/weakref/weak/section/visibility/used (symbols and
// sections the link resolves differently) or cleanup.
const std::set<std::string> attributes = {"aligned",
                                          "alignas",
                                          "packed",
                                          "unused",
                                          "maybe_unused",
                                          "always_inline",
                                          "noinline",
                                          "inline",
                                          "flatten",
                                          "hot",
                                          "cold",
                                          "const",
                                          "pure",
                                          "nodiscard",
                                          "warn_unused_result",
                                          "deprecated",
                                          "fallthrough",
                                          "likely",
                                          "unlikely",
                                          "noreturn",
                                          "nothrow",
                                          "may_alias",
                                          "vector_size",
                                          "format",
                                          "nonnull",
                                          "returns_nonnull",
                                          "optimize",
                                          "target",
                                          "no_sanitize",
                                          "artificial",
                                          "gnu_inline",
                                          "unroll",
                                          "restrict",
                                          "__restrict__"};

// "bisheng auto_sync": the CANN compiler's hint that a loop's iterations need no synchronisation
// inserted between them. The simulator inserts none anywhere (the kernel's own flags order the
// pipes), so the hint changes nothing here.
const std::set<std::string> pragmas = {
    "once",         "pack",      "GCC diagnostic", "clang diagnostic", "GCC unroll",
    "unroll",       "GCC ivdep", "message",        "GCC push_options", "GCC pop_options",
    "GCC optimize", "region",    "endregion",      "bisheng auto_sync"};

const std::set<std::string> directives = {"include", "define", "undef", "if",
                                          "ifdef",   "ifndef", "elif",  "else",
                                          "endif",   "pragma", "error", "warning"};

// "__always_inline__" -> "always_inline".
std::string undecorated(std::string name) {
  if (name.size() > 4 && name.compare(0, 2, "__") == 0 &&
      name.compare(name.size() - 2, 2, "__") == 0) {
    name = name.substr(2, name.size() - 4);
  }
  return name;
}

}  // namespace

bool std_name(const std::string& name) {
  return std_names.count(name) != 0;
}

bool c_library_name(const std::string& name) {
  return c_library_names.count(name) != 0;
}

bool builtin(const std::string& name) {
  return builtins.count(name) != 0;
}

bool attribute(const std::string& name) {
  return attributes.count(undecorated(name)) != 0;
}

bool pragma(const std::string& text) {
  std::istringstream in(text);
  std::string first, second;
  in >> first >> second;
  return pragmas.count(first) != 0 || pragmas.count(first + " " + second) != 0;
}

bool directive(const std::string& name) {
  return directives.count(name) != 0;
}

}  // namespace aopt::npu::screen_allow
