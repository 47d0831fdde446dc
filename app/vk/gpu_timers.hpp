// GPU time of each pass from Vulkan timestamp queries: one query pool per frame in flight, read
// back without waiting once that frame's fence has signalled (so results are one or two frames old).
#pragma once

#include "context.hpp"

#include <string>
#include <vector>

namespace tl::vk {

class GpuTimers {
public:
    static constexpr std::uint32_t kMaxScopes = 8;
    GpuTimers(const Context& ctx, std::uint32_t frames_in_flight);
    ~GpuTimers();
    GpuTimers(const GpuTimers&) = delete;
    GpuTimers& operator=(const GpuTimers&) = delete;

    bool supported() const { return period_ns_ > 0.0; }

    // Call after the slot's fence has signalled and before recording into it again: reads the
    // slot's previous results (no wait; a result not yet available keeps the last value).
    void collect(std::uint32_t slot);
    // Resets the slot's pool (outside a render pass), forgets the scopes recorded last time and
    // writes the frame's first timestamp (the frame span starts here).
    void begin_frame(VkCommandBuffer cmd, std::uint32_t slot);
    // The first timestamp of the frame's second command buffer (the one that waited for work
    // outside Vulkan): the frame span's begin to here is the time spent waiting for that work.
    void mark_after_external_wait(VkCommandBuffer cmd, std::uint32_t slot);
    // The frame's last timestamp (after everything the frame records, on the same queue).
    void end_frame(VkCommandBuffer cmd, std::uint32_t slot);
    // A named scope (timestamps, and a debug-utils label when available); record begin() and end()
    // in the same command buffer, in order.
    void begin(VkCommandBuffer cmd, std::uint32_t slot, const std::string& name);
    void end(VkCommandBuffer cmd, std::uint32_t slot);

    struct Timing {
        std::string name;
        double ms = 0.0;
    };
    // Latest measured time of every scope seen so far, in first-recorded order.
    const std::vector<Timing>& latest() const { return latest_; }

    // One frame measured from its first to its last timestamp on the queue, read by collect().
    struct FrameSpan {
        double span_ms = 0.0;         // begin_frame .. end_frame
        double wait_ms = -1.0;        // begin_frame .. mark_after_external_wait; -1 when not marked
        double end_ms = 0.0;          // end_frame's timestamp in ms (differences between frames: the GPU frame period)
    };
    // Frames collected so far that had both ends, oldest first; at most kSpanHistory.
    static constexpr std::size_t kSpanHistory = 4096;
    const std::vector<FrameSpan>& frame_spans() const { return spans_; }

private:
    void collect_frame(std::uint32_t slot);
    struct Slot {
        VkQueryPool pool = VK_NULL_HANDLE;
        std::vector<std::string> names;  // scope i uses queries 2i and 2i+1
        bool open = false;
        bool timed = false;     // the open scope wrote a begin timestamp
        bool labelled = false;  // the open scope began a debug-utils label
        bool frame_begun = false, waited = false, frame_ended = false;
    };
    // Queries after the scopes': frame begin, after-external-wait mark, frame end.
    static constexpr std::uint32_t kFrameBegin = 2 * kMaxScopes, kFrameWait = kFrameBegin + 1, kFrameEnd = kFrameBegin + 2;
    static constexpr std::uint32_t kQueries = kFrameEnd + 1;
    const Context& ctx_;
    double period_ns_ = 0.0;
    // Each scope is also a debug-utils label when VK_EXT_debug_utils is on (null otherwise).
    PFN_vkCmdBeginDebugUtilsLabelEXT begin_label_ = nullptr;
    PFN_vkCmdEndDebugUtilsLabelEXT end_label_ = nullptr;
    std::vector<Slot> slots_;
    std::vector<Timing> latest_;
    std::vector<FrameSpan> spans_;
};

} // namespace tl::vk
