// aopt simulator: host-side CANN API shim (clean-room, from public documentation).
// The platform description TilingContext::GetPlatformInfo() returns. CANN treats it as opaque
// and reads it through platform_ascendc::PlatformAscendC; here it is a plain record that the
// driver fills from the hardware profile.
#pragma once

#include <cstdint>
#include <string>

namespace fe {

class PlatFormInfos {
 public:
  std::string soc_version = "Ascend910B4";       // full name, e.g. "Ascend910B4"
  std::string short_soc_version = "Ascend910B";  // family, e.g. "Ascend910B"
  uint32_t core_num_aiv = 40;
  uint32_t core_num_aic = 20;
  uint64_t ub_bytes = 196608;
  uint64_t l1_bytes = 524288;
  uint64_t l0_a_bytes = 65536;
  uint64_t l0_b_bytes = 65536;
  uint64_t l0_c_bytes = 131072;
  uint64_t l2_bytes = 96ull << 20;
  uint64_t hbm_bytes = 32ull << 30;

  uint32_t GetCoreNum() const { return core_num_aiv; }

  // Answers ("version", "SoC_version" | "Short_SoC_version") and ("SoCInfo", "ai_core_cnt" |
  // "vector_core_cnt" | "cube_core_cnt"); false for anything else.
  // Out of line (runtime/host_runtime_contexts.cpp): compiled once, not in every host unit.
  bool GetPlatformRes(const std::string& label, const std::string& key, std::string& value) const;
};

}  // namespace fe
