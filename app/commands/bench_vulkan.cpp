// VulkanBench: headless context, rotated buffer sets, one timestamp scope around each dispatch.
#include "bench_vulkan.hpp"

#include "vk/gpu_timers.hpp"

#include <algorithm>
#include <vector>

namespace tl::cmd {

struct VulkanBench::Impl {
    std::unique_ptr<vk::Context> ctx;
    std::unique_ptr<vk::ComputeFilters> filters;
    std::unique_ptr<vk::GpuTimers> timers;
    std::vector<vk::Buffer> src, dst;
    int width = 0, height = 0;
    VkDeviceSize pitch = 0;
};

VulkanBench::~VulkanBench() {
    if (impl_ && impl_->ctx) vkDeviceWaitIdle(impl_->ctx->device());
}

std::unique_ptr<VulkanBench> VulkanBench::create(int width, int height, int sets,
                                                 const std::optional<std::array<std::uint8_t, 16>>& uuid,
                                                 std::string& why) {
    std::unique_ptr<VulkanBench> b(new VulkanBench);
    b->impl_ = std::make_unique<Impl>();
    auto& m = *b->impl_;
    try {
        vk::ContextOptions opts;
        opts.quiet = true;
        opts.device_uuid = uuid;
        for (const char* e : vk::ComputeFilters::required_device_extensions())
            opts.optional_device_extensions.emplace_back(e);
        m.ctx = std::make_unique<vk::Context>(opts);
        m.filters = std::make_unique<vk::ComputeFilters>(*m.ctx);
        m.timers = std::make_unique<vk::GpuTimers>(*m.ctx, 1);
        if (!m.timers->supported()) {
            why = "the Vulkan queue has no timestamps";
            return nullptr;
        }
        m.width = width;
        m.height = height;
        m.pitch = (static_cast<VkDeviceSize>(width) * 4 + 255) / 256 * 256;
        const VkDeviceSize bytes = m.pitch * static_cast<VkDeviceSize>(height);
        const VkBufferUsageFlags usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT;
        for (int i = 0; i < sets; ++i) {
            m.src.emplace_back(*m.ctx, bytes, usage, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT);
            m.dst.emplace_back(*m.ctx, bytes, usage, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT);
        }
        m.ctx->one_shot([&](VkCommandBuffer cmd) {
            for (auto& s : m.src) vkCmdFillBuffer(cmd, s.handle(), 0, VK_WHOLE_SIZE, 0x40804020u);
        });
    } catch (const std::exception& e) {
        why = e.what();
        return nullptr;
    }
    return b;
}

std::string VulkanBench::device() const { return impl_->ctx->device_description(); }

std::optional<double> VulkanBench::median_us(const FilterParams& p, Border border, vk::ComputeVariant v,
                                              int iterations, std::string& why) {
    auto& m = *impl_;
    why = m.filters->can_record(p, v, m.width, m.height, m.pitch, PixelFormat::RGBA8);
    if (!why.empty()) return std::nullopt;
    const int sets = static_cast<int>(m.src.size());
    std::vector<double> t;
    try {
        // First rotation is a warm-up (pipelines, intermediate allocation), not timed.
        m.ctx->one_shot([&](VkCommandBuffer cmd) {
            for (int i = 0; i < sets; ++i)
                m.filters->record(cmd, p, border, v, m.src[static_cast<std::size_t>(i)].handle(),
                                  m.dst[static_cast<std::size_t>(i)].handle(), m.width, m.height, m.pitch,
                                  PixelFormat::RGBA8);
        });
        for (int it = 0; it < iterations; ++it) {
            const auto i = static_cast<std::size_t>(it % sets);
            m.ctx->one_shot([&](VkCommandBuffer cmd) {
                m.timers->begin_frame(cmd, 0);
                m.timers->begin(cmd, 0, "filter");
                m.filters->record(cmd, p, border, v, m.src[i].handle(), m.dst[i].handle(), m.width, m.height, m.pitch,
                                  PixelFormat::RGBA8);
                m.timers->end(cmd, 0);
            });
            m.timers->collect(0);
            if (m.timers->latest().empty()) {
                why = "no timestamp result";
                return std::nullopt;
            }
            t.push_back(m.timers->latest().front().ms * 1000.0);
        }
    } catch (const std::exception& e) {
        why = e.what();
        return std::nullopt;
    }
    std::nth_element(t.begin(), t.begin() + static_cast<std::ptrdiff_t>(t.size() / 2), t.end());
    return t[t.size() / 2];
}

} // namespace tl::cmd
