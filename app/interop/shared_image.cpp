// Vulkan <-> CUDA shared optimal-tiled image (an OS handle: external_handle.hpp), imported as a
// CUDA mipmapped array for the texture mechanism.
#include "interop/shared_image.hpp"

#include "interop/exported_memory.hpp"
#include "interop/external_handle.hpp"
#include "stencil_api.hpp"

#include <stdexcept>
#include <string>
#include <utility>

#if TILELAB_HAVE_CUDA
#include <cuda_runtime.h>
#endif

namespace tl::interop {

#if TILELAB_HAVE_CUDA
namespace {

cudaChannelFormatDesc channel_format(VkFormat format) {
    switch (format) {
    case VK_FORMAT_R8G8B8A8_UNORM: return cudaCreateChannelDesc<uchar4>();
    case VK_FORMAT_R32G32B32A32_SFLOAT: return cudaCreateChannelDesc<float4>();
    default: throw std::invalid_argument("SharedImage: only R8G8B8A8_UNORM and R32G32B32A32_SFLOAT are shared with CUDA");
    }
}

} // namespace

SharedImage::SharedImage(const vk::Context& ctx, int width, int height, VkFormat format)
    : device_(ctx.device()), format_(format), width_(width), height_(height) {
    if (width < 1 || height < 1) throw std::invalid_argument("SharedImage: size must be at least 1x1");
    const cudaChannelFormatDesc channels = channel_format(format);
    try {
        // (height, width) texels, optimal tiling: the layout is the driver's, so CUDA can only
        // reach it as an array (texture / surface objects, array copies), never as a pointer.
        VkExternalMemoryImageCreateInfo ext{VK_STRUCTURE_TYPE_EXTERNAL_MEMORY_IMAGE_CREATE_INFO};
        ext.handleTypes = kMemoryHandleType;
        VkImageCreateInfo ici{VK_STRUCTURE_TYPE_IMAGE_CREATE_INFO, &ext};
        ici.imageType = VK_IMAGE_TYPE_2D;
        ici.format = format;
        ici.extent = {static_cast<std::uint32_t>(width), static_cast<std::uint32_t>(height), 1};
        ici.mipLevels = 1;
        ici.arrayLayers = 1;
        ici.samples = VK_SAMPLE_COUNT_1_BIT;
        ici.tiling = VK_IMAGE_TILING_OPTIMAL;
        ici.usage = VK_IMAGE_USAGE_TRANSFER_SRC_BIT | VK_IMAGE_USAGE_TRANSFER_DST_BIT | VK_IMAGE_USAGE_SAMPLED_BIT;
        ici.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
        ici.initialLayout = VK_IMAGE_LAYOUT_UNDEFINED;
        VK_CHECK(vkCreateImage(device_, &ici, nullptr, &image_));

        const ExportedMemory exported = allocate_and_import(ctx, VK_NULL_HANDLE, image_);
        memory_ = exported.memory;
        allocation_size_ = exported.size;
        cuda_memory_ = exported.cuda_memory;
        auto* mem = static_cast<cudaExternalMemory_t>(cuda_memory_);

        // The array description must match the VkImage: format, extent, one level, and flags 0
        // (sampled / copied; surface load-store would need VK_IMAGE_USAGE_STORAGE_BIT).
        cudaExternalMemoryMipmappedArrayDesc ad{};
        ad.offset = 0;
        ad.formatDesc = channels;
        ad.extent = make_cudaExtent(static_cast<std::size_t>(width), static_cast<std::size_t>(height), 0);
        ad.flags = 0;
        ad.numLevels = 1;
        cudaMipmappedArray_t mipmapped = nullptr;
        throw_on_cuda_error(cudaExternalMemoryGetMappedMipmappedArray(&mipmapped, mem, &ad),
                            "cudaExternalMemoryGetMappedMipmappedArray");
        cuda_mipmapped_ = mipmapped;
        cudaArray_t level0 = nullptr;
        throw_on_cuda_error(cudaGetMipmappedArrayLevel(&level0, mipmapped, 0), "cudaGetMipmappedArrayLevel");
        cuda_array_ = level0;
    } catch (...) {
        release();
        throw;
    }
}

void SharedImage::release() noexcept {
    // CUDA first: the texture objects the texture mechanism made over the array, the mapped
    // array, the imported memory; then the Vulkan objects it aliases.
    if (cuda_array_) tl::cuda::forget_texture_array(cuda_array_);
    if (cuda_mipmapped_) cudaFreeMipmappedArray(static_cast<cudaMipmappedArray_t>(cuda_mipmapped_));
    if (cuda_memory_) cudaDestroyExternalMemory(static_cast<cudaExternalMemory_t>(cuda_memory_));
    cuda_array_ = nullptr;
    cuda_mipmapped_ = nullptr;
    cuda_memory_ = nullptr;
    if (device_ != VK_NULL_HANDLE) {
        if (image_) vkDestroyImage(device_, image_, nullptr);
        if (memory_) vkFreeMemory(device_, memory_, nullptr);
    }
    image_ = VK_NULL_HANDLE;
    memory_ = VK_NULL_HANDLE;
}

SharedImage::~SharedImage() { release(); }

SharedImage::SharedImage(SharedImage&& o) noexcept
    : device_(std::exchange(o.device_, VK_NULL_HANDLE)),
      image_(std::exchange(o.image_, VK_NULL_HANDLE)),
      memory_(std::exchange(o.memory_, VK_NULL_HANDLE)),
      format_(std::exchange(o.format_, VK_FORMAT_UNDEFINED)),
      width_(std::exchange(o.width_, 0)),
      height_(std::exchange(o.height_, 0)),
      allocation_size_(std::exchange(o.allocation_size_, 0)),
      cuda_memory_(std::exchange(o.cuda_memory_, nullptr)),
      cuda_mipmapped_(std::exchange(o.cuda_mipmapped_, nullptr)),
      cuda_array_(std::exchange(o.cuda_array_, nullptr)) {}

SharedImage& SharedImage::operator=(SharedImage&& o) noexcept {
    if (this != &o) {
        release();
        device_ = std::exchange(o.device_, VK_NULL_HANDLE);
        image_ = std::exchange(o.image_, VK_NULL_HANDLE);
        memory_ = std::exchange(o.memory_, VK_NULL_HANDLE);
        format_ = std::exchange(o.format_, VK_FORMAT_UNDEFINED);
        width_ = std::exchange(o.width_, 0);
        height_ = std::exchange(o.height_, 0);
        allocation_size_ = std::exchange(o.allocation_size_, 0);
        cuda_memory_ = std::exchange(o.cuda_memory_, nullptr);
        cuda_mipmapped_ = std::exchange(o.cuda_mipmapped_, nullptr);
        cuda_array_ = std::exchange(o.cuda_array_, nullptr);
    }
    return *this;
}

#endif  // TILELAB_HAVE_CUDA

} // namespace tl::interop
