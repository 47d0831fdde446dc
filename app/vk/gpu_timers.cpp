// Timestamp query pools per frame in flight.
#include "gpu_timers.hpp"

#include <algorithm>
#include <array>

namespace tl::vk {

GpuTimers::GpuTimers(const Context& ctx, std::uint32_t frames_in_flight) : ctx_(ctx), slots_(frames_in_flight) {
    period_ns_ = ctx.timestamp_period_ns();
    if (ctx.debug_utils_enabled()) {
        begin_label_ = reinterpret_cast<PFN_vkCmdBeginDebugUtilsLabelEXT>(
            vkGetInstanceProcAddr(ctx.instance(), "vkCmdBeginDebugUtilsLabelEXT"));
        end_label_ = reinterpret_cast<PFN_vkCmdEndDebugUtilsLabelEXT>(vkGetInstanceProcAddr(ctx.instance(), "vkCmdEndDebugUtilsLabelEXT"));
        if (!begin_label_ || !end_label_) begin_label_ = nullptr, end_label_ = nullptr;
    }
    if (!supported()) return;
    for (auto& s : slots_) {
        VkQueryPoolCreateInfo ci{VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO};
        ci.queryType = VK_QUERY_TYPE_TIMESTAMP;
        ci.queryCount = kQueries;
        VK_CHECK(vkCreateQueryPool(ctx.device(), &ci, nullptr, &s.pool));
    }
}

GpuTimers::~GpuTimers() {
    for (auto& s : slots_)
        if (s.pool) vkDestroyQueryPool(ctx_.device(), s.pool, nullptr);
}

void GpuTimers::collect(std::uint32_t slot) {
    Slot& s = slots_[slot];
    if (!supported()) return;
    collect_frame(slot);
    if (s.names.empty()) return;
    const auto n = static_cast<std::uint32_t>(s.names.size());
    // Value + availability per query: no WAIT flag, so this never stalls the frame loop.
    std::array<std::uint64_t, 4 * kMaxScopes> data{};
    const VkResult r = vkGetQueryPoolResults(ctx_.device(), s.pool, 0, 2 * n, sizeof(data), data.data(),
                                             2 * sizeof(std::uint64_t),
                                             VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WITH_AVAILABILITY_BIT);
    if (r != VK_SUCCESS && r != VK_NOT_READY) VK_CHECK(r);
    for (std::uint32_t i = 0; i < n; ++i) {
        const std::uint64_t t0 = data[4 * i], a0 = data[4 * i + 1], t1 = data[4 * i + 2], a1 = data[4 * i + 3];
        if (!a0 || !a1) continue;  // not ready: keep the previous number rather than show a gap
        const double ms = static_cast<double>(t1 - t0) * period_ns_ * 1e-6;
        // Scopes that do not run every frame (the filter runs on change) keep their last value.
        auto it = std::find_if(latest_.begin(), latest_.end(), [&](const Timing& t) { return t.name == s.names[i]; });
        if (it == latest_.end()) latest_.push_back({s.names[i], ms});
        else it->ms = ms;
    }
}

void GpuTimers::collect_frame(std::uint32_t slot) {
    Slot& s = slots_[slot];
    if (!s.frame_begun || !s.frame_ended) return;
    std::array<std::uint64_t, 6> data{};  // begin, wait mark, end: value + availability each
    const VkResult r = vkGetQueryPoolResults(ctx_.device(), s.pool, kFrameBegin, 3, sizeof(data), data.data(),
                                             2 * sizeof(std::uint64_t),
                                             VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WITH_AVAILABILITY_BIT);
    if (r != VK_SUCCESS && r != VK_NOT_READY) VK_CHECK(r);
    s.frame_begun = s.frame_ended = false;  // read once
    if (!data[1] || !data[5]) return;
    const double to_ms = period_ns_ * 1e-6;
    FrameSpan f;
    f.span_ms = static_cast<double>(data[4] - data[0]) * to_ms;
    if (s.waited && data[3]) f.wait_ms = static_cast<double>(data[2] - data[0]) * to_ms;
    f.end_ms = static_cast<double>(data[4]) * to_ms;
    if (spans_.size() >= kSpanHistory) spans_.erase(spans_.begin());
    spans_.push_back(f);
}

void GpuTimers::begin_frame(VkCommandBuffer cmd, std::uint32_t slot) {
    Slot& s = slots_[slot];
    s.names.clear();
    s.open = false;
    s.timed = false;
    s.labelled = false;
    s.frame_begun = s.waited = s.frame_ended = false;
    if (!supported()) return;
    vkCmdResetQueryPool(cmd, s.pool, 0, kQueries);
    vkCmdWriteTimestamp(cmd, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT, s.pool, kFrameBegin);
    s.frame_begun = true;
}

void GpuTimers::mark_after_external_wait(VkCommandBuffer cmd, std::uint32_t slot) {
    Slot& s = slots_[slot];
    if (!supported() || !s.frame_begun) return;
    // The submit waits with ALL_COMMANDS as its stage mask, so this write (at the transfer stage)
    // is inside the wait's scope and cannot be written before the outside work has signalled.
    vkCmdWriteTimestamp(cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, s.pool, kFrameWait);
    s.waited = true;
}

void GpuTimers::end_frame(VkCommandBuffer cmd, std::uint32_t slot) {
    Slot& s = slots_[slot];
    if (!supported() || !s.frame_begun) return;
    vkCmdWriteTimestamp(cmd, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, s.pool, kFrameEnd);
    s.frame_ended = true;
}

void GpuTimers::begin(VkCommandBuffer cmd, std::uint32_t slot, const std::string& name) {
    Slot& s = slots_[slot];
    if (s.open) return;
    if (begin_label_) {
        VkDebugUtilsLabelEXT label{VK_STRUCTURE_TYPE_DEBUG_UTILS_LABEL_EXT};
        label.pLabelName = name.c_str();
        begin_label_(cmd, &label);
        s.labelled = true;
    }
    if (!supported() || s.names.size() >= kMaxScopes) {
        s.open = s.labelled;  // so end() closes the label
        s.timed = false;
        return;
    }
    vkCmdWriteTimestamp(cmd, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT, s.pool, 2 * static_cast<std::uint32_t>(s.names.size()));
    s.names.push_back(name);
    s.open = true;
    s.timed = true;
}

void GpuTimers::end(VkCommandBuffer cmd, std::uint32_t slot) {
    Slot& s = slots_[slot];
    if (!s.open) return;
    if (s.timed)
        vkCmdWriteTimestamp(cmd, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, s.pool, 2 * static_cast<std::uint32_t>(s.names.size()) - 1);
    if (s.labelled) end_label_(cmd);
    s.open = false;
    s.timed = false;
    s.labelled = false;
}

} // namespace tl::vk
