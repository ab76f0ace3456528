#include "npu/protocol/eval_status.hpp"

#include "npu/protocol/name_table.hpp"

namespace aopt::npu {

namespace {

// Stored in the evaluation cache: never rename.
constexpr enum_name<eval_status> status_names[] = {
    {eval_status::ok, "ok"},
    {eval_status::compile_error, "compile_error"},
    {eval_status::runtime_error, "runtime_error"},
    {eval_status::precision_error, "precision_error"},
    {eval_status::timeout, "timeout"},
    {eval_status::infra_error, "infra_error"},
};

}  // namespace

const char* to_string(eval_status s) {
  return name_of(status_names, s);
}

bool parse_eval_status(const std::string& text, eval_status& out) {
  return value_named(status_names, text, out);
}

}  // namespace aopt::npu
