// The small app framework: a window (or an offscreen target when headless), the frame loop with
// two frames in flight, Dear ImGui, and a list of elements that draw UI and record GPU work.
#pragma once

#include "vk/context.hpp"
#include "vk/gpu_timers.hpp"

#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <vector>

struct GLFWwindow;

namespace tl {

class App;

// Per-frame recording context handed to elements.
struct FrameInfo {
    VkCommandBuffer cmd = VK_NULL_HANDLE;
    std::uint32_t slot = 0;      // frame-in-flight index (0 or 1)
    VkExtent2D extent{};         // framebuffer size
    vk::GpuTimers* timers = nullptr;
};

// One piece of the program (viewer, panels...). Every hook is optional.
class Element {
public:
    virtual ~Element() = default;
    virtual void on_attach(App& /*app*/) {}
    virtual void on_detach() {}
    virtual void on_resize(VkExtent2D /*extent*/) {}
    virtual void on_ui() {}                                // between ImGui::NewFrame and ImGui::Render
    virtual void on_prepare(const FrameInfo& /*frame*/) {} // outside the render pass: compute, copies
    virtual void on_render(const FrameInfo& /*frame*/) {}  // inside the render pass, before ImGui
    // Outside the render pass, after it, in the same command buffer: readbacks of what the frame showed.
    virtual void on_after_render(const FrameInfo& /*frame*/) {}
    virtual void on_frame_done(std::uint32_t /*slot*/) {}  // that slot's previous frame has finished on the GPU
    // A timeline semaphore signalled by work outside Vulkan (a CUDA stream). When an element returns
    // one, the frame is submitted in two parts: on_prepare's commands first, then on_external
    // enqueues the outside work, then the render part is submitted waiting for the value that
    // on_external returns. Nothing Vulkan signals: the outside work does not wait for Vulkan, so
    // it may overlap the previous frame's display (the element keeps that hazard-free, e.g. by
    // writing a buffer no frame in flight reads; when on_external runs, every frame but the
    // previous one has finished on the GPU).
    virtual VkSemaphore external_timeline() { return VK_NULL_HANDLE; }
    // Enqueues this frame's outside work (or none) and returns the timeline value the render part
    // must wait for: the value that work signals, or an earlier one whose result the frame shows
    // again; 0 for no wait.
    virtual std::uint64_t on_external(std::uint32_t /*slot*/) { return 0; }
    virtual void on_file_drop(const std::vector<std::string>& /*paths*/) {}
};

struct AppOptions {
    bool headless = false;
    VkExtent2D size{1600, 900};   // window or offscreen size
    bool vsync = true;
    float ui_scale = 1.0f;
    int frames = 0;               // stop after this many frames (0 = until the window closes)
    std::string screenshot;       // write the last frame here (PNG)
    std::string title = "tilelab";
};

// A GLFW window; glfwInit happens here. open() returns nullopt with a reason when there is no display.
class Window {
public:
    static std::unique_ptr<Window> open(const AppOptions& options, std::string& error);
    ~Window();
    Window(const Window&) = delete;
    Window& operator=(const Window&) = delete;
    GLFWwindow* handle() const { return window_; }
    static std::vector<std::string> required_instance_extensions();

private:
    Window() = default;
    GLFWwindow* window_ = nullptr;
};

class App {
public:
    // Three, not two: each Vulkan <-> CUDA hand-off costs two GPU context switches (~0.35 ms on
    // an H100), and CUDA runs every frame already queued when it gets the GPU, so a third frame
    // in flight lets the switches serve more frames: CUDA copy stage +286 -> +71 us per frame
    // (mean frame time, 4K, tests/interop/test_frame_handoff.cpp). The price is up to one more
    // frame of latency between a slider and the screen.
    static constexpr std::uint32_t kFramesInFlight = 3;

    // `window` is null for headless runs.
    App(vk::Context& ctx, const AppOptions& options, Window* window);
    ~App();
    App(const App&) = delete;
    App& operator=(const App&) = delete;

    void add(std::shared_ptr<Element> element);
    // Runs frames until the window closes or options.frames have been drawn; returns the exit code.
    int run();

    const vk::Context& context() const { return ctx_; }
    const AppOptions& options() const { return options_; }
    VkRenderPass render_pass() const { return render_pass_; }
    VkExtent2D extent() const;
    // Waits for every frame in flight (before replacing resources a frame may still read).
    void wait_idle() const;
    // Smoothed CPU frame time and the latest GPU pass timings.
    double frame_ms() const { return frame_ms_; }
    // The last frame times (CPU, ms), oldest first; at most kHistory.
    static constexpr std::size_t kHistory = 180;
    std::vector<float> frame_history() const;
    const vk::GpuTimers& timers() const { return *timers_; }
    std::string present_mode() const;
    std::uint64_t frame_number() const { return frame_number_; }
    void request_close() { close_requested_ = true; }

private:
    struct FrameData;
    struct Impl;
    void create();
    void release() noexcept;
    bool draw_frame(bool capture);
    void init_imgui();
    void print_steady_state(const std::vector<float>& cpu_ms) const;
    std::string write_screenshot(const void* pixels, VkExtent2D extent, VkFormat format) const;

    vk::Context& ctx_;
    AppOptions options_;
    Window* window_;
    std::unique_ptr<Impl> impl_;
    VkRenderPass render_pass_ = VK_NULL_HANDLE;
    std::unique_ptr<vk::GpuTimers> timers_;
    std::vector<std::shared_ptr<Element>> elements_;
    double frame_ms_ = 0.0;
    std::vector<float> history_;   // ring buffer of frame times
    std::size_t history_next_ = 0;
    std::uint64_t frame_number_ = 0;
    std::vector<float> fence_wait_ms_;   // host time blocked on each frame's fence (GPU-bound when large)
    bool close_requested_ = false;
    bool imgui_ready_ = false;
};

} // namespace tl
