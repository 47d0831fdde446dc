// The per-pixel host API in a build without the CUDA toolkit: every call says CUDA is unavailable
// (the table, parse and auto_levels still work: they live in pixel_table.cpp and auto_levels.cpp).
#include "pixel_api.hpp"


namespace tl::cuda {

namespace {
Result unavailable() { return Result::fail("CUDA unavailable: tilelab was built without the CUDA toolkit"); }
} // namespace

Result can_run_pixel(PixelMechanism, const PixelPolicy&, PixelFormat) { return unavailable(); }

Result launch_pixel_ops(std::span<const PixelOp>, PixelMechanism, const PixelPolicy&, const DeviceImage&,
                        const DeviceImage&, void*) {
    return unavailable();
}

void Histogram::release() noexcept {
    // Nothing is ever allocated without CUDA.
    temp_ = counts_ = nullptr;
    temp_bytes_ = 0;
    computed_ = false;
}
Result Histogram::compute(const DeviceImage&, void*) { return unavailable(); }
Result Histogram::read(ChannelHistograms&, void*) { return unavailable(); }

} // namespace tl::cuda
