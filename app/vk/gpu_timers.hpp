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
    // Resets the slot's pool (outside a render pass) and forgets the scopes recorded last time.
    void begin_frame(VkCommandBuffer cmd, std::uint32_t slot);
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

private:
    struct Slot {
        VkQueryPool pool = VK_NULL_HANDLE;
        std::vector<std::string> names;  // scope i uses queries 2i and 2i+1
        bool open = false;
        bool timed = false;     // the open scope wrote a begin timestamp
        bool labelled = false;  // the open scope began a debug-utils label
    };
    const Context& ctx_;
    double period_ns_ = 0.0;
    // Each scope is also a debug-utils label when VK_EXT_debug_utils is on (null otherwise).
    PFN_vkCmdBeginDebugUtilsLabelEXT begin_label_ = nullptr;
    PFN_vkCmdEndDebugUtilsLabelEXT end_label_ = nullptr;
    std::vector<Slot> slots_;
    std::vector<Timing> latest_;
};

} // namespace tl::vk
