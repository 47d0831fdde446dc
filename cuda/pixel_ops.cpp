// Names, defaults and parameter validation of the per-pixel operations (see pixel_ops.hpp).
#include "pixel_ops.hpp"

#include <cmath>
#include <sstream>

namespace tl {

namespace {

constexpr PixelOpInfo kPixelOpInfos[] = {
    {PixelOpKind::BrightnessContrast, "brightness-contrast", "Brightness / contrast",
     "c = (c - 0.5) * contrast + 0.5 + brightness; brightness -1..1, contrast 0..4."},
    {PixelOpKind::Gamma, "gamma", "Gamma", "c = c^(1 / gamma); gamma 0.1..5."},
    {PixelOpKind::Saturation, "saturation", "Saturation",
     "Moves each colour away from (or towards) its Rec.709 luma; saturation 0..4, 1 keeps it."},
    {PixelOpKind::Grayscale, "grayscale", "Grayscale", "Replaces R, G and B with the Rec.709 luma."},
    {PixelOpKind::Invert, "invert", "Invert", "c = 1 - c for R, G and B."},
    {PixelOpKind::Threshold, "threshold", "Threshold", "White where the Rec.709 luma >= threshold, else black; 0..1."},
    {PixelOpKind::Levels, "levels", "Levels",
     "Maps black..white to 0..1, clamps, then applies gamma; black < white in 0..1, gamma 0.1..5."},
    {PixelOpKind::ColorMatrix, "color-matrix", "Colour matrix", "c = M * c with a 3x3 matrix, entries -4..4."},
    {PixelOpKind::Lut, "lut", "Lookup table", "c = lut[channel][round(c * 255)] / 255 with one 256-entry table per channel."},
};

std::string num(float v) {
    std::ostringstream s;
    s << v;
    return s.str();
}

// Empty when lo <= v <= hi (and v is a number), else "<what> <v> is out of range: valid lo..hi".
std::string check_range(std::string_view what, float v, float lo, float hi, std::string_view range) {
    if (std::isfinite(v) && v >= lo && v <= hi) return {};
    return std::string(what) + " " + num(v) + " is out of range: valid " + std::string(range);
}

} // namespace

std::span<const PixelOpInfo> pixel_op_infos() { return kPixelOpInfos; }

std::optional<PixelOpKind> parse_pixel_op_kind(std::string_view name) {
    for (const auto& info : kPixelOpInfos)
        if (info.name == name) return info.kind;
    return std::nullopt;
}

std::string_view to_string(PixelOpKind k) {
    for (const auto& info : kPixelOpInfos)
        if (info.kind == k) return info.name;
    return "unknown";
}

PixelOp default_pixel_op(PixelOpKind k) {
    PixelOp op;
    op.kind = k;
    switch (k) {
    case PixelOpKind::BrightnessContrast: op.a = 0.0f; op.b = 1.0f; break;
    case PixelOpKind::Gamma: op.a = 1.0f; break;
    case PixelOpKind::Saturation: op.a = 1.0f; break;
    case PixelOpKind::Grayscale:
    case PixelOpKind::Invert: break;
    case PixelOpKind::Threshold: op.a = 0.5f; break;
    case PixelOpKind::Levels: op.a = 0.0f; op.b = 1.0f; op.c = 1.0f; break;
    case PixelOpKind::ColorMatrix: op.matrix = {1, 0, 0, 0, 1, 0, 0, 0, 1}; break;
    case PixelOpKind::Lut: {
        std::array<std::uint8_t, 256> identity{};
        for (int i = 0; i < 256; ++i) identity[static_cast<std::size_t>(i)] = static_cast<std::uint8_t>(i);
        op.lut.assign(3, identity);
        break;
    }
    }
    return op;
}

std::string validate(const PixelOp& op) {
    std::string e;
    switch (op.kind) {
    case PixelOpKind::BrightnessContrast:
        e = check_range("brightness", op.a, -1.0f, 1.0f, "-1..1");
        if (e.empty()) e = check_range("contrast", op.b, 0.0f, 4.0f, "0..4");
        return e;
    case PixelOpKind::Gamma: return check_range("gamma", op.a, 0.1f, 5.0f, "0.1..5");
    case PixelOpKind::Saturation: return check_range("saturation", op.a, 0.0f, 4.0f, "0..4");
    case PixelOpKind::Grayscale:
    case PixelOpKind::Invert: return {};
    case PixelOpKind::Threshold: return check_range("threshold", op.a, 0.0f, 1.0f, "0..1");
    case PixelOpKind::Levels:
        e = check_range("levels black", op.a, 0.0f, 1.0f, "0..1");
        if (e.empty()) e = check_range("levels white", op.b, 0.0f, 1.0f, "0..1");
        if (e.empty() && !(op.b > op.a))
            e = "levels white " + num(op.b) + " must be greater than black " + num(op.a);
        if (e.empty()) e = check_range("levels gamma", op.c, 0.1f, 5.0f, "0.1..5");
        return e;
    case PixelOpKind::ColorMatrix:
        for (std::size_t i = 0; i < op.matrix.size(); ++i) {
            e = check_range("color-matrix entry (row " + std::to_string(i / 3) + ", column " + std::to_string(i % 3) + ")",
                            op.matrix[i], -4.0f, 4.0f, "-4..4");
            if (!e.empty()) return e;
        }
        return {};
    case PixelOpKind::Lut:
        if (op.lut.size() != 3)
            return "lut needs 3 tables (R, G, B) of 256 entries; it has " + std::to_string(op.lut.size());
        return {};
    }
    return "pixel op kind " + std::to_string(static_cast<int>(op.kind)) + " is unknown";
}

} // namespace tl
