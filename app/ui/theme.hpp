// Dark, high-contrast ImGui theme and fonts sized for a projector (scaled by --ui-scale).
#pragma once

struct ImFont;

namespace tl::ui {

void apply_theme(float scale);
// Loads a proportional and a monospace font (DejaVu when installed, else ImGui's built-in font).
void load_fonts(float scale);
// The monospace font for numbers that must line up (pixel values, timings); never null after load_fonts.
ImFont* mono_font();
// Accent colours shared by the panels.
struct Colors {
    static constexpr unsigned accent = 0xFF3FB7F6;   // ABGR: warm orange-ish accent (#F6B73F)
    static constexpr unsigned ok = 0xFF7CD67C;
    static constexpr unsigned warn = 0xFF4FA8F5;
    static constexpr unsigned muted = 0xFF9A948C;
};

} // namespace tl::ui
