// The viewer element: owns the image buffers, runs the filter stage, draws the viewport with the
// display pass and lays out the sidebar panels around it.
#pragma once

#include "app.hpp"
#include "cuda_stage.hpp"
#include "image.hpp"
#include "viewer_state.hpp"
#include "vk/compute_filters.hpp"
#include "vk/display_pass.hpp"

#include <array>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <string>

namespace tl {

// How the viewer starts: which image, which filter, which view (from the command line).
struct ViewerSetup {
    std::filesystem::path asset_dir;            // where assets/astronaut.png is looked for
    std::optional<std::filesystem::path> image; // --image
    std::optional<Generator> generator;         // --generate
    int gen_width = 1024, gen_height = 1024;
    std::uint32_t seed = 1;
    FilterParams params;
    Border border = Border::Clamp;
    std::vector<PixelOp> ops;                   // --op chain (enabled when not empty)
    StageKind stage = StageKind::Filter;        // --stage copy: the interop measurement
    bool every_frame = false;                   // --every-frame: re-run the stage each frame on either path
    std::optional<cuda::PixelMechanism> pixel_mechanism;  // --pixel-mechanism (CUDA path's op chain)
    bool fuse = false;                          // --fuse: the op chain inside the stencil kernel
    bool time_ops = false;                      // --time-ops: each op also timed alone (CUDA path)
    bool diag_host_sync = false;                // --diag-host-sync: host waits for the CUDA stage (a measurement aid)
    vk::ComputeVariant variant = vk::ComputeVariant::Tiled;
    std::string mechanism;                      // --mechanism: a CUDA mechanism or Vulkan variant name; empty = best
    std::string mechanism_a;                    // --mechanism-a: the A side's CUDA mechanism; empty = the original
    InteropDecision interop;                    // whether the CUDA path may be used, and why not
    vk::ViewMode view = vk::ViewMode::Split;
    float gain = 4.0f;
    float split = 0.5f;
};

class Viewer : public Element {
public:
    explicit Viewer(ViewerSetup setup);
    ~Viewer() override;

    void on_attach(App& app) override;
    void on_detach() override;
    void on_resize(VkExtent2D extent) override;
    void on_ui() override;
    void on_prepare(const FrameInfo& frame) override;
    void on_render(const FrameInfo& frame) override;
    void on_frame_done(std::uint32_t slot) override;
    void on_file_drop(const std::vector<std::string>& paths) override;
    VkSemaphore external_timeline() override;
    std::uint64_t on_external(std::uint32_t slot) override;
    void on_after_render(const FrameInfo& frame) override;

    // Replaces the current image (waits for the frames in flight). Used by load/generate. False
    // (with the reason in the Image panel) when the device cannot hold it; the current image stays.
    bool set_image(Image image, std::string label);
    // Loads a file; on failure the current image stays and the reason is shown. Returns the error.
    std::string load(const std::filesystem::path& path);

private:
    void load_default_image();
    void generate();
    void layout_viewport(VkExtent2D extent);
    void viewport_window();
    void fit_view();
    // The filter stage: records the filter (and op chain) src -> dst into the frame's command
    // buffer. This is the seam where the CUDA path will hand off through the timeline semaphore.
    void record_filter_stage(const FrameInfo& frame);
    // The CUDA path is active: CUDA is usable and a CUDA mechanism is selected.
    bool cuda_path() const { return cuda_ && filter_state_.mechanism >= 0; }
    void choose_start_mechanism();
    // Switching between the paths or the A side's buffer: waits for both APIs, rebinds the display.
    void apply_path_change();
    VkBuffer source_buffer() const { return cuda_ ? cuda_->source() : source_.handle(); }
    // The output frames show now: with CUDA, the one its last run wrote (runs alternate between two).
    VkBuffer filtered_buffer() const { return cuda_ ? cuda_->filtered(cuda_->latest_output()) : filtered_.handle(); }
    // Points the display's descriptor sets at the current buffers (after a wait for the device).
    void bind_display();
    bool has_image() const { return source_buffer() != VK_NULL_HANDLE; }

    ViewerSetup setup_;
    App* app_ = nullptr;
    std::unique_ptr<vk::ComputeFilters> filters_;
    std::unique_ptr<vk::DisplayPass> display_;
    std::unique_ptr<CudaStage> cuda_;   // present when CUDA interop is on; then it owns the image buffers
    bool cuda_pending_ = false;         // on_prepare asked for a CUDA run this frame
    bool bound_cuda_path_ = false;      // what the display's descriptors and the timings were set up for
    int bound_mechanism_a_ = -1;
    bool reported_cuda_run_ = false;
    std::map<std::string, std::vector<float>> pass_history_;  // Vulkan pass times (ms), oldest first, for the plots
    Image image_;                       // host copy of the source (inspector input values)
    vk::Buffer source_;                 // linear RGBA8 with pitch_ (Vulkan-only runs)
    vk::Buffer filtered_;
    VkDeviceSize pitch_ = 0;
    std::array<vk::Buffer, App::kFramesInFlight> probe_;   // one output pixel read back per frame
    std::array<std::optional<std::array<int, 2>>, App::kFramesInFlight> probe_at_;

    ImageState image_state_;
    FilterState filter_state_;
    ViewState view_;
    InspectorState inspector_;
    bool filter_dirty_ = true;
    bool dragging_divider_ = false;
    float sidebar_width_ = 0.0f;
    float right_width_ = 0.0f;
};

} // namespace tl
