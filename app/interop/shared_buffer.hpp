// A linear image buffer owned by both APIs: an exportable VkBuffer (dedicated allocation,
// OPAQUE_FD, or OPAQUE_WIN32 under _WIN32: external_handle.hpp) imported into CUDA as a device
// pointer. Move-only; the CUDA side is released first.
#pragma once

#include "vk/context.hpp"

#include <cstddef>
#include <cstdint>

namespace tl::interop {

// Row pitch of shared images: the row bytes rounded up to 128. 16 would satisfy LDGSTS
// (16-byte copies) and TMA (global strides multiple of 16); 128 also starts every row on an
// L2 cache line, so a warp's row segment never straddles one more line than it needs.
inline constexpr std::size_t kSharedPitchAlignment = 128;
inline std::size_t shared_pitch(int width, std::size_t bytes_per_pixel) {
    const std::size_t row = static_cast<std::size_t>(width) * bytes_per_pixel;
    return (row + kSharedPitchAlignment - 1) / kSharedPitchAlignment * kSharedPitchAlignment;
}

// The Vulkan extensions sharing needs (pass as ContextOptions::optional_device_extensions).
const std::vector<std::string>& interop_device_extensions();
// Empty when ctx can export memory and semaphores to CUDA, else the reason.
std::string interop_support(const vk::Context& ctx);

// The classes below are defined in CUDA builds only (TILELAB_HAVE_CUDA); callers guard their use.

class SharedBuffer {
public:
    SharedBuffer() = default;
    // Throws vk::Error (Vulkan side) or std::runtime_error (CUDA side) with a readable reason.
    SharedBuffer(const vk::Context& ctx, VkDeviceSize size, VkBufferUsageFlags usage);
    ~SharedBuffer();
    SharedBuffer(const SharedBuffer&) = delete;
    SharedBuffer& operator=(const SharedBuffer&) = delete;
    SharedBuffer(SharedBuffer&& o) noexcept;
    SharedBuffer& operator=(SharedBuffer&& o) noexcept;

    VkBuffer buffer() const { return buffer_; }
    VkDeviceSize size() const { return size_; }
    VkDeviceSize allocation_size() const { return allocation_size_; }
    void* cuda_ptr() const { return cuda_ptr_; }
    bool dedicated() const { return true; }
    explicit operator bool() const { return buffer_ != VK_NULL_HANDLE; }

private:
    void release() noexcept;
    VkDevice device_ = VK_NULL_HANDLE;
    VkBuffer buffer_ = VK_NULL_HANDLE;
    VkDeviceMemory memory_ = VK_NULL_HANDLE;
    VkDeviceSize size_ = 0;
    VkDeviceSize allocation_size_ = 0;
    void* cuda_memory_ = nullptr;  // cudaExternalMemory_t
    void* cuda_ptr_ = nullptr;
};

// A timeline semaphore exported to CUDA: Vulkan waits/signals it in vkQueueSubmit, a CUDA stream
// waits/signals it with cudaWait/SignalExternalSemaphoresAsync. One object carries the hand-off
// both ways. Move-only; the CUDA side is released first.
class Timeline {
public:
    Timeline() = default;
    explicit Timeline(const vk::Context& ctx, std::uint64_t initial = 0);
    ~Timeline();
    Timeline(const Timeline&) = delete;
    Timeline& operator=(const Timeline&) = delete;
    Timeline(Timeline&& o) noexcept;
    Timeline& operator=(Timeline&& o) noexcept;

    VkSemaphore semaphore() const { return semaphore_; }
    // Enqueue on a CUDA stream (cudaStream_t as void*): wait until the value reaches `value` /
    // set it to `value` once the stream's earlier work is done. Return false with `why` on error.
    bool cuda_wait(std::uint64_t value, void* stream, std::string* why = nullptr) const;
    bool cuda_signal(std::uint64_t value, void* stream, std::string* why = nullptr) const;
    std::uint64_t current_value() const;  // vkGetSemaphoreCounterValue (no wait)
    bool host_wait(std::uint64_t value, std::uint64_t timeout_ns) const;  // tests and teardown only

private:
    void release() noexcept;
    VkDevice device_ = VK_NULL_HANDLE;
    VkSemaphore semaphore_ = VK_NULL_HANDLE;
    void* cuda_semaphore_ = nullptr;  // cudaExternalSemaphore_t
};

} // namespace tl::interop
