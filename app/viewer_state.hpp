// Everything the panels edit and the viewer acts on: image source, filter, view, inspector.
#pragma once

#include "filter_spec.hpp"
#include "pixel_api.hpp"
#include "image/image_gen.hpp"
#include "pixel_ops.hpp"
#include "stencil_api.hpp"
#include "vk/compute_filters.hpp"
#include "vk/display_pass.hpp"

#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace tl {

struct ImageState {
    std::string label;            // what is shown: "astronaut.png" or "zone plate (seed 1)"
    int width = 0, height = 0;
    std::array<char, 1024> path_input{};
    Generator generator = Generator::ZonePlate;
    int gen_width = 1024, gen_height = 1024;
    int seed = 1;
    std::string message;          // last load / generate outcome
    bool message_is_error = false;
};

// What the frame's processing stage does: the filter (and op chain), or, to measure what the
// hand-off between the APIs costs, a plain device-to-device copy of the image on either path.
enum class StageKind { Filter, Copy };

struct FilterState {
    FilterParams params;
    Border border = Border::Clamp;
    vk::ComputeVariant variant = vk::ComputeVariant::Tiled;
    // The active path: a CUDA mechanism (index into cuda::mechanism_infos()), or -1 for `variant`.
    int mechanism = -1;
    int mechanism_a = -1;          // the split view's A side: -1 = the original, else a second CUDA mechanism
    cuda::Policy policy;
    bool cuda_usable = false;      // interop on and the CUDA stage created
    std::string cuda_reason;       // why not, when !cuda_usable
    StageKind stage = StageKind::Filter;
    bool ops_enabled = false;
    std::vector<PixelOp> ops;
    // CUDA path: how the op chain moves its pixels, and whether it runs inside the stencil kernel.
    cuda::PixelMechanism pixel_mechanism = cuda::PixelMechanism::Vector;
    cuda::PixelPolicy pixel_policy;
    bool fuse = false;
    bool histogram = true;         // CUDA path: the CUB histogram of the output, each frame
    bool time_ops = false;         // CUDA path: each op also run alone, to time it (extra passes)
    bool run_every_frame = false;  // re-run each frame so the Stats panel shows live timings
    std::string status;            // why the last run was refused, or empty
    int runs = 0;                  // how many times the filter stage ran
};

struct ViewState {
    vk::ViewMode mode = vk::ViewMode::Split;
    float gain = 4.0f;
    float zoom = 1.0f;              // framebuffer pixels per image pixel
    float center[2] = {0, 0};       // image coordinate at the viewport centre
    float split = 0.5f;             // divider position as a fraction of the viewport width
    bool pixel_grid = true;
    bool fit_requested = true;
    VkRect2D rect{};                // the viewport's framebuffer rectangle this frame
};

struct InspectorState {
    bool active = false;             // a pixel is hovered
    int x = 0, y = 0;
    std::array<std::uint8_t, 4> input{};
    std::array<std::uint8_t, 4> output{};
    bool output_valid = false;       // read back from the GPU (one or two frames late)
};

// Requests the panels make; the viewer carries them out after the UI pass.
struct PanelActions {
    bool load_path = false;
    bool generate = false;
    bool filter_changed = false;
};

} // namespace tl
