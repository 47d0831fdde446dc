// The per-pixel host API in a build without the CUDA toolkit: every call says CUDA is unavailable
// (the table, parse and auto_levels still work: they live in pixel_table.cpp and auto_levels.cpp).
#include "pixel_api.hpp"

#include <utility>

namespace tl::cuda {

namespace {
Result unavailable() { return Result::fail("CUDA unavailable: tilelab was built without the CUDA toolkit"); }
} // namespace

Result can_run_pixel(PixelMechanism, const PixelPolicy&, PixelFormat) { return unavailable(); }

Result launch_pixel_ops(std::span<const PixelOp>, PixelMechanism, const PixelPolicy&, const DeviceImage&,
                        const DeviceImage&, void*) {
    return unavailable();
}

Histogram::Histogram() = default;
Histogram::~Histogram() { release(); }
Histogram::Histogram(Histogram&& other) noexcept
    : temp_(std::exchange(other.temp_, nullptr)),
      temp_bytes_(std::exchange(other.temp_bytes_, 0)),
      counts_(std::exchange(other.counts_, nullptr)),
      computed_(std::exchange(other.computed_, false)) {}
Histogram& Histogram::operator=(Histogram&& other) noexcept {
    if (this != &other) {
        release();
        temp_ = std::exchange(other.temp_, nullptr);
        temp_bytes_ = std::exchange(other.temp_bytes_, 0);
        counts_ = std::exchange(other.counts_, nullptr);
        computed_ = std::exchange(other.computed_, false);
    }
    return *this;
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
