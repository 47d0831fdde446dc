// Is memory imported from Vulkan slower for CUDA than its own? A 4K RGBA8 device-to-device copy
// timed on two imported shared buffers and on two cudaMalloc buffers, with no Vulkan work
// running: the figures are printed (speed is the bench's business, not a pass/fail rule), and the
// copies are checked byte for byte.
#include "interop/shared_buffer.hpp"
#include "interop_fixture.hpp"

#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <vector>

namespace {

using namespace tl;
using interop_test::InteropFixture;

// Median microseconds of `runs` copies src -> dst of `bytes`, and the copy's result checked.
double median_copy_us(void* dst, const void* src, std::size_t bytes, cudaStream_t stream, int runs) {
    cudaEvent_t a, b;
    cudaEventCreate(&a);
    cudaEventCreate(&b);
    std::vector<double> t;
    for (int i = 0; i < runs; ++i) {
        cudaEventRecord(a, stream);
        EXPECT_EQ(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice, stream), cudaSuccess);
        cudaEventRecord(b, stream);
        EXPECT_EQ(cudaEventSynchronize(b), cudaSuccess);
        float ms = 0;
        cudaEventElapsedTime(&ms, a, b);
        t.push_back(double(ms) * 1000.0);
    }
    cudaEventDestroy(a);
    cudaEventDestroy(b);
    std::nth_element(t.begin(), t.begin() + static_cast<std::ptrdiff_t>(t.size() / 2), t.end());
    return t[t.size() / 2];
}

TEST_F(InteropFixture, CopyOnImportedMemoryAgainstCudaMalloc) {
    const std::size_t bytes = interop::shared_pitch(3840, 4) * 2160;
    interop::SharedBuffer a(*ctx, bytes, VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT);
    interop::SharedBuffer b(*ctx, bytes, VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT);
    void *c = nullptr, *d = nullptr;
    ASSERT_EQ(cudaMalloc(&c, bytes), cudaSuccess);
    ASSERT_EQ(cudaMalloc(&d, bytes), cudaSuccess);
    cudaStream_t stream;
    ASSERT_EQ(cudaStreamCreate(&stream), cudaSuccess);
    ASSERT_EQ(cudaMemsetAsync(a.cuda_ptr(), 0x3C, bytes, stream), cudaSuccess);
    ASSERT_EQ(cudaMemsetAsync(c, 0x3C, bytes, stream), cudaSuccess);
    const int runs = 30;
    median_copy_us(b.cuda_ptr(), a.cuda_ptr(), bytes, stream, 3);  // warm-up
    const double imported_us = median_copy_us(b.cuda_ptr(), a.cuda_ptr(), bytes, stream, runs);
    const double own_us = median_copy_us(d, c, bytes, stream, runs);
    std::printf("4K RGBA8 copy (%.1f MB), median of %d: imported Vulkan memory %.1f us (%.0f GB/s), cudaMalloc %.1f us "
                "(%.0f GB/s)\n",
                double(bytes) / 1e6, runs, imported_us, 2.0 * double(bytes) / (imported_us * 1e3), own_us,
                2.0 * double(bytes) / (own_us * 1e3));
    std::vector<unsigned char> seen(bytes);
    ASSERT_EQ(cudaMemcpy(seen.data(), b.cuda_ptr(), bytes, cudaMemcpyDeviceToHost), cudaSuccess);
    EXPECT_TRUE(std::all_of(seen.begin(), seen.end(), [](unsigned char v) { return v == 0x3C; }));
    cudaFree(c);
    cudaFree(d);
    cudaStreamDestroy(stream);
}

} // namespace
