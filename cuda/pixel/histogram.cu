// Per-channel 256-bin histograms of an RGBA8 device image with cub::DeviceHistogram::MultiHistogramEven
// (4 interleaved channels, R, G and B counted), temp storage and counters kept and grown across calls.
#include "pixel_api.hpp"

#include <cub/device/device_histogram.cuh>
#include <cuda/std/array>
#include <cuda_runtime.h>

#include <string>

namespace tl::cuda {

namespace {

constexpr std::size_t kCountsBytes = 3 * 256 * sizeof(std::uint32_t);

Result cuda_fail(const char* what, cudaError_t e) {
    (void)cudaGetLastError();
    // No driver / no device shows up at the first allocation: say it the way the rest of the library does.
    const bool no_cuda = e == cudaErrorInsufficientDriver || e == cudaErrorNoDevice;
    return Result::fail(std::string(no_cuda ? "CUDA unavailable: " : "histogram: ") + what + " failed: " +
                        cudaGetErrorString(e) + " (" + cudaGetErrorName(e) + ")");
}

// Runs MultiHistogramEven; with temp == nullptr it only reports the temporary storage it needs.
cudaError_t run_cub(void* temp, std::size_t& temp_bytes, std::uint32_t* counts, const DeviceImage& img,
                    cudaStream_t stream) {
    const ::cuda::std::array<std::uint32_t*, 3> histograms{counts, counts + 256, counts + 512};
    // Levels are sample values: 257 boundaries 0..256 give one bin per 8-bit value.
    const ::cuda::std::array<int, 3> num_levels{257, 257, 257};
    const ::cuda::std::array<int, 3> lower{0, 0, 0};
    const ::cuda::std::array<int, 3> upper{256, 256, 256};
    return cub::DeviceHistogram::MultiHistogramEven<4, 3>(
        temp, temp_bytes, static_cast<const unsigned char*>(img.data), histograms, num_levels, lower, upper,
        static_cast<std::int64_t>(img.width), static_cast<std::int64_t>(img.height),
        img.height > 1 ? img.pitch : static_cast<std::size_t>(img.width) * 4, stream);
}

} // namespace

void Histogram::release() noexcept {
    // cudaFree waits for work that may still use the buffers, so an in-flight compute() is safe.
    if (temp_ != nullptr) (void)cudaFree(temp_);
    if (counts_ != nullptr) (void)cudaFree(counts_);
    temp_ = counts_ = nullptr;
    temp_bytes_ = 0;
    computed_ = false;
}

Result Histogram::compute(const DeviceImage& img, void* stream) {
    if (img.data == nullptr) return Result::fail("histogram: image has no device pointer (null)");
    if (img.width <= 0 || img.height <= 0)
        return Result::fail("histogram: image is empty (" + std::to_string(img.width) + "x" +
                            std::to_string(img.height) + ")");
    if (img.format != PixelFormat::RGBA8)
        return Result::fail("histogram: only RGBA8 images are counted (256 bins per 8-bit channel); this one is " +
                            std::string(to_string(img.format)));
    if (img.height > 1 && img.pitch < static_cast<std::size_t>(img.width) * 4)
        return Result::fail("histogram: pitch " + std::to_string(img.pitch) + " bytes is shorter than a row");
    if (reinterpret_cast<std::uintptr_t>(img.data) % 4 != 0 || (img.height > 1 && img.pitch % 4 != 0))
        return Result::fail("histogram: pointer and pitch must be multiples of 4 bytes (whole RGBA8 pixels)");

    const auto s = static_cast<cudaStream_t>(stream);
    if (counts_ == nullptr) {
        if (const cudaError_t e = cudaMalloc(&counts_, kCountsBytes); e != cudaSuccess) {
            counts_ = nullptr;
            return cuda_fail("cudaMalloc (counters)", e);
        }
    }
    auto* counts = static_cast<std::uint32_t*>(counts_);
    std::size_t need = 0;
    if (const cudaError_t e = run_cub(nullptr, need, counts, img, s); e != cudaSuccess)
        return cuda_fail("cub::DeviceHistogram::MultiHistogramEven (size query)", e);
    if (need > temp_bytes_) {
        if (temp_ != nullptr) (void)cudaFree(temp_);  // waits for the work still using it
        temp_ = nullptr;
        temp_bytes_ = 0;
        if (const cudaError_t e = cudaMalloc(&temp_, need); e != cudaSuccess) {
            temp_ = nullptr;
            return cuda_fail("cudaMalloc (temporary storage)", e);
        }
        temp_bytes_ = need;
    }
    // CUB zeroes the counters itself; a larger temp buffer than asked for is fine.
    std::size_t have = temp_bytes_;
    if (const cudaError_t e = run_cub(temp_, have, counts, img, s); e != cudaSuccess)
        return cuda_fail("cub::DeviceHistogram::MultiHistogramEven", e);
    computed_ = true;
    return Result::success();
}

Result Histogram::read(ChannelHistograms& out, void* stream) {
    if (!computed_ || counts_ == nullptr) return Result::fail("histogram: nothing computed yet (call compute first)");
    const auto s = static_cast<cudaStream_t>(stream);
    static_assert(sizeof(ChannelHistograms) == kCountsBytes, "host histogram layout must be 3 x 256 uint32");
    if (const cudaError_t e = cudaMemcpyAsync(out.data(), counts_, kCountsBytes, cudaMemcpyDeviceToHost, s);
        e != cudaSuccess)
        return cuda_fail("cudaMemcpyAsync", e);
    if (const cudaError_t e = cudaStreamSynchronize(s); e != cudaSuccess) return cuda_fail("cudaStreamSynchronize", e);
    return Result::success();
}

} // namespace tl::cuda
