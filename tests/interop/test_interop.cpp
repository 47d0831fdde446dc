// Vulkan -> CUDA -> Vulkan through shared buffers and one exported timeline semaphore.
#include "interop_fixture.hpp"
#include "interop/cuda_device.hpp"
#include "interop/shared_buffer.hpp"
#include "vk/context.hpp"

#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <cstdio>
#include <cstring>
#include <fstream>
#include <memory>
#include <random>
#include <string_view>
#include <vector>

namespace {

using namespace tl;

using interop_test::InteropFixture;
using interop_test::make_pool;

class RoundTrip : public InteropFixture, public ::testing::WithParamInterface<std::pair<int, int>> {};

// Host bytes -> Vulkan copy into a shared buffer -> CUDA 2D copy (pitch to pitch) into a second
// shared buffer -> Vulkan copy back to the host: every byte identical, padding included.
TEST_P(RoundTrip, BitExact) {
    const auto [w, h] = GetParam();
    const std::size_t pitch = interop::shared_pitch(w, 4);
    const VkDeviceSize bytes = pitch * static_cast<std::size_t>(h);
    interop::SharedBuffer a(*ctx, bytes, VK_BUFFER_USAGE_TRANSFER_DST_BIT | VK_BUFFER_USAGE_TRANSFER_SRC_BIT);
    interop::SharedBuffer b(*ctx, bytes, VK_BUFFER_USAGE_TRANSFER_DST_BIT | VK_BUFFER_USAGE_TRANSFER_SRC_BIT);
    interop::Timeline timeline(*ctx);
    vk::Buffer up(*ctx, bytes, VK_BUFFER_USAGE_TRANSFER_SRC_BIT,
                  VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT);
    vk::Buffer down(*ctx, bytes, VK_BUFFER_USAGE_TRANSFER_DST_BIT,
                    VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT);
    std::mt19937 rng(static_cast<unsigned>(w * 7919 + h));
    auto* src = static_cast<std::uint8_t*>(up.mapped());
    for (VkDeviceSize i = 0; i < bytes; ++i) src[i] = static_cast<std::uint8_t>(rng());
    std::memset(down.mapped(), 0xCD, bytes);

    VkCommandPool pool = make_pool(*ctx);
    VkFenceCreateInfo fci{VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
    VkFence fence;
    VK_CHECK(vkCreateFence(ctx->device(), &fci, nullptr, &fence));
    cudaStream_t stream;
    ASSERT_EQ(cudaStreamCreate(&stream), cudaSuccess);

    submit([&](VkCommandBuffer cmd) {
        VkBufferCopy c{0, 0, bytes};
        vkCmdCopyBuffer(cmd, up.handle(), a.buffer(), 1, &c);
    }, timeline, 0, 1, pool, VK_NULL_HANDLE);
    ASSERT_TRUE(timeline.cuda_wait(1, stream));
    ASSERT_EQ(cudaMemcpy2DAsync(b.cuda_ptr(), pitch, a.cuda_ptr(), pitch, pitch, static_cast<std::size_t>(h),
                                cudaMemcpyDeviceToDevice, stream), cudaSuccess);
    ASSERT_TRUE(timeline.cuda_signal(2, stream));
    submit([&](VkCommandBuffer cmd) {
        VkBufferCopy c{0, 0, bytes};
        vkCmdCopyBuffer(cmd, b.buffer(), down.handle(), 1, &c);
    }, timeline, 2, 3, pool, fence);
    ASSERT_EQ(vkWaitForFences(ctx->device(), 1, &fence, VK_TRUE, 10'000'000'000ull), VK_SUCCESS);
    EXPECT_EQ(std::memcmp(src, down.mapped(), bytes), 0);
    EXPECT_EQ(timeline.current_value(), 3u);

    cudaStreamDestroy(stream);
    vkDestroyFence(ctx->device(), fence, nullptr);
    vkDestroyCommandPool(ctx->device(), pool, nullptr);
}

INSTANTIATE_TEST_SUITE_P(Sizes, RoundTrip,
                         ::testing::Values(std::pair{1, 1}, std::pair{17, 9}, std::pair{4097, 3}, std::pair{3840, 2160}));

// Many frames, two in flight: CUDA writes the frame number into the image after waiting for
// Vulkan's value 2N+1; Vulkan waits for CUDA's 2N+2 and copies the image to that frame's readback
// slot. Every slot must hold its own frame's number: a wait that let the next frame in early shows.
TEST_F(InteropFixture, OrderingOverManyFrames) {
    constexpr int kFrames = 200, kInFlight = 2, w = 256, h = 64;
    const std::size_t pitch = interop::shared_pitch(w, 4);
    const VkDeviceSize bytes = pitch * h;
    interop::SharedBuffer image(*ctx, bytes, VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT);
    interop::Timeline timeline(*ctx);
    std::vector<vk::Buffer> readback;
    for (int i = 0; i < kFrames; ++i)
        readback.emplace_back(*ctx, bytes, VK_BUFFER_USAGE_TRANSFER_DST_BIT,
                              VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT);
    VkCommandPool pool = make_pool(*ctx);
    std::vector<VkFence> fences(kInFlight);
    VkFenceCreateInfo fci{VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
    fci.flags = VK_FENCE_CREATE_SIGNALED_BIT;
    for (auto& f : fences) VK_CHECK(vkCreateFence(ctx->device(), &fci, nullptr, &f));
    cudaStream_t stream;
    ASSERT_EQ(cudaStreamCreate(&stream), cudaSuccess);

    for (int n = 0; n < kFrames; ++n) {
        VkFence f = fences[n % kInFlight];
        VK_CHECK(vkWaitForFences(ctx->device(), 1, &f, VK_TRUE, 10'000'000'000ull));  // frame n-2 done
        VK_CHECK(vkResetFences(ctx->device(), 1, &f));
        const std::uint64_t base = 2ull * n;
        // Vulkan "prepare" step: nothing to copy, just the hand-off value.
        submit([](VkCommandBuffer) {}, timeline, base, base + 1, pool, VK_NULL_HANDLE);
        ASSERT_TRUE(timeline.cuda_wait(base + 1, stream));
        ASSERT_EQ(cudaMemsetAsync(image.cuda_ptr(), (n % 251) + 1, bytes, stream), cudaSuccess);
        ASSERT_TRUE(timeline.cuda_signal(base + 2, stream));
        submit([&](VkCommandBuffer cmd) {
            VkBufferCopy c{0, 0, bytes};
            vkCmdCopyBuffer(cmd, image.buffer(), readback[n].handle(), 1, &c);
        }, timeline, base + 2, 0, pool, f);
    }
    ASSERT_EQ(vkDeviceWaitIdle(ctx->device()), VK_SUCCESS);
    ASSERT_EQ(cudaStreamSynchronize(stream), cudaSuccess);
    for (int n = 0; n < kFrames; ++n) {
        const auto* p = static_cast<const std::uint8_t*>(readback[n].mapped());
        const auto want = static_cast<std::uint8_t>((n % 251) + 1);
        ASSERT_EQ(p[0], want) << "frame " << n;
        ASSERT_EQ(p[bytes - 1], want) << "frame " << n;
        ASSERT_EQ(p[bytes / 2], want) << "frame " << n;
    }
    cudaStreamDestroy(stream);
    for (auto f : fences) vkDestroyFence(ctx->device(), f, nullptr);
    vkDestroyCommandPool(ctx->device(), pool, nullptr);
}

long resident_kib() {
    std::ifstream s("/proc/self/status");
    std::string line;
    while (std::getline(s, line))
        if (line.rfind("VmRSS:", 0) == 0) return std::stol(line.substr(6));
    return 0;
}

// 100 size changes: device memory (cudaMemGetInfo) returns exactly to where it started and the
// host's resident set grows by less than 16 MiB.
TEST_F(InteropFixture, ResizeStressReleasesMemory) {
    { interop::SharedBuffer warm(*ctx, 1 << 20, VK_BUFFER_USAGE_TRANSFER_DST_BIT); }  // first-use allocations
    ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    std::size_t free0 = 0, total = 0;
    ASSERT_EQ(cudaMemGetInfo(&free0, &total), cudaSuccess);
    const long rss0 = resident_kib();
    for (int i = 0; i < 100; ++i) {
        const int w = 64 + (i * 397) % 3840, h = 16 + (i * 211) % 2160;
        const std::size_t bytes = interop::shared_pitch(w, 4) * static_cast<std::size_t>(h);
        interop::SharedBuffer src(*ctx, bytes, VK_BUFFER_USAGE_TRANSFER_DST_BIT | VK_BUFFER_USAGE_STORAGE_BUFFER_BIT);
        interop::SharedBuffer dst(*ctx, bytes, VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_STORAGE_BUFFER_BIT);
        ASSERT_EQ(cudaMemcpyAsync(dst.cuda_ptr(), src.cuda_ptr(), bytes, cudaMemcpyDeviceToDevice, nullptr), cudaSuccess);
        ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    }
    std::size_t free1 = 0;
    ASSERT_EQ(cudaMemGetInfo(&free1, &total), cudaSuccess);
    EXPECT_EQ(free1, free0) << "device memory not returned after 100 resizes";
    EXPECT_LT(resident_kib() - rss0, 16 * 1024) << "host memory grew";
}

}  // namespace
