// Swapchain creation and recreation.
#include "swapchain.hpp"

#include <algorithm>

namespace tl::vk {

Swapchain::Swapchain(const Context& ctx, VkSurfaceKHR surface, bool vsync, bool readable)
    : ctx_(ctx), surface_(surface), vsync_(vsync), want_readable_(readable) {
    VkBool32 supported = VK_FALSE;
    VK_CHECK(vkGetPhysicalDeviceSurfaceSupportKHR(ctx.physical_device(), ctx.queue_family(), surface, &supported));
    if (!supported) throw Error("the chosen Vulkan queue cannot present to this window");

    std::uint32_t n = 0;
    VK_CHECK(vkGetPhysicalDeviceSurfaceFormatsKHR(ctx.physical_device(), surface, &n, nullptr));
    std::vector<VkSurfaceFormatKHR> formats(n);
    VK_CHECK(vkGetPhysicalDeviceSurfaceFormatsKHR(ctx.physical_device(), surface, &n, formats.data()));
    if (formats.empty()) throw Error("the window surface reports no formats");
    format_ = formats[0].format;
    color_space_ = formats[0].colorSpace;
    for (const auto& f : formats)
        if ((f.format == VK_FORMAT_B8G8R8A8_UNORM || f.format == VK_FORMAT_R8G8B8A8_UNORM) &&
            f.colorSpace == VK_COLOR_SPACE_SRGB_NONLINEAR_KHR) {
            format_ = f.format;
            color_space_ = f.colorSpace;
            break;
        }

    VK_CHECK(vkGetPhysicalDeviceSurfacePresentModesKHR(ctx.physical_device(), surface, &n, nullptr));
    std::vector<VkPresentModeKHR> modes(n);
    VK_CHECK(vkGetPhysicalDeviceSurfacePresentModesKHR(ctx.physical_device(), surface, &n, modes.data()));
    present_mode_ = VK_PRESENT_MODE_FIFO_KHR;  // always available; the vsync choice
    if (!vsync_) {
        for (auto preferred : {VK_PRESENT_MODE_MAILBOX_KHR, VK_PRESENT_MODE_IMMEDIATE_KHR})
            if (std::find(modes.begin(), modes.end(), preferred) != modes.end()) {
                present_mode_ = preferred;
                break;
            }
    }
    create();
}

Swapchain::~Swapchain() {
    destroy_views();
    if (swapchain_) vkDestroySwapchainKHR(ctx_.device(), swapchain_, nullptr);
}

const char* Swapchain::present_mode_name() const {
    switch (present_mode_) {
    case VK_PRESENT_MODE_FIFO_KHR: return "FIFO (vsync)";
    case VK_PRESENT_MODE_MAILBOX_KHR: return "MAILBOX (no vsync)";
    case VK_PRESENT_MODE_IMMEDIATE_KHR: return "IMMEDIATE (no vsync)";
    default: return "other";
    }
}

void Swapchain::destroy_views() noexcept {
    for (auto fb : framebuffers_) vkDestroyFramebuffer(ctx_.device(), fb, nullptr);
    for (auto v : views_) vkDestroyImageView(ctx_.device(), v, nullptr);
    framebuffers_.clear();
    views_.clear();
}

bool Swapchain::create() {
    VkSurfaceCapabilitiesKHR caps{};
    VK_CHECK(vkGetPhysicalDeviceSurfaceCapabilitiesKHR(ctx_.physical_device(), surface_, &caps));
    VkExtent2D extent = caps.currentExtent;
    if (extent.width == 0xFFFFFFFFu) extent = {1280, 720};
    extent.width = std::clamp(extent.width, caps.minImageExtent.width, caps.maxImageExtent.width);
    extent.height = std::clamp(extent.height, caps.minImageExtent.height, caps.maxImageExtent.height);
    if (extent.width == 0 || extent.height == 0) return false;  // minimized

    std::uint32_t count = std::max(caps.minImageCount + 1, 2u);
    if (caps.maxImageCount > 0) count = std::min(count, caps.maxImageCount);
    readable_ = want_readable_ && (caps.supportedUsageFlags & VK_IMAGE_USAGE_TRANSFER_SRC_BIT);

    VkSwapchainCreateInfoKHR ci{VK_STRUCTURE_TYPE_SWAPCHAIN_CREATE_INFO_KHR};
    ci.surface = surface_;
    ci.minImageCount = count;
    ci.imageFormat = format_;
    ci.imageColorSpace = color_space_;
    ci.imageExtent = extent;
    ci.imageArrayLayers = 1;
    ci.imageUsage = VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT | (readable_ ? VkImageUsageFlags{VK_IMAGE_USAGE_TRANSFER_SRC_BIT} : VkImageUsageFlags{0});
    ci.imageSharingMode = VK_SHARING_MODE_EXCLUSIVE;
    ci.preTransform = (caps.supportedTransforms & VK_SURFACE_TRANSFORM_IDENTITY_BIT_KHR) ? VK_SURFACE_TRANSFORM_IDENTITY_BIT_KHR
                                                                                        : caps.currentTransform;
    // Opaque when offered; otherwise the lowest mode the surface supports.
    const VkCompositeAlphaFlagsKHR alpha = caps.supportedCompositeAlpha;
    ci.compositeAlpha = (alpha & VK_COMPOSITE_ALPHA_OPAQUE_BIT_KHR)
                            ? VK_COMPOSITE_ALPHA_OPAQUE_BIT_KHR
                            : static_cast<VkCompositeAlphaFlagBitsKHR>(alpha & (~alpha + 1u));
    ci.presentMode = present_mode_;
    ci.clipped = VK_TRUE;
    ci.oldSwapchain = swapchain_;
    VkSwapchainKHR created = VK_NULL_HANDLE;
    VK_CHECK(vkCreateSwapchainKHR(ctx_.device(), &ci, nullptr, &created));
    destroy_views();
    if (swapchain_) vkDestroySwapchainKHR(ctx_.device(), swapchain_, nullptr);
    swapchain_ = created;
    extent_ = extent;

    std::uint32_t n = 0;
    VK_CHECK(vkGetSwapchainImagesKHR(ctx_.device(), swapchain_, &n, nullptr));
    images_.resize(n);
    VK_CHECK(vkGetSwapchainImagesKHR(ctx_.device(), swapchain_, &n, images_.data()));
    for (auto img : images_) {
        VkImageViewCreateInfo vci{VK_STRUCTURE_TYPE_IMAGE_VIEW_CREATE_INFO};
        vci.image = img;
        vci.viewType = VK_IMAGE_VIEW_TYPE_2D;
        vci.format = format_;
        vci.subresourceRange = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, 1};
        VkImageView v = VK_NULL_HANDLE;
        VK_CHECK(vkCreateImageView(ctx_.device(), &vci, nullptr, &v));
        views_.push_back(v);
    }
    return true;
}

void Swapchain::create_framebuffers(VkRenderPass render_pass) {
    for (auto v : views_) {
        VkFramebufferCreateInfo fci{VK_STRUCTURE_TYPE_FRAMEBUFFER_CREATE_INFO};
        fci.renderPass = render_pass;
        fci.attachmentCount = 1;
        fci.pAttachments = &v;
        fci.width = extent_.width;
        fci.height = extent_.height;
        fci.layers = 1;
        VkFramebuffer fb = VK_NULL_HANDLE;
        VK_CHECK(vkCreateFramebuffer(ctx_.device(), &fci, nullptr, &fb));
        framebuffers_.push_back(fb);
    }
}

bool Swapchain::recreate(VkRenderPass render_pass) {
    VK_CHECK(vkDeviceWaitIdle(ctx_.device()));
    if (!create()) return false;
    create_framebuffers(render_pass);
    return true;
}

} // namespace tl::vk
