// Frame loop: acquire (window) or offscreen target, ImGui frame, element hooks, submit, present.
#include "app.hpp"

#include "image/image_io.hpp"
#include "ui/theme.hpp"
#include "vk/swapchain.hpp"
#include "vk/targets.hpp"

#define GLFW_INCLUDE_VULKAN
#include <GLFW/glfw3.h>
#include <imgui.h>
#include <imgui_impl_glfw.h>
#include <imgui_impl_vulkan.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <cstdlib>

namespace tl {

// ---------------------------------------------------------------------------------------- Window

std::unique_ptr<Window> Window::open(const AppOptions& options, std::string& error) {
    glfwSetErrorCallback([](int, const char*) {});  // failures are reported below, in words
    const char* display = std::getenv("DISPLAY");
    const char* wayland = std::getenv("WAYLAND_DISPLAY");
    if ((!display || !*display) && (!wayland || !*wayland)) {
        error = "no display (DISPLAY is not set)";
        return nullptr;
    }
    if (!glfwInit()) {
        const char* what = nullptr;
        glfwGetError(&what);
        error = std::string("GLFW could not start: ") + (what ? what : "unknown reason");
        return nullptr;
    }
    if (!glfwVulkanSupported()) {
        glfwTerminate();
        error = "GLFW found no Vulkan loader/driver able to present to a window";
        return nullptr;
    }
    glfwWindowHint(GLFW_CLIENT_API, GLFW_NO_API);
    glfwWindowHint(GLFW_RESIZABLE, GLFW_TRUE);
    std::unique_ptr<Window> w(new Window());
    w->window_ = glfwCreateWindow(static_cast<int>(options.size.width), static_cast<int>(options.size.height),
                                  options.title.c_str(), nullptr, nullptr);
    if (!w->window_) {
        const char* what = nullptr;
        glfwGetError(&what);
        error = std::string("GLFW could not create a window: ") + (what ? what : "unknown reason");
        return nullptr;  // ~Window terminates GLFW
    }
    return w;
}

Window::~Window() {
    if (window_) glfwDestroyWindow(window_);
    glfwTerminate();
}

std::vector<std::string> Window::required_instance_extensions() {
    std::uint32_t n = 0;
    const char** names = glfwGetRequiredInstanceExtensions(&n);
    std::vector<std::string> out;
    for (std::uint32_t i = 0; i < n; ++i) out.emplace_back(names[i]);
    return out;
}

// ------------------------------------------------------------------------------------------- App

struct App::FrameData {
    VkCommandPool pool = VK_NULL_HANDLE;
    VkCommandBuffer cmd = VK_NULL_HANDLE;
    VkCommandBuffer prepare_cmd = VK_NULL_HANDLE;  // the first submit when an element works outside Vulkan
    VkFence fence = VK_NULL_HANDLE;
    VkSemaphore image_available = VK_NULL_HANDLE;
};

struct App::Impl {
    VkSurfaceKHR surface = VK_NULL_HANDLE;
    std::unique_ptr<vk::Swapchain> swapchain;
    std::unique_ptr<vk::OffscreenTarget> offscreen;
    std::vector<VkSemaphore> render_finished;  // one per swapchain image
    std::array<FrameData, kFramesInFlight> frames{};
    VkDescriptorPool imgui_pool = VK_NULL_HANDLE;
    bool needs_recreate = false;
    vk::Buffer readback;            // window screenshot: the captured swapchain image
    VkFormat readback_format = VK_FORMAT_UNDEFINED;
    VkExtent2D readback_extent{};
    bool captured = false;
    std::vector<std::string> dropped;
};

namespace {

void imgui_check(VkResult r) {
    if (r != VK_SUCCESS) vk::throw_vk_error("ImGui Vulkan backend call", r, __FILE__, __LINE__);
}

} // namespace

App::App(vk::Context& ctx, const AppOptions& options, Window* window)
    : ctx_(ctx), options_(options), window_(window), impl_(std::make_unique<Impl>()) {
    try {
        create();
    } catch (...) {
        release();  // the destructor does not run for a half-built App
        throw;
    }
}

void App::create() {
    const vk::Context& ctx = ctx_;
    const AppOptions& options = options_;
    const VkDevice dev = ctx.device();
    VkFormat format = vk::OffscreenTarget::kFormat;
    if (window_) {
        VK_CHECK(glfwCreateWindowSurface(ctx.instance(), window_->handle(), nullptr, &impl_->surface));
        impl_->swapchain = std::make_unique<vk::Swapchain>(ctx, impl_->surface, options.vsync, !options.screenshot.empty());
        format = impl_->swapchain->format();
        render_pass_ = vk::create_color_render_pass(dev, format, VK_IMAGE_LAYOUT_PRESENT_SRC_KHR);
        impl_->swapchain->create_framebuffers(render_pass_);
        std::fprintf(stderr, "Window: %ux%u, present mode %s\n", impl_->swapchain->extent().width,
                     impl_->swapchain->extent().height, impl_->swapchain->present_mode_name());
        glfwSetWindowUserPointer(window_->handle(), impl_.get());
        glfwSetDropCallback(window_->handle(), [](GLFWwindow* w, int count, const char** paths) {
            auto* impl = static_cast<Impl*>(glfwGetWindowUserPointer(w));
            for (int i = 0; i < count; ++i) impl->dropped.emplace_back(paths[i]);
        });
        glfwSetFramebufferSizeCallback(window_->handle(), [](GLFWwindow* w, int, int) {
            static_cast<Impl*>(glfwGetWindowUserPointer(w))->needs_recreate = true;
        });
    } else {
        render_pass_ = vk::create_color_render_pass(dev, format, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL);
        impl_->offscreen = std::make_unique<vk::OffscreenTarget>(ctx, render_pass_, options.size);
    }

    for (auto& f : impl_->frames) {
        VkCommandPoolCreateInfo pci{VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO};
        pci.flags = VK_COMMAND_POOL_CREATE_TRANSIENT_BIT;
        pci.queueFamilyIndex = ctx.queue_family();
        VK_CHECK(vkCreateCommandPool(dev, &pci, nullptr, &f.pool));
        VkCommandBufferAllocateInfo ai{VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
        ai.commandPool = f.pool;
        ai.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
        ai.commandBufferCount = 1;
        VK_CHECK(vkAllocateCommandBuffers(dev, &ai, &f.cmd));
        VK_CHECK(vkAllocateCommandBuffers(dev, &ai, &f.prepare_cmd));
        VkFenceCreateInfo fci{VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
        fci.flags = VK_FENCE_CREATE_SIGNALED_BIT;
        VK_CHECK(vkCreateFence(dev, &fci, nullptr, &f.fence));
        VkSemaphoreCreateInfo sci{VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO};
        VK_CHECK(vkCreateSemaphore(dev, &sci, nullptr, &f.image_available));
    }
    if (impl_->swapchain) {
        for (std::uint32_t i = 0; i < impl_->swapchain->image_count(); ++i) {
            VkSemaphoreCreateInfo sci{VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO};
            VkSemaphore s = VK_NULL_HANDLE;
            VK_CHECK(vkCreateSemaphore(dev, &sci, nullptr, &s));
            impl_->render_finished.push_back(s);
        }
    }
    timers_ = std::make_unique<vk::GpuTimers>(ctx, kFramesInFlight);
    init_imgui();
}

void App::init_imgui() {
    IMGUI_CHECKVERSION();
    ImGui::CreateContext();
    ImGuiIO& io = ImGui::GetIO();
    io.IniFilename = nullptr;  // the layout is computed from the window size every frame
    ui::apply_theme(options_.ui_scale);
    ui::load_fonts(options_.ui_scale);

    std::array<VkDescriptorPoolSize, 1> sizes{{{VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER, 16}}};
    VkDescriptorPoolCreateInfo dp{VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO};
    dp.flags = VK_DESCRIPTOR_POOL_CREATE_FREE_DESCRIPTOR_SET_BIT;
    dp.maxSets = 16;
    dp.poolSizeCount = static_cast<std::uint32_t>(sizes.size());
    dp.pPoolSizes = sizes.data();
    VK_CHECK(vkCreateDescriptorPool(ctx_.device(), &dp, nullptr, &impl_->imgui_pool));

    if (window_) {
        ImGui_ImplGlfw_InitForVulkan(window_->handle(), true);
        io.ConfigFlags |= ImGuiConfigFlags_NavEnableKeyboard;  // needs the key map the GLFW backend sets
    }
    ImGui_ImplVulkan_InitInfo info{};
    info.Instance = ctx_.instance();
    info.PhysicalDevice = ctx_.physical_device();
    info.Device = ctx_.device();
    info.QueueFamily = ctx_.queue_family();
    info.Queue = ctx_.queue();
    info.DescriptorPool = impl_->imgui_pool;
    info.Subpass = 0;
    info.MinImageCount = 2;
    info.ImageCount = impl_->swapchain ? std::max(2u, impl_->swapchain->image_count()) : kFramesInFlight;
    info.MSAASamples = VK_SAMPLE_COUNT_1_BIT;
    info.CheckVkResultFn = imgui_check;
    ImGui_ImplVulkan_Init(&info, render_pass_);
    ctx_.one_shot([](VkCommandBuffer cmd) { ImGui_ImplVulkan_CreateFontsTexture(cmd); });
    ImGui_ImplVulkan_DestroyFontUploadObjects();
    imgui_ready_ = true;
}

App::~App() { release(); }

void App::release() noexcept {
    const VkDevice dev = ctx_.device();
    vkDeviceWaitIdle(dev);
    for (auto it = elements_.rbegin(); it != elements_.rend(); ++it) (*it)->on_detach();
    elements_.clear();
    if (imgui_ready_) {
        ImGui_ImplVulkan_Shutdown();
        if (window_) ImGui_ImplGlfw_Shutdown();
        imgui_ready_ = false;
    }
    if (ImGui::GetCurrentContext()) ImGui::DestroyContext();
    if (impl_->imgui_pool) vkDestroyDescriptorPool(dev, impl_->imgui_pool, nullptr);
    impl_->imgui_pool = VK_NULL_HANDLE;
    for (auto& f : impl_->frames) {
        if (f.image_available) vkDestroySemaphore(dev, f.image_available, nullptr);
        if (f.fence) vkDestroyFence(dev, f.fence, nullptr);
        if (f.pool) vkDestroyCommandPool(dev, f.pool, nullptr);
    }
    impl_->frames = {};
    for (auto s : impl_->render_finished) vkDestroySemaphore(dev, s, nullptr);
    impl_->render_finished.clear();
    timers_.reset();
    impl_->readback = vk::Buffer();
    impl_->offscreen.reset();
    impl_->swapchain.reset();
    if (render_pass_) vkDestroyRenderPass(dev, render_pass_, nullptr);
    render_pass_ = VK_NULL_HANDLE;
    if (impl_->surface) vkDestroySurfaceKHR(ctx_.instance(), impl_->surface, nullptr);
    impl_->surface = VK_NULL_HANDLE;
}

void App::add(std::shared_ptr<Element> element) {
    element->on_attach(*this);
    element->on_resize(extent());
    elements_.push_back(std::move(element));
}

VkExtent2D App::extent() const {
    return impl_->swapchain ? impl_->swapchain->extent() : impl_->offscreen->extent();
}

std::vector<float> App::frame_history() const {
    if (history_.size() < kHistory) return history_;
    std::vector<float> out(history_.begin() + static_cast<std::ptrdiff_t>(history_next_), history_.end());
    out.insert(out.end(), history_.begin(), history_.begin() + static_cast<std::ptrdiff_t>(history_next_));
    return out;
}

void App::wait_idle() const { VK_CHECK(vkDeviceWaitIdle(ctx_.device())); }

std::string App::present_mode() const {
    return impl_->swapchain ? impl_->swapchain->present_mode_name() : "offscreen (headless)";
}

bool App::draw_frame(bool capture) {
    const VkDevice dev = ctx_.device();
    const std::uint32_t slot = static_cast<std::uint32_t>(frame_number_ % kFramesInFlight);
    FrameData& f = impl_->frames[slot];

    // Frame N-2 used this slot; waiting for it is what keeps two frames in flight.
    const auto wait_start = std::chrono::steady_clock::now();
    VK_CHECK(vkWaitForFences(dev, 1, &f.fence, VK_TRUE, UINT64_MAX));
    const float waited_ms = std::chrono::duration<float, std::milli>(std::chrono::steady_clock::now() - wait_start).count();
    timers_->collect(slot);
    for (auto& e : elements_) e->on_frame_done(slot);

    std::uint32_t image_index = 0;
    VkFramebuffer framebuffer = VK_NULL_HANDLE;
    VkImage image = VK_NULL_HANDLE;
    if (window_) {
        int w = 0, h = 0;
        glfwGetFramebufferSize(window_->handle(), &w, &h);
        if (w == 0 || h == 0) return false;  // minimized: draw nothing until restored
        const VkExtent2D current = impl_->swapchain->extent();
        if (impl_->needs_recreate || current.width != static_cast<std::uint32_t>(w) ||
            current.height != static_cast<std::uint32_t>(h)) {
            if (!impl_->swapchain->recreate(render_pass_)) return false;
            impl_->needs_recreate = false;
            while (impl_->render_finished.size() < impl_->swapchain->image_count()) {
                VkSemaphoreCreateInfo sci{VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO};
                VkSemaphore s = VK_NULL_HANDLE;
                VK_CHECK(vkCreateSemaphore(dev, &sci, nullptr, &s));
                impl_->render_finished.push_back(s);
            }
            for (auto& e : elements_) e->on_resize(impl_->swapchain->extent());
        }
        const VkResult r = vkAcquireNextImageKHR(dev, impl_->swapchain->handle(), UINT64_MAX, f.image_available,
                                                 VK_NULL_HANDLE, &image_index);
        if (r == VK_ERROR_OUT_OF_DATE_KHR) {
            impl_->needs_recreate = true;
            return false;
        }
        if (r != VK_SUBOPTIMAL_KHR) VK_CHECK(r);
        framebuffer = impl_->swapchain->framebuffer(image_index);
        image = impl_->swapchain->image(image_index);
    } else {
        framebuffer = impl_->offscreen->framebuffer();
        image = impl_->offscreen->image();
    }
    const VkExtent2D ext = extent();

    // UI
    ImGui_ImplVulkan_NewFrame();
    if (window_) {
        ImGui_ImplGlfw_NewFrame();
    } else {
        ImGuiIO& io = ImGui::GetIO();
        io.DisplaySize = ImVec2(static_cast<float>(ext.width), static_cast<float>(ext.height));
        io.DisplayFramebufferScale = ImVec2(1.0f, 1.0f);
        io.DeltaTime = 1.0f / 60.0f;
    }
    if (!impl_->dropped.empty()) {
        for (auto& e : elements_) e->on_file_drop(impl_->dropped);
        impl_->dropped.clear();
    }
    ImGui::NewFrame();
    for (auto& e : elements_) e->on_ui();
    ImGui::Render();

    // Record
    VK_CHECK(vkResetFences(dev, 1, &f.fence));
    VK_CHECK(vkResetCommandPool(dev, f.pool, 0));
    VkCommandBufferBeginInfo bi{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
    bi.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
    VkSemaphore external = VK_NULL_HANDLE;
    for (auto& e : elements_)
        if (!external) external = e->external_timeline();
    // Two submits when work outside Vulkan sits between prepare and render: #1 (prepare: the frame's
    // first timestamp and any Vulkan work) is submitted before the outside work is enqueued, so the
    // frame span measures that work; #2 (render) waits for the value on_external returns.
    const VkCommandBuffer prepare_cmd = external ? f.prepare_cmd : f.cmd;
    VK_CHECK(vkBeginCommandBuffer(prepare_cmd, &bi));
    timers_->begin_frame(prepare_cmd, slot);
    const FrameInfo info{prepare_cmd, slot, ext, timers_.get()};
    for (auto& e : elements_) e->on_prepare(info);
    std::uint64_t external_wait = 0;
    if (external) {
        VK_CHECK(vkEndCommandBuffer(prepare_cmd));
        VkSubmitInfo si{VK_STRUCTURE_TYPE_SUBMIT_INFO};
        si.commandBufferCount = 1;
        si.pCommandBuffers = &prepare_cmd;
        VK_CHECK(vkQueueSubmit(ctx_.queue(), 1, &si, VK_NULL_HANDLE));
        for (auto& e : elements_)
            if (e->external_timeline() == external) external_wait = std::max(external_wait, e->on_external(slot));
        VK_CHECK(vkBeginCommandBuffer(f.cmd, &bi));
        if (external_wait) timers_->mark_after_external_wait(f.cmd, slot);
    }
    const bool wait_external = external_wait != 0;
    const FrameInfo render_info{f.cmd, slot, ext, timers_.get()};

    VkClearValue clear{};
    clear.color = {{0.075f, 0.078f, 0.090f, 1.0f}};
    VkRenderPassBeginInfo rp{VK_STRUCTURE_TYPE_RENDER_PASS_BEGIN_INFO};
    rp.renderPass = render_pass_;
    rp.framebuffer = framebuffer;
    rp.renderArea = {{0, 0}, ext};
    rp.clearValueCount = 1;
    rp.pClearValues = &clear;
    vkCmdBeginRenderPass(f.cmd, &rp, VK_SUBPASS_CONTENTS_INLINE);
    for (auto& e : elements_) e->on_render(render_info);
    timers_->begin(f.cmd, slot, "ImGui");
    ImGui_ImplVulkan_RenderDrawData(ImGui::GetDrawData(), f.cmd);
    timers_->end(f.cmd, slot);
    vkCmdEndRenderPass(f.cmd);
    for (auto& e : elements_) e->on_after_render(render_info);

    if (capture && window_) {
        if (!impl_->swapchain->readable()) throw vk::Error("this window's swapchain images cannot be copied (no TRANSFER_SRC usage)");
        impl_->readback = vk::Buffer(ctx_, VkDeviceSize{ext.width} * ext.height * 4, VK_BUFFER_USAGE_TRANSFER_DST_BIT,
                                     VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT);
        vk::record_image_readback(f.cmd, image, VK_IMAGE_LAYOUT_PRESENT_SRC_KHR, ext, impl_->readback.handle());
        impl_->readback_format = impl_->swapchain->format();
        impl_->readback_extent = ext;
        impl_->captured = true;
    }
    timers_->end_frame(f.cmd, slot);
    VK_CHECK(vkEndCommandBuffer(f.cmd));

    std::array<VkSemaphore, 2> waits{};
    std::array<VkPipelineStageFlags, 2> wait_stages{};
    std::array<std::uint64_t, 2> wait_values{};  // binary semaphores ignore theirs
    std::uint32_t wait_count = 0;
    if (window_) {
        waits[wait_count] = f.image_available;
        wait_stages[wait_count++] = VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT;
    }
    if (wait_external) {
        waits[wait_count] = external;
        wait_values[wait_count] = external_wait;
        // Everything in the render part reads the outside result or follows what does; waiting at
        // every stage also keeps the after-wait timestamp from being written early.
        wait_stages[wait_count++] = VK_PIPELINE_STAGE_ALL_COMMANDS_BIT;
    }
    VkTimelineSemaphoreSubmitInfo ts{VK_STRUCTURE_TYPE_TIMELINE_SEMAPHORE_SUBMIT_INFO};
    ts.waitSemaphoreValueCount = wait_count;
    ts.pWaitSemaphoreValues = wait_values.data();
    VkSubmitInfo si{VK_STRUCTURE_TYPE_SUBMIT_INFO};
    if (wait_external) si.pNext = &ts;
    si.commandBufferCount = 1;
    si.pCommandBuffers = &f.cmd;
    si.waitSemaphoreCount = wait_count;
    si.pWaitSemaphores = waits.data();
    si.pWaitDstStageMask = wait_stages.data();
    if (window_) {
        si.signalSemaphoreCount = 1;
        si.pSignalSemaphores = &impl_->render_finished[image_index];
    }
    VK_CHECK(vkQueueSubmit(ctx_.queue(), 1, &si, f.fence));

    if (window_) {
        VkPresentInfoKHR pi{VK_STRUCTURE_TYPE_PRESENT_INFO_KHR};
        pi.waitSemaphoreCount = 1;
        pi.pWaitSemaphores = &impl_->render_finished[image_index];
        pi.swapchainCount = 1;
        const VkSwapchainKHR sc = impl_->swapchain->handle();
        pi.pSwapchains = &sc;
        pi.pImageIndices = &image_index;
        const VkResult r = vkQueuePresentKHR(ctx_.queue(), &pi);
        if (r == VK_ERROR_OUT_OF_DATE_KHR || r == VK_SUBOPTIMAL_KHR) impl_->needs_recreate = true;
        else VK_CHECK(r);
    }
    ++frame_number_;
    if (options_.frames > 0) fence_wait_ms_.push_back(waited_ms);
    return true;
}

namespace {

template <typename T>
double median_of(std::vector<T> v) {
    if (v.empty()) return 0.0;
    std::sort(v.begin(), v.end());
    return static_cast<double>(v[v.size() / 2]);
}

} // namespace

// The run's steady state: the first quarter of the frames (at least 10) are warm-up and left out.
void App::print_steady_state(const std::vector<float>& cpu_ms) const {
    const std::size_t skip = std::min(cpu_ms.size() - 1, std::max<std::size_t>(10, cpu_ms.size() / 4));
    const std::vector<float> cpu(cpu_ms.begin() + static_cast<std::ptrdiff_t>(skip), cpu_ms.end());
    const double cpu_median = median_of(cpu);
    std::fprintf(stderr, "Frame time (CPU, last %zu frames): median %.3f ms", cpu.size(), cpu_median);
    for (const auto& t : timers_->latest()) std::fprintf(stderr, "; %s %.3f ms", t.name.c_str(), t.ms);
    std::fprintf(stderr, "\n");
    const std::size_t waits_skip = std::min(fence_wait_ms_.size(), skip);
    const std::vector<float> waits(fence_wait_ms_.begin() + static_cast<std::ptrdiff_t>(waits_skip), fence_wait_ms_.end());
    const auto& spans = timers_->frame_spans();
    // Frames whose timestamps were read; the same warm-up share left out.
    const std::size_t span_skip = spans.empty() ? 0 : std::min(spans.size() - 1, std::max<std::size_t>(10, spans.size() / 4));
    std::vector<double> span, wait, period;
    for (std::size_t i = span_skip; i < spans.size(); ++i) {
        span.push_back(spans[i].span_ms);
        if (spans[i].wait_ms >= 0.0) wait.push_back(spans[i].wait_ms);
        if (i > 0) period.push_back(spans[i].end_ms - spans[i - 1].end_ms);
    }
    // frames/s from the mean, not the median: with frames in flight, fast and slow frames can
    // alternate (one that waits for a context switch, one that does not), and a median then
    // reports the fast ones only.
    double cpu_sum = 0.0;
    for (float t : cpu) cpu_sum += t;
    const double cpu_mean = cpu.empty() ? 0.0 : cpu_sum / double(cpu.size());
    std::fprintf(stderr, "Steady state over %zu frames: %.1f frames/s (CPU frame time mean %.3f ms, median %.3f ms; host blocked on the frame fence median %.3f ms)\n",
                 cpu.size(), cpu_mean > 0 ? 1000.0 / cpu_mean : 0.0, cpu_mean, cpu_median, median_of(waits));
    if (span.empty()) {
        std::fprintf(stderr, "Frame GPU time: not measured (%s)\n",
                     timers_->supported() ? "no frame's timestamps were available" : "this queue has no timestamps");
        return;
    }
    std::fprintf(stderr, "Frame GPU time (Vulkan queue, frame's first to last timestamp; median over %zu frames): %.4f ms", span.size(),
                 median_of(span));
    if (!wait.empty())
        std::fprintf(stderr, "; of which waiting for the outside (CUDA) work, its signal back included: %.4f ms", median_of(wait));
    std::fprintf(stderr, "; GPU frame period (end to end): %.4f ms\n", median_of(period));
}

std::string App::write_screenshot(const void* pixels, VkExtent2D extent, VkFormat format) const {
    return save_png(options_.screenshot, vk::pixels_to_image(pixels, extent, format));
}

int App::run() {
    int drawn = 0;
    std::vector<float> cpu_ms;  // every frame's CPU time when the run has a frame count
    auto last = std::chrono::steady_clock::now();
    bool finished_count = false;
    while (!close_requested_) {
        if (window_) {
            glfwPollEvents();
            if (glfwWindowShouldClose(window_->handle())) break;
        }
        const bool last_frame = options_.frames > 0 && drawn + 1 >= options_.frames;
        const bool capture = last_frame && !options_.screenshot.empty();
        if (!draw_frame(capture)) {
            if (window_) glfwWaitEventsTimeout(0.05);  // minimized or resizing: do not spin
            continue;
        }
        ++drawn;
        const auto now = std::chrono::steady_clock::now();
        const double ms = std::chrono::duration<double, std::milli>(now - last).count();
        last = now;
        frame_ms_ = frame_ms_ == 0.0 ? ms : frame_ms_ * 0.9 + ms * 0.1;
        if (history_.size() < kHistory) history_.push_back(static_cast<float>(ms));
        else history_[history_next_] = static_cast<float>(ms);
        history_next_ = (history_next_ + 1) % kHistory;
        if (options_.frames > 0) cpu_ms.push_back(static_cast<float>(ms));
        if (last_frame) {
            finished_count = true;
            break;
        }
    }
    wait_idle();
    // The fence of the last frames has signalled: read their timestamps before summarising.
    for (std::uint64_t i = 0; i < kFramesInFlight; ++i)  // oldest frame first, so the spans stay in frame order
        timers_->collect(static_cast<std::uint32_t>((frame_number_ + i) % kFramesInFlight));
    if (options_.frames > 0 && !cpu_ms.empty()) print_steady_state(cpu_ms);
    int rc = 0;
    if (finished_count && !options_.screenshot.empty()) {
        std::string error;
        if (window_) {
            error = impl_->captured ? write_screenshot(impl_->readback.mapped(), impl_->readback_extent, impl_->readback_format)
                                    : "the last frame was not captured";
        } else {
            error = save_png(options_.screenshot, impl_->offscreen->read_back());
        }
        if (!error.empty()) {
            std::fprintf(stderr, "tilelab: cannot write the screenshot: %s\n", error.c_str());
            rc = 1;
        } else {
            std::fprintf(stderr, "Screenshot written to %s (%d frames)\n", options_.screenshot.c_str(), drawn);
        }
    }
    return rc;
}

} // namespace tl
