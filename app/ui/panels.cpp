// Sidebar panels. Ranges shown here are the ones tl::validate accepts (cuda/filter_spec.hpp).
#include "ui/panels.hpp"

#include "stencil_api.hpp"
#include "ui/theme.hpp"

#include <imgui.h>

#include <algorithm>
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

    ImGui::Spacing();
    changed |= ImGui::Checkbox("Per-pixel op chain", &s.ops_enabled);
    help_marker("Runs after the stencil filter in one pass over the filtered image; alpha passes through.");
    if (s.ops_enabled) {
        int remove = -1;
        for (std::size_t i = 0; i < s.ops.size(); ++i) {
            ImGui::PushID(static_cast<int>(i));
            ImGui::Separator();
            std::string op_label(to_string(s.ops[i].kind));
            for (const auto& info : pixel_op_infos())
                if (info.kind == s.ops[i].kind) op_label = std::string(info.label);
            ImGui::Text("%zu. %s", i + 1, op_label.c_str());
            ImGui::SameLine(ImGui::GetContentRegionAvail().x - ImGui::GetFontSize() * 1.2f);
            if (ImGui::SmallButton("x")) remove = static_cast<int>(i);
            changed |= pixel_op_editor(s.ops[i]);
            ImGui::PopID();
        }
        if (remove >= 0) {
            s.ops.erase(s.ops.begin() + remove);
            changed = true;
        }
        ImGui::SetNextItemWidth(-1.0f);
        if (ImGui::BeginCombo("##addop", "+ add an op")) {
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
    }
    ImGui::Spacing();
    ImGui::Checkbox("Re-run every frame", &s.run_every_frame);
    help_marker("Normally the filter runs once per change. Re-running it every frame keeps the GPU timings in the Stats panel live.");
    if (!s.status.empty()) wrapped_colored(Colors::warn, s.status);
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
        }
    }
    ImGui::PopFont();
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
    const cuda::Result status = cuda::cuda_status();
    if (!status) wrapped_colored(Colors::muted, status.reason);
    const ImGuiTableFlags flags = ImGuiTableFlags_RowBg | ImGuiTableFlags_SizingStretchProp | ImGuiTableFlags_BordersInnerH;
    if (ImGui::BeginTable("mechanisms", 3, flags)) {
        ImGui::TableSetupColumn("Mechanism", ImGuiTableColumnFlags_WidthStretch, 2.0f);
        ImGui::TableSetupColumn("SASS", ImGuiTableColumnFlags_WidthStretch, 1.5f);
        ImGui::TableSetupColumn("CC", ImGuiTableColumnFlags_WidthStretch, 0.45f);
        ImGui::TableHeadersRow();
        for (const auto& m : cuda::mechanism_infos()) {
            const cuda::Result can = status ? cuda::can_run(m.mechanism, s.params, PixelFormat::RGBA8, cuda::Policy{}) : status;
            ImGui::TableNextRow();
            ImGui::TableNextColumn();
            ImGui::BeginDisabled(!can.ok);
            ImGui::TextUnformatted(std::string(m.label).c_str());
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
            ImGui::TextDisabled("%s", m.instruction.empty() ? "-" : std::string(m.instruction).c_str());
            ImGui::TableNextColumn();
            ImGui::TextDisabled("%d.%d", m.min_cc_major, m.min_cc_minor);
        }
        ImGui::EndTable();
    }
    ImGui::Spacing();
    ImGui::TextUnformatted("Active path: Vulkan compute");
    if (status)
        wrapped_colored(Colors::muted, "CUDA is usable here, but the viewer does not hand frames to CUDA yet; "
                                       "the rows above show what this GPU could run.");
    for (const auto v : vk::compute_variants()) {
        if (ImGui::RadioButton(std::string(to_string(v)).c_str(), s.variant == v)) {
            s.variant = v;
            actions.filter_changed = true;
        }
        if (ImGui::IsItemHovered()) {
            ImGui::BeginTooltip();
            ImGui::PushTextWrapPos(ImGui::GetFontSize() * 30.0f);
            ImGui::TextUnformatted(std::string(vk::compute_variant_explanation(v)).c_str());
            ImGui::PopTextWrapPos();
            ImGui::EndTooltip();
        }
    }
}

} // namespace tl::ui
