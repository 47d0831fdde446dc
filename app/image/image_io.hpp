// Image files in and out: PNG/JPEG/BMP/TGA decoded to RGBA8 (stb_image), PNG written (stb_image_write).
// Every failure a user can cause (missing file, directory, corrupt or huge image) is a sentence.
#pragma once

#include "image.hpp"

#include <filesystem>
#include <optional>
#include <string>

namespace tl {

// Largest width or height accepted from a file or a generator (a 16384^2 RGBA32F image is 4 GiB).
inline constexpr int kMaxImageDim = 16384;

// Either an RGBA8 image, or no image and an error sentence naming the file and the reason.
struct LoadResult {
    std::optional<Image> image;
    std::string error;
};

// Reads the whole file into memory, checks the header's dimensions (<= kMaxImageDim each) before
// decoding, then decodes to RGBA8 (alpha 255 where the file has none).
LoadResult load_image(const std::filesystem::path& path);

// Writes an RGBA PNG (RGBA32F is quantized with quantize_unorm8). Empty on success, else the reason.
std::string save_png(const std::filesystem::path& path, const Image& image);

// RGBA8 -> RGBA32F is v / 255 exactly; RGBA32F -> RGBA8 is quantize_unorm8. Same format: a copy.
Image convert(const Image& src, PixelFormat to);

} // namespace tl
