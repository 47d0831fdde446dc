// GPU check of the TMA box-start rule DESIGN.md asks to verify: RGBA8 boxes (one UINT32 element
// per pixel) whose x start is a multiple of 16 bytes load correctly (negative starts zero-filled);
// starts off a 16-byte boundary (x = -3, -1, 1, 5) raise an illegal instruction.
#if __has_include(<cuda_runtime.h>)
#include <cuda_runtime.h>

#include "stencil_api.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <vector>

namespace tl::cuda::detail {
// Defined in cuda/stencil/tma.cu: one box at (x, y) copied to `out` (box_w * box_h uint32).
Result tma_probe_box(const DeviceImage& src, int x, int y, int box_w, int box_h, void* out, cudaStream_t stream);
} // namespace tl::cuda::detail

namespace {

constexpr int kW = 37, kH = 11;
constexpr std::size_t kPitch = 160;  // 40 pixels: a multiple of 16 bytes, wider than the row
constexpr int kBw = 8, kBh = 4;      // 32-byte box rows

// Loads one box at (x, y) from a 37x11 image whose pixel (x, y) holds 1 + x + 100 y. Returns the
// CUDA error of the launch + synchronise, and fills `bad` with the number of wrong cells.
cudaError_t probe(int x, int y, int* bad) {
    std::vector<std::uint32_t> host(kPitch / 4 * kH, 0xdeadbeefu);
    for (int j = 0; j < kH; ++j)
        for (int i = 0; i < kW; ++i) host[std::size_t(j) * kPitch / 4 + i] = std::uint32_t(1 + i + 100 * j);
    void* src = nullptr;
    void* out = nullptr;
    if (cudaMalloc(&src, kPitch * kH) != cudaSuccess || cudaMalloc(&out, kBw * kBh * 4) != cudaSuccess)
        return cudaErrorMemoryAllocation;
    cudaMemcpy(src, host.data(), kPitch * kH, cudaMemcpyHostToDevice);
    const tl::cuda::DeviceImage img{src, kPitch, kW, kH, tl::PixelFormat::RGBA8};
    const tl::cuda::Result r = tl::cuda::detail::tma_probe_box(img, x, y, kBw, kBh, out, nullptr);
    if (!r.ok) return cudaErrorInvalidValue;
    const cudaError_t e = cudaDeviceSynchronize();
    if (e != cudaSuccess) return e;
    std::vector<std::uint32_t> got(kBw * kBh);
    cudaMemcpy(got.data(), out, got.size() * 4, cudaMemcpyDeviceToHost);
    *bad = 0;
    for (int j = 0; j < kBh; ++j)
        for (int i = 0; i < kBw; ++i) {
            const int gx = x + i, gy = y + j;
            const std::uint32_t want = (gx >= 0 && gx < kW && gy >= 0 && gy < kH) ? std::uint32_t(1 + gx + 100 * gy) : 0u;
            *bad += got[std::size_t(j) * kBw + i] != want;
        }
    cudaFree(src);
    cudaFree(out);
    return cudaSuccess;
}

bool hopper() {
    int major = 0;
    return cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, 0) == cudaSuccess && major >= 9;
}

// Box x starts that are multiples of 16 bytes (4 RGBA8 pixels), negative ones included, load the
// right pixels and zero-fill what lies outside the image.
TEST(TmaBoxStart, AlignedXStartsLoadTheRightPixels) {
    if (!hopper()) GTEST_SKIP() << "needs a compute capability 9.0 GPU";
    for (int x : {-8, -4, 0, 4, 32, 36})
        for (int y : {-2, -1, 0, 9}) {
            int bad = -1;
            ASSERT_EQ(probe(x, y, &bad), cudaSuccess) << "box at x=" << x << " y=" << y;
            EXPECT_EQ(bad, 0) << "box at x=" << x << " y=" << y;
        }
}

// The hardware rule the planner follows (tile_planner.hpp, kTmaBoxStartAlignBytes): an x start
// off a 16-byte boundary is an illegal instruction, which loses the CUDA context, so each one
// runs in a child process. Exit 3 = cudaErrorIllegalInstruction. Should a GPU accept these
// starts, this test fails and the planner's left-halo padding can be revisited.
void probe_and_exit(int x) {
    int bad = -1;
    const cudaError_t e = probe(x, 0, &bad);
    std::exit(e == cudaErrorIllegalInstruction ? 3 : e == cudaSuccess ? (bad == 0 ? 0 : 5) : 4);
}

TEST(TmaBoxStartDeathTest, UnalignedXStartIsAnIllegalInstruction) {
    if (!hopper()) GTEST_SKIP() << "needs a compute capability 9.0 GPU";
    GTEST_FLAG_SET(death_test_style, "threadsafe");  // a fresh process: no inherited CUDA context
    for (int x : {-3, -1, 1, 5}) EXPECT_EXIT(probe_and_exit(x), ::testing::ExitedWithCode(3), "") << "x=" << x;
}

} // namespace
#else
#include <gtest/gtest.h>
TEST(TmaBoxStart, NeedsTheCudaRuntimeHeaders) {
    FAIL() << "tests/gpu is compiled without the CUDA runtime include directories (link CUDA::cudart)";
}
#endif
