// Vectorized copy kernel used by `tilelab bench` as the device's copy roofline (see
// copy_roofline.hpp): 16-byte loads and stores, kUnroll loads issued before any store so each
// thread keeps kUnroll * 16 bytes in flight, grid-stride over the flattened (row, chunk) space.
#include "copy_roofline.hpp"

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <string>

namespace tl::cuda {

namespace {

constexpr int kThreads = 256;
constexpr int kUnroll = 4;

__global__ void __launch_bounds__(kThreads) copy_2d_kernel(uint4* __restrict__ dst, const uint4* __restrict__ src,
                                                           std::size_t pitch_chunks, std::size_t row_chunks,
                                                           std::size_t total) {
    const std::size_t step = std::size_t(gridDim.x) * kThreads;
    std::size_t i = std::size_t(blockIdx.x) * kThreads + threadIdx.x;
    // Full groups: kUnroll independent 16-byte loads before the stores (bytes in flight).
    for (; i + (kUnroll - 1) * step < total; i += kUnroll * step) {
        uint4 v[kUnroll];
        std::size_t off[kUnroll];
#pragma unroll
        for (int k = 0; k < kUnroll; ++k) {
            const std::size_t j = i + std::size_t(k) * step;
            const std::size_t y = j / row_chunks;
            off[k] = y * pitch_chunks + (j - y * row_chunks);
            v[k] = src[off[k]];
        }
#pragma unroll
        for (int k = 0; k < kUnroll; ++k) dst[off[k]] = v[k];
    }
    for (; i < total; i += step) {
        const std::size_t y = i / row_chunks;
        const std::size_t o = y * pitch_chunks + (i - y * row_chunks);
        dst[o] = src[o];
    }
}

} // namespace

Result copy_kernel_2d(void* dst, const void* src, std::size_t pitch, std::size_t row_bytes, std::size_t rows,
                      void* stream) {
    const std::size_t row16 = (row_bytes + 15) / 16 * 16;
    if (reinterpret_cast<std::uintptr_t>(dst) % 16 || reinterpret_cast<std::uintptr_t>(src) % 16 || pitch % 16 ||
        row16 > pitch)
        return Result::fail("copy kernel: needs 16-byte aligned buffers and pitch, rows within the pitch");
    if (rows == 0 || row16 == 0) return Result::success();
    int dev = 0, sms = 0;
    cudaGetDevice(&dev);
    cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev);
    const std::size_t total = rows * (row16 / 16);
    // 8 blocks of 256 threads per SM fill it (2048 threads); no more blocks than work.
    const std::size_t want = (total + kThreads - 1) / kThreads;
    const int grid = static_cast<int>(std::min<std::size_t>(want, std::size_t(std::max(sms, 1)) * 8));
    copy_2d_kernel<<<grid, kThreads, 0, static_cast<cudaStream_t>(stream)>>>(
        static_cast<uint4*>(dst), static_cast<const uint4*>(src), pitch / 16, row16 / 16, total);
    if (cudaError_t e = cudaGetLastError(); e != cudaSuccess)
        return Result::fail(std::string("copy kernel: ") + cudaGetErrorName(e) + ": " + cudaGetErrorString(e));
    return Result::success();
}

} // namespace tl::cuda
