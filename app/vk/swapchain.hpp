// The window's swapchain: surface format choice, present mode from --vsync, recreation on resize.
#pragma once

#include "context.hpp"

#include <vector>

namespace tl::vk {

class Swapchain {
public:
    // `surface` stays owned by the caller. Creates the swapchain for the surface's current size.
    Swapchain(const Context& ctx, VkSurfaceKHR surface, bool vsync, bool readable);
    ~Swapchain();
    Swapchain(const Swapchain&) = delete;
    Swapchain& operator=(const Swapchain&) = delete;

    // The format is chosen once (UNORM, so ImGui colours and image bytes show unchanged).
    VkFormat format() const { return format_; }
    VkExtent2D extent() const { return extent_; }
    std::uint32_t image_count() const { return static_cast<std::uint32_t>(images_.size()); }
    VkSwapchainKHR handle() const { return swapchain_; }
    VkImage image(std::uint32_t i) const { return images_[i]; }
    VkFramebuffer framebuffer(std::uint32_t i) const { return framebuffers_[i]; }
    // True when images can be copied out (screenshots of the window).
    bool readable() const { return readable_; }
    const char* present_mode_name() const;

    // Recreates for the surface's current size; returns false while the window is minimized
    // (zero extent) and leaves the swapchain absent until a later call succeeds.
    bool recreate(VkRenderPass render_pass);
    // Framebuffers need the render pass, which needs format(): created in a second step.
    void create_framebuffers(VkRenderPass render_pass);
    bool valid() const { return swapchain_ != VK_NULL_HANDLE; }

private:
    void destroy_views() noexcept;
    bool create();
    const Context& ctx_;
    VkSurfaceKHR surface_;
    bool vsync_;
    bool readable_ = false;
    bool want_readable_;
    VkFormat format_ = VK_FORMAT_UNDEFINED;
    VkColorSpaceKHR color_space_ = VK_COLOR_SPACE_SRGB_NONLINEAR_KHR;
    VkPresentModeKHR present_mode_ = VK_PRESENT_MODE_FIFO_KHR;
    VkExtent2D extent_{};
    VkSwapchainKHR swapchain_ = VK_NULL_HANDLE;
    std::vector<VkImage> images_;
    std::vector<VkImageView> views_;
    std::vector<VkFramebuffer> framebuffers_;
};

} // namespace tl::vk
