// Histogram's construction and moves, the same with or without CUDA (release() differs per build:
// histogram.cu frees the device buffers, pixel_without_cuda.cpp has none to free).
#include "pixel_api.hpp"

#include <utility>

namespace tl::cuda {

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

} // namespace tl::cuda
