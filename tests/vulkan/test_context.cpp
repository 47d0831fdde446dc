// Vulkan context bring-up on whatever device is present (lavapipe in CI), with validation on.
#include "vk/context.hpp"

#include <gtest/gtest.h>

#include <cstring>

namespace {

TEST(Context, ComesUpHeadlessWithValidationAndNoMessages) {
    tl::vk::ContextOptions options;
    options.validation = true;
    options.quiet = true;
    tl::vk::Context ctx(options);
    EXPECT_NE(ctx.instance(), VK_NULL_HANDLE);
    EXPECT_NE(ctx.device(), VK_NULL_HANDLE);
    EXPECT_NE(ctx.queue(), VK_NULL_HANDLE);
    EXPECT_TRUE(ctx.validation_enabled());
    EXPECT_GE(ctx.properties().apiVersion, VK_API_VERSION_1_2);
    EXPECT_FALSE(ctx.has_extension(VK_KHR_SWAPCHAIN_EXTENSION_NAME));
    EXPECT_FALSE(ctx.device_description().empty());
    EXPECT_EQ(ctx.validation_messages(), 0u);
}

TEST(Context, BufferRoundTripThroughOneShotCopy) {
    tl::vk::ContextOptions options;
    options.validation = true;
    options.quiet = true;
    tl::vk::Context ctx(options);
    constexpr VkDeviceSize size = 4096;
    const auto host = VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
    tl::vk::Buffer src(ctx, size, VK_BUFFER_USAGE_TRANSFER_SRC_BIT, host);
    tl::vk::Buffer mid(ctx, size, VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT,
                       VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT);
    tl::vk::Buffer dst(ctx, size, VK_BUFFER_USAGE_TRANSFER_DST_BIT, host);
    ASSERT_NE(src.mapped(), nullptr);
    EXPECT_EQ(mid.mapped(), nullptr);
    auto* p = static_cast<std::uint8_t*>(src.mapped());
    for (VkDeviceSize i = 0; i < size; ++i) p[i] = static_cast<std::uint8_t>(i * 7 + 3);
    ctx.one_shot([&](VkCommandBuffer cmd) {
        VkBufferCopy region{0, 0, size};
        vkCmdCopyBuffer(cmd, src.handle(), mid.handle(), 1, &region);
        VkMemoryBarrier barrier{VK_STRUCTURE_TYPE_MEMORY_BARRIER};
        barrier.srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT;
        barrier.dstAccessMask = VK_ACCESS_TRANSFER_READ_BIT;
        vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_TRANSFER_BIT, 0, 1, &barrier, 0,
                             nullptr, 0, nullptr);
        vkCmdCopyBuffer(cmd, mid.handle(), dst.handle(), 1, &region);
    });
    EXPECT_EQ(std::memcmp(src.mapped(), dst.mapped(), size), 0);
    tl::vk::Buffer moved = std::move(dst);
    EXPECT_EQ(dst.handle(), VK_NULL_HANDLE);
    EXPECT_NE(moved.handle(), VK_NULL_HANDLE);
    EXPECT_EQ(ctx.validation_messages(), 0u);
}

TEST(Context, MemoryTypeThrowsWhenNoneMatches) {
    tl::vk::ContextOptions options;
    options.quiet = true;
    tl::vk::Context ctx(options);
    EXPECT_THROW(ctx.memory_type(0u, VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT), tl::vk::Error);
}

TEST(Context, VkCheckNamesTheCall) {
    try {
        VK_CHECK(VK_ERROR_DEVICE_LOST);
        FAIL() << "VK_CHECK did not throw";
    } catch (const tl::vk::Error& e) {
        const std::string what = e.what();
        EXPECT_NE(what.find("VK_ERROR_DEVICE_LOST"), std::string::npos) << what;
        EXPECT_NE(what.find("test_context.cpp"), std::string::npos) << what;
    }
}

} // namespace
