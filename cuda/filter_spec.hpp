// Filter, border and pixel-format descriptions shared by the CPU reference, the CUDA kernels,
// the Vulkan compute path, the UI and the command line. Plain host C++ (usable from .cu too).
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace tl {

enum class PixelFormat { RGBA8, RGBA32F };

// Border modes. Mirror is the symmetric reflection that repeats the edge pixel:
//   ... c b a | a b c ... c b a | a b c ...   (index -1 -> 0, -2 -> 1, w -> w-1)
// so it is defined for every width >= 1 and any radius (folded repeatedly).
enum class Border { Clamp, Zero, Mirror };

enum class FilterKind { Box, Gaussian, Sobel, Laplacian, Sharpen, Emboss, UserKernel };

// Parameters of one stencil filter. Only the fields that the kind uses matter.
struct FilterParams {
    FilterKind kind = FilterKind::Box;
    int radius = 1;          // Box: 1..32
    float sigma = 1.0f;      // Gaussian: 0.5..10, radius = ceil(3 * sigma)
    float amount = 1.0f;     // Sharpen: 0..5
    int user_size = 3;       // UserKernel: 3 or 5
    std::array<float, 25> user{};  // UserKernel weights, row-major user_size x user_size
    float user_scale = 1.0f; // UserKernel: result = scale * sum(w * p) + bias (bias in 0..1 units)
    float user_bias = 0.0f;
};

// Static description of a filter kind: used to build UI combos, --help text and tests.
struct FilterInfo {
    FilterKind kind;
    std::string_view name;        // command-line name: "box", "gaussian", ...
    std::string_view label;       // UI label
    std::string_view description; // one sentence: what it computes
};

std::span<const FilterInfo> filter_infos();
std::string_view to_string(FilterKind k);
std::string_view to_string(Border b);
std::string_view to_string(PixelFormat f);
std::optional<FilterKind> parse_filter_kind(std::string_view name);
std::optional<Border> parse_border(std::string_view name);
std::optional<PixelFormat> parse_pixel_format(std::string_view name);

// Stencil radius in pixels (halo width) of a filter with these parameters.
int filter_radius(const FilterParams& p);

// Empty when valid; otherwise a sentence naming the parameter and its valid range.
std::string validate(const FilterParams& p);

// Gaussian 1D weights (normalised to sum 1), size 2 * radius + 1.
std::array<float, 61> gaussian_weights(float sigma, int* radius_out);

// Fold an out-of-range coordinate into [0, n) according to the border mode.
// Returns -1 for Border::Zero outside the image.
constexpr int fold_coord(int i, int n, Border b) {
    if (i >= 0 && i < n) return i;
    switch (b) {
    case Border::Clamp: return i < 0 ? 0 : n - 1;
    case Border::Zero: return -1;
    case Border::Mirror: {
        const int period = 2 * n;
        int m = i % period;
        if (m < 0) m += period;
        return m < n ? m : period - 1 - m;
    }
    }
    return -1;
}

// Rounding rule for 8-bit output: v in [0,1] units -> floor(clamp(v,0,1) * 255 + 0.5).
// GPU results are compared with the CPU reference within 1 LSB for RGBA8 (float summation
// order differs) and within 1e-4 relative for RGBA32F.
inline std::uint8_t quantize_unorm8(float v) {
    v = v < 0.f ? 0.f : (v > 1.f ? 1.f : v);
    return static_cast<std::uint8_t>(v * 255.0f + 0.5f);
}

} // namespace tl
