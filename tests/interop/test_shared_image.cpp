// The optimal-tiled shared image: Vulkan writes it, CUDA reads its array; CUDA writes the array,
// Vulkan reads the image; bytes identical both ways at odd sizes and 4K. The texture mechanism
// sampling the shared image in place gives the same bytes as sampling its own copy of the image.
#include "interop/shared_image.hpp"
#include "interop_fixture.hpp"
#include "stencil_api.hpp"

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

// Records: the whole of `staging` (tightly packed rows) into the image, which is then released to
// CUDA (queue family VK_QUEUE_FAMILY_EXTERNAL) in GENERAL layout.
void record_upload_for_cuda(VkCommandBuffer cmd, VkBuffer staging, const interop::SharedImage& image,
                            std::uint32_t family) {
    VkBufferImageCopy region{};
    region.imageSubresource = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1};
    region.imageExtent = {static_cast<std::uint32_t>(image.width()), static_cast<std::uint32_t>(image.height()), 1};
    image_barrier(cmd, image.image(), VK_IMAGE_LAYOUT_UNDEFINED, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL,
                  VK_QUEUE_FAMILY_IGNORED, VK_QUEUE_FAMILY_IGNORED, 0, VK_ACCESS_TRANSFER_WRITE_BIT);
    vkCmdCopyBufferToImage(cmd, staging, image.image(), VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, 1, &region);
    image_barrier(cmd, image.image(), VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, VK_IMAGE_LAYOUT_GENERAL, family,
                  VK_QUEUE_FAMILY_EXTERNAL, VK_ACCESS_TRANSFER_WRITE_BIT, 0);
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
    submit([&](VkCommandBuffer cmd) { record_upload_for_cuda(cmd, up.handle(), image, family); }, timeline, 0, 1, pool,
           VK_NULL_HANDLE);
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

// Vulkan uploads an image into the shared image; the texture mechanism filters it in place
// (launch_texture_array) and from a linear copy of the same bytes (launch, which copies into its
// own array): every filter and border gives identical bytes, and unwritten pixels would show
// (both outputs start as different poison).
TEST_F(InteropFixture, TextureMechanismSamplesTheSharedImageInPlace) {
    if (auto st = cuda::can_run(cuda::Mechanism::Texture, FilterParams{}, PixelFormat::RGBA8, cuda::Policy{}); !st)
        GTEST_SKIP() << st.reason;
    const int w = 333, h = 191;
    const std::size_t row = static_cast<std::size_t>(w) * 4;
    const VkDeviceSize bytes = row * static_cast<std::size_t>(h);
    interop::SharedImage image(*ctx, w, h, VK_FORMAT_R8G8B8A8_UNORM);
    interop::Timeline timeline(*ctx);
    vk::Buffer up(*ctx, bytes, VK_BUFFER_USAGE_TRANSFER_SRC_BIT,
                  VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT);
    std::mt19937 rng(7);
    auto* pixels = static_cast<std::uint8_t*>(up.mapped());
    for (VkDeviceSize i = 0; i < bytes; ++i) pixels[i] = static_cast<std::uint8_t>(rng());
    VkCommandPool pool = interop_test::make_pool(*ctx);
    const std::uint32_t family = ctx->queue_family();
    submit([&](VkCommandBuffer cmd) { record_upload_for_cuda(cmd, up.handle(), image, family); }, timeline, 0, 1, pool,
           VK_NULL_HANDLE);
    cudaStream_t stream;
    ASSERT_EQ(cudaStreamCreate(&stream), cudaSuccess);
    ASSERT_TRUE(timeline.cuda_wait(1, stream));

    const std::size_t pitch = (row + 127) / 128 * 128;
    void *linear = nullptr, *out_shared = nullptr, *out_copy = nullptr;
    ASSERT_EQ(cudaMalloc(&linear, pitch * h), cudaSuccess);
    ASSERT_EQ(cudaMalloc(&out_shared, pitch * h), cudaSuccess);
    ASSERT_EQ(cudaMalloc(&out_copy, pitch * h), cudaSuccess);
    ASSERT_EQ(cudaMemcpy2DAsync(linear, pitch, pixels, row, row, h, cudaMemcpyHostToDevice, stream), cudaSuccess);
    const cuda::DeviceImage src{linear, pitch, w, h, PixelFormat::RGBA8};
    const cuda::DeviceImage dst_shared{out_shared, pitch, w, h, PixelFormat::RGBA8};
    const cuda::DeviceImage dst_copy{out_copy, pitch, w, h, PixelFormat::RGBA8};
    std::vector<std::uint8_t> a(pitch * h), b(pitch * h);
    std::vector<FilterParams> filters(4);
    filters[0].kind = FilterKind::Box;
    filters[0].radius = 3;
    filters[1].kind = FilterKind::Gaussian;
    filters[1].sigma = 1.0f;
    filters[2].kind = FilterKind::Sobel;
    filters[3].kind = FilterKind::Sharpen;
    for (const auto& f : filters)
        for (Border border : {Border::Clamp, Border::Zero, Border::Mirror}) {
            SCOPED_TRACE(std::string(to_string(f.kind)) + " " + std::string(to_string(border)));
            ASSERT_EQ(cudaMemsetAsync(out_shared, 0xA5, pitch * h, stream), cudaSuccess);
            ASSERT_EQ(cudaMemsetAsync(out_copy, 0x5A, pitch * h, stream), cudaSuccess);
            auto r1 = cuda::launch_texture_array(f, border, image.cuda_array(), src, dst_shared, stream);
            ASSERT_TRUE(r1) << r1.reason;
            auto r2 = cuda::launch(f, border, cuda::Mechanism::Texture, cuda::Policy{}, src, dst_copy, stream);
            ASSERT_TRUE(r2) << r2.reason;
            ASSERT_EQ(cudaMemcpyAsync(a.data(), out_shared, pitch * h, cudaMemcpyDeviceToHost, stream), cudaSuccess);
            ASSERT_EQ(cudaMemcpyAsync(b.data(), out_copy, pitch * h, cudaMemcpyDeviceToHost, stream), cudaSuccess);
            ASSERT_EQ(cudaStreamSynchronize(stream), cudaSuccess);
            for (int y = 0; y < h; ++y)
                ASSERT_EQ(std::memcmp(a.data() + y * pitch, b.data() + y * pitch, row), 0) << "row " << y;
        }
    const cuda::DeviceImage wrong_size{out_shared, pitch, w - 1, h, PixelFormat::RGBA8};
    EXPECT_FALSE(cuda::launch_texture_array(filters[0], Border::Clamp, image.cuda_array(), src, wrong_size, stream));
    EXPECT_FALSE(cuda::launch_texture_array(filters[0], Border::Clamp, nullptr, src, dst_shared, stream));
    cudaFree(linear);
    cudaFree(out_shared);
    cudaFree(out_copy);
    cudaStreamDestroy(stream);
    vkDestroyCommandPool(ctx->device(), pool, nullptr);
}

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
