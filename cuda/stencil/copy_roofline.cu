// Vectorized copy kernel used by `tilelab bench` as the device's copy roofline (see
// copy_roofline.hpp): 16-byte loads and stores, kUnroll loads issued before any store so each
// thread keeps kUnroll * 16 bytes in flight, one block per 32 KB of the flattened (row, chunk)
// space (a grid-stride loop over a persistent grid measured 31 us at 4K on H100: its tail of
// serial load-store pairs left bandwidth unused).
#include "copy_roofline.hpp"

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <string>

namespace tl::cuda {

namespace {

constexpr int kThreads = 256;
constexpr int kUnroll = 8;

// One block copies kThreads * kUnroll consecutive 16-byte chunks (32 KB): every thread issues its
// kUnroll loads (a warp's are 512 contiguous bytes each) before any store, so 128 bytes per
// thread are in flight and there is no tail loop of dependent load-store pairs. `contiguous`
// (pitch == row): chunk index = offset, no division.
__global__ void __launch_bounds__(kThreads) copy_2d_kernel(uint4* __restrict__ dst, const uint4* __restrict__ src,
                                                           std::size_t pitch_chunks, std::size_t row_chunks,
                                                           std::size_t total, bool contiguous, bool streaming) {
    const std::size_t base = std::size_t(blockIdx.x) * (kThreads * kUnroll) + threadIdx.x;
    uint4 v[kUnroll];
    std::size_t off[kUnroll];
#pragma unroll
    for (int k = 0; k < kUnroll; ++k) {
        const std::size_t j = base + std::size_t(k) * kThreads;
        if (contiguous) {
            off[k] = j;
        } else {
            const std::size_t y = j / row_chunks;
            off[k] = y * pitch_chunks + (j - y * row_chunks);
        }
        if (j < total) v[k] = streaming ? __ldcs(src + off[k]) : __ldg(src + off[k]);
    }
#pragma unroll
    for (int k = 0; k < kUnroll; ++k)
        if (base + std::size_t(k) * kThreads < total) {
            if (streaming) __stcs(dst + off[k], v[k]);
            else dst[off[k]] = v[k];
        }
}

} // namespace

Result copy_kernel_2d(void* dst, const void* src, std::size_t pitch, std::size_t row_bytes, std::size_t rows,
                      void* stream, bool streaming) {
    const std::size_t row16 = (row_bytes + 15) / 16 * 16;
    if (reinterpret_cast<std::uintptr_t>(dst) % 16 || reinterpret_cast<std::uintptr_t>(src) % 16 || pitch % 16 ||
        row16 > pitch)
        return Result::fail("copy kernel: needs 16-byte aligned buffers and pitch, rows within the pitch");
    if (rows == 0 || row16 == 0) return Result::success();
    const std::size_t total = rows * (row16 / 16);
    const std::size_t blocks = (total + kThreads * kUnroll - 1) / (kThreads * kUnroll);
    if (blocks > 0x7fffffffu) return Result::fail("copy kernel: image too large");
    copy_2d_kernel<<<static_cast<unsigned>(blocks), kThreads, 0, static_cast<cudaStream_t>(stream)>>>(
        static_cast<uint4*>(dst), static_cast<const uint4*>(src), pitch / 16, row16 / 16, total, row16 == pitch,
        streaming);
    if (cudaError_t e = cudaGetLastError(); e != cudaSuccess)
        return Result::fail(std::string("copy kernel: ") + cudaGetErrorName(e) + ": " + cudaGetErrorString(e));
    return Result::success();
}

} // namespace tl::cuda
