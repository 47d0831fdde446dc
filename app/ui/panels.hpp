// The sidebar panels: Image, Filter, Processing, View, Stats, Mechanism, Interop. Each edits state and reports actions.
#pragma once

#include "cuda_stage.hpp"
#include "viewer_state.hpp"
#include "vk/gpu_timers.hpp"

#include <map>
#include <optional>
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
    double frame_gpu_ms = 0.0;       // the latest frame's span on the Vulkan queue (0: not measured)
    double external_wait_ms = -1.0;  // of which waiting for CUDA (-1: no wait that frame)
};

struct InteropInput {
    const InteropDecision* decision = nullptr;
    std::string vk_name, vk_uuid, vk_driver;
    std::uint64_t timeline_value = 0;
    bool validation = false;
    std::string texture_source;  // how the texture mechanism gets its source (shared image or copy)
};

struct ProcessingInput {
    bool cuda_path = false;  // a CUDA mechanism runs the frame (else the Vulkan compute path)
    const std::optional<cuda::ChannelHistograms>* histogram = nullptr;  // the CUDA stage's latest, when it exists
};

void image_panel(ImageState& s, PanelActions& actions);
void filter_panel(FilterState& s, PanelActions& actions);
// The per-pixel op chain (add, remove, reorder, parameters), how the CUDA chain moves its pixels
// (greyed with the reason where it cannot run), its stages, fusion into the stencil, the histogram.
void processing_panel(FilterState& s, const ProcessingInput& in, PanelActions& actions);
void view_panel(ViewState& s);
void stats_panel(const StatsInput& in);
// CUDA mechanisms (greyed with the reason when they cannot run) and the Vulkan compute variants.
void mechanism_panel(FilterState& s, PanelActions& actions);
// Both devices, their UUIDs and whether they match, handle types, the timeline; or why interop is off.
void interop_panel(const InteropInput& in);
// A line of text wrapped to the panel, in the given colour.
void wrapped_colored(unsigned abgr, const std::string& text);

} // namespace tl::ui
