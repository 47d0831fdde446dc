// Names, parameter validation and Gaussian weights of the stencil filters (see filter_spec.hpp).
#include "filter_spec.hpp"

#include <cmath>
#include <sstream>

namespace tl {

namespace {

constexpr FilterInfo kFilterInfos[] = {
    {FilterKind::Box, "box", "Box blur", "Mean over a (2r+1) x (2r+1) window; radius 1..32."},
    {FilterKind::Gaussian, "gaussian", "Gaussian blur",
     "Separable Gaussian with sigma 0.5..10 and radius ceil(3 sigma), weights normalised to 1."},
    {FilterKind::Sobel, "sobel", "Sobel edges", "Gradient magnitude sqrt(gx^2 + gy^2) of the 3x3 Sobel operators."},
    {FilterKind::Laplacian, "laplacian", "Laplacian",
     "Absolute value of the 4-neighbour Laplacian: |left + right + up + down - 4 centre|."},
    {FilterKind::Sharpen, "sharpen", "Sharpen",
     "Unsharp mask p + amount * (p - blur) with a 3x3 binomial blur; amount 0..5."},
    {FilterKind::Emboss, "emboss", "Emboss", "3x3 emboss kernel [-2 -1 0; -1 1 1; 0 1 2]."},
    {FilterKind::UserKernel, "user", "User kernel", "Your own 3x3 or 5x5 weights: scale * sum(w * p) + bias."},
};

constexpr std::string_view kBorderNames[] = {"clamp", "zero", "mirror"};
constexpr std::string_view kFormatNames[] = {"rgba8", "rgba32f"};

// Formats a float the way a person would type it back ("0.25", "40", "nan").
std::string num(float v) {
    std::ostringstream s;
    s << v;
    return s.str();
}

} // namespace

std::span<const FilterInfo> filter_infos() { return kFilterInfos; }

std::string_view to_string(FilterKind k) {
    for (const auto& info : kFilterInfos)
        if (info.kind == k) return info.name;
    return "unknown";
}

std::string_view to_string(Border b) {
    const auto i = static_cast<std::size_t>(b);
    return i < std::size(kBorderNames) ? kBorderNames[i] : "unknown";
}

std::string_view to_string(PixelFormat f) {
    const auto i = static_cast<std::size_t>(f);
    return i < std::size(kFormatNames) ? kFormatNames[i] : "unknown";
}

std::optional<FilterKind> parse_filter_kind(std::string_view name) {
    for (const auto& info : kFilterInfos)
        if (info.name == name) return info.kind;
    return std::nullopt;
}

std::optional<Border> parse_border(std::string_view name) {
    for (std::size_t i = 0; i < std::size(kBorderNames); ++i)
        if (kBorderNames[i] == name) return static_cast<Border>(i);
    return std::nullopt;
}

std::optional<PixelFormat> parse_pixel_format(std::string_view name) {
    for (std::size_t i = 0; i < std::size(kFormatNames); ++i)
        if (kFormatNames[i] == name) return static_cast<PixelFormat>(i);
    return std::nullopt;
}

namespace {
// Radius of a Gaussian with this sigma, before any validation (sigma is clamped so that a bad
// value cannot produce a radius that overflows the 61-entry weight table).
int gaussian_radius(float sigma) {
    if (!(sigma >= 0.5f)) sigma = 0.5f;  // also catches NaN
    if (sigma > 10.0f) sigma = 10.0f;
    return static_cast<int>(std::ceil(3.0f * sigma));
}
} // namespace

int filter_radius(const FilterParams& p) {
    switch (p.kind) {
    case FilterKind::Box: return p.radius;
    case FilterKind::Gaussian: return gaussian_radius(p.sigma);
    case FilterKind::Sobel:
    case FilterKind::Laplacian:
    case FilterKind::Sharpen:
    case FilterKind::Emboss: return 1;
    case FilterKind::UserKernel: return p.user_size / 2;
    }
    return 1;
}

std::string validate(const FilterParams& p) {
    switch (p.kind) {
    case FilterKind::Box:
        if (p.radius < 1 || p.radius > 32)
            return "box radius " + std::to_string(p.radius) + " is out of range: valid 1..32";
        return {};
    case FilterKind::Gaussian:
        if (!std::isfinite(p.sigma) || p.sigma < 0.5f || p.sigma > 10.0f)
            return "gaussian sigma " + num(p.sigma) + " is out of range: valid 0.5..10";
        return {};
    case FilterKind::Sharpen:
        if (!std::isfinite(p.amount) || p.amount < 0.0f || p.amount > 5.0f)
            return "sharpen amount " + num(p.amount) + " is out of range: valid 0..5";
        return {};
    case FilterKind::Sobel:
    case FilterKind::Laplacian:
    case FilterKind::Emboss: return {};
    case FilterKind::UserKernel: {
        if (p.user_size != 3 && p.user_size != 5)
            return "user kernel size " + std::to_string(p.user_size) + " is not supported: valid 3 or 5";
        for (int i = 0; i < p.user_size * p.user_size; ++i) {
            if (!std::isfinite(p.user[static_cast<std::size_t>(i)]))
                return "user kernel weight " + std::to_string(i) + " (row " + std::to_string(i / p.user_size) +
                       ", column " + std::to_string(i % p.user_size) + ") is not a finite number";
        }
        if (!std::isfinite(p.user_scale)) return "user kernel scale " + num(p.user_scale) + " is not a finite number";
        if (!std::isfinite(p.user_bias)) return "user kernel bias " + num(p.user_bias) + " is not a finite number";
        return {};
    }
    }
    return "filter kind " + std::to_string(static_cast<int>(p.kind)) + " is unknown";
}

std::array<float, 61> gaussian_weights(float sigma, int* radius_out) {
    const int radius = gaussian_radius(sigma);
    if (!(sigma >= 0.5f)) sigma = 0.5f;
    if (sigma > 10.0f) sigma = 10.0f;
    std::array<float, 61> w{};
    // Weights in double then normalised, so the float weights sum to 1 within one rounding each.
    double raw[61] = {};
    double sum = 0.0;
    const double two_s2 = 2.0 * double(sigma) * double(sigma);
    for (int x = -radius; x <= radius; ++x) {
        raw[x + radius] = std::exp(-double(x) * double(x) / two_s2);
        sum += raw[x + radius];
    }
    for (int i = 0; i < 2 * radius + 1; ++i) w[static_cast<std::size_t>(i)] = static_cast<float>(raw[i] / sum);
    if (radius_out) *radius_out = radius;
    return w;
}

} // namespace tl
