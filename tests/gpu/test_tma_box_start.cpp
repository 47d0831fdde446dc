// GPU check of the TMA box-start rule DESIGN.md asks to verify: RGBA8 boxes (one UINT32 element
// per pixel) starting at x = -3, -1, 1, 3, 5 (not 16-byte aligned) load the right pixels and
// zero-fill everything outside the image, without any fault.
#if __has_include(<cuda_runtime.h>)
#include <cuda_runtime.h>

#include "stencil_api.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

namespace tl::cuda::detail {
// Defined in cuda/stencil/tma.cu: one box at (x, y) copied to `out` (box_w * box_h uint32).
Result tma_probe_box(const DeviceImage& src, int x, int y, int box_w, int box_h, void* out, cudaStream_t stream);
} // namespace tl::cuda::detail

namespace {

TEST(TmaBoxStart, UnalignedXStartsLoadTheRightPixels) {
    int major = 0;
    if (cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, 0) != cudaSuccess || major < 9)
        GTEST_SKIP() << "needs a compute capability 9.0 GPU";
    const int w = 37, h = 11;
    const std::size_t pitch = 160;  // 40 pixels: pitch a multiple of 16, wider than the row
    std::vector<std::uint32_t> host(pitch / 4 * h, 0xdeadbeefu);
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) host[std::size_t(y) * pitch / 4 + x] = std::uint32_t(1 + x + 100 * y);
    void* src = nullptr;
    void* out = nullptr;
    const int bw = 8, bh = 4;  // 32-byte box rows
    ASSERT_EQ(cudaMalloc(&src, pitch * h), cudaSuccess);
    ASSERT_EQ(cudaMalloc(&out, bw * bh * 4), cudaSuccess);
    ASSERT_EQ(cudaMemcpy(src, host.data(), pitch * h, cudaMemcpyHostToDevice), cudaSuccess);
    const tl::cuda::DeviceImage img{src, pitch, w, h, tl::PixelFormat::RGBA8};
    for (int x : {-3, -1, 1, 3, 5, 33}) {
        for (int y : {-2, 0, 9}) {
            const tl::cuda::Result r = tl::cuda::detail::tma_probe_box(img, x, y, bw, bh, out, nullptr);
            ASSERT_TRUE(r.ok) << r.reason;
            ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess) << "box at x=" << x << " y=" << y;
            std::vector<std::uint32_t> got(bw * bh);
            ASSERT_EQ(cudaMemcpy(got.data(), out, got.size() * 4, cudaMemcpyDeviceToHost), cudaSuccess);
            for (int j = 0; j < bh; ++j)
                for (int i = 0; i < bw; ++i) {
                    const int gx = x + i, gy = y + j;
                    const std::uint32_t want = (gx >= 0 && gx < w && gy >= 0 && gy < h) ? std::uint32_t(1 + gx + 100 * gy) : 0u;
                    EXPECT_EQ(got[std::size_t(j) * bw + i], want) << "box (" << x << "," << y << ") cell (" << i << "," << j << ")";
                }
        }
    }
    cudaFree(src);
    cudaFree(out);
}

} // namespace
#else
#include <gtest/gtest.h>
TEST(TmaBoxStart, NeedsTheCudaRuntimeHeaders) {
    FAIL() << "tests/gpu is compiled without the CUDA runtime include directories (link CUDA::cudart)";
}
#endif
