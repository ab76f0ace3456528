#include "actors/actor_error.hpp"

namespace aopt::actors {
namespace {

const caf::atom_value aopt_category = caf::atom("aopt");

std::string message_of(const caf::message& context) {
  return context.match_elements<std::string>() ? context.get_as<std::string>(0)
                                               : caf::to_string(context);
}

// A remote peer may send any code: one outside the enum is an internal error.
status_code code_of(uint8_t code) {
  return code <= static_cast<uint8_t>(status_code::unreadable_input)
             ? static_cast<status_code>(code)
             : status_code::internal;
}

}  // namespace

caf::error to_actor_error(const status& s) {
  return caf::make_error(s.code(), s.message());
}

status to_status(const caf::error& e) {
  if (!e) return {};
  if (e.category() == aopt_category) return status(code_of(e.code()), message_of(e.context()));
  const std::string what = caf::to_string(e);
  if (e.category() == caf::atom("exit")) return cancelled(what);
  if (e.category() == caf::atom("system")) {
    switch (static_cast<caf::sec>(e.code())) {
      case caf::sec::request_timeout:
        return deadline_exceeded(what);
      case caf::sec::request_receiver_down:
      case caf::sec::no_actor_published_at_port:
      case caf::sec::cannot_connect_to_node:
        return unavailable(what);
      default:
        break;
    }
  }
  return internal_error(what);
}

void add_aopt_error_category(caf::actor_system_config& cfg) {
  cfg.add_error_category(
      aopt_category, [](uint8_t code, caf::atom_value, const caf::message& context) {
        return std::string(to_string(code_of(code))) + ": " + message_of(context);
      });
}

}  // namespace aopt::actors
