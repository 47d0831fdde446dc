// Colour render pass, offscreen target and image read-back.
#include "targets.hpp"

#include <cstring>

namespace tl::vk {

VkRenderPass create_color_render_pass(VkDevice device, VkFormat format, VkImageLayout final_layout) {
    VkAttachmentDescription color{};
    color.format = format;
    color.samples = VK_SAMPLE_COUNT_1_BIT;
    color.loadOp = VK_ATTACHMENT_LOAD_OP_CLEAR;
    color.storeOp = VK_ATTACHMENT_STORE_OP_STORE;
    color.stencilLoadOp = VK_ATTACHMENT_LOAD_OP_DONT_CARE;
    color.stencilStoreOp = VK_ATTACHMENT_STORE_OP_DONT_CARE;
    color.initialLayout = VK_IMAGE_LAYOUT_UNDEFINED;
    color.finalLayout = final_layout;
    VkAttachmentReference ref{0, VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL};
    VkSubpassDescription subpass{};
    subpass.pipelineBindPoint = VK_PIPELINE_BIND_POINT_GRAPHICS;
    subpass.colorAttachmentCount = 1;
    subpass.pColorAttachments = &ref;
    // The acquire semaphore is waited at COLOR_ATTACHMENT_OUTPUT; the layout transition must wait too.
    // The fragment shader reads storage buffers written by compute/transfer earlier in the frame.
    VkSubpassDependency dep{};
    dep.srcSubpass = VK_SUBPASS_EXTERNAL;
    dep.dstSubpass = 0;
    dep.srcStageMask = VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT;
    dep.dstStageMask = VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT;
    dep.srcAccessMask = VK_ACCESS_COLOR_ATTACHMENT_WRITE_BIT;  // previous frame's writes (offscreen reuse)
    dep.dstAccessMask = VK_ACCESS_COLOR_ATTACHMENT_WRITE_BIT;
    // Screenshots copy the image right after the pass: make the writes and the final layout
    // transition visible to transfer reads (the implicit end dependency does not cover them).
    VkSubpassDependency out_dep{};
    out_dep.srcSubpass = 0;
    out_dep.dstSubpass = VK_SUBPASS_EXTERNAL;
    out_dep.srcStageMask = VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT;
    out_dep.dstStageMask = VK_PIPELINE_STAGE_TRANSFER_BIT;
    out_dep.srcAccessMask = VK_ACCESS_COLOR_ATTACHMENT_WRITE_BIT;
    out_dep.dstAccessMask = VK_ACCESS_TRANSFER_READ_BIT;
    const VkSubpassDependency deps[] = {dep, out_dep};
    VkRenderPassCreateInfo ci{VK_STRUCTURE_TYPE_RENDER_PASS_CREATE_INFO};
    ci.attachmentCount = 1;
    ci.pAttachments = &color;
    ci.subpassCount = 1;
    ci.pSubpasses = &subpass;
    ci.dependencyCount = 2;
    ci.pDependencies = deps;
    VkRenderPass rp = VK_NULL_HANDLE;
    VK_CHECK(vkCreateRenderPass(device, &ci, nullptr, &rp));
    return rp;
}

void record_image_readback(VkCommandBuffer cmd, VkImage image, VkImageLayout layout, VkExtent2D extent, VkBuffer dst) {
    VkImageMemoryBarrier to_src{VK_STRUCTURE_TYPE_IMAGE_MEMORY_BARRIER};
    to_src.srcAccessMask = VK_ACCESS_COLOR_ATTACHMENT_WRITE_BIT;
    to_src.dstAccessMask = VK_ACCESS_TRANSFER_READ_BIT;
    to_src.oldLayout = layout;
    to_src.newLayout = VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL;
    to_src.srcQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED;
    to_src.dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED;
    to_src.image = image;
    to_src.subresourceRange = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, 1};
    vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT, VK_PIPELINE_STAGE_TRANSFER_BIT, 0, 0, nullptr,
                         0, nullptr, 1, &to_src);
    VkBufferImageCopy region{};
    region.imageSubresource = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1};
    region.imageExtent = {extent.width, extent.height, 1};
    vkCmdCopyImageToBuffer(cmd, image, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, dst, 1, &region);
    VkImageMemoryBarrier back = to_src;
    back.srcAccessMask = VK_ACCESS_TRANSFER_READ_BIT;
    back.dstAccessMask = 0;
    back.oldLayout = VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL;
    back.newLayout = layout;
    VkBufferMemoryBarrier host{VK_STRUCTURE_TYPE_BUFFER_MEMORY_BARRIER};
    host.srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT;
    host.dstAccessMask = VK_ACCESS_HOST_READ_BIT;
    host.srcQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED;
    host.dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED;
    host.buffer = dst;
    host.size = VK_WHOLE_SIZE;
    vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_HOST_BIT | VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT,
                         0, 0, nullptr, 1, &host, 1, &back);
}

Image pixels_to_image(const void* data, VkExtent2D extent, VkFormat format) {
    Image out(static_cast<int>(extent.width), static_cast<int>(extent.height), PixelFormat::RGBA8);
    std::memcpy(out.bytes.data(), data, out.bytes.size());
    const bool bgra = format == VK_FORMAT_B8G8R8A8_UNORM || format == VK_FORMAT_B8G8R8A8_SRGB;
    for (std::size_t i = 0; i < out.bytes.size(); i += 4) {
        if (bgra) std::swap(out.bytes[i], out.bytes[i + 2]);
        out.bytes[i + 3] = 255;  // the window is opaque; keep screenshots opaque too
    }
    return out;
}

OffscreenTarget::OffscreenTarget(const Context& ctx, VkRenderPass render_pass, VkExtent2D extent)
    : ctx_(ctx), extent_(extent) {
    const VkDevice dev = ctx.device();
    VkImageCreateInfo ici{VK_STRUCTURE_TYPE_IMAGE_CREATE_INFO};
    ici.imageType = VK_IMAGE_TYPE_2D;
    ici.format = kFormat;
    ici.extent = {extent.width, extent.height, 1};
    ici.mipLevels = 1;
    ici.arrayLayers = 1;
    ici.samples = VK_SAMPLE_COUNT_1_BIT;
    ici.tiling = VK_IMAGE_TILING_OPTIMAL;
    ici.usage = VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT | VK_IMAGE_USAGE_TRANSFER_SRC_BIT;
    ici.initialLayout = VK_IMAGE_LAYOUT_UNDEFINED;
    VK_CHECK(vkCreateImage(dev, &ici, nullptr, &image_));
    VkMemoryRequirements req{};
    vkGetImageMemoryRequirements(dev, image_, &req);
    VkMemoryAllocateInfo mai{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO};
    mai.allocationSize = req.size;
    mai.memoryTypeIndex = ctx.memory_type(req.memoryTypeBits, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT);
    VK_CHECK(vkAllocateMemory(dev, &mai, nullptr, &memory_));
    VK_CHECK(vkBindImageMemory(dev, image_, memory_, 0));
    VkImageViewCreateInfo vci{VK_STRUCTURE_TYPE_IMAGE_VIEW_CREATE_INFO};
    vci.image = image_;
    vci.viewType = VK_IMAGE_VIEW_TYPE_2D;
    vci.format = kFormat;
    vci.subresourceRange = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, 1};
    VK_CHECK(vkCreateImageView(dev, &vci, nullptr, &view_));
    VkFramebufferCreateInfo fci{VK_STRUCTURE_TYPE_FRAMEBUFFER_CREATE_INFO};
    fci.renderPass = render_pass;
    fci.attachmentCount = 1;
    fci.pAttachments = &view_;
    fci.width = extent.width;
    fci.height = extent.height;
    fci.layers = 1;
    VK_CHECK(vkCreateFramebuffer(dev, &fci, nullptr, &framebuffer_));
}

OffscreenTarget::~OffscreenTarget() {
    const VkDevice dev = ctx_.device();
    vkDestroyFramebuffer(dev, framebuffer_, nullptr);
    vkDestroyImageView(dev, view_, nullptr);
    vkDestroyImage(dev, image_, nullptr);
    vkFreeMemory(dev, memory_, nullptr);
}

Image OffscreenTarget::read_back() const {
    const VkDeviceSize bytes = VkDeviceSize{extent_.width} * extent_.height * 4;
    Buffer staging(ctx_, bytes, VK_BUFFER_USAGE_TRANSFER_DST_BIT,
                   VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT);
    ctx_.one_shot([&](VkCommandBuffer cmd) {
        record_image_readback(cmd, image_, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, extent_, staging.handle());
    });
    return pixels_to_image(staging.mapped(), extent_, kFormat);
}

} // namespace tl::vk
