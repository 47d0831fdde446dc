// Where frames go: the colour render pass, an offscreen colour image (headless, tests) and helpers
// to copy a rendered image back to the host (screenshots).
#pragma once

#include "context.hpp"

#include "image.hpp"

namespace tl::vk {

// One colour attachment, cleared on load, left in `final_layout` (PRESENT_SRC or TRANSFER_SRC).
VkRenderPass create_color_render_pass(VkDevice device, VkFormat format, VkImageLayout final_layout);

// Records a copy of a whole colour image (currently in `layout`, left in `layout`) into a buffer
// with tightly packed rows, with the barriers on both sides.
void record_image_readback(VkCommandBuffer cmd, VkImage image, VkImageLayout layout, VkExtent2D extent, VkBuffer dst);

// Converts read-back pixels (tightly packed, in `format`) into an RGBA8 image; BGRA swizzled.
Image pixels_to_image(const void* data, VkExtent2D extent, VkFormat format);

// An offscreen RGBA8 colour image with its view and framebuffer: the headless "window".
class OffscreenTarget {
public:
    static constexpr VkFormat kFormat = VK_FORMAT_R8G8B8A8_UNORM;
    OffscreenTarget(const Context& ctx, VkRenderPass render_pass, VkExtent2D extent);
    ~OffscreenTarget();
    OffscreenTarget(const OffscreenTarget&) = delete;
    OffscreenTarget& operator=(const OffscreenTarget&) = delete;

    VkExtent2D extent() const { return extent_; }
    VkImage image() const { return image_; }
    VkFramebuffer framebuffer() const { return framebuffer_; }
    // Copies the image (last left in TRANSFER_SRC_OPTIMAL by the render pass) to the host. Waits.
    Image read_back() const;

private:
    const Context& ctx_;
    VkExtent2D extent_{};
    VkImage image_ = VK_NULL_HANDLE;
    VkDeviceMemory memory_ = VK_NULL_HANDLE;
    VkImageView view_ = VK_NULL_HANDLE;
    VkFramebuffer framebuffer_ = VK_NULL_HANDLE;
};

} // namespace tl::vk
