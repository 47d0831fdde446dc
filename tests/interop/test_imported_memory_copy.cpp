// Is memory imported from Vulkan slower for CUDA than its own? A 4K RGBA8 device-to-device copy
// timed on two imported shared buffers and on two cudaMalloc buffers, with no Vulkan work
// running: the figures are printed (speed is the bench's business, not a pass/fail rule), and the
// copies are checked byte for byte. And does CUDA work overlap Vulkan work on the same GPU? The
// same copy timed right after a submit of Vulkan copies, against alone.
#include "interop/shared_buffer.hpp"
#include "interop_fixture.hpp"

#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
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

// A CUDA copy enqueued while the Vulkan queue is busy with its own copies (no semaphore between
// them, different buffers): if the two APIs' work ran side by side, the CUDA copy's event span
// would stay near its time alone; if the GPU runs one context at a time it grows by about the
// Vulkan work. Printed for the interop overhead analysis; the copies are checked byte for byte.
TEST_F(InteropFixture, CudaCopyWhileVulkanQueueIsBusy) {
    const std::size_t bytes = interop::shared_pitch(3840, 4) * 2160;
    vk::Buffer va(*ctx, bytes, VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT,
                  VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT);
    vk::Buffer vb(*ctx, bytes, VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT,
                  VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT);
    void *c = nullptr, *d = nullptr;
    ASSERT_EQ(cudaMalloc(&c, bytes), cudaSuccess);
    ASSERT_EQ(cudaMalloc(&d, bytes), cudaSuccess);
    cudaStream_t stream;
    ASSERT_EQ(cudaStreamCreate(&stream), cudaSuccess);
    ASSERT_EQ(cudaMemsetAsync(c, 0x5B, bytes, stream), cudaSuccess);
    const double alone_us = median_copy_us(d, c, bytes, stream, 20);

    VkCommandPool pool = interop_test::make_pool(*ctx);
    VkFenceCreateInfo fci{VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
    VkFence fence;
    VK_CHECK(vkCreateFence(ctx->device(), &fci, nullptr, &fence));
    constexpr int kVulkanCopies = 8;
    VkCommandBuffer cmd = begin_one_time(pool);
    for (int i = 0; i < kVulkanCopies; ++i) {
        const VkBufferCopy region{0, 0, bytes};
        vkCmdCopyBuffer(cmd, (i % 2) ? vb.handle() : va.handle(), (i % 2) ? va.handle() : vb.handle(), 1, &region);
        VkMemoryBarrier mb{VK_STRUCTURE_TYPE_MEMORY_BARRIER};
        mb.srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT;
        mb.dstAccessMask = VK_ACCESS_TRANSFER_READ_BIT | VK_ACCESS_TRANSFER_WRITE_BIT;
        vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_TRANSFER_BIT, 0, 1, &mb, 0,
                             nullptr, 0, nullptr);
    }
    VK_CHECK(vkEndCommandBuffer(cmd));
    std::vector<double> vulkan_us, busy_us, cuda_wall_us, idle_wall_us;
    for (int run = 0; run < 10; ++run) {
        VkSubmitInfo si{VK_STRUCTURE_TYPE_SUBMIT_INFO};
        si.commandBufferCount = 1;
        si.pCommandBuffers = &cmd;
        const auto t0 = std::chrono::steady_clock::now();
        VK_CHECK(vkQueueSubmit(ctx->queue(), 1, &si, fence));
        const auto t1 = std::chrono::steady_clock::now();
        busy_us.push_back(median_copy_us(d, c, bytes, stream, 1));
        cuda_wall_us.push_back(std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t1).count());
        VK_CHECK(vkWaitForFences(ctx->device(), 1, &fence, VK_TRUE, 10'000'000'000ull));
        vulkan_us.push_back(std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count());
        VK_CHECK(vkResetFences(ctx->device(), 1, &fence));
    }
    // The same host-side span for the copy with the Vulkan queue idle.
    for (int run = 0; run < 10; ++run) {
        const auto t1 = std::chrono::steady_clock::now();
        median_copy_us(d, c, bytes, stream, 1);
        idle_wall_us.push_back(std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t1).count());
    }
    for (auto* v : {&busy_us, &vulkan_us, &cuda_wall_us, &idle_wall_us}) std::sort(v->begin(), v->end());
    std::printf("4K copy on CUDA: events %.1f us alone, %.1f us right after a Vulkan submit of %d 4K copies (Vulkan "
                "work: %.1f us host wall time to its fence); host wall time of the CUDA copy (enqueue to done): "
                "%.1f us with Vulkan idle, %.1f us with Vulkan busy (medians of 10)\n",
                alone_us, busy_us[5], kVulkanCopies, vulkan_us[5], idle_wall_us[5], cuda_wall_us[5]);
    std::vector<unsigned char> seen(bytes);
    ASSERT_EQ(cudaMemcpy(seen.data(), d, bytes, cudaMemcpyDeviceToHost), cudaSuccess);
    EXPECT_TRUE(std::all_of(seen.begin(), seen.end(), [](unsigned char v) { return v == 0x5B; }));
    vkDestroyFence(ctx->device(), fence, nullptr);
    vkDestroyCommandPool(ctx->device(), pool, nullptr);
    cudaFree(c);
    cudaFree(d);
    cudaStreamDestroy(stream);
}

} // namespace
