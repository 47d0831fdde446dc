// The stencil host API in a build without the CUDA toolkit: every mechanism is unavailable,
// and every call says so (the app then runs its Vulkan compute path).
#include "stencil_api.hpp"

namespace tl::cuda {

namespace {
Result unavailable() { return Result::fail("CUDA unavailable: tilelab was built without the CUDA toolkit"); }
} // namespace

Result cuda_status() { return unavailable(); }

Result can_run(Mechanism, const FilterParams&, PixelFormat, const Policy&) { return unavailable(); }

Result launch(const FilterParams&, Border, Mechanism, const Policy&, const DeviceImage&, const DeviceImage&, void*) {
    return unavailable();
}

Result launch_fused(const FilterParams&, Border, Mechanism, const Policy&, std::span<const PixelOp>, const DeviceImage&,
                    const DeviceImage&, void*) {
    return unavailable();
}

Result launch_texture_array(const FilterParams&, Border, const void*, const DeviceImage&, const DeviceImage&, void*,
                            const Policy&) {
    return unavailable();
}

void forget_texture_array(const void*) {}

} // namespace tl::cuda
