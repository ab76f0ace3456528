#include <cmath>
#include <string>

#include "aopt/reference.h"

// y = x rounded to an integer as round_mode says: rint (to nearest, ties to even), floor, ceil,
// round (to nearest, ties away from zero), trunc.
void aopt_reference(const aopt_ref::tensors& in, aopt_ref::tensors& out,
                    const aopt_ref::attrs& attrs) {
  auto it = attrs.strings.find("round_mode");
  const std::string mode = it == attrs.strings.end() ? "rint" : it->second;
  for (int64_t i = 0; i < in[0].numel(); ++i) {
    const double x = static_cast<float>(in[0].data[i]);
    double y = std::nearbyint(x);
    if (mode == "floor") y = std::floor(x);
    if (mode == "ceil") y = std::ceil(x);
    if (mode == "round") y = std::round(x);
    if (mode == "trunc") y = std::trunc(x);
    out[0].data[i] = y;
  }
}
