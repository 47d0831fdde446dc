// Vulkan <-> CUDA shared buffers and the timeline semaphore (OS handles: external_handle.hpp).
#include "interop/shared_buffer.hpp"

#include "interop/exported_memory.hpp"
#include "interop/external_handle.hpp"

#include <stdexcept>
#include <utility>

#if TILELAB_HAVE_CUDA
#include <cuda_runtime.h>
#endif

namespace tl::interop {

const std::vector<std::string>& interop_device_extensions() { return external_handle_extensions(); }

std::string interop_support(const vk::Context& ctx) {
    for (const auto& e : interop_device_extensions())
        if (!ctx.has_extension(e)) return "the Vulkan device lacks " + e;
    return {};
}

#if TILELAB_HAVE_CUDA
SharedBuffer::SharedBuffer(const vk::Context& ctx, VkDeviceSize size, VkBufferUsageFlags usage)
    : device_(ctx.device()), size_(size) {
    try {
        VkExternalMemoryBufferCreateInfo ext{VK_STRUCTURE_TYPE_EXTERNAL_MEMORY_BUFFER_CREATE_INFO};
        ext.handleTypes = kMemoryHandleType;
        VkBufferCreateInfo bci{VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO, &ext};
        bci.size = size;
        bci.usage = usage;
        bci.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
        VK_CHECK(vkCreateBuffer(device_, &bci, nullptr, &buffer_));

        const ExportedMemory exported = allocate_and_import(ctx, buffer_, VK_NULL_HANDLE);
        memory_ = exported.memory;
        allocation_size_ = exported.size;
        cuda_memory_ = exported.cuda_memory;
        auto* mem = static_cast<cudaExternalMemory_t>(cuda_memory_);

        cudaExternalMemoryBufferDesc bd{};
        bd.offset = 0;
        bd.size = size;
        throw_on_cuda_error(cudaExternalMemoryGetMappedBuffer(&cuda_ptr_, mem, &bd), "cudaExternalMemoryGetMappedBuffer");
    } catch (...) {
        release();
        throw;
    }
}

void SharedBuffer::release() noexcept {
    if (cuda_ptr_) cudaFree(cuda_ptr_);
    if (cuda_memory_) cudaDestroyExternalMemory(static_cast<cudaExternalMemory_t>(cuda_memory_));
    cuda_ptr_ = nullptr;
    cuda_memory_ = nullptr;
    if (device_ != VK_NULL_HANDLE) {
        if (buffer_) vkDestroyBuffer(device_, buffer_, nullptr);
        if (memory_) vkFreeMemory(device_, memory_, nullptr);
    }
    buffer_ = VK_NULL_HANDLE;
    memory_ = VK_NULL_HANDLE;
}

SharedBuffer::~SharedBuffer() { release(); }

SharedBuffer::SharedBuffer(SharedBuffer&& o) noexcept
    : device_(std::exchange(o.device_, VK_NULL_HANDLE)),
      buffer_(std::exchange(o.buffer_, VK_NULL_HANDLE)),
      memory_(std::exchange(o.memory_, VK_NULL_HANDLE)),
      size_(std::exchange(o.size_, 0)),
      allocation_size_(std::exchange(o.allocation_size_, 0)),
      cuda_memory_(std::exchange(o.cuda_memory_, nullptr)),
      cuda_ptr_(std::exchange(o.cuda_ptr_, nullptr)) {}

SharedBuffer& SharedBuffer::operator=(SharedBuffer&& o) noexcept {
    if (this != &o) {
        release();
        device_ = std::exchange(o.device_, VK_NULL_HANDLE);
        buffer_ = std::exchange(o.buffer_, VK_NULL_HANDLE);
        memory_ = std::exchange(o.memory_, VK_NULL_HANDLE);
        size_ = std::exchange(o.size_, 0);
        allocation_size_ = std::exchange(o.allocation_size_, 0);
        cuda_memory_ = std::exchange(o.cuda_memory_, nullptr);
        cuda_ptr_ = std::exchange(o.cuda_ptr_, nullptr);
    }
    return *this;
}

Timeline::Timeline(const vk::Context& ctx, std::uint64_t initial) : device_(ctx.device()) {
    try {
        VkSemaphoreTypeCreateInfo type{VK_STRUCTURE_TYPE_SEMAPHORE_TYPE_CREATE_INFO};
        type.semaphoreType = VK_SEMAPHORE_TYPE_TIMELINE;
        type.initialValue = initial;
        VkExportSemaphoreCreateInfo exp{VK_STRUCTURE_TYPE_EXPORT_SEMAPHORE_CREATE_INFO, &type};
        exp.handleTypes = kSemaphoreHandleType;
        VkSemaphoreCreateInfo sci{VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO, &exp};
        VK_CHECK(vkCreateSemaphore(device_, &sci, nullptr, &semaphore_));

        const NativeHandle handle = export_semaphore_handle(device_, semaphore_);
        cudaExternalSemaphoreHandleDesc desc{};
        set_cuda_handle(desc, handle);
        cudaExternalSemaphore_t sem = nullptr;
        const cudaError_t e = cudaImportExternalSemaphore(&sem, &desc);
        release_after_import(handle, e == cudaSuccess);
        throw_on_cuda_error(e, "cudaImportExternalSemaphore");
        cuda_semaphore_ = sem;
    } catch (...) {
        release();
        throw;
    }
}

bool Timeline::cuda_wait(std::uint64_t value, void* stream, std::string* why) const {
    cudaExternalSemaphoreWaitParams p{};
    p.params.fence.value = value;
    auto sem = static_cast<cudaExternalSemaphore_t>(cuda_semaphore_);
    const cudaError_t e = cudaWaitExternalSemaphoresAsync(&sem, &p, 1, static_cast<cudaStream_t>(stream));
    if (e != cudaSuccess && why) *why = std::string("cudaWaitExternalSemaphoresAsync: ") + cudaGetErrorString(e);
    return e == cudaSuccess;
}

bool Timeline::cuda_signal(std::uint64_t value, void* stream, std::string* why) const {
    cudaExternalSemaphoreSignalParams p{};
    p.params.fence.value = value;
    auto sem = static_cast<cudaExternalSemaphore_t>(cuda_semaphore_);
    const cudaError_t e = cudaSignalExternalSemaphoresAsync(&sem, &p, 1, static_cast<cudaStream_t>(stream));
    if (e != cudaSuccess && why) *why = std::string("cudaSignalExternalSemaphoresAsync: ") + cudaGetErrorString(e);
    return e == cudaSuccess;
}

std::uint64_t Timeline::current_value() const {
    std::uint64_t v = 0;
    vkGetSemaphoreCounterValue(device_, semaphore_, &v);
    return v;
}

bool Timeline::host_wait(std::uint64_t value, std::uint64_t timeout_ns) const {
    VkSemaphoreWaitInfo wi{VK_STRUCTURE_TYPE_SEMAPHORE_WAIT_INFO};
    wi.semaphoreCount = 1;
    wi.pSemaphores = &semaphore_;
    wi.pValues = &value;
    return vkWaitSemaphores(device_, &wi, timeout_ns) == VK_SUCCESS;
}

void Timeline::release() noexcept {
    if (cuda_semaphore_) cudaDestroyExternalSemaphore(static_cast<cudaExternalSemaphore_t>(cuda_semaphore_));
    cuda_semaphore_ = nullptr;
    if (device_ != VK_NULL_HANDLE && semaphore_) vkDestroySemaphore(device_, semaphore_, nullptr);
    semaphore_ = VK_NULL_HANDLE;
}

Timeline::~Timeline() { release(); }

Timeline::Timeline(Timeline&& o) noexcept
    : device_(std::exchange(o.device_, VK_NULL_HANDLE)),
      semaphore_(std::exchange(o.semaphore_, VK_NULL_HANDLE)),
      cuda_semaphore_(std::exchange(o.cuda_semaphore_, nullptr)) {}

Timeline& Timeline::operator=(Timeline&& o) noexcept {
    if (this != &o) {
        release();
        device_ = std::exchange(o.device_, VK_NULL_HANDLE);
        semaphore_ = std::exchange(o.semaphore_, VK_NULL_HANDLE);
        cuda_semaphore_ = std::exchange(o.cuda_semaphore_, nullptr);
    }
    return *this;
}

#endif  // TILELAB_HAVE_CUDA

} // namespace tl::interop
