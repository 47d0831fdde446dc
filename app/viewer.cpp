// Viewer element: image buffers, filter stage, viewport interaction and overlays, sidebar layout.
#include "viewer.hpp"

#include "image/image_io.hpp"
#include "interop/cuda_device.hpp"
#include "interop/shared_buffer.hpp"
#include "ui/panels.hpp"
#include "ui/theme.hpp"

#include <imgui.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>

namespace tl {

namespace {

constexpr VkDeviceSize kPitchAlignment = 256;  // TMA/LDGSTS want 16; 256 also suits copies

std::string filter_summary(const FilterState& f) {
    std::string label;
    for (const auto& info : filter_infos())
        if (info.kind == f.params.kind) label = std::string(info.label);
    char buf[96] = {};
    switch (f.params.kind) {
    case FilterKind::Box: std::snprintf(buf, sizeof(buf), "  r=%d", f.params.radius); break;
    case FilterKind::Gaussian: std::snprintf(buf, sizeof(buf), "  sigma=%.2f", static_cast<double>(f.params.sigma)); break;
    case FilterKind::Sharpen: std::snprintf(buf, sizeof(buf), "  amount=%.2f", static_cast<double>(f.params.amount)); break;
    case FilterKind::UserKernel: std::snprintf(buf, sizeof(buf), "  %dx%d", f.params.user_size, f.params.user_size); break;
    default: break;
    }
    std::string out = label + buf + "  |  " + std::string(to_string(f.border));
    if (f.ops_enabled && !f.ops.empty()) out += "  + " + std::to_string(f.ops.size()) + " op(s)";
    return out;
}

void buffer_barrier(VkCommandBuffer cmd, VkBuffer buffer, VkPipelineStageFlags src_stage, VkAccessFlags src_access,
                    VkPipelineStageFlags dst_stage, VkAccessFlags dst_access) {
    VkBufferMemoryBarrier b{VK_STRUCTURE_TYPE_BUFFER_MEMORY_BARRIER};
    b.srcAccessMask = src_access;
    b.dstAccessMask = dst_access;
    b.srcQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED;
    b.dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED;
    b.buffer = buffer;
    b.size = VK_WHOLE_SIZE;
    vkCmdPipelineBarrier(cmd, src_stage, dst_stage, 0, 0, nullptr, 1, &b, 0, nullptr);
}

// A small rounded label drawn over the image.
void chip(ImDrawList* dl, ImVec2 pos, const std::string& text, bool right_align, ImU32 accent) {
    const ImVec2 size = ImGui::CalcTextSize(text.c_str());
    const float pad = ImGui::GetFontSize() * 0.45f;
    if (right_align) pos.x -= size.x + 2.0f * pad;
    dl->AddRectFilled(pos, ImVec2(pos.x + size.x + 2.0f * pad, pos.y + size.y + 2.0f * pad), IM_COL32(18, 19, 23, 215),
                      pad);
    dl->AddRectFilled(pos, ImVec2(pos.x + pad * 0.5f, pos.y + size.y + 2.0f * pad), accent, pad * 0.25f);
    dl->AddText(ImVec2(pos.x + pad, pos.y + pad), IM_COL32(236, 236, 240, 255), text.c_str());
}

} // namespace

Viewer::Viewer(ViewerSetup setup) : setup_(std::move(setup)) {
    filter_state_.params = setup_.params;
    filter_state_.border = setup_.border;
    filter_state_.variant = setup_.variant;
    filter_state_.ops = setup_.ops;
    filter_state_.ops_enabled = !setup_.ops.empty();
    filter_state_.stage = setup_.stage;
    filter_state_.run_every_frame = setup_.every_frame || setup_.stage == StageKind::Copy;
    if (setup_.pixel_mechanism) filter_state_.pixel_mechanism = *setup_.pixel_mechanism;
    filter_state_.fuse = setup_.fuse;
    filter_state_.time_ops = setup_.time_ops;
    view_.mode = setup_.view;
    view_.gain = setup_.gain;
    view_.split = setup_.split;
    image_state_.gen_width = setup_.gen_width;
    image_state_.gen_height = setup_.gen_height;
    image_state_.seed = static_cast<int>(setup_.seed);
    if (setup_.generator) image_state_.generator = *setup_.generator;
}

Viewer::~Viewer() = default;

void Viewer::on_attach(App& app) {
    app_ = &app;
    const auto& ctx = app.context();
    filters_ = std::make_unique<vk::ComputeFilters>(ctx);
    display_ = std::make_unique<vk::DisplayPass>(ctx, app.render_pass());
    for (auto& p : probe_)
        p = vk::Buffer(ctx, 4, VK_BUFFER_USAGE_TRANSFER_DST_BIT,
                       VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT);
    filter_state_.cuda_reason = setup_.interop.reason;
    if (setup_.interop.usable) {
        std::string why;
        cuda_ = CudaStage::create(ctx, &why);
        if (!cuda_) {
            filter_state_.cuda_reason = why;
            std::fprintf(stderr, "tilelab: %s; filters run as Vulkan compute shaders\n", why.c_str());
        }
    }
    filter_state_.cuda_usable = cuda_ != nullptr;
    choose_start_mechanism();

    if (setup_.image) {
        const std::string error = load(*setup_.image);
        if (!error.empty()) {
            std::fprintf(stderr, "tilelab: %s; showing the default image instead\n", error.c_str());
            const std::string keep = image_state_.message;
            load_default_image();
            image_state_.message = keep + " - showing the default image instead";
            image_state_.message_is_error = true;
        }
    } else if (setup_.generator) {
        generate();
        if (!has_image()) {  // refused (too large for this device): say so and still show something
            const std::string keep = image_state_.message;
            load_default_image();
            image_state_.message = keep;
            image_state_.message_is_error = true;
        }
    } else {
        load_default_image();
    }
    apply_path_change();
}

void Viewer::choose_start_mechanism() {
    const auto infos = cuda::mechanism_infos();
    auto index_of = [&](cuda::Mechanism m) {
        for (std::size_t i = 0; i < infos.size(); ++i)
            if (infos[i].mechanism == m) return static_cast<int>(i);
        return -1;
    };
    const std::string& asked = setup_.mechanism;
    filter_state_.mechanism = -1;
    if (const auto m = cuda::parse_mechanism(asked)) {
        if (cuda_) {
            const cuda::Result can = cuda::can_run(*m, filter_state_.params, PixelFormat::RGBA8, filter_state_.policy);
            if (!can)
                std::fprintf(stderr, "tilelab: --mechanism %s: %s (selected anyway; each frame shows the original)\n",
                             asked.c_str(), can.reason.c_str());
            filter_state_.mechanism = index_of(*m);
        } else {
            std::fprintf(stderr, "tilelab: --mechanism %s needs CUDA (%s); using %s\n", asked.c_str(),
                         filter_state_.cuda_reason.c_str(), std::string(vk::to_string(filter_state_.variant)).c_str());
        }
    } else if (asked.empty() && cuda_) {
        // The best mechanism this GPU runs for the start filter: `registers` for the 3x3 filters on
        // RGBA8 (the fastest path for each of them in the README's H100 and H200 benches), then the
        // table's most capable first.
        for (const auto pick : {cuda::Mechanism::Registers, cuda::Mechanism::Tma, cuda::Mechanism::Ldgsts,
                                cuda::Mechanism::Smem, cuda::Mechanism::Global})
            if (filter_state_.mechanism < 0 && cuda::can_run(pick, filter_state_.params, PixelFormat::RGBA8, filter_state_.policy))
                filter_state_.mechanism = index_of(pick);
    }
    if (const auto a = cuda::parse_mechanism(setup_.mechanism_a)) {
        if (filter_state_.mechanism >= 0) filter_state_.mechanism_a = index_of(*a);
        else std::fprintf(stderr, "tilelab: --mechanism-a %s needs the CUDA path; the A side shows the original\n", setup_.mechanism_a.c_str());
    }
    if (filter_state_.mechanism >= 0) {
        filter_state_.run_every_frame = true;  // live CUDA timings in the Stats panel
        std::fprintf(stderr, "Filter path: CUDA %s%s%s\n", std::string(infos[static_cast<std::size_t>(filter_state_.mechanism)].name).c_str(),
                     filter_state_.mechanism_a >= 0 ? ", A side: CUDA " : "",
                     filter_state_.mechanism_a >= 0 ? std::string(infos[static_cast<std::size_t>(filter_state_.mechanism_a)].name).c_str() : "");
    } else {
        std::fprintf(stderr, "Filter path: Vulkan compute (%s)\n", std::string(vk::to_string(filter_state_.variant)).c_str());
    }
}

void Viewer::apply_path_change() {
    const bool path = cuda_path();
    const int a = path ? filter_state_.mechanism_a : -1;
    if (path == bound_cuda_path_ && a == bound_mechanism_a_) return;
    // Descriptor sets and buffers in use by frames in flight (either API) must not change under them.
    if (app_) app_->wait_idle();
    if (cuda_) cuda_->synchronize();
    bound_cuda_path_ = path;
    bound_mechanism_a_ = a;
    bind_display();
    filter_dirty_ = true;
}

void Viewer::bind_display() {
    if (!has_image()) return;
    if (!cuda_) {
        display_->set_images(source_buffer(), filtered_buffer(), image_.width, image_.height, pitch_);
        return;
    }
    // One set per CUDA output buffer; on_render picks the one the last run wrote.
    for (int i = 0; i < CudaStage::kOutputs; ++i)
        display_->set_images(static_cast<std::uint32_t>(i), bound_mechanism_a_ >= 0 ? cuda_->second(i) : cuda_->source(),
                             cuda_->filtered(i), image_.width, image_.height, pitch_);
}

VkSemaphore Viewer::external_timeline() { return cuda_path() ? cuda_->timeline() : VK_NULL_HANDLE; }

std::uint64_t Viewer::on_external(std::uint32_t) {
    if (!cuda_path()) return 0;
    // Not re-run this frame: the frame shows the last output again; waiting for its (long since
    // reached) value orders this frame's reads after the run that wrote it.
    if (!cuda_pending_) return cuda_->latest_value();
    cuda_pending_ = false;
    CudaStage::Job job;
    job.params = filter_state_.params;
    job.border = filter_state_.border;
    job.mechanism = cuda::mechanism_infos()[static_cast<std::size_t>(filter_state_.mechanism)].mechanism;
    job.policy = filter_state_.policy;
    if (filter_state_.mechanism_a >= 0)
        job.second = cuda::mechanism_infos()[static_cast<std::size_t>(filter_state_.mechanism_a)].mechanism;
    if (filter_state_.ops_enabled) job.ops = filter_state_.ops;
    job.pixel_mechanism = filter_state_.pixel_mechanism;
    job.pixel_policy = filter_state_.pixel_policy;
    job.fuse = filter_state_.fuse;
    job.histogram = filter_state_.histogram;
    job.time_ops = filter_state_.time_ops;
    job.copy_only = filter_state_.stage == StageKind::Copy;
    std::string status;
    std::string why = job.copy_only ? std::string() : validate(job.params);
    if (!why.empty()) {
        status = "Filter not run: " + why + ".";
        // Still run (a refused launch copies the source) so the frame has an output to wait for.
        job.mechanism = cuda::Mechanism::Global;
    }
    const std::uint64_t value = cuda_->enqueue(job, why);
    // Diagnostic only: the render part is then submitted with its wait already satisfied.
    if (setup_.diag_host_sync) cuda_->synchronize();
    if (status.empty()) status = why;
    if (!status.empty() && status != filter_state_.status) std::fprintf(stderr, "tilelab: %s\n", status.c_str());
    filter_state_.status = status;
    ++filter_state_.runs;
    filter_dirty_ = false;
    // Not enqueued: show the previous output (its value is reached or about to be).
    return value ? value : cuda_->latest_value();
}

void Viewer::on_detach() {
    if (app_) vkDeviceWaitIdle(app_->context().device());  // no throw on the way out
    if (cuda_) {
        cuda_->synchronize();
        if (filter_state_.runs > 0 && cuda_->enqueue_host_median_ms() > 0.0)
            std::fprintf(stderr, "CUDA stage enqueue (host, launch calls only): median %.3f ms\n", cuda_->enqueue_host_median_ms());
        for (const auto& t : cuda_->timings())
            if (!t.history.empty())
                std::fprintf(stderr, "%s: median %.3f ms, p95 %.3f ms, %.1f GB/s (%.0f%% of the device copy) over %zu frames\n",
                             t.name.c_str(), static_cast<double>(t.median_ms), static_cast<double>(t.p95_ms), t.gbps,
                             t.pct_of_copy, t.history.size());
    }
    cuda_.reset();
    filters_.reset();
    display_.reset();
    source_ = vk::Buffer();
    filtered_ = vk::Buffer();
    for (auto& p : probe_) p = vk::Buffer();
}

void Viewer::load_default_image() {
    const auto path = setup_.asset_dir / "astronaut.png";
    auto result = load_image(path);
    if (result.image && set_image(std::move(*result.image), "astronaut.png")) return;
    const std::string why = (result.image ? "default image refused: " + image_state_.message
                                          : "default image not found (" + result.error + ")") + "; showing the zone plate";
    std::fprintf(stderr, "tilelab: %s\n", why.c_str());
    set_image(generate_image(Generator::ZonePlate, 1024, 1024, 1), "zone plate (built in)");
    image_state_.message = why;
    image_state_.message_is_error = true;
}

std::string Viewer::load(const std::filesystem::path& path) {
    auto result = load_image(path);
    if (!result.image) {
        image_state_.message = result.error;
        image_state_.message_is_error = true;
        return result.error;
    }
    if (!set_image(std::move(*result.image), path.filename().string())) return image_state_.message;
    image_state_.message = "loaded " + path.string();
    image_state_.message_is_error = false;
    return {};
}

void Viewer::generate() {
    const int w = image_state_.gen_width, h = image_state_.gen_height;
    const std::string why = validate_image_size(w, h);
    if (!why.empty()) {
        image_state_.message = why;
        image_state_.message_is_error = true;
        return;
    }
    const auto seed = static_cast<std::uint32_t>(image_state_.seed);
    Image img = generate_image(image_state_.generator, w, h, seed);
    if (img.empty()) {
        image_state_.message = "the generator returned no image for " + std::to_string(w) + " x " + std::to_string(h);
        image_state_.message_is_error = true;
        return;
    }
    std::string label;
    for (const auto& g : generator_infos())
        if (g.generator == image_state_.generator) label = std::string(g.label);
    if (image_state_.generator == Generator::Noise) label += " (seed " + std::to_string(seed) + ")";
    if (!set_image(std::move(img), label)) return;
    image_state_.message = "generated " + std::to_string(w) + " x " + std::to_string(h);
    image_state_.message_is_error = false;
}

bool Viewer::set_image(Image image, std::string label) {
    const auto& ctx = app_->context();
    app_->wait_idle();  // the frames in flight may still read the old buffers
    const VkDeviceSize row = static_cast<VkDeviceSize>(image.width) * 4;
    // Shared buffers use the interop pitch (rows on 128-byte lines, what CUDA's TMA and LDGSTS need).
    const VkDeviceSize pitch = cuda_ ? static_cast<VkDeviceSize>(interop::shared_pitch(image.width, 4))
                                     : (row + kPitchAlignment - 1) / kPitchAlignment * kPitchAlignment;
    const VkDeviceSize bytes = pitch * static_cast<VkDeviceSize>(image.height);
    const VkBufferUsageFlags usage =
        VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT;
    const VkDeviceSize limit = ctx.properties().limits.maxStorageBufferRange;
    if (bytes > limit) {
        image_state_.message = label + " (" + std::to_string(image.width) + " x " + std::to_string(image.height) +
                               ") needs " + std::to_string(bytes >> 20) + " MiB per buffer; this device's storage buffers hold at most " +
                               std::to_string(limit >> 20) + " MiB. The current image stays.";
        image_state_.message_is_error = true;
        std::fprintf(stderr, "tilelab: %s\n", image_state_.message.c_str());
        return false;
    }
    // New buffers are made before the old ones go, so a failure (out of memory for an 8K image on
    // a small GPU) leaves the current image on screen and says why.
    vk::Buffer source, filtered;
    try {
        vk::Buffer staging(ctx, bytes, VK_BUFFER_USAGE_TRANSFER_SRC_BIT,
                           VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT);
        auto* dst = static_cast<std::uint8_t*>(staging.mapped());
        for (int y = 0; y < image.height; ++y)
            std::memcpy(dst + static_cast<std::size_t>(y) * pitch, image.rgba8(0, y), static_cast<std::size_t>(row));
        std::vector<VkBuffer> targets;
        if (cuda_) {
            cuda_->allocate(image.width, image.height);  // waits for both APIs; new buffers before the old go
            targets = {cuda_->source()};
            for (int i = 0; i < CudaStage::kOutputs; ++i) {
                targets.push_back(cuda_->filtered(i));
                targets.push_back(cuda_->second(i));
            }
        } else {
            source = vk::Buffer(ctx, bytes, usage, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT);
            filtered = vk::Buffer(ctx, bytes, usage, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT);
            targets = {source.handle(), filtered.handle()};
        }
        ctx.one_shot([&](VkCommandBuffer cmd) {
            const VkBufferCopy region{0, 0, bytes};
            for (VkBuffer b : targets) vkCmdCopyBuffer(cmd, staging.handle(), b, 1, &region);  // filtered: until the filter runs
            for (VkBuffer b : targets)
                buffer_barrier(cmd, b, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT,
                               VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_FRAGMENT_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT,
                               VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_READ_BIT);
            if (cuda_) cuda_->record_source_image_update(cmd);  // the texture mechanism's shared image
        });
    } catch (const std::exception& e) {
        image_state_.message = "cannot show " + label + " (" + std::to_string(image.width) + " x " +
                               std::to_string(image.height) + "): " + e.what();
        image_state_.message_is_error = true;
        std::fprintf(stderr, "tilelab: %s\n", image_state_.message.c_str());
        return false;
    }
    source_ = std::move(source);
    filtered_ = std::move(filtered);
    pitch_ = pitch;
    image_state_.label = std::move(label);
    image_state_.width = image.width;
    image_state_.height = image.height;
    image_ = std::move(image);
    bind_display();
    for (auto& p : probe_at_) p.reset();
    inspector_ = {};
    filter_dirty_ = true;
    view_.fit_requested = true;
    return true;
}

void Viewer::on_file_drop(const std::vector<std::string>& paths) {
    if (paths.empty()) return;
    const std::string error = load(paths.front());
    if (error.empty()) {
        std::snprintf(image_state_.path_input.data(), image_state_.path_input.size(), "%s", paths.front().c_str());
    }
}

void Viewer::on_resize(VkExtent2D extent) { layout_viewport(extent); }

void Viewer::layout_viewport(VkExtent2D extent) {
    // Controls on the left, measurements on the right, the image in the middle (largest part).
    const float scale = app_ ? app_->options().ui_scale : 1.0f;
    const float w = static_cast<float>(extent.width);
    // Narrow windows get one sidebar holding every panel, so the image keeps most of the width.
    const bool two_columns = w >= 1150.0f * scale;
    sidebar_width_ = std::floor(std::min(430.0f * scale, w * (two_columns ? 0.32f : 0.42f)));
    right_width_ = two_columns ? std::floor(std::min(400.0f * scale, w * 0.28f)) : 0.0f;
    const auto x = static_cast<std::uint32_t>(sidebar_width_);
    const auto used = x + static_cast<std::uint32_t>(right_width_);
    view_.rect = {{static_cast<std::int32_t>(x), 0}, {extent.width > used ? extent.width - used : 0u, extent.height}};
}

void Viewer::fit_view() {
    if (image_.empty() || view_.rect.extent.width == 0 || view_.rect.extent.height == 0) return;
    const float rw = static_cast<float>(view_.rect.extent.width), rh = static_cast<float>(view_.rect.extent.height);
    view_.zoom = std::min(rw / static_cast<float>(image_.width), rh / static_cast<float>(image_.height)) * 0.92f;
    view_.center[0] = static_cast<float>(image_.width) * 0.5f;
    view_.center[1] = static_cast<float>(image_.height) * 0.5f;
    view_.fit_requested = false;
}

void Viewer::on_ui() {
    const ImGuiIO& io = ImGui::GetIO();
    layout_viewport({static_cast<std::uint32_t>(io.DisplaySize.x), static_cast<std::uint32_t>(io.DisplaySize.y)});
    if (view_.fit_requested) fit_view();

    PanelActions actions;
    ImGui::SetNextWindowPos(ImVec2(0, 0));
    ImGui::SetNextWindowSize(ImVec2(sidebar_width_, io.DisplaySize.y));
    const ImGuiWindowFlags sidebar_flags =
        ImGuiWindowFlags_NoMove | ImGuiWindowFlags_NoResize | ImGuiWindowFlags_NoCollapse | ImGuiWindowFlags_NoSavedSettings;
    const std::string title = "tilelab  |  " + std::string(app_->context().properties().deviceName) + "###sidebar";
    auto performance_panels = [&] {
        if (ImGui::CollapsingHeader("Stats", ImGuiTreeNodeFlags_DefaultOpen)) {
            ui::StatsInput in;
            in.frame_ms = app_->frame_ms();
            in.frame_history = app_->frame_history();
            in.gpu = &app_->timers().latest();
            in.gpu_timers_supported = app_->timers().supported();
            in.device = app_->context().device_description();
            in.present_mode = app_->present_mode();
            in.validation = app_->context().validation_enabled();
            in.validation_messages = app_->context().validation_messages();
            in.filter_runs = filter_state_.runs;
            in.pass_history = &pass_history_;
            if (const auto& spans = app_->timers().frame_spans(); !spans.empty()) {
                in.frame_gpu_ms = spans.back().span_ms;
                in.external_wait_ms = spans.back().wait_ms;
            }
            if (cuda_) {
                in.cuda = &cuda_->timings();
                in.copy_gbps = cuda_->copy_gbps();
            }
            ui::stats_panel(in);
        }
        if (ImGui::CollapsingHeader("Mechanism", ImGuiTreeNodeFlags_DefaultOpen)) ui::mechanism_panel(filter_state_, actions);
        if (ImGui::CollapsingHeader("Interop")) {
            const auto& ctx = app_->context();
            ui::InteropInput in;
            in.decision = &setup_.interop;
            in.vk_name = ctx.properties().deviceName;
            in.vk_uuid = interop::format_uuid(ctx.device_uuid());
            const std::uint32_t dv = ctx.properties().driverVersion;
            in.vk_driver = std::to_string(dv >> 22) + "." + std::to_string((dv >> 14) & 0xff) + " (raw " + std::to_string(dv) + ")";
            in.timeline_value = cuda_ ? cuda_->timeline_value() : 0;
            in.validation = ctx.validation_enabled();
            if (cuda_)
                in.texture_source = cuda_->source_image_status().empty()
                                        ? "shared optimal-tiled image, sampled in place (no copy)"
                                        : cuda_->source_image_status();
            ui::interop_panel(in);
        }
    };
    if (ImGui::Begin(title.c_str(), nullptr, sidebar_flags)) {
        if (ImGui::CollapsingHeader("Image", ImGuiTreeNodeFlags_DefaultOpen)) ui::image_panel(image_state_, actions);
        if (ImGui::CollapsingHeader("Filter", ImGuiTreeNodeFlags_DefaultOpen)) ui::filter_panel(filter_state_, actions);
        if (ImGui::CollapsingHeader("Processing", ImGuiTreeNodeFlags_DefaultOpen)) {
            ui::ProcessingInput in;
            in.cuda_path = cuda_path();
            if (cuda_) in.histogram = &cuda_->histogram();
            ui::processing_panel(filter_state_, in, actions);
        }
        if (ImGui::CollapsingHeader("View", ImGuiTreeNodeFlags_DefaultOpen)) ui::view_panel(view_);
        if (right_width_ <= 0.0f) performance_panels();
    }
    ImGui::End();

    if (right_width_ > 0.0f) {
        ImGui::SetNextWindowPos(ImVec2(io.DisplaySize.x - right_width_, 0));
        ImGui::SetNextWindowSize(ImVec2(right_width_, io.DisplaySize.y));
        if (ImGui::Begin("Performance###performance", nullptr, sidebar_flags)) performance_panels();
        ImGui::End();
    }
    viewport_window();

    if (actions.load_path) {
        const std::string path(image_state_.path_input.data());
        if (path.empty()) {
            image_state_.message = "type a file path first";
            image_state_.message_is_error = true;
        } else {
            load(path);
        }
    }
    if (actions.generate) generate();
    if (actions.filter_changed) {
        filter_dirty_ = true;
        if (cuda_) cuda_->reset_timings();  // medians of one mechanism and one set of parameters only
    }
    apply_path_change();

    // Presenter keys (when no text field has focus). ImGui 1.86 indexes keys by the GLFW key code,
    // which for digits and letters is the ASCII code.
    if (!io.WantTextInput) {
        for (int i = 0; i < 4; ++i)
            if (ImGui::IsKeyPressed('1' + i, false)) view_.mode = static_cast<vk::ViewMode>(i);
        if (ImGui::IsKeyPressed('F', false)) view_.fit_requested = true;
        if (ImGui::IsKeyPressed('0', false)) view_.zoom = 1.0f;
    }
    if (view_.fit_requested) fit_view();
}

void Viewer::viewport_window() {
    const ImGuiIO& io = ImGui::GetIO();
    const VkRect2D& r = view_.rect;
    if (r.extent.width == 0 || r.extent.height == 0) return;
    const ImVec2 origin(static_cast<float>(r.offset.x), static_cast<float>(r.offset.y));
    const ImVec2 size(static_cast<float>(r.extent.width), static_cast<float>(r.extent.height));
    ImGui::SetNextWindowPos(origin);
    ImGui::SetNextWindowSize(size);
    ImGui::PushStyleVar(ImGuiStyleVar_WindowPadding, ImVec2(0, 0));
    const ImGuiWindowFlags flags = ImGuiWindowFlags_NoDecoration | ImGuiWindowFlags_NoBackground | ImGuiWindowFlags_NoMove |
                                   ImGuiWindowFlags_NoSavedSettings | ImGuiWindowFlags_NoBringToFrontOnFocus |
                                   ImGuiWindowFlags_NoScrollWithMouse | ImGuiWindowFlags_NoNav;
    ImGui::Begin("##viewport", nullptr, flags);
    ImGui::PopStyleVar();
    ImGui::InvisibleButton("canvas", size, ImGuiButtonFlags_MouseButtonLeft);
    const bool hovered = ImGui::IsItemHovered();
    const bool active = ImGui::IsItemActive();
    const ImVec2 mouse = io.MousePos;
    const ImVec2 view_center(origin.x + size.x * 0.5f, origin.y + size.y * 0.5f);
    auto to_image = [&](ImVec2 p) {
        return ImVec2(view_.center[0] + (p.x - view_center.x) / view_.zoom, view_.center[1] + (p.y - view_center.y) / view_.zoom);
    };
    const float divider_x = origin.x + view_.split * size.x;
    const float grab = ImGui::GetFontSize() * 0.5f;
    const bool near_divider = view_.mode == vk::ViewMode::Split && std::fabs(mouse.x - divider_x) < grab;

    if (hovered && io.MouseWheel != 0.0f) {
        const ImVec2 before = to_image(mouse);
        view_.zoom = std::clamp(view_.zoom * std::pow(1.2f, io.MouseWheel), 0.01f, 64.0f);
        view_.center[0] = before.x - (mouse.x - view_center.x) / view_.zoom;
        view_.center[1] = before.y - (mouse.y - view_center.y) / view_.zoom;
    }
    if (ImGui::IsItemActivated()) dragging_divider_ = near_divider;
    if (active) {
        if (dragging_divider_) {
            view_.split = std::clamp((mouse.x - origin.x) / size.x, 0.0f, 1.0f);
        } else {
            view_.center[0] -= io.MouseDelta.x / view_.zoom;
            view_.center[1] -= io.MouseDelta.y / view_.zoom;
        }
    } else {
        dragging_divider_ = false;
    }
    if ((hovered && near_divider) || dragging_divider_) ImGui::SetMouseCursor(ImGuiMouseCursor_ResizeEW);
    else if (active) ImGui::SetMouseCursor(ImGuiMouseCursor_Hand);

    // Inspector: the hovered pixel's input (host copy) and output (read back from the GPU).
    const ImVec2 img = to_image(mouse);
    const int px = static_cast<int>(std::floor(img.x)), py = static_cast<int>(std::floor(img.y));
    const bool inside = hovered && !image_.empty() && px >= 0 && py >= 0 && px < image_.width && py < image_.height;
    if (inside) {
        if (!inspector_.active || inspector_.x != px || inspector_.y != py) inspector_.output_valid = false;
        inspector_.active = true;
        inspector_.x = px;
        inspector_.y = py;
        std::memcpy(inspector_.input.data(), image_.rgba8(px, py), 4);
    } else {
        inspector_.active = false;
    }

    // Overlays
    ImDrawList* dl = ImGui::GetWindowDrawList();
    const float pad = ImGui::GetFontSize() * 0.8f;
    const ImU32 amber = IM_COL32(246, 183, 63, 255), blue = IM_COL32(90, 150, 235, 255), red = IM_COL32(235, 90, 80, 255);
    const std::string filtered_label =
        filter_state_.stage == StageKind::Copy ? "plain copy (interop measurement)" : filter_summary(filter_state_);
    const std::string path_label =
        cuda_path() ? "CUDA " + std::string(cuda::mechanism_infos()[static_cast<std::size_t>(filter_state_.mechanism)].name) + "  "
                    : std::string(vk::to_string(filter_state_.variant)) + "  ";
    switch (view_.mode) {
    case vk::ViewMode::Original: chip(dl, ImVec2(origin.x + pad, origin.y + pad), "Original", false, blue); break;
    case vk::ViewMode::Filtered: chip(dl, ImVec2(origin.x + pad, origin.y + pad), "Filtered  " + filtered_label, false, amber); break;
    case vk::ViewMode::Split: {
        const std::string a_label = bound_mechanism_a_ >= 0
            ? "A  CUDA " + std::string(cuda::mechanism_infos()[static_cast<std::size_t>(bound_mechanism_a_)].name)
            : "A  Original";
        chip(dl, ImVec2(origin.x + pad, origin.y + pad), a_label, false, blue);
        chip(dl, ImVec2(origin.x + size.x - pad, origin.y + pad), "B  " + path_label + filtered_label, true, amber);
        const float handle = ImGui::GetFontSize() * 0.9f;
        const ImVec2 c(divider_x, origin.y + size.y * 0.5f);
        dl->AddCircleFilled(c, handle, IM_COL32(245, 245, 245, 235));
        dl->AddTriangleFilled(ImVec2(c.x - handle * 0.25f, c.y - handle * 0.4f), ImVec2(c.x - handle * 0.25f, c.y + handle * 0.4f),
                              ImVec2(c.x - handle * 0.7f, c.y), IM_COL32(30, 30, 36, 255));
        dl->AddTriangleFilled(ImVec2(c.x + handle * 0.25f, c.y - handle * 0.4f), ImVec2(c.x + handle * 0.7f, c.y),
                              ImVec2(c.x + handle * 0.25f, c.y + handle * 0.4f), IM_COL32(30, 30, 36, 255));
        break;
    }
    case vk::ViewMode::Diff: {
        char g[32];
        std::snprintf(g, sizeof(g), "  gain x%.1f", static_cast<double>(view_.gain));
        const std::string versus = bound_mechanism_a_ >= 0
            ? "A = CUDA " + std::string(cuda::mechanism_infos()[static_cast<std::size_t>(bound_mechanism_a_)].name) + ", B = "
            : "";
        chip(dl, ImVec2(origin.x + pad, origin.y + pad), "|B - A|  " + versus + path_label + filtered_label + g, false, red);
        break;
    }
    }
    char zoom_text[64];
    std::snprintf(zoom_text, sizeof(zoom_text), "%d x %d   %.0f%%", image_.width, image_.height,
                  static_cast<double>(view_.zoom * 100.0f));
    ImGui::PushFont(ui::mono_font());
    chip(dl, ImVec2(origin.x + size.x - pad, origin.y + size.y - pad - ImGui::GetFontSize() * 1.9f), zoom_text, true,
         IM_COL32(120, 120, 130, 255));
    if (inspector_.active && view_.zoom >= 4.0f) {  // outline the inspected pixel when it is big enough to see
        const ImVec2 p0(view_center.x + (static_cast<float>(inspector_.x) - view_.center[0]) * view_.zoom,
                        view_center.y + (static_cast<float>(inspector_.y) - view_.center[1]) * view_.zoom);
        dl->AddRect(p0, ImVec2(p0.x + view_.zoom, p0.y + view_.zoom), IM_COL32(246, 183, 63, 255), 0.0f, 0, 2.0f);
    }
    if (inspector_.active) {
        const auto& in = inspector_.input;
        const auto& out = inspector_.output;
        char line1[64], line2[64], line3[64];
        std::snprintf(line1, sizeof(line1), "x %-5d y %-5d", inspector_.x, inspector_.y);
        std::snprintf(line2, sizeof(line2), "in   %3d %3d %3d %3d", in[0], in[1], in[2], in[3]);
        if (inspector_.output_valid) std::snprintf(line3, sizeof(line3), "out  %3d %3d %3d %3d", out[0], out[1], out[2], out[3]);
        else std::snprintf(line3, sizeof(line3), "out  ...");
        const float lh = ImGui::GetTextLineHeightWithSpacing();
        const ImVec2 text_size = ImGui::CalcTextSize(line2);
        const float sw = lh * 0.8f;
        const ImVec2 p0(origin.x + pad, origin.y + size.y - pad - 3.0f * lh - pad);
        const ImVec2 p1(p0.x + text_size.x + sw + 3.0f * pad, origin.y + size.y - pad);
        dl->AddRectFilled(p0, p1, IM_COL32(18, 19, 23, 225), pad * 0.5f);
        const float tx = p0.x + pad;
        float ty = p0.y + pad * 0.5f;
        dl->AddText(ImVec2(tx, ty), IM_COL32(200, 200, 205, 255), line1);
        ty += lh;
        dl->AddRectFilled(ImVec2(tx, ty + 2), ImVec2(tx + sw, ty + sw), IM_COL32(in[0], in[1], in[2], 255));
        dl->AddText(ImVec2(tx + sw + pad * 0.6f, ty), IM_COL32(236, 236, 240, 255), line2);
        ty += lh;
        if (inspector_.output_valid)
            dl->AddRectFilled(ImVec2(tx, ty + 2), ImVec2(tx + sw, ty + sw), IM_COL32(out[0], out[1], out[2], 255));
        dl->AddText(ImVec2(tx + sw + pad * 0.6f, ty), IM_COL32(236, 236, 240, 255), line3);
    } else {
        chip(dl, ImVec2(origin.x + pad, origin.y + size.y - pad - ImGui::GetFontSize() * 1.9f),
             "hover to inspect a pixel", false, IM_COL32(120, 120, 130, 255));
    }
    ImGui::PopFont();
    ImGui::End();
}

void Viewer::record_filter_stage(const FrameInfo& frame) {
    const VkCommandBuffer cmd = frame.cmd;
    const auto fmt = PixelFormat::RGBA8;
    const bool copy_only = filter_state_.stage == StageKind::Copy;
    const std::string scope = copy_only ? "Copy (Vulkan)" : "Filter " + std::string(vk::to_string(filter_state_.variant));
    frame.timers->begin(cmd, frame.slot, scope);
    // Earlier frames' display pass and probe copies read `filtered_`: let them finish first.
    buffer_barrier(cmd, filtered_buffer(), VK_PIPELINE_STAGE_FRAGMENT_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT,
                   VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_TRANSFER_READ_BIT,
                   VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT,
                   VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_TRANSFER_WRITE_BIT);
    if (copy_only) {
        // The interop measurement's Vulkan-only side: the same bytes the CUDA stage's
        // cudaMemcpyAsync moves (the whole buffer, padding included).
        const VkBufferCopy region{0, 0, pitch_ * static_cast<VkDeviceSize>(image_.height)};
        vkCmdCopyBuffer(cmd, source_buffer(), filtered_buffer(), 1, &region);
        buffer_barrier(cmd, filtered_buffer(), VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT,
                       VK_PIPELINE_STAGE_FRAGMENT_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT,
                       VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_TRANSFER_READ_BIT);
        frame.timers->end(cmd, frame.slot);
        filter_state_.status.clear();
        ++filter_state_.runs;
        filter_dirty_ = false;
        return;
    }
    std::string why = validate(filter_state_.params);
    if (why.empty()) why = filters_->can_run(filter_state_.params, fmt);
    if (why.empty()) why = filters_->check_image(image_.width, image_.height, pitch_, fmt);
    const bool use_ops = filter_state_.ops_enabled && !filter_state_.ops.empty();
    if (why.empty() && use_ops) {
        for (const auto& op : filter_state_.ops)
            if (why.empty()) why = validate(op);
        if (why.empty()) why = filters_->can_run_pixel_ops(filter_state_.ops, fmt);
    }
    if (why.empty()) {
        try {
            filters_->record(cmd, filter_state_.params, filter_state_.border, filter_state_.variant, source_buffer(),
                             filtered_buffer(), image_.width, image_.height, pitch_, fmt);
            if (use_ops) {
                frame.timers->end(cmd, frame.slot);  // the filter's own time; the chain gets its own scope
                frame.timers->begin(cmd, frame.slot, "Op chain (Vulkan)");
                buffer_barrier(cmd, filtered_buffer(), VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_WRITE_BIT,
                               VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT);
                filters_->record_pixel_ops(cmd, filter_state_.ops, filtered_buffer(), filtered_buffer(), image_.width,
                                           image_.height, pitch_, fmt);
            }
        } catch (const vk::Error& e) {
            why = e.what();  // a refusal the checks above did not foresee: fall back below
            buffer_barrier(cmd, filtered_buffer(), VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_WRITE_BIT,
                           VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT);
        }
        if (why.empty()) filter_state_.status.clear();
    }
    if (!why.empty()) {
        // Show the original on both sides rather than stale or garbage pixels, and say why.
        const VkBufferCopy region{0, 0, pitch_ * static_cast<VkDeviceSize>(image_.height)};
        vkCmdCopyBuffer(cmd, source_buffer(), filtered_buffer(), 1, &region);
        filter_state_.status = "Filter not run: " + why + ". Showing the original on both sides.";
    }
    buffer_barrier(cmd, filtered_buffer(), VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT,
                   VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_WRITE_BIT,
                   VK_PIPELINE_STAGE_FRAGMENT_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT,
                   VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_TRANSFER_READ_BIT);
    frame.timers->end(cmd, frame.slot);
    ++filter_state_.runs;
    filter_dirty_ = false;
}

void Viewer::on_prepare(const FrameInfo& frame) {
    if (!has_image()) return;
    if (filter_dirty_ || filter_state_.run_every_frame) {
        if (cuda_path()) cuda_pending_ = true;  // enqueued in on_external, after this submit
        else record_filter_stage(frame);
    }
}

void Viewer::on_after_render(const FrameInfo& frame) {
    probe_at_[frame.slot].reset();
    if (!has_image() || !inspector_.active) return;
    // After the display pass, in the submit that waited for this frame's output: the probe reads
    // what the frame showed, and the frame's fence covers the read before that buffer is rewritten.
    const VkBufferCopy region{static_cast<VkDeviceSize>(inspector_.y) * pitch_ + static_cast<VkDeviceSize>(inspector_.x) * 4, 0, 4};
    vkCmdCopyBuffer(frame.cmd, filtered_buffer(), probe_[frame.slot].handle(), 1, &region);
    buffer_barrier(frame.cmd, probe_[frame.slot].handle(), VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT,
                   VK_PIPELINE_STAGE_HOST_BIT, VK_ACCESS_HOST_READ_BIT);
    probe_at_[frame.slot] = std::array<int, 2>{inspector_.x, inspector_.y};
}

void Viewer::on_frame_done(std::uint32_t slot) {
    if (app_) {
        for (const auto& t : app_->timers().latest()) {
            // A filter that ran once keeps its last time in latest(): plot only measurements.
            const bool stage_scope = t.name.rfind("Filter", 0) == 0 || t.name.rfind("Copy", 0) == 0 || t.name.rfind("Op chain", 0) == 0;
            if (stage_scope && !filter_state_.run_every_frame) continue;
            auto& h = pass_history_[t.name];
            if (h.size() >= CudaStage::kHistory) h.erase(h.begin());
            h.push_back(static_cast<float>(t.ms));
        }
    }
    if (cuda_) {
        cuda_->collect_timings();
        const auto& b = cuda_->timings().front();
        if (!reported_cuda_run_ && !b.history.empty()) {
            reported_cuda_run_ = true;
            std::fprintf(stderr, "CUDA path ran: %s, %.3f ms on the CUDA stream\n",
                         std::string(cuda::mechanism_infos()[static_cast<std::size_t>(std::max(filter_state_.mechanism, 0))].name).c_str(),
                         static_cast<double>(b.last_ms));
        }
    }
    const auto& at = probe_at_[slot];
    if (!at || !inspector_.active || (*at)[0] != inspector_.x || (*at)[1] != inspector_.y) return;
    std::memcpy(inspector_.output.data(), probe_[slot].mapped(), 4);
    inspector_.output_valid = true;
}

void Viewer::on_render(const FrameInfo& frame) {
    if (!has_image()) return;
    vk::DisplayView v;
    v.rect = view_.rect;
    v.zoom = view_.zoom;
    v.image_at_origin[0] = view_.center[0] - static_cast<float>(view_.rect.extent.width) * 0.5f / view_.zoom;
    v.image_at_origin[1] = view_.center[1] - static_cast<float>(view_.rect.extent.height) * 0.5f / view_.zoom;
    v.mode = view_.mode;
    v.split_x = static_cast<float>(view_.rect.offset.x) + view_.split * static_cast<float>(view_.rect.extent.width);
    v.gain = view_.gain;
    v.pixel_grid = view_.pixel_grid;
    frame.timers->begin(frame.cmd, frame.slot, "Display pass");
    display_->record(frame.cmd, v, cuda_ ? static_cast<std::uint32_t>(cuda_->latest_output()) : 0u);
    frame.timers->end(frame.cmd, frame.slot);
}

} // namespace tl
