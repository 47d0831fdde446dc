// NVIDIA NPP as the outside yardstick for `tilelab bench` (host C++; NPP is linked only when
// CMake found nppif/nppc, which defines TILELAB_HAVE_NPP).
#pragma once

#include "stencil_api.hpp"

namespace tl::cuda {

#if TILELAB_HAVE_NPP
// True: NPP was linked in.
inline bool npp_available() { return true; }
// Runs the NPP filter closest to `params` (RGBA8 only) on `stream`; fails with a reason where NPP
// has no equivalent (border mode, filter kind) so the bench shows "-" instead of a wrong figure.
Result npp_filter(const FilterParams& params, Border border, const DeviceImage& src, const DeviceImage& dst,
                  void* stream);
#else
inline bool npp_available() { return false; }
inline Result npp_filter(const FilterParams&, Border, const DeviceImage&, const DeviceImage&, void*) {
    return Result::fail("NPP was not found when tilelab was built");
}
#endif

} // namespace tl::cuda
