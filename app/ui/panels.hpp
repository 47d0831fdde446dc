// The sidebar panels: Image, Filter, View, Stats, Mechanism. Each edits state and reports actions.
#pragma once

#include "cuda_stage.hpp"
#include "viewer_state.hpp"
#include "vk/gpu_timers.hpp"

#include <map>
#include <string>
#include <vector>

namespace tl {
class App;
}

namespace tl::ui {

struct StatsInput {
    double frame_ms = 0.0;
    std::vector<float> frame_history;  // ms, oldest first
    const std::vector<vk::GpuTimers::Timing>* gpu = nullptr;
    bool gpu_timers_supported = false;
    std::string device;
    std::string present_mode;
    std::uint32_t validation_messages = 0;
    bool validation = false;
    int filter_runs = 0;
    const std::map<std::string, std::vector<float>>* pass_history = nullptr;  // Vulkan pass times per name, ms
    const std::vector<CudaStageTiming>* cuda = nullptr;  // CUDA stages, when the CUDA stage exists
    double copy_gbps = 0.0;
};

struct InteropInput {
    const InteropDecision* decision = nullptr;
    std::string vk_name, vk_uuid, vk_driver;
    std::uint64_t timeline_value = 0;
    bool validation = false;
};

void image_panel(ImageState& s, PanelActions& actions);
void filter_panel(FilterState& s, PanelActions& actions);
void view_panel(ViewState& s);
void stats_panel(const StatsInput& in);
// CUDA mechanisms (greyed with the reason when they cannot run) and the Vulkan compute variants.
void mechanism_panel(FilterState& s, PanelActions& actions);
// Both devices, their UUIDs and whether they match, handle types, the timeline; or why interop is off.
void interop_panel(const InteropInput& in);
// A line of text wrapped to the panel, in the given colour.
void wrapped_colored(unsigned abgr, const std::string& text);

} // namespace tl::ui
