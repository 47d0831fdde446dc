// The optimal-tiled shared image: Vulkan writes it, CUDA reads its array; CUDA writes the array,
// Vulkan reads the image; bytes identical both ways at odd sizes and 4K.
#include "interop/shared_image.hpp"
#include "interop_fixture.hpp"

#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <vector>

namespace {

using namespace tl;
using interop_test::InteropFixture;

// Layout change of the whole colour image, optionally handing it to or taking it from CUDA
// (queue family VK_QUEUE_FAMILY_EXTERNAL), as the external-memory rules ask of shared images.
void image_barrier(VkCommandBuffer cmd, VkImage image, VkImageLayout from, VkImageLayout to, std::uint32_t src_family,
                   std::uint32_t dst_family, VkAccessFlags src_access, VkAccessFlags dst_access) {
    VkImageMemoryBarrier b{VK_STRUCTURE_TYPE_IMAGE_MEMORY_BARRIER};
    b.srcAccessMask = src_access;
    b.dstAccessMask = dst_access;
    b.oldLayout = from;
    b.newLayout = to;
    b.srcQueueFamilyIndex = src_family;
    b.dstQueueFamilyIndex = dst_family;
    b.image = image;
    b.subresourceRange = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, 1};
    vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, 0, 0, nullptr,
                         0, nullptr, 1, &b);
}

class SharedImageRoundTrip : public InteropFixture, public ::testing::WithParamInterface<std::pair<int, int>> {};

TEST_P(SharedImageRoundTrip, BothWaysBitExact) {
    const auto [w, h] = GetParam();
    const std::size_t row = static_cast<std::size_t>(w) * 4;
    const VkDeviceSize bytes = row * static_cast<std::size_t>(h);
    interop::SharedImage image(*ctx, w, h, VK_FORMAT_R8G8B8A8_UNORM);
    ASSERT_NE(image.cuda_array(), nullptr);
    interop::Timeline timeline(*ctx);
    vk::Buffer up(*ctx, bytes, VK_BUFFER_USAGE_TRANSFER_SRC_BIT,
                  VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT);
    vk::Buffer down(*ctx, bytes, VK_BUFFER_USAGE_TRANSFER_DST_BIT,
                    VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT);
    std::mt19937 rng(static_cast<unsigned>(w * 131 + h));
    auto* vk_bytes = static_cast<std::uint8_t*>(up.mapped());
    for (VkDeviceSize i = 0; i < bytes; ++i) vk_bytes[i] = static_cast<std::uint8_t>(rng());
    std::vector<std::uint8_t> cuda_bytes(bytes);
    for (auto& b : cuda_bytes) b = static_cast<std::uint8_t>(rng());
    std::memset(down.mapped(), 0xCD, bytes);

    VkCommandPool pool = interop_test::make_pool(*ctx);
    VkFenceCreateInfo fci{VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
    VkFence fence;
    VK_CHECK(vkCreateFence(ctx->device(), &fci, nullptr, &fence));
    cudaStream_t stream;
    ASSERT_EQ(cudaStreamCreate(&stream), cudaSuccess);
    const std::uint32_t family = ctx->queue_family();
    VkBufferImageCopy region{};
    region.imageSubresource = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1};
    region.imageExtent = {static_cast<std::uint32_t>(w), static_cast<std::uint32_t>(h), 1};

    // Vulkan -> CUDA: upload into the image, release it to CUDA, CUDA copies the array out.
    submit([&](VkCommandBuffer cmd) {
        image_barrier(cmd, image.image(), VK_IMAGE_LAYOUT_UNDEFINED, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL,
                      VK_QUEUE_FAMILY_IGNORED, VK_QUEUE_FAMILY_IGNORED, 0, VK_ACCESS_TRANSFER_WRITE_BIT);
        vkCmdCopyBufferToImage(cmd, up.handle(), image.image(), VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, 1, &region);
        image_barrier(cmd, image.image(), VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, VK_IMAGE_LAYOUT_GENERAL, family,
                      VK_QUEUE_FAMILY_EXTERNAL, VK_ACCESS_TRANSFER_WRITE_BIT, 0);
    }, timeline, 0, 1, pool, VK_NULL_HANDLE);
    std::vector<std::uint8_t> seen_by_cuda(bytes, 0xAB);
    ASSERT_TRUE(timeline.cuda_wait(1, stream));
    auto* array = static_cast<cudaArray_t>(image.cuda_array());
    ASSERT_EQ(cudaMemcpy2DFromArrayAsync(seen_by_cuda.data(), row, array, 0, 0, row, static_cast<std::size_t>(h),
                                         cudaMemcpyDeviceToHost, stream), cudaSuccess);
    // CUDA -> Vulkan: CUDA overwrites the array, then Vulkan takes the image back and reads it.
    ASSERT_EQ(cudaMemcpy2DToArrayAsync(array, 0, 0, cuda_bytes.data(), row, row, static_cast<std::size_t>(h),
                                       cudaMemcpyHostToDevice, stream), cudaSuccess);
    ASSERT_TRUE(timeline.cuda_signal(2, stream));
    submit([&](VkCommandBuffer cmd) {
        image_barrier(cmd, image.image(), VK_IMAGE_LAYOUT_GENERAL, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL,
                      VK_QUEUE_FAMILY_EXTERNAL, family, 0, VK_ACCESS_TRANSFER_READ_BIT);
        vkCmdCopyImageToBuffer(cmd, image.image(), VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, down.handle(), 1, &region);
    }, timeline, 2, 3, pool, fence);
    ASSERT_EQ(vkWaitForFences(ctx->device(), 1, &fence, VK_TRUE, 10'000'000'000ull), VK_SUCCESS);
    ASSERT_EQ(cudaStreamSynchronize(stream), cudaSuccess);
    EXPECT_EQ(std::memcmp(vk_bytes, seen_by_cuda.data(), bytes), 0) << "CUDA read other bytes than Vulkan wrote";
    EXPECT_EQ(std::memcmp(cuda_bytes.data(), down.mapped(), bytes), 0) << "Vulkan read other bytes than CUDA wrote";

    cudaStreamDestroy(stream);
    vkDestroyFence(ctx->device(), fence, nullptr);
    vkDestroyCommandPool(ctx->device(), pool, nullptr);
}

INSTANTIATE_TEST_SUITE_P(Sizes, SharedImageRoundTrip,
                         ::testing::Values(std::pair{1, 1}, std::pair{17, 9}, std::pair{4097, 3}, std::pair{3840, 2160}),
                         [](const auto& param_info) {
                             return std::to_string(param_info.param.first) + "x" + std::to_string(param_info.param.second);
                         });

TEST_F(InteropFixture, SharedImageRefusesUnsharedFormat) {
    EXPECT_THROW(interop::SharedImage(*ctx, 8, 8, VK_FORMAT_B8G8R8A8_SRGB), std::invalid_argument);
    EXPECT_THROW(interop::SharedImage(*ctx, 0, 8, VK_FORMAT_R8G8B8A8_UNORM), std::invalid_argument);
}

TEST_F(InteropFixture, SharedImageMovesAndReleasesCudaMemory) {
    std::size_t free_before = 0, total = 0;
    ASSERT_EQ(cudaMemGetInfo(&free_before, &total), cudaSuccess);
    {
        interop::SharedImage a(*ctx, 1024, 768, VK_FORMAT_R32G32B32A32_SFLOAT);
        interop::SharedImage b(std::move(a));
        EXPECT_FALSE(a);
        ASSERT_TRUE(b);
        EXPECT_NE(b.cuda_array(), nullptr);
        EXPECT_GE(b.allocation_size(), VkDeviceSize(1024) * 768 * 16);
        a = std::move(b);
        EXPECT_TRUE(a);
        EXPECT_FALSE(b);
    }
    std::size_t free_after = 0;
    ASSERT_EQ(cudaMemGetInfo(&free_after, &total), cudaSuccess);
    EXPECT_EQ(free_after, free_before) << "the imported image was not released";
}

} // namespace
