#include "server/http_status_table.hpp"

namespace aopt::server {
namespace http = boost::beast::http;

http::status http_status_of(status_code code) {
  switch (code) {
    case status_code::ok:
      return http::status::ok;
    case status_code::invalid_argument:
    case status_code::unreadable_input:
      return http::status::bad_request;
    case status_code::not_found:
      return http::status::not_found;
    case status_code::already_exists:
    case status_code::failed_precondition:
      return http::status::conflict;
    case status_code::resource_exhausted:
      return http::status::too_many_requests;
    case status_code::unavailable:
      return http::status::service_unavailable;
    case status_code::unimplemented:
      return http::status::not_implemented;
    case status_code::deadline_exceeded:
      return http::status::gateway_timeout;
    case status_code::cancelled:
    case status_code::internal:
    case status_code::data_loss:
      return http::status::internal_server_error;
  }
  return http::status::internal_server_error;
}

http::status http_status_of(request_failure failure) {
  switch (failure) {
    case request_failure::unauthenticated:
      return http::status::unauthorized;
    case request_failure::forbidden:
      return http::status::forbidden;
    case request_failure::method_not_allowed:
      return http::status::method_not_allowed;
    case request_failure::body_too_large:
      return http::status::payload_too_large;
    case request_failure::headers_too_large:
      return http::status::request_header_fields_too_large;
  }
  return http::status::internal_server_error;
}

}  // namespace aopt::server
