// An optimal-tiled image owned by both APIs: an exportable VkImage (dedicated allocation,
// OPAQUE_FD, or OPAQUE_WIN32 under _WIN32: external_handle.hpp) imported into CUDA as a
// mipmapped array, whose level 0 is the CUDA array the `texture` mechanism samples. Move-only;
// the CUDA side is released first.
#pragma once

#include "vk/context.hpp"

#include <cstdint>

namespace tl::interop {

// Defined in CUDA builds only (TILELAB_HAVE_CUDA); callers guard their use.
class SharedImage {
public:
    SharedImage() = default;
    // format: VK_FORMAT_R8G8B8A8_UNORM (CUDA uchar4) or VK_FORMAT_R32G32B32A32_SFLOAT (float4).
    // The image is created with TRANSFER_SRC | TRANSFER_DST | SAMPLED usage, in UNDEFINED layout.
    // Throws vk::Error (Vulkan side) or std::runtime_error (CUDA side) with a readable reason.
    SharedImage(const vk::Context& ctx, int width, int height, VkFormat format);
    ~SharedImage();
    SharedImage(const SharedImage&) = delete;
    SharedImage& operator=(const SharedImage&) = delete;
    SharedImage(SharedImage&& o) noexcept;
    SharedImage& operator=(SharedImage&& o) noexcept;

    VkImage image() const { return image_; }
    VkFormat format() const { return format_; }
    int width() const { return width_; }
    int height() const { return height_; }
    VkDeviceSize allocation_size() const { return allocation_size_; }
    // Level 0 of the imported mipmapped array (cudaArray_t as void*): bind a texture or surface
    // object to it, or cudaMemcpy2D{To,From}ArrayAsync.
    void* cuda_array() const { return cuda_array_; }
    explicit operator bool() const { return image_ != VK_NULL_HANDLE; }

private:
    void release() noexcept;
    VkDevice device_ = VK_NULL_HANDLE;
    VkImage image_ = VK_NULL_HANDLE;
    VkDeviceMemory memory_ = VK_NULL_HANDLE;
    VkFormat format_ = VK_FORMAT_UNDEFINED;
    int width_ = 0, height_ = 0;
    VkDeviceSize allocation_size_ = 0;
    void* cuda_memory_ = nullptr;     // cudaExternalMemory_t
    void* cuda_mipmapped_ = nullptr;  // cudaMipmappedArray_t
    void* cuda_array_ = nullptr;      // cudaArray_t, level 0 of cuda_mipmapped_ (not freed separately)
};

} // namespace tl::interop
