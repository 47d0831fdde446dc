// Theme and fonts: readable from the back of a room.
#include "ui/theme.hpp"

#include <imgui.h>

#include <filesystem>

namespace tl::ui {

namespace {
ImFont* g_mono = nullptr;

const char* first_existing(std::initializer_list<const char*> paths) {
    std::error_code ec;
    for (const char* p : paths)
        if (std::filesystem::is_regular_file(p, ec)) return p;
    return nullptr;
}
} // namespace

void apply_theme(float scale) {
    ImGui::StyleColorsDark();
    ImGuiStyle& s = ImGui::GetStyle();
    s.WindowRounding = 6.0f;
    s.ChildRounding = 4.0f;
    s.FrameRounding = 4.0f;
    s.GrabRounding = 4.0f;
    s.PopupRounding = 4.0f;
    s.TabRounding = 4.0f;
    s.WindowPadding = ImVec2(12, 10);
    s.FramePadding = ImVec2(8, 5);
    s.ItemSpacing = ImVec2(10, 7);
    s.ItemInnerSpacing = ImVec2(6, 5);
    s.IndentSpacing = 16.0f;
    s.ScrollbarSize = 14.0f;
    s.WindowBorderSize = 0.0f;
    s.FrameBorderSize = 0.0f;
    s.WindowTitleAlign = ImVec2(0.0f, 0.5f);

    ImVec4* c = s.Colors;
    const ImVec4 bg(0.105f, 0.110f, 0.125f, 1.00f);
    const ImVec4 panel(0.135f, 0.140f, 0.160f, 1.00f);
    const ImVec4 frame(0.190f, 0.200f, 0.230f, 1.00f);
    const ImVec4 frame_hover(0.250f, 0.265f, 0.305f, 1.00f);
    const ImVec4 accent(0.965f, 0.718f, 0.247f, 1.00f);      // amber
    const ImVec4 accent_dim(0.780f, 0.560f, 0.160f, 1.00f);
    const ImVec4 blue(0.200f, 0.420f, 0.720f, 1.00f);
    c[ImGuiCol_Text] = ImVec4(0.93f, 0.93f, 0.94f, 1.0f);
    c[ImGuiCol_TextDisabled] = ImVec4(0.50f, 0.51f, 0.54f, 1.0f);
    c[ImGuiCol_WindowBg] = bg;
    c[ImGuiCol_ChildBg] = panel;
    c[ImGuiCol_PopupBg] = ImVec4(0.12f, 0.125f, 0.14f, 0.98f);
    c[ImGuiCol_Border] = ImVec4(0.25f, 0.26f, 0.30f, 1.0f);
    c[ImGuiCol_FrameBg] = frame;
    c[ImGuiCol_FrameBgHovered] = frame_hover;
    c[ImGuiCol_FrameBgActive] = ImVec4(0.30f, 0.32f, 0.37f, 1.0f);
    c[ImGuiCol_TitleBg] = ImVec4(0.16f, 0.29f, 0.48f, 1.0f);
    c[ImGuiCol_TitleBgActive] = ImVec4(0.16f, 0.29f, 0.48f, 1.0f);
    c[ImGuiCol_TitleBgCollapsed] = ImVec4(0.16f, 0.29f, 0.48f, 1.0f);
    c[ImGuiCol_MenuBarBg] = panel;
    c[ImGuiCol_CheckMark] = accent;
    c[ImGuiCol_SliderGrab] = accent_dim;
    c[ImGuiCol_SliderGrabActive] = accent;
    c[ImGuiCol_Button] = ImVec4(0.22f, 0.34f, 0.52f, 1.0f);
    c[ImGuiCol_ButtonHovered] = ImVec4(0.28f, 0.42f, 0.63f, 1.0f);
    c[ImGuiCol_ButtonActive] = blue;
    c[ImGuiCol_Header] = ImVec4(0.20f, 0.22f, 0.27f, 1.0f);
    c[ImGuiCol_HeaderHovered] = ImVec4(0.26f, 0.29f, 0.35f, 1.0f);
    c[ImGuiCol_HeaderActive] = ImVec4(0.30f, 0.33f, 0.40f, 1.0f);
    c[ImGuiCol_Separator] = ImVec4(0.28f, 0.29f, 0.33f, 1.0f);
    c[ImGuiCol_Tab] = frame;
    c[ImGuiCol_TabHovered] = frame_hover;
    c[ImGuiCol_TabActive] = ImVec4(0.22f, 0.34f, 0.52f, 1.0f);
    c[ImGuiCol_PlotHistogram] = accent_dim;
    c[ImGuiCol_PlotHistogramHovered] = accent;
    c[ImGuiCol_PlotLines] = accent;
    c[ImGuiCol_TableHeaderBg] = ImVec4(0.17f, 0.18f, 0.21f, 1.0f);
    c[ImGuiCol_TableRowBgAlt] = ImVec4(1.0f, 1.0f, 1.0f, 0.03f);
    s.ScaleAllSizes(scale);
}

void load_fonts(float scale) {
    ImGuiIO& io = ImGui::GetIO();
    const float size = 17.0f * scale;
    const char* sans = first_existing({"/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf",
                                       "/usr/share/fonts/TTF/DejaVuSans.ttf",
                                       "/usr/share/fonts/truetype/liberation2/LiberationSans-Regular.ttf"});
    const char* mono = first_existing({"/usr/share/fonts/truetype/dejavu/DejaVuSansMono.ttf",
                                       "/usr/share/fonts/TTF/DejaVuSansMono.ttf",
                                       "/usr/share/fonts/truetype/liberation2/LiberationMono-Regular.ttf"});
    ImFont* main_font = sans ? io.Fonts->AddFontFromFileTTF(sans, size) : nullptr;
    if (!main_font) {
        // ImGui's built-in pixel font is 13 px; scale it rather than show tiny text.
        ImFontConfig cfg;
        cfg.SizePixels = 13.0f * scale;
        main_font = io.Fonts->AddFontDefault(&cfg);
    }
    g_mono = mono ? io.Fonts->AddFontFromFileTTF(mono, size) : nullptr;
    if (!g_mono) g_mono = main_font;
    io.FontDefault = main_font;
}

ImFont* mono_font() { return g_mono ? g_mono : ImGui::GetFont(); }

} // namespace tl::ui
