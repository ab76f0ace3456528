// The LLM service and backend built from the configuration: where [llm], device.profile,
// device.kind and campaign.seed become the option structs of llm/ and agent/llm_policies/
// (docs/design.md §2: the translation from config to options lives in runtime/ only).
#pragma once

#include <memory>

#include "agent/llm_policies/llm_backend.hpp"
#include "agent/llm_policies/llm_service.hpp"
#include "base/status.hpp"
#include "config/aopt_config.hpp"
#include "llm/gateway.hpp"
#include "llm/openai_client.hpp"
#include "storage/store.hpp"

namespace aopt::runtime {

// The client and gateway settings of an [llm] section.
llm::client_options client_options_from(const config::llm_config& c);
llm::gateway_options gateway_options_from(const config::llm_config& c);

// The service of `c`'s endpoint and limits; the response cache is `db`'s llm_cache column family,
// or memory when `db` is null (`db` must then outlive the service). Errors: invalid_argument for
// an empty llm.model or a bad base URL.
result<std::shared_ptr<agent::llm_service>> make_llm_service(const config::llm_config& c,
                                                             storage::store* db);

// Builds the backend of `config`: the built-in prompts then llm.prompts_dir over them, and
// device.profile for the hardware text. It calls through `shared` when given (its endpoint and
// limits win over config's [llm]); otherwise through a service of its own made from [llm] with
// llm.cache over `db`'s llm_cache (a memory cache when `db` is null). Errors: make_llm_service's,
// the prompt library's and the hardware profile's.
result<std::shared_ptr<agent::llm_backend>> make_llm_backend(
    const config::aopt_config& config, storage::store* db,
    std::shared_ptr<agent::llm_service> shared = nullptr);

}  // namespace aopt::runtime
