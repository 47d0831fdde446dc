// Host-side images (RGBA8 or RGBA32F, tightly packed) and non-owning views with a row pitch.
#pragma once

#include "filter_spec.hpp"

#include <cstddef>
#include <cstdint>
#include <vector>

namespace tl {

inline std::size_t bytes_per_pixel(PixelFormat f) { return f == PixelFormat::RGBA8 ? 4 : 16; }

// A view of pixels somewhere (host or device) with a row pitch in bytes.
// RGBA8 pixels are 4 bytes R,G,B,A in memory order (one little-endian uint32 with R lowest);
// RGBA32F pixels are 4 floats R,G,B,A in [0,1] units.
struct ImageView {
    void* data = nullptr;
    std::size_t pitch = 0;  // bytes between rows
    int width = 0;
    int height = 0;
    PixelFormat format = PixelFormat::RGBA8;
};

struct ConstImageView {
    const void* data = nullptr;
    std::size_t pitch = 0;
    int width = 0;
    int height = 0;
    PixelFormat format = PixelFormat::RGBA8;
    ConstImageView() = default;
    ConstImageView(const void* d, std::size_t p, int w, int h, PixelFormat f)
        : data(d), pitch(p), width(w), height(h), format(f) {}
    ConstImageView(const ImageView& v)  // NOLINT: implicit on purpose
        : data(v.data), pitch(v.pitch), width(v.width), height(v.height), format(v.format) {}
};

// Owning host image, rows tightly packed (pitch = width * bytes_per_pixel).
struct Image {
    int width = 0;
    int height = 0;
    PixelFormat format = PixelFormat::RGBA8;
    std::vector<std::uint8_t> bytes;

    Image() = default;
    Image(int w, int h, PixelFormat f)
        : width(w), height(h), format(f),
          bytes(static_cast<std::size_t>(w) * static_cast<std::size_t>(h) * bytes_per_pixel(f)) {}

    std::size_t pitch() const { return static_cast<std::size_t>(width) * bytes_per_pixel(format); }
    bool empty() const { return width == 0 || height == 0; }
    ImageView view() { return {bytes.data(), pitch(), width, height, format}; }
    ConstImageView view() const { return {bytes.data(), pitch(), width, height, format}; }
    std::uint8_t* rgba8(int x, int y) { return bytes.data() + (static_cast<std::size_t>(y) * width + x) * 4; }
    const std::uint8_t* rgba8(int x, int y) const { return bytes.data() + (static_cast<std::size_t>(y) * width + x) * 4; }
    float* rgba32f(int x, int y) { return reinterpret_cast<float*>(bytes.data()) + (static_cast<std::size_t>(y) * width + x) * 4; }
    const float* rgba32f(int x, int y) const { return reinterpret_cast<const float*>(bytes.data()) + (static_cast<std::size_t>(y) * width + x) * 4; }
};

} // namespace tl
