// Display pass pipeline: full-rectangle triangle, fragment shader reads the two storage buffers.
#include "display_pass.hpp"

#include "display.frag.spv.h"
#include "display.vert.spv.h"

#include <algorithm>
#include <cmath>

namespace tl::vk {

std::array<float, 3> heat_color(float t) {
    static constexpr std::array<std::array<float, 3>, 5> stops{{
        {0.0f, 0.0f, 0.0f}, {0.35f, 0.0f, 0.55f}, {0.9f, 0.1f, 0.1f}, {1.0f, 0.85f, 0.0f}, {1.0f, 1.0f, 1.0f}}};
    t = std::clamp(t, 0.0f, 1.0f);
    const float s = t * 4.0f;
    const int i = std::min(static_cast<int>(s), 3);
    const float f = s - static_cast<float>(i);
    std::array<float, 3> out{};
    for (int c = 0; c < 3; ++c) out[c] = stops[i][c] + (stops[i + 1][c] - stops[i][c]) * f;
    return out;
}

namespace {

VkShaderModule make_module(VkDevice device, const std::uint32_t* code, std::size_t bytes) {
    VkShaderModuleCreateInfo ci{VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO};
    ci.codeSize = bytes;
    ci.pCode = code;
    VkShaderModule m = VK_NULL_HANDLE;
    VK_CHECK(vkCreateShaderModule(device, &ci, nullptr, &m));
    return m;
}

} // namespace

DisplayPass::DisplayPass(const Context& ctx, VkRenderPass render_pass) : ctx_(ctx) {
    const VkDevice dev = ctx.device();
    std::array<VkDescriptorSetLayoutBinding, 2> bindings{};
    for (std::uint32_t i = 0; i < 2; ++i) {
        bindings[i].binding = i;
        bindings[i].descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
        bindings[i].descriptorCount = 1;
        bindings[i].stageFlags = VK_SHADER_STAGE_FRAGMENT_BIT;
    }
    VkDescriptorSetLayoutCreateInfo dl{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO};
    dl.bindingCount = 2;
    dl.pBindings = bindings.data();
    VK_CHECK(vkCreateDescriptorSetLayout(dev, &dl, nullptr, &set_layout_));

    VkPushConstantRange range{VK_SHADER_STAGE_FRAGMENT_BIT, 0, sizeof(DisplayPush)};
    VkPipelineLayoutCreateInfo pl{VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO};
    pl.setLayoutCount = 1;
    pl.pSetLayouts = &set_layout_;
    pl.pushConstantRangeCount = 1;
    pl.pPushConstantRanges = &range;
    VK_CHECK(vkCreatePipelineLayout(dev, &pl, nullptr, &layout_));

    VkDescriptorPoolSize size{VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 2 * kSets};
    VkDescriptorPoolCreateInfo dp{VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO};
    dp.maxSets = kSets;
    dp.poolSizeCount = 1;
    dp.pPoolSizes = &size;
    VK_CHECK(vkCreateDescriptorPool(dev, &dp, nullptr, &pool_));
    VkDescriptorSetAllocateInfo ai{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO};
    ai.descriptorPool = pool_;
    std::array<VkDescriptorSetLayout, kSets> layouts{};
    layouts.fill(set_layout_);
    ai.descriptorSetCount = kSets;
    ai.pSetLayouts = layouts.data();
    VK_CHECK(vkAllocateDescriptorSets(dev, &ai, sets_.data()));

    const VkShaderModule vert = make_module(dev, display_vert_spv, sizeof(display_vert_spv));
    const VkShaderModule frag = make_module(dev, display_frag_spv, sizeof(display_frag_spv));
    std::array<VkPipelineShaderStageCreateInfo, 2> stages{};
    stages[0] = {VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO};
    stages[0].stage = VK_SHADER_STAGE_VERTEX_BIT;
    stages[0].module = vert;
    stages[0].pName = "main";
    stages[1] = {VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO};
    stages[1].stage = VK_SHADER_STAGE_FRAGMENT_BIT;
    stages[1].module = frag;
    stages[1].pName = "main";

    VkPipelineVertexInputStateCreateInfo vi{VK_STRUCTURE_TYPE_PIPELINE_VERTEX_INPUT_STATE_CREATE_INFO};
    VkPipelineInputAssemblyStateCreateInfo ia{VK_STRUCTURE_TYPE_PIPELINE_INPUT_ASSEMBLY_STATE_CREATE_INFO};
    ia.topology = VK_PRIMITIVE_TOPOLOGY_TRIANGLE_LIST;
    VkPipelineViewportStateCreateInfo vp{VK_STRUCTURE_TYPE_PIPELINE_VIEWPORT_STATE_CREATE_INFO};
    vp.viewportCount = 1;
    vp.scissorCount = 1;
    VkPipelineRasterizationStateCreateInfo rs{VK_STRUCTURE_TYPE_PIPELINE_RASTERIZATION_STATE_CREATE_INFO};
    rs.polygonMode = VK_POLYGON_MODE_FILL;
    rs.cullMode = VK_CULL_MODE_NONE;
    rs.frontFace = VK_FRONT_FACE_COUNTER_CLOCKWISE;
    rs.lineWidth = 1.0f;
    VkPipelineMultisampleStateCreateInfo ms{VK_STRUCTURE_TYPE_PIPELINE_MULTISAMPLE_STATE_CREATE_INFO};
    ms.rasterizationSamples = VK_SAMPLE_COUNT_1_BIT;
    VkPipelineColorBlendAttachmentState blend{};
    blend.colorWriteMask = VK_COLOR_COMPONENT_R_BIT | VK_COLOR_COMPONENT_G_BIT | VK_COLOR_COMPONENT_B_BIT | VK_COLOR_COMPONENT_A_BIT;
    VkPipelineColorBlendStateCreateInfo cb{VK_STRUCTURE_TYPE_PIPELINE_COLOR_BLEND_STATE_CREATE_INFO};
    cb.attachmentCount = 1;
    cb.pAttachments = &blend;
    const std::array<VkDynamicState, 2> dyn{VK_DYNAMIC_STATE_VIEWPORT, VK_DYNAMIC_STATE_SCISSOR};
    VkPipelineDynamicStateCreateInfo ds{VK_STRUCTURE_TYPE_PIPELINE_DYNAMIC_STATE_CREATE_INFO};
    ds.dynamicStateCount = static_cast<std::uint32_t>(dyn.size());
    ds.pDynamicStates = dyn.data();

    VkGraphicsPipelineCreateInfo gp{VK_STRUCTURE_TYPE_GRAPHICS_PIPELINE_CREATE_INFO};
    gp.stageCount = 2;
    gp.pStages = stages.data();
    gp.pVertexInputState = &vi;
    gp.pInputAssemblyState = &ia;
    gp.pViewportState = &vp;
    gp.pRasterizationState = &rs;
    gp.pMultisampleState = &ms;
    gp.pColorBlendState = &cb;
    gp.pDynamicState = &ds;
    gp.layout = layout_;
    gp.renderPass = render_pass;
    gp.subpass = 0;
    const VkResult r = vkCreateGraphicsPipelines(dev, VK_NULL_HANDLE, 1, &gp, nullptr, &pipeline_);
    vkDestroyShaderModule(dev, vert, nullptr);
    vkDestroyShaderModule(dev, frag, nullptr);
    VK_CHECK(r);
}

DisplayPass::~DisplayPass() {
    const VkDevice dev = ctx_.device();
    vkDestroyPipeline(dev, pipeline_, nullptr);
    vkDestroyDescriptorPool(dev, pool_, nullptr);
    vkDestroyPipelineLayout(dev, layout_, nullptr);
    vkDestroyDescriptorSetLayout(dev, set_layout_, nullptr);
}

void DisplayPass::set_images(VkBuffer source, VkBuffer filtered, int width, int height, VkDeviceSize pitch_bytes) {
    for (std::uint32_t set = 0; set < kSets; ++set) set_images(set, source, filtered, width, height, pitch_bytes);
}

void DisplayPass::set_images(std::uint32_t set, VkBuffer source, VkBuffer filtered, int width, int height,
                             VkDeviceSize pitch_bytes) {
    std::array<VkDescriptorBufferInfo, 2> infos{{{source, 0, VK_WHOLE_SIZE}, {filtered, 0, VK_WHOLE_SIZE}}};
    std::array<VkWriteDescriptorSet, 2> writes{};
    for (std::uint32_t i = 0; i < 2; ++i) {
        writes[i] = {VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET};
        writes[i].dstSet = sets_[set % kSets];
        writes[i].dstBinding = i;
        writes[i].descriptorCount = 1;
        writes[i].descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
        writes[i].pBufferInfo = &infos[i];
    }
    vkUpdateDescriptorSets(ctx_.device(), 2, writes.data(), 0, nullptr);
    width_ = width;
    height_ = height;
    pitch_px_ = static_cast<std::uint32_t>(pitch_bytes / 4);
}

void DisplayPass::record(VkCommandBuffer cmd, const DisplayView& view, std::uint32_t set) const {
    if (width_ == 0 || view.rect.extent.width == 0 || view.rect.extent.height == 0) return;
    VkViewport viewport{static_cast<float>(view.rect.offset.x), static_cast<float>(view.rect.offset.y),
                        static_cast<float>(view.rect.extent.width), static_cast<float>(view.rect.extent.height), 0.0f, 1.0f};
    vkCmdSetViewport(cmd, 0, 1, &viewport);
    vkCmdSetScissor(cmd, 0, 1, &view.rect);
    vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_GRAPHICS, pipeline_);
    vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_GRAPHICS, layout_, 0, 1, &sets_[set % kSets], 0, nullptr);
    DisplayPush push;
    push.origin[0] = static_cast<float>(view.rect.offset.x);
    push.origin[1] = static_cast<float>(view.rect.offset.y);
    push.image_at_origin[0] = view.image_at_origin[0];
    push.image_at_origin[1] = view.image_at_origin[1];
    push.zoom = view.zoom > 0.0f ? view.zoom : 1.0f;
    push.split_x = view.split_x;
    push.gain = view.gain;
    push.mode = static_cast<std::uint32_t>(view.mode);
    push.width = static_cast<std::uint32_t>(width_);
    push.height = static_cast<std::uint32_t>(height_);
    push.pitch_px = pitch_px_;
    push.flags = view.pixel_grid ? 1u : 0u;
    vkCmdPushConstants(cmd, layout_, VK_SHADER_STAGE_FRAGMENT_BIT, 0, sizeof(push), &push);
    vkCmdDraw(cmd, 3, 1, 0, 0);
}

} // namespace tl::vk
