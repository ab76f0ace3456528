// aopt simulator: host-side CANN API shim (clean-room, from public documentation).
// platform_ascendc::PlatformAscendC: core counts and on-chip memory sizes of the simulated chip.
// On the split AIC/AIV architecture (Atlas A2) GetCoreNum() is the vector core count.
#pragma once

#include <cstdint>
#include <string>

#include "platform/platform_infos_def.h"

namespace platform_ascendc {

enum class CoreMemType { L0_A = 0, L0_B = 1, L0_C = 2, L1 = 3, L2 = 4, UB = 5, HBM = 6, RESERVED };

enum class SocVersion {
  ASCEND910 = 0,
  ASCEND910B,
  ASCEND910_93,
  ASCEND310P,
  ASCEND310B,
  ASCEND610,
  ASCEND310,
  RESERVED_VERSION = 99999,
};

class PlatformAscendC {
 public:
  PlatformAscendC() = delete;
  explicit PlatformAscendC(fe::PlatFormInfos* platform) : platform_(platform) {}

  uint32_t GetCoreNum() const { return info().core_num_aiv; }
  uint32_t GetCoreNumAic() const { return info().core_num_aic; }
  uint32_t GetCoreNumAiv() const { return info().core_num_aiv; }

  void GetCoreMemSize(CoreMemType type, uint64_t& size) const {
    const fe::PlatFormInfos& p = info();
    switch (type) {
      case CoreMemType::L0_A:
        size = p.l0_a_bytes;
        break;
      case CoreMemType::L0_B:
        size = p.l0_b_bytes;
        break;
      case CoreMemType::L0_C:
        size = p.l0_c_bytes;
        break;
      case CoreMemType::L1:
        size = p.l1_bytes;
        break;
      case CoreMemType::L2:
        size = p.l2_bytes;
        break;
      case CoreMemType::UB:
        size = p.ub_bytes;
        break;
      case CoreMemType::HBM:
        size = p.hbm_bytes;
        break;
      default:
        size = 0;
        break;
    }
  }

  SocVersion GetSocVersion() const {
    const std::string& family = info().short_soc_version;
    if (family == "Ascend910B") return SocVersion::ASCEND910B;
    if (family == "Ascend910_93") return SocVersion::ASCEND910_93;
    if (family == "Ascend910") return SocVersion::ASCEND910;
    if (family == "Ascend310P") return SocVersion::ASCEND310P;
    if (family == "Ascend310B") return SocVersion::ASCEND310B;
    if (family == "Ascend610") return SocVersion::ASCEND610;
    if (family == "Ascend310") return SocVersion::ASCEND310;
    return SocVersion::RESERVED_VERSION;
  }

  // The simulator's library APIs need no system workspace: the user workspace starts at the
  // kernel's workspace address (kernel-side GetUserWorkspace is the identity).
  uint32_t GetLibApiWorkSpaceSize() const { return 0; }

  // Block dim for `slice_num` pieces of work: vector-only and cube-only kernels use one block per
  // slice; a mixed kernel groups the AIV cores that share an AIC.
  uint32_t CalcTschBlockDim(uint32_t slice_num, uint32_t aic_core_num,
                            uint32_t aiv_core_num) const {
    if (aic_core_num == 0 || aiv_core_num == 0 || aic_core_num > aiv_core_num) return slice_num;
    const uint32_t ratio = aiv_core_num / aic_core_num;
    return (slice_num + ratio - 1) / ratio;
  }

 private:
  // A null platform (a context built without one) reads as the default 910B4 description.
  const fe::PlatFormInfos& info() const {
    static const fe::PlatFormInfos defaults;
    return platform_ != nullptr ? *platform_ : defaults;
  }

  fe::PlatFormInfos* platform_;
};

}  // namespace platform_ascendc
