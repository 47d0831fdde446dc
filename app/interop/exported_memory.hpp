// Dedicated, exportable device memory for one VkBuffer or VkImage, and its import into CUDA: the
// steps SharedBuffer and SharedImage share (the OS handle type comes from external_handle.hpp).
#pragma once

#include "vk/context.hpp"

namespace tl::interop {

// What allocate_and_import made: the Vulkan memory (bound to the resource) and the CUDA handle
// of the same bytes (cudaExternalMemory_t as void*). The caller owns and releases both.
struct ExportedMemory {
    VkDeviceMemory memory = VK_NULL_HANDLE;
    VkDeviceSize size = 0;      // the allocation's size (what CUDA imports)
    void* cuda_memory = nullptr;
};

// Exactly one of `buffer` and `image` is non-null (created with the external-memory create info
// for kMemoryHandleType). Allocates device-local memory dedicated to it, binds it, exports the OS
// handle and imports that into CUDA as dedicated external memory. On failure throws (vk::Error or
// std::runtime_error with the failing call) and leaves nothing allocated. CUDA builds only.
ExportedMemory allocate_and_import(const vk::Context& ctx, VkBuffer buffer, VkImage image);

// Throws std::runtime_error("<what> failed: <name> (<description>)") unless e (a cudaError_t)
// is cudaSuccess, clearing CUDA's sticky last error first. CUDA builds only.
void throw_on_cuda_error(int e, const char* what);

} // namespace tl::interop
