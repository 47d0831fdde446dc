// Vulkan compute filters: pipelines (one per shader x filter kind), push descriptors, the weight and
// op-table buffers filled in the command stream, and the separable passes' intermediate.
#include "vk/compute_filters.hpp"

#include "pixel_ops_rgba32f.comp.spv.h"
#include "pixel_ops_rgba8.comp.spv.h"
#include "stencil_cols_rgba32f.comp.spv.h"
#include "stencil_cols_rgba8.comp.spv.h"
#include "stencil_plain_rgba32f.comp.spv.h"
#include "stencil_plain_rgba8.comp.spv.h"
#include "stencil_rows_rgba32f.comp.spv.h"
#include "stencil_rows_rgba8.comp.spv.h"
#include "stencil_tiled_rgba32f.comp.spv.h"
#include "stencil_tiled_rgba8.comp.spv.h"

#include <algorithm>
#include <atomic>
#include <climits>
#include <cstring>
#include <thread>

namespace tl::vk {

namespace {

constexpr ComputeVariant kVariants[] = {ComputeVariant::Plain, ComputeVariant::Tiled};

constexpr const char* kRequiredExtensions[] = {VK_KHR_PUSH_DESCRIPTOR_EXTENSION_NAME};

// Mirrors `StencilPush` in shaders/stencil_common.glsl.
struct StencilPush {
    std::int32_t width, height;
    std::int32_t pitch;      // in pixels
    std::int32_t tmp_pitch;  // in vec4
    std::int32_t border;
    std::int32_t radius;
    float amount, scale, bias;
};
static_assert(sizeof(StencilPush) == 36);

// Mirrors `PixelOpsPush` in shaders/pixel_ops.glsl.
struct PixelOpsPush {
    std::int32_t width, height, pitch;
};

// Mirrors `Op` and the `Ops` buffer in shaders/pixel_ops.glsl (std430).
struct GpuOp {
    std::int32_t head[4];  // kind, lut table
    float abc[4];
    float m[3][4];
};
static_assert(sizeof(GpuOp) == 80);
constexpr VkDeviceSize kOpsHeaderBytes = 16;
constexpr VkDeviceSize kOpsTableBytes = kOpsHeaderBytes + sizeof(GpuOp) * ComputeFilters::kMaxPixelOps;
constexpr VkDeviceSize kLutBytes = 3 * 256;
constexpr VkDeviceSize kOpsBufferBytes = kOpsTableBytes + kLutBytes * ComputeFilters::kMaxPixelOps;
static_assert(kOpsBufferBytes <= 65536, "vkCmdUpdateBuffer takes at most 64 KiB");

constexpr VkDeviceSize kWeightsBytes = 64 * sizeof(float);  // Gaussian: <= 61, user: <= 25

constexpr std::size_t fmt_index(PixelFormat f) { return f == PixelFormat::RGBA8 ? 0 : 1; }
constexpr std::uint32_t div_up(int a, int b) { return static_cast<std::uint32_t>((a + b - 1) / b); }

// Row pitch of run()'s buffers: a row rounded up to 16 bytes, the alignment CUDA sharing needs.
VkDeviceSize padded_pitch(const Image& img) { return (img.pitch() + 15) / 16 * 16; }

bool is_separable(FilterKind k) { return k == FilterKind::Box || k == FilterKind::Gaussian; }

// Workgroup shapes; must match the local_size of the shaders.
constexpr int kBlock = 16;              // plain, tiled, columns pass, pixel ops: 16 x 16
constexpr int kRowsW = 64, kRowsH = 4;  // rows pass: 64 x 4

// Ordering of one compute pass against another on the same buffer (RAW or WAR).
void buffer_barrier(VkCommandBuffer cmd, VkBuffer buffer, VkPipelineStageFlags src_stage, VkAccessFlags src_access,
                    VkPipelineStageFlags dst_stage, VkAccessFlags dst_access) {
    VkBufferMemoryBarrier b{VK_STRUCTURE_TYPE_BUFFER_MEMORY_BARRIER};
    b.srcAccessMask = src_access;
    b.dstAccessMask = dst_access;
    b.srcQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED;
    b.dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED;
    b.buffer = buffer;
    b.offset = 0;
    b.size = VK_WHOLE_SIZE;
    vkCmdPipelineBarrier(cmd, src_stage, dst_stage, 0, 0, nullptr, 1, &b, 0, nullptr);
}

} // namespace

std::string_view to_string(ComputeVariant v) {
    switch (v) {
    case ComputeVariant::Plain: return "vulkan-plain";
    case ComputeVariant::Tiled: return "vulkan-tiled";
    }
    return "unknown";
}

std::optional<ComputeVariant> parse_compute_variant(std::string_view name) {
    for (const auto v : kVariants)
        if (to_string(v) == name) return v;
    return std::nullopt;
}

std::span<const ComputeVariant> compute_variants() { return kVariants; }

std::string_view compute_variant_explanation(ComputeVariant v) {
    switch (v) {
    case ComputeVariant::Plain:
        return "Vulkan compute, plain loads: each invocation of a 16x16 workgroup reads its whole "
               "(2r+1)^2 window from the storage buffer, applying the border rule on every read, and "
               "relies on the caches for reuse. One pass for every filter (Gaussian as the fused 2D "
               "sum), so large radii cost (2r+1)^2 loads per pixel.";
    case ComputeVariant::Tiled:
        return "Vulkan compute, shared-memory tiles: 3x3 and 5x5 filters stage a (16+2r)^2 tile, "
               "border applied and converted to float, in workgroup shared memory once, then read "
               "neighbours from there. Box and Gaussian run as two separable passes (a 64x4 rows "
               "strip, then a 16x16 columns strip) through a float intermediate, so a pixel costs "
               "2(2r+1) taps instead of (2r+1)^2.";
    }
    return "";
}

std::span<const char* const> ComputeFilters::required_device_extensions() { return kRequiredExtensions; }

ComputeFilters::ComputeFilters(const Context& ctx) : ctx_(ctx) {
    if (!ctx_.has_extension(VK_KHR_PUSH_DESCRIPTOR_EXTENSION_NAME)) {
        unavailable_ = "Vulkan compute filters need the device extension VK_KHR_push_descriptor, which is not "
                       "enabled on " + ctx_.device_description() +
                       " (enable it through ContextOptions::optional_device_extensions; lavapipe and NVIDIA "
                       "drivers support it)";
        return;
    }
    const VkDevice dev = ctx_.device();
    try {
        push_descriptor_set_ =
            reinterpret_cast<PFN_vkCmdPushDescriptorSetKHR>(vkGetDeviceProcAddr(dev, "vkCmdPushDescriptorSetKHR"));
        if (!push_descriptor_set_) throw Error("vkGetDeviceProcAddr(vkCmdPushDescriptorSetKHR) returned null");

        // 0 src image, 1 dst image, 2 weights / op table, 3 intermediate: all storage buffers.
        VkDescriptorSetLayoutBinding bindings[4]{};
        for (std::uint32_t i = 0; i < 4; ++i) {
            bindings[i].binding = i;
            bindings[i].descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
            bindings[i].descriptorCount = 1;
            bindings[i].stageFlags = VK_SHADER_STAGE_COMPUTE_BIT;
        }
        VkDescriptorSetLayoutCreateInfo dsl{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO};
        dsl.flags = VK_DESCRIPTOR_SET_LAYOUT_CREATE_PUSH_DESCRIPTOR_BIT_KHR;
        dsl.bindingCount = 4;
        dsl.pBindings = bindings;
        VK_CHECK(vkCreateDescriptorSetLayout(dev, &dsl, nullptr, &set_layout_));

        VkPushConstantRange range{VK_SHADER_STAGE_COMPUTE_BIT, 0, sizeof(StencilPush)};
        VkPipelineLayoutCreateInfo pl{VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO};
        pl.setLayoutCount = 1;
        pl.pSetLayouts = &set_layout_;
        pl.pushConstantRangeCount = 1;
        pl.pPushConstantRanges = &range;
        VK_CHECK(vkCreatePipelineLayout(dev, &pl, nullptr, &pipeline_layout_));

        auto module = [&](std::span<const std::uint32_t> code) {
            VkShaderModuleCreateInfo mci{VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO};
            mci.codeSize = code.size_bytes();
            mci.pCode = code.data();
            VkShaderModule m = VK_NULL_HANDLE;
            VK_CHECK(vkCreateShaderModule(dev, &mci, nullptr, &m));
            modules_.push_back(m);
            return m;
        };
        // Every (shader, filter kind) pipeline is compiled up front so no frame ever waits on a
        // compile; on a CPU device (lavapipe) that is seconds, so the compiles run on all cores.
        struct Job {
            VkShaderModule module;
            int kind;  // -1: the shader has no KIND specialization constant
            VkPipeline* slot;
        };
        std::vector<Job> jobs;
        const VkShaderModule plain[2] = {module(stencil_plain_rgba8_comp_spv), module(stencil_plain_rgba32f_comp_spv)};
        const VkShaderModule tiled[2] = {module(stencil_tiled_rgba8_comp_spv), module(stencil_tiled_rgba32f_comp_spv)};
        const VkShaderModule rows[2] = {module(stencil_rows_rgba8_comp_spv), module(stencil_rows_rgba32f_comp_spv)};
        const VkShaderModule cols[2] = {module(stencil_cols_rgba8_comp_spv), module(stencil_cols_rgba32f_comp_spv)};
        const VkShaderModule ops[2] = {module(pixel_ops_rgba8_comp_spv), module(pixel_ops_rgba32f_comp_spv)};
        for (std::size_t f = 0; f < 2; ++f) {
            for (int k = 0; k < 7; ++k) {
                jobs.push_back({plain[f], k, &plain_[f][static_cast<std::size_t>(k)]});
                if (!is_separable(static_cast<FilterKind>(k)))
                    jobs.push_back({tiled[f], k, &tiled_[f][static_cast<std::size_t>(k)]});
            }
            for (int k = 0; k < 2; ++k) {
                jobs.push_back({rows[f], k, &rows_[f][static_cast<std::size_t>(k)]});
                jobs.push_back({cols[f], k, &cols_[f][static_cast<std::size_t>(k)]});
            }
            jobs.push_back({ops[f], -1, &pixel_ops_[f]});
        }
        std::atomic<std::size_t> next{0};
        std::vector<VkResult> results(jobs.size(), VK_SUCCESS);
        auto worker = [&] {
            for (std::size_t i; (i = next.fetch_add(1)) < jobs.size();) {
                const std::int32_t value = jobs[i].kind;
                const VkSpecializationMapEntry entry{0, 0, sizeof(std::int32_t)};
                const VkSpecializationInfo spec{1, &entry, sizeof value, &value};
                VkComputePipelineCreateInfo ci{VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO};
                ci.stage = {VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO};
                ci.stage.stage = VK_SHADER_STAGE_COMPUTE_BIT;
                ci.stage.module = jobs[i].module;
                ci.stage.pName = "main";
                ci.stage.pSpecializationInfo = jobs[i].kind >= 0 ? &spec : nullptr;
                ci.layout = pipeline_layout_;
                results[i] = vkCreateComputePipelines(dev, VK_NULL_HANDLE, 1, &ci, nullptr, jobs[i].slot);
            }
        };
        {
            const unsigned n = std::clamp(std::thread::hardware_concurrency(), 1u, 8u);
            std::vector<std::jthread> threads;
            for (unsigned t = 1; t < n; ++t) threads.emplace_back(worker);
            worker();
        }
        for (std::size_t i = 0; i < jobs.size(); ++i)
            if (*jobs[i].slot) all_pipelines_.push_back(*jobs[i].slot);
        for (const VkResult r : results) VK_CHECK(r);

        const VkBufferUsageFlags usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT;
        weights_ = Buffer(ctx_, kWeightsBytes, usage, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT);
        ops_ = Buffer(ctx_, kOpsBufferBytes, usage, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT);
    } catch (...) {
        destroy();
        throw;
    }
}

ComputeFilters::~ComputeFilters() { destroy(); }

void ComputeFilters::destroy() noexcept {
    const VkDevice dev = ctx_.device();
    if (!dev) return;
    vkDeviceWaitIdle(dev);
    retired_.clear();
    intermediate_ = Buffer();
    weights_ = Buffer();
    ops_ = Buffer();
    for (VkPipeline p : all_pipelines_) vkDestroyPipeline(dev, p, nullptr);
    all_pipelines_.clear();
    for (VkShaderModule m : modules_) vkDestroyShaderModule(dev, m, nullptr);
    modules_.clear();
    if (pipeline_layout_) vkDestroyPipelineLayout(dev, pipeline_layout_, nullptr);
    pipeline_layout_ = VK_NULL_HANDLE;
    if (set_layout_) vkDestroyDescriptorSetLayout(dev, set_layout_, nullptr);
    set_layout_ = VK_NULL_HANDLE;
}

std::string ComputeFilters::can_run(const FilterParams& p, PixelFormat f) const {
    if (!unavailable_.empty()) return unavailable_;
    if (f != PixelFormat::RGBA8 && f != PixelFormat::RGBA32F) return "unknown pixel format";
    return validate(p);
}

std::string ComputeFilters::can_run_pixel_ops(std::span<const PixelOp> ops, PixelFormat f) const {
    if (!unavailable_.empty()) return unavailable_;
    if (f != PixelFormat::RGBA8 && f != PixelFormat::RGBA32F) return "unknown pixel format";
    if (ops.size() > static_cast<std::size_t>(kMaxPixelOps))
        return "the per-pixel op chain has " + std::to_string(ops.size()) + " ops; the Vulkan compute path takes at most " +
               std::to_string(kMaxPixelOps);
    for (std::size_t i = 0; i < ops.size(); ++i) {
        const std::string e = validate(ops[i]);
        if (!e.empty()) return "op " + std::to_string(i + 1) + " (" + std::string(to_string(ops[i].kind)) + "): " + e;
    }
    return {};
}

std::string ComputeFilters::check_image(int width, int height, VkDeviceSize pitch, PixelFormat f) const {
    if (width < 1 || height < 1)
        return "image size " + std::to_string(width) + "x" + std::to_string(height) + " is empty";
    const VkDeviceSize bpp = bytes_per_pixel(f);
    if (pitch % 16 != 0) return "row pitch " + std::to_string(pitch) + " bytes is not a multiple of 16";
    if (pitch < bpp * static_cast<VkDeviceSize>(width))
        return "row pitch " + std::to_string(pitch) + " bytes is smaller than a row (" +
               std::to_string(bpp * static_cast<VkDeviceSize>(width)) + " bytes)";
    const auto& limits = ctx_.properties().limits;
    const VkDeviceSize bytes = pitch * static_cast<VkDeviceSize>(height);
    if (bytes > limits.maxStorageBufferRange || (pitch / bpp) * static_cast<VkDeviceSize>(height) > INT_MAX)
        return "image of " + std::to_string(bytes) + " bytes exceeds this device's storage-buffer range (" +
               std::to_string(limits.maxStorageBufferRange) + " bytes)";
    if (div_up(width, kBlock) > limits.maxComputeWorkGroupCount[0] ||
        div_up(height, kRowsH) > limits.maxComputeWorkGroupCount[1])
        return "image size " + std::to_string(width) + "x" + std::to_string(height) +
               " needs more compute workgroups than this device dispatches";
    return {};
}

std::string ComputeFilters::can_record(const FilterParams& p, ComputeVariant v, int width, int height, VkDeviceSize pitch,
                                       PixelFormat f) const {
    if (std::string why = can_run(p, f); !why.empty()) return why;
    if (std::string why = check_image(width, height, pitch, f); !why.empty()) return why;
    const VkDeviceSize tmp_bytes = static_cast<VkDeviceSize>(width) * static_cast<VkDeviceSize>(height) * 16;
    if (v == ComputeVariant::Tiled && is_separable(p.kind) && tmp_bytes > ctx_.properties().limits.maxStorageBufferRange)
        return "the separable tiled " + std::string(to_string(p.kind)) + " needs a " + std::to_string(tmp_bytes) +
               "-byte float intermediate, more than this device's storage-buffer range; use vulkan-plain";
    return {};
}

void ComputeFilters::ensure_intermediate(VkDeviceSize bytes) {
    if (intermediate_.size() >= bytes) return;
    // A command buffer recorded earlier may still use the old one: keep it alive until destruction.
    if (intermediate_) retired_.push_back(std::move(intermediate_));
    intermediate_ = Buffer(ctx_, bytes, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT);
}

// vkCmdUpdateBuffer in the command stream, ordered after every earlier shader read of the buffer
// (WAR, including earlier submissions on this queue) and before the next compute shader reads.
void ComputeFilters::update_buffer_ordered(VkCommandBuffer cmd, const Buffer& buffer, const void* data,
                                           VkDeviceSize bytes) {
    buffer_barrier(cmd, buffer.handle(), VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_READ_BIT,
                   VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT);
    vkCmdUpdateBuffer(cmd, buffer.handle(), 0, bytes, data);
    buffer_barrier(cmd, buffer.handle(), VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT,
                   VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_READ_BIT);
}

void ComputeFilters::push_buffers(VkCommandBuffer cmd, VkPipeline pipeline,
                                  const std::array<VkDescriptorBufferInfo, 4>& infos) {
    vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, pipeline);
    VkWriteDescriptorSet writes[4]{};
    for (std::uint32_t i = 0; i < 4; ++i) {
        writes[i].sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET;
        writes[i].dstBinding = i;
        writes[i].descriptorCount = 1;
        writes[i].descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
        writes[i].pBufferInfo = &infos[i];
    }
    push_descriptor_set_(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, pipeline_layout_, 0, 4, writes);
}

void ComputeFilters::record(VkCommandBuffer cmd, const FilterParams& p, Border b, ComputeVariant v, VkBuffer src,
                            VkBuffer dst, int width, int height, VkDeviceSize pitch, PixelFormat f) {
    if (std::string why = can_record(p, v, width, height, pitch, f); !why.empty()) throw Error(why);
    if (src == VK_NULL_HANDLE || dst == VK_NULL_HANDLE) throw Error("compute filter: null source or destination buffer");
    if (src == dst) throw Error("compute filter: the source and destination must be different buffers");
    const bool separable = v == ComputeVariant::Tiled && is_separable(p.kind);
    const VkDeviceSize tmp_bytes = static_cast<VkDeviceSize>(width) * static_cast<VkDeviceSize>(height) * 16;

    const std::size_t fi = fmt_index(f);
    const VkDeviceSize bpp = bytes_per_pixel(f);
    StencilPush pc{};
    pc.width = width;
    pc.height = height;
    pc.pitch = static_cast<std::int32_t>(pitch / bpp);
    pc.tmp_pitch = width;
    pc.border = static_cast<std::int32_t>(b);
    pc.radius = filter_radius(p);
    pc.amount = p.amount;
    pc.scale = p.user_scale;
    pc.bias = p.user_bias;

    // Weights only where the shader reads them (Box taps are all 1/(2r+1)).
    if (p.kind == FilterKind::Gaussian) {
        int radius = 0;
        const auto w = gaussian_weights(p.sigma, &radius);
        update_buffer_ordered(cmd, weights_, w.data(), sizeof(float) * static_cast<VkDeviceSize>(2 * radius + 1));
    } else if (p.kind == FilterKind::UserKernel) {
        update_buffer_ordered(cmd, weights_, p.user.data(),
                              sizeof(float) * static_cast<VkDeviceSize>(p.user_size * p.user_size));
    }

    const VkDeviceSize image_bytes = pitch * static_cast<VkDeviceSize>(height);
    const VkDescriptorBufferInfo src_info{src, 0, image_bytes};
    const VkDescriptorBufferInfo dst_info{dst, 0, image_bytes};
    const VkDescriptorBufferInfo weights_info{weights_.handle(), 0, VK_WHOLE_SIZE};
    const auto kind = static_cast<std::size_t>(p.kind);

    if (!separable) {
        // Binding 3 is unused by these shaders; it gets a valid buffer all the same.
        push_buffers(cmd, v == ComputeVariant::Plain ? plain_[fi][kind] : tiled_[fi][kind],
                     {src_info, dst_info, weights_info, weights_info});
        vkCmdPushConstants(cmd, pipeline_layout_, VK_SHADER_STAGE_COMPUTE_BIT, 0, sizeof pc, &pc);
        vkCmdDispatch(cmd, div_up(width, kBlock), div_up(height, kBlock), 1);
        return;
    }

    ensure_intermediate(tmp_bytes);
    const VkDescriptorBufferInfo tmp_info{intermediate_.handle(), 0, tmp_bytes};
    const std::size_t sk = p.kind == FilterKind::Box ? 0 : 1;
    // WAR: an earlier columns pass (this command buffer or an earlier submission) may still read it.
    buffer_barrier(cmd, intermediate_.handle(), VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_READ_BIT,
                   VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_WRITE_BIT);
    push_buffers(cmd, rows_[fi][sk], {src_info, dst_info, weights_info, tmp_info});
    vkCmdPushConstants(cmd, pipeline_layout_, VK_SHADER_STAGE_COMPUTE_BIT, 0, sizeof pc, &pc);
    vkCmdDispatch(cmd, div_up(width, kRowsW), div_up(height, kRowsH), 1);
    buffer_barrier(cmd, intermediate_.handle(), VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_WRITE_BIT,
                   VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_READ_BIT);
    push_buffers(cmd, cols_[fi][sk], {src_info, dst_info, weights_info, tmp_info});
    vkCmdPushConstants(cmd, pipeline_layout_, VK_SHADER_STAGE_COMPUTE_BIT, 0, sizeof pc, &pc);
    vkCmdDispatch(cmd, div_up(width, kBlock), div_up(height, kBlock), 1);
}

void ComputeFilters::record_pixel_ops(VkCommandBuffer cmd, std::span<const PixelOp> ops, VkBuffer src, VkBuffer dst,
                                      int width, int height, VkDeviceSize pitch, PixelFormat f) {
    if (std::string why = can_run_pixel_ops(ops, f); !why.empty()) throw Error(why);
    if (std::string why = check_image(width, height, pitch, f); !why.empty()) throw Error(why);
    if (src == VK_NULL_HANDLE || dst == VK_NULL_HANDLE) throw Error("pixel ops: null source or destination buffer");

    // Op table + LUTs, packed as the shader's std430 `Ops` block.
    std::vector<std::uint8_t> table(kOpsTableBytes, 0);
    const auto count = static_cast<std::int32_t>(ops.size());
    std::memcpy(table.data(), &count, sizeof count);
    std::int32_t luts = 0;
    for (std::size_t i = 0; i < ops.size(); ++i) {
        const PixelOp& op = ops[i];
        GpuOp g{};
        g.head[0] = static_cast<std::int32_t>(op.kind);
        g.abc[0] = op.a;
        g.abc[1] = op.b;
        g.abc[2] = op.c;
        for (int r = 0; r < 3; ++r)
            for (int c = 0; c < 3; ++c) g.m[r][c] = op.matrix[static_cast<std::size_t>(r * 3 + c)];
        if (op.kind == PixelOpKind::Lut) {
            g.head[1] = luts++;
            for (const auto& channel : op.lut) table.insert(table.end(), channel.begin(), channel.end());
        }
        std::memcpy(table.data() + kOpsHeaderBytes + i * sizeof(GpuOp), &g, sizeof g);
    }
    update_buffer_ordered(cmd, ops_, table.data(), table.size());

    const VkDeviceSize image_bytes = pitch * static_cast<VkDeviceSize>(height);
    const VkDescriptorBufferInfo ops_info{ops_.handle(), 0, VK_WHOLE_SIZE};
    push_buffers(cmd, pixel_ops_[fmt_index(f)], {VkDescriptorBufferInfo{src, 0, image_bytes},
                                                 VkDescriptorBufferInfo{dst, 0, image_bytes}, ops_info, ops_info});
    const PixelOpsPush pc{width, height, static_cast<std::int32_t>(pitch / bytes_per_pixel(f))};
    vkCmdPushConstants(cmd, pipeline_layout_, VK_SHADER_STAGE_COMPUTE_BIT, 0, sizeof pc, &pc);
    vkCmdDispatch(cmd, div_up(width, kBlock), div_up(height, kBlock), 1);
}

Image ComputeFilters::run_common(const Image& src,
                                 const std::function<void(VkCommandBuffer, VkBuffer, VkBuffer, VkDeviceSize)>& rec) {
    const VkDeviceSize row = src.pitch();
    const VkDeviceSize pitch = padded_pitch(src);
    const VkDeviceSize bytes = pitch * static_cast<VkDeviceSize>(src.height);
    // Host-visible storage buffers: the shaders read and write them directly, no staging copies.
    const VkMemoryPropertyFlags host = VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
    Buffer in(ctx_, bytes, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT, host);
    Buffer out(ctx_, bytes, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT, host);
    auto* in_bytes = static_cast<std::uint8_t*>(in.mapped());
    for (int y = 0; y < src.height; ++y)
        std::memcpy(in_bytes + pitch * static_cast<VkDeviceSize>(y), src.bytes.data() + row * static_cast<VkDeviceSize>(y),
                    row);
    auto* out_words = static_cast<std::uint32_t*>(out.mapped());
    std::fill(out_words, out_words + bytes / 4, 0xDEADBEEFu);

    ctx_.one_shot([&](VkCommandBuffer cmd) {
        rec(cmd, in.handle(), out.handle(), pitch);
        buffer_barrier(cmd, out.handle(), VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_WRITE_BIT,
                       VK_PIPELINE_STAGE_HOST_BIT, VK_ACCESS_HOST_READ_BIT);
    });

    Image result(src.width, src.height, src.format);
    const auto* out_bytes = static_cast<const std::uint8_t*>(out.mapped());
    for (int y = 0; y < src.height; ++y)
        std::memcpy(result.bytes.data() + row * static_cast<VkDeviceSize>(y), out_bytes + pitch * static_cast<VkDeviceSize>(y),
                    row);
    return result;
}

Image ComputeFilters::run(const FilterParams& p, Border b, ComputeVariant v, const Image& src) {
    if (src.empty()) throw Error("compute filter: the source image is empty");
    if (std::string why = can_record(p, v, src.width, src.height, padded_pitch(src), src.format); !why.empty())
        throw Error(why);
    return run_common(src, [&](VkCommandBuffer cmd, VkBuffer in, VkBuffer out, VkDeviceSize pitch) {
        record(cmd, p, b, v, in, out, src.width, src.height, pitch, src.format);
    });
}

Image ComputeFilters::run_pixel_ops(std::span<const PixelOp> ops, const Image& src) {
    if (src.empty()) throw Error("pixel ops: the source image is empty");
    if (std::string why = can_run_pixel_ops(ops, src.format); !why.empty()) throw Error(why);
    if (std::string why = check_image(src.width, src.height, padded_pitch(src), src.format); !why.empty())
        throw Error(why);
    return run_common(src, [&](VkCommandBuffer cmd, VkBuffer in, VkBuffer out, VkDeviceSize pitch) {
        record_pixel_ops(cmd, ops, in, out, src.width, src.height, pitch, src.format);
    });
}

} // namespace tl::vk
