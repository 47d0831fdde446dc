// Per-pixel operations (a chain applied in one pass): descriptions and parameters.
// All ops work on R,G,B in [0,1] units in float; alpha passes through unchanged.
// RGBA8 results are quantized once, at the end of the chain, with quantize_unorm8.
#pragma once

#include <array>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace tl {

enum class PixelOpKind {
    BrightnessContrast, // c = (c - 0.5) * contrast + 0.5 + brightness      brightness -1..1, contrast 0..4
    Gamma,              // c = pow(max(c,0), 1 / gamma)                       gamma 0.1..5
    Saturation,         // l = luma(c); c = l + saturation * (c - l)        saturation 0..4
    Grayscale,          // c = luma(c)  (Rec.709: 0.2126 R + 0.7152 G + 0.0722 B)
    Invert,             // c = 1 - c
    Threshold,          // c = luma(c) >= threshold ? 1 : 0                  threshold 0..1
    Levels,             // c = pow(clamp((c - black) / (white - black), 0, 1), 1 / gamma)
                        //   black 0..1, white 0..1 with white > black, gamma 0.1..5
    ColorMatrix,        // c = M * c (3x3 row-major)                          entries -4..4
    Lut,                // c = lut[channel][round(clamp(c,0,1) * 255)] / 255 (256 entries each)
};

struct PixelOp {
    PixelOpKind kind = PixelOpKind::Invert;
    float a = 0.0f;  // brightness | gamma | saturation | threshold | black
    float b = 1.0f;  // contrast | white
    float c = 1.0f;  // levels gamma
    std::array<float, 9> matrix{1, 0, 0, 0, 1, 0, 0, 0, 1};
    std::vector<std::array<std::uint8_t, 256>> lut;  // 3 tables (R, G, B) for Lut
};

struct PixelOpInfo {
    PixelOpKind kind;
    std::string_view name;   // command-line name: "brightness-contrast", "gamma", ...
    std::string_view label;  // UI label
    std::string_view description;
};

std::span<const PixelOpInfo> pixel_op_infos();
std::optional<PixelOpKind> parse_pixel_op_kind(std::string_view name);
std::string_view to_string(PixelOpKind k);
PixelOp default_pixel_op(PixelOpKind k);  // identity-like defaults for the UI
std::string validate(const PixelOp& op);  // empty when valid, else a sentence with the range

inline float luma709(float r, float g, float b) { return 0.2126f * r + 0.7152f * g + 0.0722f * b; }

} // namespace tl
