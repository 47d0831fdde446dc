// Shared set-up of the interop tests: a Vulkan context on the CUDA device (matched by UUID) with
// the external-memory extensions, validation on where the layer is installed, and a queue submit
// that waits for and signals an exported timeline semaphore.
#pragma once

#include "interop/cuda_device.hpp"
#include "interop/shared_buffer.hpp"
#include "vk/context.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <functional>
#include <memory>
#include <string_view>
#include <vector>

namespace tl::interop_test {

// GPU servers may lack the validation layers; the tests still check interop there, without them.
inline bool validation_layer_installed() {
    std::uint32_t n = 0;
    vkEnumerateInstanceLayerProperties(&n, nullptr);
    std::vector<VkLayerProperties> layers(n);
    vkEnumerateInstanceLayerProperties(&n, layers.data());
    for (const auto& l : layers)
        if (std::string_view(l.layerName) == "VK_LAYER_KHRONOS_validation") return true;
    return false;
}

struct InteropFixture : ::testing::Test {
    std::unique_ptr<vk::Context> ctx;
    void SetUp() override {
        std::string why;
        auto dev = interop::query_cuda_device(&why);
        if (!dev) GTEST_SKIP() << why;
        vk::ContextOptions o;
        o.validation = validation_layer_installed();
        if (!o.validation) std::fprintf(stderr, "note: VK_LAYER_KHRONOS_validation not installed; running without it\n");
        o.quiet = true;
        o.device_uuid = dev->uuid;
        o.optional_device_extensions = interop::interop_device_extensions();
        ctx = std::make_unique<vk::Context>(o);
        ASSERT_EQ(ctx->device_uuid(), dev->uuid) << "Vulkan picked a device that is not the CUDA device";
        ASSERT_EQ(interop::interop_support(*ctx), "");
        ASSERT_TRUE(interop::select_cuda_device_by_uuid(ctx->device_uuid()));
    }
    void TearDown() override {
        if (ctx) {
            EXPECT_EQ(ctx->validation_messages(), 0u);
        }
    }

    // A primary command buffer from `pool`, begun for one submit.
    VkCommandBuffer begin_one_time(VkCommandPool pool) const {
        VkCommandBufferAllocateInfo ai{VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
        ai.commandPool = pool;
        ai.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
        ai.commandBufferCount = 1;
        VkCommandBuffer cmd;
        VK_CHECK(vkAllocateCommandBuffers(ctx->device(), &ai, &cmd));
        VkCommandBufferBeginInfo bi{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
        bi.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
        VK_CHECK(vkBeginCommandBuffer(cmd, &bi));
        return cmd;
    }

    // Submits `record` on the Vulkan queue, waiting for `wait` (0: none) and signalling `signal`.
    void submit(const std::function<void(VkCommandBuffer)>& record, const interop::Timeline& tl, std::uint64_t wait,
                std::uint64_t signal, VkCommandPool pool, VkFence fence) {
        VkCommandBuffer cmd = begin_one_time(pool);
        record(cmd);
        VK_CHECK(vkEndCommandBuffer(cmd));
        VkSemaphore sem = tl.semaphore();
        VkTimelineSemaphoreSubmitInfo ts{VK_STRUCTURE_TYPE_TIMELINE_SEMAPHORE_SUBMIT_INFO};
        ts.waitSemaphoreValueCount = wait ? 1 : 0;
        ts.pWaitSemaphoreValues = &wait;
        ts.signalSemaphoreValueCount = signal ? 1 : 0;
        ts.pSignalSemaphoreValues = &signal;
        VkPipelineStageFlags stage = VK_PIPELINE_STAGE_ALL_COMMANDS_BIT;
        VkSubmitInfo si{VK_STRUCTURE_TYPE_SUBMIT_INFO, &ts};
        si.waitSemaphoreCount = wait ? 1 : 0;
        si.pWaitSemaphores = &sem;
        si.pWaitDstStageMask = &stage;
        si.commandBufferCount = 1;
        si.pCommandBuffers = &cmd;
        si.signalSemaphoreCount = signal ? 1 : 0;
        si.pSignalSemaphores = &sem;
        VK_CHECK(vkQueueSubmit(ctx->queue(), 1, &si, fence));
    }
};

inline VkCommandPool make_pool(const vk::Context& ctx) {
    VkCommandPoolCreateInfo pci{VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO};
    pci.queueFamilyIndex = ctx.queue_family();
    pci.flags = VK_COMMAND_POOL_CREATE_TRANSIENT_BIT;
    VkCommandPool pool;
    VK_CHECK(vkCreateCommandPool(ctx.device(), &pci, nullptr, &pool));
    return pool;
}

} // namespace tl::interop_test
