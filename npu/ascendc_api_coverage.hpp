// Which AscendC kernel and host APIs the simulator's shim provides, grouped as the public
// AscendC API reference groups them. docs/ascendc-api-coverage.md shows the same table (a test
// keeps the two equal, and checks that every API marked supported is used by a compiled test
// kernel); the compile-error explainer uses it to tell an API the shim lacks from a mistake.
#pragma once

#include <string_view>
#include <vector>

namespace aopt::npu {

enum class api_support { supported, partial, not_yet };

const char* to_string(api_support s);  // "supported", "partial", "not yet"

struct ascendc_api {
  const char* group;  // e.g. "Vector computation: arithmetic"
  const char* name;   // the identifier a kernel or tiling function writes, e.g. "Gather"
  api_support support;
  const char* note;  // partial: what is missing; not yet: why; supported: forms covered
};

const std::vector<ascendc_api>& ascendc_api_coverage();

// The entry named `name`, or nullptr.
const ascendc_api* find_ascendc_api(std::string_view name);

}  // namespace aopt::npu
