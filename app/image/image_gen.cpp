// Procedural test images: each one stresses a different part of a stencil filter (see generator_infos()).
#include "image/image_gen.hpp"

#include "image/image_io.hpp"

#include <algorithm>
#include <cmath>
#include <numbers>
#include <thread>
#include <vector>

namespace tl {

namespace {

constexpr GeneratorInfo kGeneratorInfos[] = {
    {Generator::ZonePlate, "zone-plate", "Zone plate",
     "Concentric rings cos(k r^2) whose frequency rises to the Nyquist limit at the edge: shows blur and aliasing."},
    {Generator::Checkerboard, "checkerboard", "Checkerboard",
     "Black and white squares: sharp edges in x and y for edge detectors and border handling."},
    {Generator::Noise, "noise", "Noise",
     "Uniform random RGB from the seed: neighbours are independent, so any misplaced tap shows in the diff."},
    {Generator::Gradient, "gradient", "Gradient",
     "Smooth colour ramps (red along x, green along y): blurs should leave it almost unchanged."},
};

// Stateless 32-bit hash (lowbias32): pixel values depend only on (seed, x, y, channel), so the
// image is the same however rows are split between threads.
std::uint32_t hash32(std::uint32_t x) {
    x ^= x >> 16;
    x *= 0x7feb352dU;
    x ^= x >> 15;
    x *= 0x846ca68bU;
    x ^= x >> 16;
    return x;
}

template <class Fn>
void for_rows(int h, int w, Fn&& fn) {
    const unsigned hw = std::max(1u, std::thread::hardware_concurrency());
    const long long pixels = static_cast<long long>(w) * h;
    const unsigned n = static_cast<unsigned>(std::min<long long>({static_cast<long long>(hw), h, std::max(1LL, pixels / 262144)}));
    if (n <= 1) {
        for (int y = 0; y < h; ++y) fn(y);
        return;
    }
    std::vector<std::thread> threads;
    for (unsigned i = 0; i < n; ++i) {
        const int y0 = static_cast<int>(static_cast<long long>(h) * i / n);
        const int y1 = static_cast<int>(static_cast<long long>(h) * (i + 1) / n);
        threads.emplace_back([&fn, y0, y1] {
            for (int y = y0; y < y1; ++y) fn(y);
        });
    }
    for (auto& t : threads) t.join();
}

} // namespace

std::span<const GeneratorInfo> generator_infos() { return kGeneratorInfos; }

std::optional<Generator> parse_generator(std::string_view name) {
    for (const auto& info : kGeneratorInfos)
        if (info.name == name) return info.generator;
    return std::nullopt;
}

std::string_view to_string(Generator g) {
    for (const auto& info : kGeneratorInfos)
        if (info.generator == g) return info.name;
    return "unknown";
}

std::string validate_image_size(int w, int h) {
    if (w >= 1 && h >= 1 && w <= kMaxImageDim && h <= kMaxImageDim) return {};
    return "image size " + std::to_string(w) + "x" + std::to_string(h) + " is out of range: width and height must be 1.." +
           std::to_string(kMaxImageDim);
}

Image generate_image(Generator g, int w, int h, std::uint32_t seed) {
    if (!validate_image_size(w, h).empty()) return {};
    Image img(w, h, PixelFormat::RGBA8);
    switch (g) {
    case Generator::ZonePlate: {
        // Phase k r^2 has local frequency 2 k r rad/pixel; reaching pi (Nyquist) at r = max(w,h)/2
        // puts the finest rings at the edges, with aliasing in the corners.
        const double r_max = std::max(w, h) / 2.0;
        const double k = std::numbers::pi / (2.0 * r_max);
        // cos(k dx^2 + k dy^2) = cos(a)cos(b) - sin(a)sin(b): one cos/sin per column and per row
        // instead of per pixel keeps an 8K plate well under a second.
        std::vector<double> cx(static_cast<std::size_t>(w)), sx(static_cast<std::size_t>(w));
        for (int x = 0; x < w; ++x) {
            const double dx = x + 0.5 - w / 2.0;
            cx[static_cast<std::size_t>(x)] = std::cos(k * dx * dx);
            sx[static_cast<std::size_t>(x)] = std::sin(k * dx * dx);
        }
        for_rows(h, w, [&](int y) {
            const double dy = y + 0.5 - h / 2.0;
            const double cy = std::cos(k * dy * dy);
            const double sy = std::sin(k * dy * dy);
            for (int x = 0; x < w; ++x) {
                const std::size_t i = static_cast<std::size_t>(x);
                const double v = 0.5 + 0.5 * (cx[i] * cy - sx[i] * sy);
                const auto q = static_cast<std::uint8_t>(std::floor(std::clamp(v, 0.0, 1.0) * 255.0 + 0.5));
                std::uint8_t* p = img.rgba8(x, y);
                p[0] = p[1] = p[2] = q;
                p[3] = 255;
            }
        });
        break;
    }
    case Generator::Checkerboard: {
        // About 16 squares across the shorter side, never smaller than one pixel.
        const int cell = std::max(1, std::min(w, h) / 16);
        for_rows(h, w, [&](int y) {
            for (int x = 0; x < w; ++x) {
                const std::uint8_t v = ((x / cell + y / cell) % 2 == 0) ? 255 : 0;
                std::uint8_t* p = img.rgba8(x, y);
                p[0] = p[1] = p[2] = v;
                p[3] = 255;
            }
        });
        break;
    }
    case Generator::Noise: {
        const std::uint32_t s = hash32(seed ^ 0x9e3779b9U);
        for_rows(h, w, [&](int y) {
            for (int x = 0; x < w; ++x) {
                const std::uint32_t idx = static_cast<std::uint32_t>(y) * static_cast<std::uint32_t>(w) + static_cast<std::uint32_t>(x);
                const std::uint32_t r = hash32(idx ^ hash32(s + static_cast<std::uint32_t>(y)));
                std::uint8_t* p = img.rgba8(x, y);
                p[0] = static_cast<std::uint8_t>(r);
                p[1] = static_cast<std::uint8_t>(r >> 8);
                p[2] = static_cast<std::uint8_t>(r >> 16);
                p[3] = 255;
            }
        });
        break;
    }
    case Generator::Gradient: {
        const double sx = w > 1 ? 1.0 / (w - 1) : 0.0;
        const double sy = h > 1 ? 1.0 / (h - 1) : 0.0;
        for_rows(h, w, [&](int y) {
            const double v = y * sy;
            for (int x = 0; x < w; ++x) {
                const double u = x * sx;
                std::uint8_t* p = img.rgba8(x, y);
                p[0] = static_cast<std::uint8_t>(std::floor(u * 255.0 + 0.5));
                p[1] = static_cast<std::uint8_t>(std::floor(v * 255.0 + 0.5));
                p[2] = static_cast<std::uint8_t>(std::floor((1.0 - 0.5 * (u + v)) * 255.0 + 0.5));
                p[3] = 255;
            }
        });
        break;
    }
    }
    return img;
}

} // namespace tl
