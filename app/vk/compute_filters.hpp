// Vulkan compute path of the stencil filters and the per-pixel op chain: GLSL compute shaders over
// linear image buffers (the layout CUDA shares), used when CUDA is absent and as a benchmark baseline.
#pragma once

#include "vk/context.hpp"

#include "filter_spec.hpp"
#include "image.hpp"
#include "pixel_ops.hpp"

#include <array>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace tl::vk {

// Plain: every thread reads its whole window from the source buffer, one pass, every filter
// (Gaussian as the fused 2D form). Tiled: the 3x3 / 5x5 filters stage a 16x16 tile plus halo in
// shared memory; Box and Gaussian run as two separable passes (rows, columns), each staging its
// strip in shared memory, through a float intermediate owned by ComputeFilters.
enum class ComputeVariant { Plain, Tiled };

std::string_view to_string(ComputeVariant v);  // "vulkan-plain", "vulkan-tiled"
std::optional<ComputeVariant> parse_compute_variant(std::string_view name);
std::span<const ComputeVariant> compute_variants();
// A few sentences for the explain panel: what moves the bytes in this variant.
std::string_view compute_variant_explanation(ComputeVariant v);

class ComputeFilters {
public:
    // Longest per-pixel op chain record_pixel_ops accepts (the op table lives in one small buffer).
    static constexpr int kMaxPixelOps = 32;

    // Device extensions the context must enable (put them in ContextOptions::optional_device_extensions).
    static std::span<const char* const> required_device_extensions();

    // Creates every pipeline once. Never throws for a missing extension: can_run() then says why.
    explicit ComputeFilters(const Context& ctx);
    ~ComputeFilters();  // waits for the device to go idle (the intermediate may still be in use)
    ComputeFilters(const ComputeFilters&) = delete;
    ComputeFilters& operator=(const ComputeFilters&) = delete;

    // Empty when this filter can run on this format here, else a sentence saying why.
    std::string can_run(const FilterParams& p, PixelFormat f) const;
    // Same for a per-pixel op chain.
    std::string can_run_pixel_ops(std::span<const PixelOp> ops, PixelFormat f) const;
    // Empty when an image of this size / pitch / format can be processed, else why (pitch must be a
    // multiple of 16 bytes and hold a row; sizes must fit the device's storage-buffer range).
    std::string check_image(int width, int height, VkDeviceSize pitch, PixelFormat f) const;

    // Everything record() checks, without recording: can_run + check_image + the separable tiled
    // passes' intermediate (width x height x 16 bytes) fitting the device's storage-buffer range.
    std::string can_record(const FilterParams& p, ComputeVariant v, int width, int height, VkDeviceSize pitch,
                           PixelFormat f) const;

    // Records the filter dispatch src -> dst (no barriers around it: the caller orders access to
    // src and dst). Internally it may update its weight buffer (vkCmdUpdateBuffer) and use its
    // intermediate, with the barriers those need, so it may be recorded many times per command
    // buffer. Record it outside a render pass (vkCmdUpdateBuffer), on the context's queue family.
    // src and dst must not overlap. Throws Error with the reason if can_record refuses.
    void record(VkCommandBuffer cmd, const FilterParams& p, Border b, ComputeVariant v, VkBuffer src, VkBuffer dst,
                int width, int height, VkDeviceSize pitch, PixelFormat f);
    // Records the per-pixel op chain src -> dst (src may equal dst); like record(), outside a render
    // pass and many times per command buffer if wanted. Throws Error if refused.
    void record_pixel_ops(VkCommandBuffer cmd, std::span<const PixelOp> ops, VkBuffer src, VkBuffer dst, int width,
                          int height, VkDeviceSize pitch, PixelFormat f);

    // Convenience for tests and the `apply` command: upload, run, download, wait. The destination
    // is filled with 0xDEADBEEF first, so a pixel the shader misses shows. Throws Error if refused.
    Image run(const FilterParams& p, Border b, ComputeVariant v, const Image& src);
    Image run_pixel_ops(std::span<const PixelOp> ops, const Image& src);

    // Bytes of the separable passes' float intermediate currently allocated (0 until first used).
    VkDeviceSize intermediate_bytes() const { return intermediate_.size(); }

private:
    void destroy() noexcept;
    void ensure_intermediate(VkDeviceSize bytes);
    void update_buffer_ordered(VkCommandBuffer cmd, const Buffer& buffer, const void* data, VkDeviceSize bytes);
    void push_buffers(VkCommandBuffer cmd, VkPipeline pipeline, const std::array<VkDescriptorBufferInfo, 4>& infos);
    Image run_common(const Image& src, const std::function<void(VkCommandBuffer, VkBuffer, VkBuffer, VkDeviceSize)>& rec);

    const Context& ctx_;
    std::string unavailable_;  // why nothing can run (missing extension); empty when fine
    PFN_vkCmdPushDescriptorSetKHR push_descriptor_set_ = nullptr;
    VkDescriptorSetLayout set_layout_ = VK_NULL_HANDLE;
    VkPipelineLayout pipeline_layout_ = VK_NULL_HANDLE;
    std::vector<VkShaderModule> modules_;
    std::vector<VkPipeline> all_pipelines_;
    // [format][kind] tables; VK_NULL_HANDLE where a combination does not exist.
    std::array<std::array<VkPipeline, 7>, 2> plain_{};
    std::array<std::array<VkPipeline, 7>, 2> tiled_{};
    std::array<std::array<VkPipeline, 2>, 2> rows_{};  // [format][box, gaussian]
    std::array<std::array<VkPipeline, 2>, 2> cols_{};
    std::array<VkPipeline, 2> pixel_ops_{};
    Buffer weights_;       // filter weights (Gaussian 1D or user kernel), device-local
    Buffer ops_;           // per-pixel op table + LUTs, device-local
    Buffer intermediate_;  // RGBA32F rows-pass result of the separable filters
    std::vector<Buffer> retired_;  // outgrown intermediates, possibly still in use by the GPU
};

} // namespace tl::vk
