// Dedicated exportable memory and its CUDA import (see exported_memory.hpp).
#include "interop/exported_memory.hpp"

#include "interop/external_handle.hpp"

#include <stdexcept>
#include <string>

#if TILELAB_HAVE_CUDA
#include <cuda_runtime.h>
#endif

namespace tl::interop {

#if TILELAB_HAVE_CUDA

void throw_on_cuda_error(int e, const char* what) {
    const auto err = static_cast<cudaError_t>(e);
    if (err == cudaSuccess) return;
    (void)cudaGetLastError();
    throw std::runtime_error(std::string(what) + " failed: " + cudaGetErrorName(err) + " (" + cudaGetErrorString(err) +
                             ")");
}

ExportedMemory allocate_and_import(const vk::Context& ctx, VkBuffer buffer, VkImage image) {
    const VkDevice device = ctx.device();
    VkMemoryRequirements req{};
    if (buffer) vkGetBufferMemoryRequirements(device, buffer, &req);
    else vkGetImageMemoryRequirements(device, image, &req);
    VkMemoryDedicatedAllocateInfo dedicated{VK_STRUCTURE_TYPE_MEMORY_DEDICATED_ALLOCATE_INFO};
    dedicated.buffer = buffer;
    dedicated.image = image;
    VkExportMemoryAllocateInfo export_info{VK_STRUCTURE_TYPE_EXPORT_MEMORY_ALLOCATE_INFO, &dedicated};
    export_info.handleTypes = kMemoryHandleType;
    VkMemoryAllocateInfo mai{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO, &export_info};
    mai.allocationSize = req.size;
    mai.memoryTypeIndex = ctx.memory_type(req.memoryTypeBits, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT);
    ExportedMemory out;
    out.size = req.size;
    VK_CHECK(vkAllocateMemory(device, &mai, nullptr, &out.memory));
    try {
        if (buffer) VK_CHECK(vkBindBufferMemory(device, buffer, out.memory, 0));
        else VK_CHECK(vkBindImageMemory(device, image, out.memory, 0));
        const NativeHandle handle = export_memory_handle(device, out.memory);
        cudaExternalMemoryHandleDesc desc{};
        set_cuda_handle(desc, handle);
        desc.size = out.size;
        desc.flags = cudaExternalMemoryDedicated;
        cudaExternalMemory_t mem = nullptr;
        const cudaError_t e = cudaImportExternalMemory(&mem, &desc);
        release_after_import(handle, e == cudaSuccess);
        throw_on_cuda_error(e, buffer ? "cudaImportExternalMemory (buffer)" : "cudaImportExternalMemory (image)");
        out.cuda_memory = mem;
    } catch (...) {
        vkFreeMemory(device, out.memory, nullptr);
        throw;
    }
    return out;
}

#endif  // TILELAB_HAVE_CUDA

} // namespace tl::interop
