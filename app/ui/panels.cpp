// Sidebar panels. Ranges shown here are the ones tl::validate accepts (cuda/filter_spec.hpp).
#include "ui/panels.hpp"

#include "interop/external_handle.hpp"
#include "pixel_api.hpp"
#include "stencil_api.hpp"
#include "ui/theme.hpp"

#include <imgui.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>

namespace tl::ui {

void wrapped_colored(unsigned abgr, const std::string& text) {
    ImGui::PushStyleColor(ImGuiCol_Text, abgr);
    ImGui::TextWrapped("%s", text.c_str());
    ImGui::PopStyleColor();
}

namespace {

void help_marker(const char* text) {
    ImGui::SameLine();
    ImGui::TextDisabled("(?)");
    if (ImGui::IsItemHovered()) {
        ImGui::BeginTooltip();
        ImGui::PushTextWrapPos(ImGui::GetFontSize() * 28.0f);
        ImGui::TextUnformatted(text);
        ImGui::PopTextWrapPos();
        ImGui::EndTooltip();
    }
}

// Label column on the left, widget filling the rest: reads well at a distance.
void label(const char* text) {
    ImGui::AlignTextToFramePadding();
    ImGui::TextUnformatted(text);
    ImGui::SameLine(ImGui::GetFontSize() * 6.5f);
    ImGui::SetNextItemWidth(-1.0f);
}

bool pixel_op_editor(PixelOp& op) {
    bool changed = false;
    switch (op.kind) {
    case PixelOpKind::BrightnessContrast:
        label("Brightness");
        changed |= ImGui::SliderFloat("##b", &op.a, -1.0f, 1.0f, "%.2f", ImGuiSliderFlags_AlwaysClamp);
        label("Contrast");
        changed |= ImGui::SliderFloat("##c", &op.b, 0.0f, 4.0f, "%.2f", ImGuiSliderFlags_AlwaysClamp);
        break;
    case PixelOpKind::Gamma:
        label("Gamma");
        changed |= ImGui::SliderFloat("##g", &op.a, 0.1f, 5.0f, "%.2f", ImGuiSliderFlags_AlwaysClamp);
        break;
    case PixelOpKind::Saturation:
        label("Saturation");
        changed |= ImGui::SliderFloat("##s", &op.a, 0.0f, 4.0f, "%.2f", ImGuiSliderFlags_AlwaysClamp);
        break;
    case PixelOpKind::Threshold:
        label("Threshold");
        changed |= ImGui::SliderFloat("##t", &op.a, 0.0f, 1.0f, "%.2f", ImGuiSliderFlags_AlwaysClamp);
        break;
    case PixelOpKind::Levels:
        label("Black");
        changed |= ImGui::SliderFloat("##lb", &op.a, 0.0f, 1.0f, "%.2f", ImGuiSliderFlags_AlwaysClamp);
        label("White");
        changed |= ImGui::SliderFloat("##lw", &op.b, 0.0f, 1.0f, "%.2f", ImGuiSliderFlags_AlwaysClamp);
        label("Gamma");
        changed |= ImGui::SliderFloat("##lg", &op.c, 0.1f, 5.0f, "%.2f", ImGuiSliderFlags_AlwaysClamp);
        break;
    case PixelOpKind::ColorMatrix:
        for (int r = 0; r < 3; ++r) {
            ImGui::PushID(r);
            ImGui::SetNextItemWidth(-1.0f);
            changed |= ImGui::DragFloat3("##row", &op.matrix[static_cast<std::size_t>(r * 3)], 0.01f, -4.0f, 4.0f, "%.2f",
                                         ImGuiSliderFlags_AlwaysClamp);
            ImGui::PopID();
        }
        break;
    default:
        break;
    }
    return changed;
}

} // namespace

void image_panel(ImageState& s, PanelActions& actions) {
    ImGui::Text("%s", s.label.c_str());
    ImGui::TextDisabled("%d x %d RGBA8", s.width, s.height);
    ImGui::Spacing();

    label("File");
    const float button_w = ImGui::CalcTextSize("Load").x + ImGui::GetStyle().FramePadding.x * 2.0f;
    ImGui::SetNextItemWidth(ImGui::GetContentRegionAvail().x - button_w - ImGui::GetStyle().ItemSpacing.x);
    if (ImGui::InputTextWithHint("##path", "path to PNG / JPEG / BMP / TGA", s.path_input.data(), s.path_input.size(),
                                 ImGuiInputTextFlags_EnterReturnsTrue))
        actions.load_path = true;
    ImGui::SameLine();
    if (ImGui::Button("Load")) actions.load_path = true;
    ImGui::TextDisabled("or drop an image file on the window");

    ImGui::Spacing();
    label("Generator");
    const auto gens = generator_infos();
    const auto current = std::find_if(gens.begin(), gens.end(), [&](const GeneratorInfo& g) { return g.generator == s.generator; });
    if (ImGui::BeginCombo("##gen", current != gens.end() ? std::string(current->label).c_str() : "?")) {
        for (const auto& g : gens) {
            if (ImGui::Selectable(std::string(g.label).c_str(), g.generator == s.generator)) s.generator = g.generator;
            if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", std::string(g.description).c_str());
        }
        ImGui::EndCombo();
    }
    label("Size");
    int wh[2] = {s.gen_width, s.gen_height};
    if (ImGui::InputInt2("##size", wh)) {
        s.gen_width = std::clamp(wh[0], 1, 8192);
        s.gen_height = std::clamp(wh[1], 1, 8192);
    }
    if (s.generator == Generator::Noise) {
        label("Seed");
        ImGui::InputInt("##seed", &s.seed);
    }
    const float w3 = (ImGui::GetContentRegionAvail().x - 3.0f * ImGui::GetStyle().ItemSpacing.x) / 4.0f;
    const std::pair<const char*, std::array<int, 2>> presets[] = {
        {"1080p", {1920, 1080}}, {"4K", {3840, 2160}}, {"8K", {7680, 4320}}};
    for (const auto& [name, size] : presets) {
        if (ImGui::Button(name, ImVec2(w3, 0))) {
            s.gen_width = size[0];
            s.gen_height = size[1];
        }
        ImGui::SameLine();
    }
    if (ImGui::Button("Generate", ImVec2(-1.0f, 0))) actions.generate = true;
    if (!s.message.empty()) wrapped_colored(s.message_is_error ? Colors::warn : Colors::muted, s.message);
}

void filter_panel(FilterState& s, PanelActions& actions) {
    bool changed = false;
    FilterParams& p = s.params;
    label("Filter");
    const auto infos = filter_infos();
    std::string current_label;
    for (const auto& f : infos)
        if (f.kind == p.kind) current_label = std::string(f.label);
    if (ImGui::BeginCombo("##filter", current_label.c_str())) {
        for (const auto& f : infos) {
            if (ImGui::Selectable(std::string(f.label).c_str(), f.kind == p.kind)) {
                p.kind = f.kind;
                changed = true;
            }
            if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", std::string(f.description).c_str());
        }
        ImGui::EndCombo();
    }
    for (const auto& f : infos)
        if (f.kind == p.kind) wrapped_colored(Colors::muted, std::string(f.description));

    switch (p.kind) {
    case FilterKind::Box:
        label("Radius");
        changed |= ImGui::SliderInt("##radius", &p.radius, 1, 32, "%d px", ImGuiSliderFlags_AlwaysClamp);
        break;
    case FilterKind::Gaussian:
        label("Sigma");
        changed |= ImGui::SliderFloat("##sigma", &p.sigma, 0.5f, 10.0f, "%.2f px", ImGuiSliderFlags_AlwaysClamp);
        ImGui::TextDisabled("radius %d (ceil 3 sigma)", filter_radius(p));
        break;
    case FilterKind::Sharpen:
        label("Amount");
        changed |= ImGui::SliderFloat("##amount", &p.amount, 0.0f, 5.0f, "%.2f", ImGuiSliderFlags_AlwaysClamp);
        break;
    case FilterKind::UserKernel: {
        label("Size");
        int size_index = p.user_size == 5 ? 1 : 0;
        if (ImGui::Combo("##usize", &size_index, "3 x 3\0" "5 x 5\0")) {
            p.user_size = size_index == 1 ? 5 : 3;
            changed = true;
        }
        ImGui::PushItemWidth((ImGui::GetContentRegionAvail().x - 4.0f * ImGui::GetStyle().ItemInnerSpacing.x) / 5.0f);
        for (int r = 0; r < p.user_size; ++r) {
            for (int c = 0; c < p.user_size; ++c) {
                ImGui::PushID(r * 5 + c);
                if (c > 0) ImGui::SameLine(0.0f, ImGui::GetStyle().ItemInnerSpacing.x);
                changed |= ImGui::DragFloat("##w", &p.user[static_cast<std::size_t>(r * p.user_size + c)], 0.05f, -16.0f,
                                            16.0f, "%.2f");
                ImGui::PopID();
            }
        }
        ImGui::PopItemWidth();
        label("Scale");
        changed |= ImGui::DragFloat("##uscale", &p.user_scale, 0.01f, -16.0f, 16.0f, "%.3f");
        label("Bias");
        changed |= ImGui::DragFloat("##ubias", &p.user_bias, 0.01f, -1.0f, 1.0f, "%.2f");
        break;
    }
    default:
        break;
    }

    label("Border");
    int border = static_cast<int>(s.border);
    if (ImGui::Combo("##border", &border, "clamp\0zero\0mirror\0")) {
        s.border = static_cast<Border>(border);
        changed = true;
    }

    if (s.ops_enabled && !s.ops.empty())
        ImGui::TextDisabled("then %zu per-pixel op(s): see Processing", s.ops.size());
    label("Stage");
    int stage = s.stage == StageKind::Copy ? 1 : 0;
    if (ImGui::Combo("##stage", &stage, "filter (and op chain)\0plain copy (interop measurement)\0")) {
        s.stage = stage == 1 ? StageKind::Copy : StageKind::Filter;
        if (s.stage == StageKind::Copy) s.run_every_frame = true;
        changed = true;
    }
    if (s.stage == StageKind::Copy)
        wrapped_colored(Colors::warn, "Plain copy: each frame copies the image (cudaMemcpyAsync on the CUDA path, "
                                      "vkCmdCopyBuffer on the Vulkan path) instead of filtering it, so the frame times "
                                      "show what handing the image to CUDA and back costs. Filter and ops are not run.");
    ImGui::Spacing();
    ImGui::Checkbox("Re-run every frame", &s.run_every_frame);
    help_marker("Normally the filter runs once per change. Re-running it every frame keeps the GPU timings in the Stats panel live.");
    if (!s.status.empty()) wrapped_colored(Colors::warn, s.status);
    if (changed) actions.filter_changed = true;
}

namespace {

// Three overlaid channel curves on a square-root scale (so the tails stay visible next to a peak).
// The picture is of counts read back from the GPU (cub::DeviceHistogram), not recomputed here.
void draw_histogram(const cuda::ChannelHistograms& h) {
    const float width = ImGui::GetContentRegionAvail().x;
    const float height = ImGui::GetFontSize() * 5.0f;
    const ImVec2 p0 = ImGui::GetCursorScreenPos();
    ImDrawList* dl = ImGui::GetWindowDrawList();
    dl->AddRectFilled(p0, ImVec2(p0.x + width, p0.y + height), IM_COL32(22, 23, 28, 255), 3.0f);
    // Scaled to the tallest inner bin: 0 and 255 (clipped or flat areas) would flatten the rest;
    // they are drawn clipped at the top.
    std::uint32_t peak = 1;
    for (const auto& channel : h)
        for (std::size_t i = 1; i < 255; ++i) peak = std::max(peak, channel[i]);
    const ImU32 colours[3] = {IM_COL32(235, 90, 80, 200), IM_COL32(100, 210, 110, 200), IM_COL32(90, 150, 235, 200)};
    const float top = std::sqrt(static_cast<float>(peak));
    for (std::size_t ch = 0; ch < 3; ++ch) {
        std::array<ImVec2, 256> points{};
        for (std::size_t i = 0; i < 256; ++i) {
            const float x = p0.x + width * (static_cast<float>(i) + 0.5f) / 256.0f;
            const float v = std::min(1.0f, std::sqrt(static_cast<float>(h[ch][i])) / top);
            const float y = p0.y + height - (height - 2.0f) * v;
            points[i] = ImVec2(x, y);
        }
        dl->AddPolyline(points.data(), 256, colours[ch], 0, 1.5f);
    }
    ImGui::Dummy(ImVec2(width, height));
}

} // namespace

void processing_panel(FilterState& s, const ProcessingInput& in, PanelActions& actions) {
    bool changed = false;
    changed |= ImGui::Checkbox("Per-pixel op chain", &s.ops_enabled);
    help_marker("Runs after the stencil filter in one pass over the filtered image, ops in order; alpha passes through. "
                "RGBA8 is quantized once, at the end of the chain.");
    if (s.ops_enabled) {
        int remove = -1, up = -1, down = -1;
        for (std::size_t i = 0; i < s.ops.size(); ++i) {
            ImGui::PushID(static_cast<int>(i));
            ImGui::Separator();
            std::string op_label(to_string(s.ops[i].kind));
            for (const auto& info : pixel_op_infos())
                if (info.kind == s.ops[i].kind) op_label = std::string(info.label);
            ImGui::AlignTextToFramePadding();
            ImGui::Text("%zu. %s", i + 1, op_label.c_str());
            const float button = ImGui::GetFrameHeight();
            const float spacing = ImGui::GetStyle().ItemInnerSpacing.x;
            ImGui::SameLine(ImGui::GetContentRegionAvail().x - 3.0f * button - 2.0f * spacing);
            ImGui::BeginDisabled(i == 0);
            if (ImGui::ArrowButton("##up", ImGuiDir_Up)) up = static_cast<int>(i);
            ImGui::EndDisabled();
            ImGui::SameLine(0.0f, spacing);
            ImGui::BeginDisabled(i + 1 == s.ops.size());
            if (ImGui::ArrowButton("##down", ImGuiDir_Down)) down = static_cast<int>(i);
            ImGui::EndDisabled();
            ImGui::SameLine(0.0f, spacing);
            if (ImGui::Button("x", ImVec2(button, button))) remove = static_cast<int>(i);
            if (ImGui::IsItemHovered()) ImGui::SetTooltip("Remove this op");
            changed |= pixel_op_editor(s.ops[i]);
            ImGui::PopID();
        }
        if (up > 0) std::swap(s.ops[static_cast<std::size_t>(up)], s.ops[static_cast<std::size_t>(up - 1)]);
        if (down >= 0) std::swap(s.ops[static_cast<std::size_t>(down)], s.ops[static_cast<std::size_t>(down + 1)]);
        if (remove >= 0) s.ops.erase(s.ops.begin() + remove);
        changed |= up > 0 || down >= 0 || remove >= 0;
        const bool full = static_cast<int>(s.ops.size()) >= cuda::kMaxPixelOps;
        ImGui::BeginDisabled(full);
        ImGui::SetNextItemWidth(-1.0f);
        if (ImGui::BeginCombo("##addop", full ? "the chain is full" : "+ add an op")) {
            for (const auto& info : pixel_op_infos()) {
                if (info.kind == PixelOpKind::Lut) continue;  // tables come from files, not from sliders
                if (ImGui::Selectable(std::string(info.label).c_str())) {
                    s.ops.push_back(default_pixel_op(info.kind));
                    changed = true;
                }
                if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", std::string(info.description).c_str());
            }
            ImGui::EndCombo();
        }
        ImGui::EndDisabled();
        if (full) ImGui::TextDisabled("at most %d ops in one pass", cuda::kMaxPixelOps);
        if (in.histogram && in.histogram->has_value()) {
            if (ImGui::Button("+ auto-levels from the histogram")) {
                s.ops.push_back(cuda::auto_levels(**in.histogram));
                changed = true;
            }
            help_marker("Adds a Levels op whose black and white points are the 0.5 % and 99.5 % percentiles of the "
                        "pooled R+G+B histogram below (of the current output).");
        }
    }

    ImGui::Separator();
    ImGui::TextUnformatted("How the chain moves its pixels");
    if (!in.cuda_path) {
        wrapped_colored(Colors::muted, s.cuda_usable
                            ? "The Vulkan compute path is selected (Mechanism panel): the chain runs in the op-chain compute "
                              "shader. Select a CUDA mechanism there to choose how the CUDA chain moves its pixels."
                            : "This path runs the chain in the Vulkan op-chain compute shader. The CUDA mechanisms below "
                              "cannot run here: " + (s.cuda_reason.empty() ? std::string("CUDA unavailable") : s.cuda_reason));
    }
    const bool fused = in.cuda_path && s.fuse;
    const ImGuiTableFlags table_flags = ImGuiTableFlags_RowBg | ImGuiTableFlags_SizingStretchProp | ImGuiTableFlags_BordersInnerH;
    if (ImGui::BeginTable("pixel_mechanisms", 3, table_flags)) {
        ImGui::TableSetupColumn("op chain", ImGuiTableColumnFlags_WidthStretch, 2.0f);
        ImGui::TableSetupColumn("SASS", ImGuiTableColumnFlags_WidthStretch, 1.0f);
        ImGui::TableSetupColumn("CC", ImGuiTableColumnFlags_WidthStretch, 0.45f);
        ImGui::TableHeadersRow();
        for (const auto& m : cuda::pixel_mechanism_infos()) {
            const cuda::Result can = s.cuda_usable ? cuda::can_run_pixel(m.mechanism, s.pixel_policy, PixelFormat::RGBA8)
                                                   : cuda::Result::fail(s.cuda_reason.empty() ? "CUDA unavailable" : s.cuda_reason);
            ImGui::PushID(static_cast<int>(m.mechanism));
            ImGui::TableNextRow();
            ImGui::TableNextColumn();
            ImGui::BeginDisabled(!can.ok || !in.cuda_path || fused);
            if (ImGui::RadioButton(std::string(m.label).c_str(), s.pixel_mechanism == m.mechanism)) {
                s.pixel_mechanism = m.mechanism;
                changed = true;
            }
            ImGui::EndDisabled();
            if (ImGui::IsItemHovered(ImGuiHoveredFlags_AllowWhenDisabled)) {
                ImGui::BeginTooltip();
                ImGui::PushTextWrapPos(ImGui::GetFontSize() * 30.0f);
                if (!can.ok) wrapped_colored(Colors::warn, can.reason);
                else if (fused) wrapped_colored(Colors::warn, "Fused: the chain runs inside the stencil kernel instead.");
                ImGui::TextUnformatted(std::string(m.explanation).c_str());
                ImGui::PopTextWrapPos();
                ImGui::EndTooltip();
            }
            ImGui::TableNextColumn();
            ImGui::TextDisabled("%s", m.instruction.empty() ? "-" : std::string(m.instruction).c_str());
            ImGui::TableNextColumn();
            ImGui::TextDisabled("%d.%d", m.min_cc_major, m.min_cc_minor);
            ImGui::PopID();
        }
        ImGui::EndTable();
    }
    const bool staged = s.pixel_mechanism == cuda::PixelMechanism::Ldgsts || s.pixel_mechanism == cuda::PixelMechanism::Bulk;
    ImGui::BeginDisabled(!in.cuda_path || fused || !staged);
    label("Stages");
    changed |= ImGui::SliderInt("##pstages", &s.pixel_policy.stages, 1, 4, "%d in flight", ImGuiSliderFlags_AlwaysClamp);
    if (s.pixel_mechanism == cuda::PixelMechanism::Bulk) changed |= ImGui::Checkbox("Bulk store (shared -> global)", &s.pixel_policy.bulk_store);
    ImGui::EndDisabled();
    if (ImGui::IsItemHovered(ImGuiHoveredFlags_AllowWhenDisabled) && !staged)
        ImGui::SetTooltip("Stages are the ring depth of ldgsts and bulk: batches each CTA has in flight.");

    ImGui::BeginDisabled(!in.cuda_path || !s.ops_enabled || s.ops.empty());
    changed |= ImGui::Checkbox("Fuse into the stencil pass", &s.fuse);
    ImGui::EndDisabled();
    help_marker("The chain runs in the stencil kernel's epilogue, on each output pixel before it is stored: one read "
                "and one write of the image instead of two of each. Same result as the two passes (the A side of the "
                "split view still runs them separately when it shows a CUDA mechanism, so the diff view compares them). "
                "With a 3x3 filter (Sobel, Laplacian, sharpen, emboss, box r=1), a chain of per-channel ops only "
                "(brightness/contrast, gamma, invert, levels, LUT) is folded into one 256-entry table per channel, "
                "which each block builds by running the chain itself on the 256 byte values (exact by "
                "construction): the epilogue then costs three table reads per pixel.");

    ImGui::BeginDisabled(!in.cuda_path || !s.ops_enabled || s.ops.empty());
    changed |= ImGui::Checkbox("Time each op alone (Stats)", &s.time_ops);
    ImGui::EndDisabled();
    help_marker("Also runs each op by itself over the output, into a scratch image that is never shown, and times it "
                "with cudaEvents: the Stats panel lists 'op N' rows. These are extra passes: they add to the frame.");

    ImGui::Separator();
    ImGui::TextUnformatted("Histogram of the output (R, G, B)");
    if (!in.cuda_path) {
        wrapped_colored(Colors::muted, "Not shown on this path: the histogram is computed by CUB on the CUDA stream "
                                       "(cub::DeviceHistogram), and this frame's output is made by Vulkan compute.");
    } else {
        if (ImGui::Checkbox("Compute each frame", &s.histogram)) changed = true;
        if (!s.histogram) ImGui::TextDisabled("off");
        else if (in.histogram && in.histogram->has_value()) draw_histogram(**in.histogram);
        else ImGui::TextDisabled("waiting for the first completed run");
    }
    if (!s.status.empty() && (s.status.find("op chain") != std::string::npos || s.status.find("Fused") != std::string::npos ||
                              s.status.find("histogram") != std::string::npos))
        wrapped_colored(Colors::warn, s.status);
    if (changed) actions.filter_changed = true;
}

void view_panel(ViewState& s) {
    const char* names[] = {"Original", "Filtered", "Split A|B", "Diff"};
    const float w = (ImGui::GetContentRegionAvail().x - 3.0f * ImGui::GetStyle().ItemSpacing.x) / 4.0f;
    for (int i = 0; i < 4; ++i) {
        const bool active = static_cast<int>(s.mode) == i;
        if (active) ImGui::PushStyleColor(ImGuiCol_Button, ImGui::GetStyleColorVec4(ImGuiCol_ButtonActive));
        if (active) ImGui::PushStyleColor(ImGuiCol_Text, ImVec4(1.0f, 0.85f, 0.45f, 1.0f));
        if (ImGui::Button(names[i], ImVec2(w, 0))) s.mode = static_cast<vk::ViewMode>(i);
        if (active) ImGui::PopStyleColor(2);
        if (i < 3) ImGui::SameLine();
    }
    if (s.mode == vk::ViewMode::Diff) {
        label("Gain");
        ImGui::SliderFloat("##gain", &s.gain, 1.0f, 64.0f, "x%.1f", ImGuiSliderFlags_Logarithmic | ImGuiSliderFlags_AlwaysClamp);
        // Legend: the same heat-map the shader uses, 0 .. 1/gain difference.
        ImDrawList* dl = ImGui::GetWindowDrawList();
        const ImVec2 p0 = ImGui::GetCursorScreenPos();
        const float width = ImGui::GetContentRegionAvail().x;
        const float height = ImGui::GetFontSize() * 0.7f;
        constexpr int steps = 32;
        for (int i = 0; i < steps; ++i) {
            const auto c = vk::heat_color((static_cast<float>(i) + 0.5f) / steps);
            dl->AddRectFilled(ImVec2(p0.x + width * static_cast<float>(i) / steps, p0.y),
                              ImVec2(p0.x + width * static_cast<float>(i + 1) / steps + 1.0f, p0.y + height),
                              ImGui::GetColorU32(ImVec4(c[0], c[1], c[2], 1.0f)));
        }
        ImGui::Dummy(ImVec2(width, height));
        ImGui::TextDisabled("0");
        ImGui::SameLine();
        char right[32];
        std::snprintf(right, sizeof(right), "%.0f levels", 255.0f / s.gain);
        ImGui::SetCursorPosX(ImGui::GetCursorPosX() + ImGui::GetContentRegionAvail().x - ImGui::CalcTextSize(right).x);
        ImGui::TextDisabled("%s", right);
    }
    if (s.mode == vk::ViewMode::Split) {
        label("Divider");
        ImGui::SliderFloat("##split", &s.split, 0.0f, 1.0f, "%.2f", ImGuiSliderFlags_AlwaysClamp);
    }
    label("Zoom");
    float percent = s.zoom * 100.0f;
    if (ImGui::SliderFloat("##zoom", &percent, 1.0f, 6400.0f, "%.0f%%", ImGuiSliderFlags_Logarithmic | ImGuiSliderFlags_AlwaysClamp))
        s.zoom = percent / 100.0f;
    const float half = (ImGui::GetContentRegionAvail().x - ImGui::GetStyle().ItemSpacing.x) / 2.0f;
    if (ImGui::Button("Fit", ImVec2(half, 0))) s.fit_requested = true;
    ImGui::SameLine();
    if (ImGui::Button("1:1", ImVec2(half, 0))) s.zoom = 1.0f;
    ImGui::Checkbox("Pixel grid when zoomed in", &s.pixel_grid);
    ImGui::TextDisabled("wheel: zoom   drag: pan   hover: inspect");
    ImGui::TextDisabled("keys: 1-4 view   F fit   0 actual size");
}

void stats_panel(const StatsInput& in) {
    ImGui::PushFont(mono_font());
    ImGui::Text("Frame (CPU)          %7.2f ms", in.frame_ms);
    ImGui::Text("                     %7.1f fps", in.frame_ms > 0.0 ? 1000.0 / in.frame_ms : 0.0);
    if (in.frame_history.size() > 1) {
        const float peak = *std::max_element(in.frame_history.begin(), in.frame_history.end());
        ImGui::PlotLines("##frametimes", in.frame_history.data(), static_cast<int>(in.frame_history.size()), 0, nullptr, 0.0f,
                         peak * 1.15f, ImVec2(ImGui::GetContentRegionAvail().x, ImGui::GetFontSize() * 3.0f));
    }
    if (!in.gpu_timers_supported) {
        ImGui::PopFont();
        ImGui::TextDisabled("GPU timestamps are not supported on this queue");
        ImGui::PushFont(mono_font());
    } else if (in.gpu) {
        for (const auto& t : *in.gpu) {
            std::string name = t.name.substr(0, 20);
            name.resize(20, ' ');
            ImGui::Text("%s %7.3f ms", name.c_str(), t.ms);
            if (in.pass_history) {
                const auto it = in.pass_history->find(t.name);
                if (it != in.pass_history->end() && it->second.size() > 1) {
                    const auto& h = it->second;
                    const float peak = *std::max_element(h.begin(), h.end());
                    ImGui::PlotLines(("##pass" + t.name).c_str(), h.data(), static_cast<int>(h.size()), 0, nullptr, 0.0f,
                                     peak * 1.15f, ImVec2(ImGui::GetContentRegionAvail().x, ImGui::GetFontSize() * 1.6f));
                }
            }
        }
    }
    if (in.frame_gpu_ms > 0.0) {
        ImGui::Text("Frame (GPU span)      %7.3f ms", in.frame_gpu_ms);
        if (in.external_wait_ms >= 0.0) ImGui::Text("  waiting for CUDA    %7.3f ms", in.external_wait_ms);
    }
    if (in.cuda) {
        for (const auto& t : *in.cuda) {
            if (t.history.empty()) continue;
            std::string name = t.name.substr(0, 21);
            name.resize(21, ' ');
            ImGui::Text("%s %7.3f ms  p95 %.3f", name.c_str(), static_cast<double>(t.median_ms), static_cast<double>(t.p95_ms));
            ImGui::Text("%20s %7.1f GB/s %3.0f%% of copy", "", t.gbps, t.pct_of_copy);
            const float peak = *std::max_element(t.history.begin(), t.history.end());
            ImGui::PlotLines(("##" + t.name).c_str(), t.history.data(), static_cast<int>(t.history.size()), 0, nullptr, 0.0f,
                             peak * 1.15f, ImVec2(ImGui::GetContentRegionAvail().x, ImGui::GetFontSize() * 2.5f));
        }
        if (in.copy_gbps > 0) ImGui::Text("device copy (4K D2D)  %6.1f GB/s  = 100%%", in.copy_gbps);
    }
    ImGui::PopFont();
    if (in.cuda)
        wrapped_colored(Colors::muted,
                        "CUDA times: cudaEvents around each stage, read a frame or more later with "
                        "cudaEventQuery; median and p95 over the last 120 runs. GB/s counts one read and "
                        "one write of the image. While Vulkan work shares the GPU these spans also hold "
                        "time the CUDA work waits for the GPU (on an H100 the same 4K copy takes 30 us "
                        "alone and about 0.6 ms in the frame loop); `tilelab bench` times kernels alone. "
                        "\"% of copy\" is against the device copy measured at start-up: the faster of "
                        "cudaMemcpy2DAsync and a 16-byte copy kernel, the bench's roofline.");
    if (in.frame_gpu_ms > 0.0)
        wrapped_colored(Colors::muted, "GPU span: the frame's first to last timestamp on the Vulkan queue; with CUDA it "
                                       "includes the wait for the CUDA stage (its work and its signal back to Vulkan).");
    wrapped_colored(Colors::muted, "GPU times come from timestamp queries read 1-2 frames later without waiting. "
                                   "The filter has run " + std::to_string(in.filter_runs) + " time(s).");
    ImGui::Spacing();
    ImGui::TextWrapped("%s", in.device.c_str());
    ImGui::TextDisabled("present: %s", in.present_mode.c_str());
    if (in.validation) {
        if (in.validation_messages == 0) wrapped_colored(Colors::ok, "validation on: 0 messages");
        else wrapped_colored(Colors::warn, "validation on: " + std::to_string(in.validation_messages) + " messages (see stderr)");
    }
}

void mechanism_panel(FilterState& s, PanelActions& actions) {
    if (!s.cuda_usable) wrapped_colored(Colors::warn, s.cuda_reason.empty() ? "CUDA unavailable" : s.cuda_reason);
    const auto infos = cuda::mechanism_infos();
    auto can_run = [&](const cuda::MechanismInfo& m) {
        return s.cuda_usable ? cuda::can_run(m.mechanism, s.params, PixelFormat::RGBA8, s.policy)
                             : cuda::Result::fail(s.cuda_reason.empty() ? "CUDA unavailable" : s.cuda_reason);
    };
    const ImGuiTableFlags flags = ImGuiTableFlags_RowBg | ImGuiTableFlags_SizingStretchProp | ImGuiTableFlags_BordersInnerH;
    // Half the usual cell padding: the longest names ("TMA warp-specialised") then fit beside the
    // SASS column at the default panel width.
    ImGui::PushStyleVar(ImGuiStyleVar_CellPadding,
                        ImVec2(ImGui::GetStyle().CellPadding.x * 0.5f, ImGui::GetStyle().CellPadding.y));
    const bool table = ImGui::BeginTable("mechanisms", 4, flags);
    ImGui::PopStyleVar();
    if (table) {
        // The names take what the fixed columns leave (proportional columns cut "TMA,
        // warp-specialised" and "Thread-block cluster" short at the default panel width).
        ImGui::TableSetupColumn("B (filtered)", ImGuiTableColumnFlags_WidthStretch);
        ImGui::TableSetupColumn("A", ImGuiTableColumnFlags_WidthFixed);
        ImGui::TableSetupColumn("SASS", ImGuiTableColumnFlags_WidthFixed);
        ImGui::TableSetupColumn("CC", ImGuiTableColumnFlags_WidthFixed);
        ImGui::TableHeadersRow();
        for (std::size_t i = 0; i < infos.size(); ++i) {
            const auto& m = infos[i];
            const cuda::Result can = can_run(m);
            const int index = static_cast<int>(i);
            ImGui::PushID(index);
            ImGui::TableNextRow();
            ImGui::TableNextColumn();
            ImGui::BeginDisabled(!can.ok);
            if (ImGui::RadioButton(std::string(m.label).c_str(), s.mechanism == index)) {
                s.mechanism = index;
                s.run_every_frame = true;  // CUDA timings are live only when the stage runs each frame
                actions.filter_changed = true;
            }
            ImGui::EndDisabled();
            if (ImGui::IsItemHovered(ImGuiHoveredFlags_AllowWhenDisabled)) {
                ImGui::BeginTooltip();
                ImGui::PushTextWrapPos(ImGui::GetFontSize() * 30.0f);
                if (!can.ok) wrapped_colored(Colors::warn, can.reason);
                ImGui::TextUnformatted(std::string(m.explanation).c_str());
                ImGui::PopTextWrapPos();
                ImGui::EndTooltip();
            }
            ImGui::TableNextColumn();
            ImGui::BeginDisabled(!can.ok);
            bool as_a = s.mechanism_a == index;
            if (ImGui::Checkbox("##a", &as_a)) {
                s.mechanism_a = as_a ? index : -1;
                actions.filter_changed = true;
            }
            ImGui::EndDisabled();
            if (ImGui::IsItemHovered(ImGuiHoveredFlags_AllowWhenDisabled))
                ImGui::SetTooltip("Show this mechanism's output on the split view's A side (unticked: the original)");
            ImGui::TableNextColumn();
            ImGui::TextDisabled("%s", m.instruction.empty() ? "-" : std::string(m.instruction).c_str());
            ImGui::TableNextColumn();
            ImGui::TextDisabled("%d.%d", m.min_cc_major, m.min_cc_minor);
            ImGui::PopID();
        }
        for (const auto v : vk::compute_variants()) {
            ImGui::TableNextRow();
            ImGui::TableNextColumn();
            if (ImGui::RadioButton(std::string(to_string(v)).c_str(), s.mechanism < 0 && s.variant == v)) {
                s.variant = v;
                s.mechanism = -1;
                actions.filter_changed = true;
            }
            if (ImGui::IsItemHovered()) {
                ImGui::BeginTooltip();
                ImGui::PushTextWrapPos(ImGui::GetFontSize() * 30.0f);
                ImGui::TextUnformatted(std::string(vk::compute_variant_explanation(v)).c_str());
                ImGui::PopTextWrapPos();
                ImGui::EndTooltip();
            }
            ImGui::TableNextColumn();
            ImGui::TableNextColumn();
            ImGui::TextDisabled("SPIR-V");
            ImGui::TableNextColumn();
        }
        ImGui::EndTable();
    }
    ImGui::Spacing();
    if (s.mechanism >= 0) {
        const auto& m = infos[static_cast<std::size_t>(s.mechanism)];
        ImGui::Text("Active path: CUDA %s", std::string(m.label).c_str());
        if (s.mechanism_a >= 0)
            ImGui::TextDisabled("A side: CUDA %s", std::string(infos[static_cast<std::size_t>(s.mechanism_a)].label).c_str());
        // The explain panel: what moves the bytes, and the instruction it is built on.
        ImGui::TextDisabled("Instruction: %s", m.instruction.empty() ? "plain loads/stores" : std::string(m.instruction).c_str());
        wrapped_colored(Colors::muted, std::string(m.explanation));
        ImGui::Separator();
        ImGui::TextUnformatted("Policy");
        // Only the fields this mechanism reads: a control that changes nothing would mislead.
        bool changed = false;
        const float w = ImGui::GetFontSize() * 6.0f;
        if (m.knobs.block) {
            ImGui::SetNextItemWidth(w);
            changed |= ImGui::InputInt("block x", &s.policy.block_x, 32);
            ImGui::SetNextItemWidth(w);
            changed |= ImGui::InputInt("block y", &s.policy.block_y, 1);
        }
        if (m.knobs.tile) {
            ImGui::SetNextItemWidth(w);
            changed |= ImGui::InputInt("tile w", &s.policy.tile_w, 16);
            ImGui::SetNextItemWidth(w);
            changed |= ImGui::InputInt("tile h", &s.policy.tile_h, 8);
        }
        if (m.knobs.stages) {
            ImGui::SetNextItemWidth(w);
            changed |= ImGui::SliderInt("stages", &s.policy.stages, 1, 4);
        }
        if (m.knobs.tma_store) changed |= ImGui::Checkbox("TMA store", &s.policy.tma_store);
        if (m.knobs.cluster_size) {
            ImGui::SetNextItemWidth(w);
            changed |= ImGui::SliderInt("cluster size", &s.policy.cluster_size, 1, 8);
        }
        if (!m.knobs.tile) {  // global and texture: no tile; smem and ldgsts plan their own
            const bool planned = m.mechanism == cuda::Mechanism::Smem || m.mechanism == cuda::Mechanism::Ldgsts;
            ImGui::TextDisabled("tile: %s", planned ? "the largest that fits shared memory" : "one pixel per thread");
        }
        // Keep the values in the ranges a launch can take; can_run says what else it refuses.
        s.policy.block_x = std::clamp(s.policy.block_x, 1, 1024);
        s.policy.block_y = std::clamp(s.policy.block_y, 1, 1024);
        s.policy.tile_w = std::clamp(s.policy.tile_w, 1, 1024);
        s.policy.tile_h = std::clamp(s.policy.tile_h, 1, 1024);
        if (ImGui::Button("Default policy")) {
            s.policy = cuda::Policy{};
            changed = true;
        }
        if (changed) actions.filter_changed = true;
        const cuda::Result can = can_run(m);
        if (!can) wrapped_colored(Colors::warn, can.reason);
    } else {
        ImGui::Text("Active path: Vulkan compute (%s)", std::string(to_string(s.variant)).c_str());
    }
}

void interop_panel(const InteropInput& in) {
    const InteropDecision& d = *in.decision;
    if (d.usable) wrapped_colored(Colors::ok, "Interop on: Vulkan and CUDA share the image buffers");
    else wrapped_colored(Colors::warn, d.reason);
    ImGui::PushFont(mono_font());
    ImGui::Text("Vulkan  %s", in.vk_name.c_str());
    ImGui::Text("  UUID  %s", in.vk_uuid.c_str());
    ImGui::Text("  driver %s", in.vk_driver.c_str());
    if (d.cuda) {
        ImGui::Text("CUDA    %s", d.cuda->name.c_str());
        ImGui::Text("  UUID  %s", interop::format_uuid(d.cuda->uuid).c_str());
        ImGui::Text("  driver %d.%d  runtime %d.%d", d.cuda->driver_version / 1000, d.cuda->driver_version % 1000 / 10,
                    d.cuda->runtime_version / 1000, d.cuda->runtime_version % 1000 / 10);
        ImGui::Text("  CC %d.%d, %d SMs", d.cuda->cc_major, d.cuda->cc_minor, d.cuda->sm_count);
        ImGui::Text("UUIDs   %s", d.uuid_match ? "match" : "DIFFER");
    }
    if (d.usable) {
        ImGui::Text("handles %s (memory, semaphore)", interop::kHandleTypeName);
        ImGui::Text("dedicated allocation: yes");
        ImGui::TextWrapped("texture source: %s", in.texture_source.c_str());
        ImGui::Text("timeline value %llu", static_cast<unsigned long long>(in.timeline_value));
    }
    ImGui::Text("validation %s", in.validation ? "on" : "off");
    ImGui::PopFont();
}

} // namespace tl::ui
