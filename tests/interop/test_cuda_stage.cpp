// The viewer's CUDA stage on the NVIDIA GPU: its two output buffers alternate, its copy stage (the
// interop measurement) is byte-exact, its histogram is read without stalling once a run has
// finished, reallocation returns device memory, and a frame loop shaped like the viewer's (CUDA
// does not wait for Vulkan; Vulkan waits for CUDA's value; the host waits for frame N-2's fence
// before CUDA rewrites that frame's buffer) always shows the frame it waited for.
#include "cuda_stage.hpp"
#include "interop_fixture.hpp"
#include "interop/cuda_device.hpp"
#include "interop/shared_buffer.hpp"
#include "vk/context.hpp"

#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <cstring>
#include <memory>
#include <random>
#include <string_view>
#include <vector>

namespace {

using namespace tl;

// The common set-up (interop_fixture.hpp) plus host-side helpers for reading and writing buffers.
struct CudaStageFixture : interop_test::InteropFixture {
    void wait_value(VkSemaphore sem, std::uint64_t value) const {
        VkSemaphoreWaitInfo wi{VK_STRUCTURE_TYPE_SEMAPHORE_WAIT_INFO};
        wi.semaphoreCount = 1;
        wi.pSemaphores = &sem;
        wi.pValues = &value;
        ASSERT_EQ(vkWaitSemaphores(ctx->device(), &wi, 10'000'000'000ull), VK_SUCCESS);
    }
    std::vector<std::uint8_t> read(VkBuffer b, VkDeviceSize bytes) const {
        vk::Buffer down(*ctx, bytes, VK_BUFFER_USAGE_TRANSFER_DST_BIT,
                        VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT);
        ctx->one_shot([&](VkCommandBuffer cmd) {
            const VkBufferCopy c{0, 0, bytes};
            vkCmdCopyBuffer(cmd, b, down.handle(), 1, &c);
        });
        const auto* p = static_cast<const std::uint8_t*>(down.mapped());
        return {p, p + bytes};
    }
    void write(VkBuffer b, const std::vector<std::uint8_t>& bytes) const {
        vk::Buffer up(*ctx, bytes.size(), VK_BUFFER_USAGE_TRANSFER_SRC_BIT,
                      VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT);
        std::memcpy(up.mapped(), bytes.data(), bytes.size());
        ctx->one_shot([&](VkCommandBuffer cmd) {
            const VkBufferCopy c{0, 0, bytes.size()};
            vkCmdCopyBuffer(cmd, up.handle(), b, 1, &c);
        });
    }
};

// Copy runs (the interop measurement's CUDA side) land in alternating outputs, each byte-exact,
// row padding included, and each signals the next timeline value.
TEST_F(CudaStageFixture, CopyRunsAlternateOutputsAndAreExact) {
    std::string why;
    auto stage = CudaStage::create(*ctx, &why);
    ASSERT_TRUE(stage) << why;
    stage->allocate(4097, 3);
    const VkDeviceSize image_bytes = stage->pitch() * 3;  // the buffers may be larger (rounded to whole pages)
    ASSERT_GE(stage->size(), image_bytes);
    std::vector<std::uint8_t> src(image_bytes);
    std::mt19937 rng(7);
    for (auto& b : src) b = static_cast<std::uint8_t>(rng());
    write(stage->source(), src);
    EXPECT_EQ(stage->latest_value(), 0u);
    CudaStage::Job job;
    job.copy_only = true;
    int previous = stage->latest_output();
    for (std::uint64_t run = 1; run <= 3; ++run) {
        std::string status;
        const std::uint64_t value = stage->enqueue(job, status);
        EXPECT_EQ(status, "");
        ASSERT_EQ(value, run);
        EXPECT_EQ(stage->latest_value(), run);
        EXPECT_NE(stage->latest_output(), previous) << "run " << run << " wrote the buffer frames still show";
        previous = stage->latest_output();
        wait_value(stage->timeline(), value);
        EXPECT_EQ(read(stage->filtered(stage->latest_output()), image_bytes), src) << "run " << run;
    }
    stage->synchronize();
}

// The histogram of a run is read at the next enqueue once its event has completed: a flat image
// of one colour gives every pixel in one bin per channel.
TEST_F(CudaStageFixture, HistogramOfTheLatestFinishedRun) {
    std::string why;
    auto stage = CudaStage::create(*ctx, &why);
    ASSERT_TRUE(stage) << why;
    constexpr int w = 129, h = 65;
    stage->allocate(w, h);
    std::vector<std::uint8_t> src(stage->size(), 0);
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) {
            std::uint8_t* p = src.data() + static_cast<std::size_t>(y) * stage->pitch() + static_cast<std::size_t>(x) * 4;
            p[0] = 10, p[1] = 200, p[2] = 255, p[3] = 255;
        }
    write(stage->source(), src);
    CudaStage::Job job;
    job.copy_only = true;
    job.histogram = true;
    std::string status;
    EXPECT_FALSE(stage->histogram().has_value());
    const std::uint64_t first = stage->enqueue(job, status);
    ASSERT_NE(first, 0u) << status;
    wait_value(stage->timeline(), first);
    stage->synchronize();
    ASSERT_NE(stage->enqueue(job, status), 0u) << status;  // reads the first run's counts
    ASSERT_TRUE(stage->histogram().has_value());
    const auto& hist = *stage->histogram();
    EXPECT_EQ(hist[0][10], static_cast<std::uint32_t>(w * h));
    EXPECT_EQ(hist[1][200], static_cast<std::uint32_t>(w * h));
    EXPECT_EQ(hist[2][255], static_cast<std::uint32_t>(w * h));
    stage->synchronize();
}

// Reallocating for other sizes (five shared buffers each time) gives the device memory back.
TEST_F(CudaStageFixture, ReallocationReturnsDeviceMemory) {
    std::string why;
    auto stage = CudaStage::create(*ctx, &why);
    ASSERT_TRUE(stage) << why;
    // One reallocation first: the first imports can leave the driver's pools larger than later ones.
    stage->allocate(800, 600);
    stage->allocate(640, 480);
    ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    std::size_t free0 = 0, total = 0;
    ASSERT_EQ(cudaMemGetInfo(&free0, &total), cudaSuccess);
    for (int i = 0; i < 20; ++i) stage->allocate(64 + (i * 397) % 3840, 16 + (i * 211) % 2160);
    stage->allocate(640, 480);
    ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    std::size_t free1 = 0;
    ASSERT_EQ(cudaMemGetInfo(&free1, &total), cudaSuccess);
    // Within 2 MiB: the driver's own bookkeeping moves by tens of KiB either way (seen on an H100:
    // 8 MiB more and 64 KiB less free afterwards); a leak of five buffers per reallocation would
    // be at least 100 MiB here.
    EXPECT_GE(free1 + (2u << 20), free0) << "device memory not returned after 20 reallocations";
}

// The viewer's frame loop with raw interop objects: CUDA writes frame N's number into output N % 2
// without waiting for Vulkan and signals N + 1; Vulkan waits for N + 1 and copies that output to
// frame N's readback. The host waits for frame N-2's fence before CUDA rewrites its output, so
// CUDA's frame N overlaps Vulkan's frame N-1 and every readback still holds its own frame.
TEST_F(CudaStageFixture, AlternatingOutputsWithoutAForwardWaitKeepFramesApart) {
    constexpr int kFrames = 200, kInFlight = 2, w = 1024, h = 512;
    const std::size_t pitch = interop::shared_pitch(w, 4);
    const VkDeviceSize bytes = pitch * h;
    std::vector<interop::SharedBuffer> outputs;
    for (int i = 0; i < kInFlight; ++i)
        outputs.emplace_back(*ctx, bytes, VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT);
    interop::Timeline timeline(*ctx);
    std::vector<vk::Buffer> readback;
    for (int i = 0; i < kFrames; ++i)
        readback.emplace_back(*ctx, bytes, VK_BUFFER_USAGE_TRANSFER_DST_BIT,
                              VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT);
    VkCommandPoolCreateInfo pci{VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO};
    pci.queueFamilyIndex = ctx->queue_family();
    pci.flags = VK_COMMAND_POOL_CREATE_TRANSIENT_BIT;
    VkCommandPool pool;
    VK_CHECK(vkCreateCommandPool(ctx->device(), &pci, nullptr, &pool));
    std::vector<VkFence> fences(kInFlight);
    VkFenceCreateInfo fci{VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
    fci.flags = VK_FENCE_CREATE_SIGNALED_BIT;
    for (auto& f : fences) VK_CHECK(vkCreateFence(ctx->device(), &fci, nullptr, &f));
    cudaStream_t stream;
    ASSERT_EQ(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), cudaSuccess);

    for (int n = 0; n < kFrames; ++n) {
        VkFence f = fences[n % kInFlight];
        VK_CHECK(vkWaitForFences(ctx->device(), 1, &f, VK_TRUE, 10'000'000'000ull));  // frame n-2 done
        VK_CHECK(vkResetFences(ctx->device(), 1, &f));
        const interop::SharedBuffer& out = outputs[static_cast<std::size_t>(n % kInFlight)];
        // Several writes so the CUDA side takes long enough to overlap Vulkan's previous frame.
        for (int k = 0; k < 4; ++k)
            ASSERT_EQ(cudaMemsetAsync(out.cuda_ptr(), (n % 251) + 1, bytes, stream), cudaSuccess);
        ASSERT_TRUE(timeline.cuda_signal(static_cast<std::uint64_t>(n) + 1, stream));
        VkCommandBuffer cmd = begin_one_time(pool);
        const VkBufferCopy c{0, 0, bytes};
        vkCmdCopyBuffer(cmd, out.buffer(), readback[static_cast<std::size_t>(n)].handle(), 1, &c);
        VK_CHECK(vkEndCommandBuffer(cmd));
        const std::uint64_t wait = static_cast<std::uint64_t>(n) + 1;
        VkTimelineSemaphoreSubmitInfo ts{VK_STRUCTURE_TYPE_TIMELINE_SEMAPHORE_SUBMIT_INFO};
        ts.waitSemaphoreValueCount = 1;
        ts.pWaitSemaphoreValues = &wait;
        VkSemaphore sem = timeline.semaphore();
        VkPipelineStageFlags stage = VK_PIPELINE_STAGE_ALL_COMMANDS_BIT;
        VkSubmitInfo si{VK_STRUCTURE_TYPE_SUBMIT_INFO, &ts};
        si.waitSemaphoreCount = 1;
        si.pWaitSemaphores = &sem;
        si.pWaitDstStageMask = &stage;
        si.commandBufferCount = 1;
        si.pCommandBuffers = &cmd;
        VK_CHECK(vkQueueSubmit(ctx->queue(), 1, &si, f));
    }
    ASSERT_EQ(vkDeviceWaitIdle(ctx->device()), VK_SUCCESS);
    ASSERT_EQ(cudaStreamSynchronize(stream), cudaSuccess);
    for (int n = 0; n < kFrames; ++n) {
        const auto* p = static_cast<const std::uint8_t*>(readback[static_cast<std::size_t>(n)].mapped());
        const auto want = static_cast<std::uint8_t>((n % 251) + 1);
        ASSERT_EQ(p[0], want) << "frame " << n;
        ASSERT_EQ(p[bytes / 2], want) << "frame " << n;
        ASSERT_EQ(p[bytes - 1], want) << "frame " << n;
    }
    cudaStreamDestroy(stream);
    for (auto f : fences) vkDestroyFence(ctx->device(), f, nullptr);
    vkDestroyCommandPool(ctx->device(), pool, nullptr);
}

}  // namespace
