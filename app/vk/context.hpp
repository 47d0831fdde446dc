// Vulkan instance, device and queue for tilelab (windowed or headless), plus a small RAII buffer.
#pragma once

#include <vulkan/vulkan.h>

#include <array>
#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace tl::vk {

struct Error : std::runtime_error {
    using std::runtime_error::runtime_error;
};

// Readable name of a VkResult ("VK_ERROR_DEVICE_LOST").
const char* result_name(VkResult r);

[[noreturn]] void throw_vk_error(const char* expr, VkResult r, const char* file, int line);

} // namespace tl::vk

// Throws tl::vk::Error("vkFoo(...) failed: VK_ERROR_… at file:line") so a failing call is named.
#define VK_CHECK(expr)                                                                   \
    do {                                                                                 \
        const VkResult vk_check_result_ = (expr);                                        \
        if (vk_check_result_ != VK_SUCCESS)                                              \
            ::tl::vk::throw_vk_error(#expr, vk_check_result_, __FILE__, __LINE__);       \
    } while (0)

namespace tl::vk {

struct ContextOptions {
    bool validation = false;                        // enable VK_LAYER_KHRONOS_validation + debug messenger
    std::vector<std::string> instance_extensions;   // e.g. from glfwGetRequiredInstanceExtensions; empty = headless
    bool want_swapchain = false;                    // enable VK_KHR_swapchain
    std::optional<std::array<std::uint8_t, 16>> device_uuid;  // choose this device (CUDA match) when present
    std::vector<std::string> optional_device_extensions;      // enabled when supported (external memory fd etc.)
    bool quiet = false;                             // do not print the device list (tests)
};

class Context {
public:
    explicit Context(const ContextOptions& options);  // throws Error with a readable reason
    ~Context();
    Context(const Context&) = delete;
    Context& operator=(const Context&) = delete;
    Context(Context&&) = delete;
    Context& operator=(Context&&) = delete;

    VkInstance instance() const { return instance_; }
    VkPhysicalDevice physical_device() const { return physical_device_; }
    VkDevice device() const { return device_; }
    std::uint32_t queue_family() const { return queue_family_; }  // one graphics+compute queue
    VkQueue queue() const { return queue_; }
    const VkPhysicalDeviceProperties& properties() const { return properties_; }
    std::array<std::uint8_t, 16> device_uuid() const { return device_uuid_; }
    bool has_extension(std::string_view device_extension) const;  // enabled on the device
    bool validation_enabled() const { return validation_; }
    bool debug_utils_enabled() const { return debug_utils_; }  // VK_EXT_debug_utils on the instance (labels)
    // Validation warnings + errors seen so far (each is printed to stderr too).
    std::uint32_t validation_messages() const { return validation_messages_->load(); }
    std::uint32_t memory_type(std::uint32_t type_bits, VkMemoryPropertyFlags flags) const;  // throws if none
    void one_shot(const std::function<void(VkCommandBuffer)>& record) const;  // submit + wait; setup/tests only
    // One line describing the chosen device, e.g. "llvmpipe (LLVM 15) [cpu, Vulkan 1.3.230]".
    std::string device_description() const;
    // Nanoseconds per timestamp tick; 0 when the queue has no timestamps.
    double timestamp_period_ns() const { return timestamp_valid_bits_ ? properties_.limits.timestampPeriod : 0.0; }

private:
    void destroy() noexcept;
    VkInstance instance_ = VK_NULL_HANDLE;
    VkDebugUtilsMessengerEXT messenger_ = VK_NULL_HANDLE;
    VkPhysicalDevice physical_device_ = VK_NULL_HANDLE;
    VkDevice device_ = VK_NULL_HANDLE;
    VkQueue queue_ = VK_NULL_HANDLE;
    std::uint32_t queue_family_ = 0;
    std::uint32_t timestamp_valid_bits_ = 0;
    VkPhysicalDeviceProperties properties_{};
    VkPhysicalDeviceMemoryProperties memory_properties_{};
    std::array<std::uint8_t, 16> device_uuid_{};
    std::vector<std::string> enabled_device_extensions_;
    bool validation_ = false;
    bool debug_utils_ = false;
    // Heap-allocated so the debug callback's user pointer stays valid.
    std::unique_ptr<std::atomic<std::uint32_t>> validation_messages_;
    VkCommandPool one_shot_pool_ = VK_NULL_HANDLE;
};

// Move-only RAII buffer + memory; host-visible ones are persistently mapped.
class Buffer {
public:
    Buffer() = default;
    Buffer(const Context& ctx, VkDeviceSize size, VkBufferUsageFlags usage, VkMemoryPropertyFlags flags);
    ~Buffer();
    Buffer(const Buffer&) = delete;
    Buffer& operator=(const Buffer&) = delete;
    Buffer(Buffer&& other) noexcept;
    Buffer& operator=(Buffer&& other) noexcept;

    VkBuffer handle() const { return buffer_; }
    VkDeviceSize size() const { return size_; }
    void* mapped() const { return mapped_; }  // nullptr unless host-visible
    explicit operator bool() const { return buffer_ != VK_NULL_HANDLE; }

private:
    void release() noexcept;
    VkDevice device_ = VK_NULL_HANDLE;
    VkBuffer buffer_ = VK_NULL_HANDLE;
    VkDeviceMemory memory_ = VK_NULL_HANDLE;
    VkDeviceSize size_ = 0;
    void* mapped_ = nullptr;
};

} // namespace tl::vk
