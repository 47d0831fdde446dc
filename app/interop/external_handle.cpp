// Exporting Vulkan memory and semaphores as OS handles and describing them to CUDA: POSIX file
// descriptors, or (UNTESTED, see external_handle.hpp) Windows NT handles under _WIN32.
#include "interop/external_handle.hpp"

#if !defined(_WIN32)
#include <unistd.h>
#endif

namespace tl::interop {

namespace {

template <class Fn>
Fn device_proc(VkDevice device, const char* name) {
    auto fn = reinterpret_cast<Fn>(vkGetDeviceProcAddr(device, name));
    if (!fn) throw vk::Error(std::string(name) + " is not available: the device lacks the extension");
    return fn;
}

} // namespace

#if defined(_WIN32)

const std::vector<std::string>& external_handle_extensions() {
    static const std::vector<std::string> exts = {VK_KHR_EXTERNAL_MEMORY_WIN32_EXTENSION_NAME,
                                                  VK_KHR_EXTERNAL_SEMAPHORE_WIN32_EXTENSION_NAME};
    return exts;
}

NativeHandle export_memory_handle(VkDevice device, VkDeviceMemory memory) {
    auto get = device_proc<PFN_vkGetMemoryWin32HandleKHR>(device, "vkGetMemoryWin32HandleKHR");
    VkMemoryGetWin32HandleInfoKHR info{VK_STRUCTURE_TYPE_MEMORY_GET_WIN32_HANDLE_INFO_KHR};
    info.memory = memory;
    info.handleType = kMemoryHandleType;
    HANDLE h = nullptr;
    VK_CHECK(get(device, &info, &h));
    return h;
}

NativeHandle export_semaphore_handle(VkDevice device, VkSemaphore semaphore) {
    auto get = device_proc<PFN_vkGetSemaphoreWin32HandleKHR>(device, "vkGetSemaphoreWin32HandleKHR");
    VkSemaphoreGetWin32HandleInfoKHR info{VK_STRUCTURE_TYPE_SEMAPHORE_GET_WIN32_HANDLE_INFO_KHR};
    info.semaphore = semaphore;
    info.handleType = kSemaphoreHandleType;
    HANDLE h = nullptr;
    VK_CHECK(get(device, &info, &h));
    return h;
}

#if TILELAB_HAVE_CUDA
void set_cuda_handle(cudaExternalMemoryHandleDesc& desc, NativeHandle handle) {
    desc.type = cudaExternalMemoryHandleTypeOpaqueWin32;
    desc.handle.win32.handle = handle;
}

void set_cuda_handle(cudaExternalSemaphoreHandleDesc& desc, NativeHandle handle) {
    desc.type = cudaExternalSemaphoreHandleTypeTimelineSemaphoreWin32;
    desc.handle.win32.handle = handle;
}
#endif

void release_after_import(NativeHandle handle, bool /*imported*/) noexcept {
    if (handle) CloseHandle(handle);
}

#else  // POSIX

const std::vector<std::string>& external_handle_extensions() {
    static const std::vector<std::string> exts = {VK_KHR_EXTERNAL_MEMORY_FD_EXTENSION_NAME,
                                                  VK_KHR_EXTERNAL_SEMAPHORE_FD_EXTENSION_NAME};
    return exts;
}

NativeHandle export_memory_handle(VkDevice device, VkDeviceMemory memory) {
    auto get = device_proc<PFN_vkGetMemoryFdKHR>(device, "vkGetMemoryFdKHR");
    VkMemoryGetFdInfoKHR info{VK_STRUCTURE_TYPE_MEMORY_GET_FD_INFO_KHR};
    info.memory = memory;
    info.handleType = kMemoryHandleType;
    int fd = -1;
    VK_CHECK(get(device, &info, &fd));
    return fd;
}

NativeHandle export_semaphore_handle(VkDevice device, VkSemaphore semaphore) {
    auto get = device_proc<PFN_vkGetSemaphoreFdKHR>(device, "vkGetSemaphoreFdKHR");
    VkSemaphoreGetFdInfoKHR info{VK_STRUCTURE_TYPE_SEMAPHORE_GET_FD_INFO_KHR};
    info.semaphore = semaphore;
    info.handleType = kSemaphoreHandleType;
    int fd = -1;
    VK_CHECK(get(device, &info, &fd));
    return fd;
}

#if TILELAB_HAVE_CUDA
void set_cuda_handle(cudaExternalMemoryHandleDesc& desc, NativeHandle handle) {
    desc.type = cudaExternalMemoryHandleTypeOpaqueFd;
    desc.handle.fd = handle;
}

void set_cuda_handle(cudaExternalSemaphoreHandleDesc& desc, NativeHandle handle) {
    desc.type = cudaExternalSemaphoreHandleTypeTimelineSemaphoreFd;
    desc.handle.fd = handle;
}
#endif

void release_after_import(NativeHandle handle, bool imported) noexcept {
    if (!imported && handle >= 0) close(handle);
}

#endif

} // namespace tl::interop
