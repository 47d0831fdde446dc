// Image file loading (stb_image, from memory) and PNG saving (stb_image_write), with readable errors.
#include "image/image_io.hpp"

#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstring>
#include <memory>
#include <system_error>
#include <vector>

// stb is third-party code compiled with our warning flags: silence it here only.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-parameter"
#pragma GCC diagnostic ignored "-Wsign-compare"
#pragma GCC diagnostic ignored "-Wconversion"
#pragma GCC diagnostic ignored "-Wsign-conversion"
#pragma GCC diagnostic ignored "-Wshadow"
#pragma GCC diagnostic ignored "-Wpedantic"
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"
#pragma GCC diagnostic ignored "-Wunused-function"
#pragma GCC diagnostic ignored "-Wunused-but-set-variable"
#pragma GCC diagnostic ignored "-Wdouble-promotion"
#define STB_IMAGE_IMPLEMENTATION
#define STB_IMAGE_WRITE_IMPLEMENTATION
// Only the formats the program promises; TGA has no magic number, and fewer decoders means fewer
// ways for a stray file to be mistaken for an image.
#define STBI_ONLY_PNG
#define STBI_ONLY_JPEG
#define STBI_ONLY_BMP
#define STBI_ONLY_TGA
#define STBI_FAILURE_USERMSG  // "Corrupt PNG" rather than "bad zlib header"
#define STBI_NO_STDIO         // files are read by us, so errors name the real cause
#include <stb_image.h>
#include <stb_image_write.h>
#pragma GCC diagnostic pop

namespace tl {

namespace {

std::string quoted(const std::filesystem::path& p) { return "'" + p.string() + "'"; }

// The PNG header states its size in IHDR (bytes 16..23); stb_image refuses some huge headers with
// a vague "too large" before reporting the size, so read it directly to say what the file claims.
bool png_header_size(const std::vector<unsigned char>& b, std::uint32_t& w, std::uint32_t& h) {
    static constexpr unsigned char sig[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
    if (b.size() < 24 || std::memcmp(b.data(), sig, 8) != 0 || std::memcmp(b.data() + 12, "IHDR", 4) != 0) return false;
    auto be32 = [&](std::size_t o) {
        return (std::uint32_t(b[o]) << 24) | (std::uint32_t(b[o + 1]) << 16) | (std::uint32_t(b[o + 2]) << 8) |
               std::uint32_t(b[o + 3]);
    };
    w = be32(16);
    h = be32(20);
    return true;
}

std::string too_large(const std::filesystem::path& path, std::uint64_t w, std::uint64_t h) {
    return "cannot load " + quoted(path) + ": its header says " + std::to_string(w) + "x" + std::to_string(h) +
           " pixels; the largest supported is " + std::to_string(kMaxImageDim) + "x" + std::to_string(kMaxImageDim);
}

std::string stb_reason() {
    const char* r = stbi_failure_reason();
    return r ? std::string(r) : std::string("unknown error");
}

} // namespace

LoadResult load_image(const std::filesystem::path& path) {
    LoadResult result;
    std::error_code ec;
    const auto st = std::filesystem::status(path, ec);
    if (st.type() == std::filesystem::file_type::not_found) {
        result.error = "cannot load " + quoted(path) + ": the file does not exist";
        return result;
    }
    if (std::filesystem::is_directory(st)) {
        result.error = "cannot load " + quoted(path) + ": it is a directory, not an image file";
        return result;
    }
    if (ec) {
        result.error = "cannot load " + quoted(path) + ": " + ec.message();
        return result;
    }
    if (!std::filesystem::is_regular_file(st)) {
        // FIFOs and devices could block forever or never end; images are regular files.
        result.error = "cannot load " + quoted(path) + ": it is not a regular file";
        return result;
    }

    std::unique_ptr<std::FILE, int (*)(std::FILE*)> file(std::fopen(path.c_str(), "rb"), &std::fclose);
    if (!file) {
        const int err = errno;
        result.error = "cannot read " + quoted(path) + ": " + std::strerror(err);
        return result;
    }
    std::vector<unsigned char> bytes;
    {
        unsigned char chunk[1 << 16];
        for (;;) {
            const std::size_t n = std::fread(chunk, 1, sizeof chunk, file.get());
            bytes.insert(bytes.end(), chunk, chunk + n);
            if (n < sizeof chunk) break;
            if (bytes.size() > static_cast<std::size_t>(INT_MAX)) break;
        }
        if (std::ferror(file.get())) {
            const int err = errno;
            result.error = "cannot read " + quoted(path) + ": " + std::strerror(err);
            return result;
        }
    }
    if (bytes.empty()) {
        result.error = "cannot load " + quoted(path) + ": the file is empty (0 bytes)";
        return result;
    }
    if (bytes.size() > static_cast<std::size_t>(INT_MAX)) {
        result.error = "cannot load " + quoted(path) + ": the file is larger than 2 GiB";
        return result;
    }
    const int len = static_cast<int>(bytes.size());

    // Check the claimed size before decoding so that a hostile header never makes us allocate.
    std::uint32_t pw = 0, ph = 0;
    if (png_header_size(bytes, pw, ph) && (pw > kMaxImageDim || ph > kMaxImageDim)) {
        result.error = too_large(path, pw, ph);
        return result;
    }
    int w = 0, h = 0, comp = 0;
    if (!stbi_info_from_memory(bytes.data(), len, &w, &h, &comp)) {
        result.error = "cannot load " + quoted(path) + ": not a PNG, JPEG, BMP or TGA image that can be read (" +
                       stb_reason() + ")";
        return result;
    }
    if (w <= 0 || h <= 0) {
        result.error = "cannot load " + quoted(path) + ": its header says " + std::to_string(w) + "x" +
                       std::to_string(h) + " pixels";
        return result;
    }
    if (w > kMaxImageDim || h > kMaxImageDim) {
        result.error = too_large(path, static_cast<std::uint64_t>(w), static_cast<std::uint64_t>(h));
        return result;
    }

    int dw = 0, dh = 0, dc = 0;
    std::unique_ptr<stbi_uc, void (*)(void*)> pixels(stbi_load_from_memory(bytes.data(), len, &dw, &dh, &dc, 4),
                                                     &stbi_image_free);
    if (!pixels) {
        result.error = "cannot load " + quoted(path) + ": the image data is corrupt or truncated (" + stb_reason() + ")";
        return result;
    }
    if (dw != w || dh != h) {
        result.error = "cannot load " + quoted(path) + ": the decoded size " + std::to_string(dw) + "x" +
                       std::to_string(dh) + " differs from the header's " + std::to_string(w) + "x" + std::to_string(h);
        return result;
    }
    Image img(w, h, PixelFormat::RGBA8);
    std::memcpy(img.bytes.data(), pixels.get(), img.bytes.size());
    result.image = std::move(img);
    return result;
}

std::string save_png(const std::filesystem::path& path, const Image& image) {
    if (image.width <= 0 || image.height <= 0) return "cannot save " + quoted(path) + ": the image is empty";
    if (image.bytes.size() != image.pitch() * static_cast<std::size_t>(image.height))
        return "cannot save " + quoted(path) + ": the image holds " + std::to_string(image.bytes.size()) +
               " bytes, not the " + std::to_string(image.pitch() * static_cast<std::size_t>(image.height)) +
               " its size needs";
    const Image rgba8 = image.format == PixelFormat::RGBA8 ? Image{} : convert(image, PixelFormat::RGBA8);
    const Image& src = image.format == PixelFormat::RGBA8 ? image : rgba8;

    // Encode to memory first, then write it ourselves so that a failure names the OS reason.
    std::vector<unsigned char> png;
    auto append = [](void* ctx, void* data, int size) {
        auto* out = static_cast<std::vector<unsigned char>*>(ctx);
        const auto* p = static_cast<const unsigned char*>(data);
        out->insert(out->end(), p, p + size);
    };
    if (!stbi_write_png_to_func(append, &png, src.width, src.height, 4, src.bytes.data(), static_cast<int>(src.pitch())))
        return "cannot save " + quoted(path) + ": PNG encoding failed";

    std::error_code ec;
    if (std::filesystem::is_directory(path, ec)) return "cannot save " + quoted(path) + ": it is a directory";
    std::unique_ptr<std::FILE, int (*)(std::FILE*)> file(std::fopen(path.c_str(), "wb"), &std::fclose);
    if (!file) {
        const int err = errno;
        return "cannot save " + quoted(path) + ": " + std::strerror(err);
    }
    if (std::fwrite(png.data(), 1, png.size(), file.get()) != png.size()) {
        const int err = errno;
        return "cannot save " + quoted(path) + ": " + std::strerror(err);
    }
    if (std::fclose(file.release()) != 0) {
        const int err = errno;
        return "cannot save " + quoted(path) + ": " + std::strerror(err);
    }
    return {};
}

Image convert(const Image& src, PixelFormat to) {
    if (src.format == to) return src;
    Image out(src.width, src.height, to);
    const std::size_t n = static_cast<std::size_t>(src.width) * static_cast<std::size_t>(src.height) * 4;
    if (to == PixelFormat::RGBA32F) {
        auto* dst = reinterpret_cast<float*>(out.bytes.data());
        for (std::size_t i = 0; i < n; ++i) dst[i] = float(src.bytes[i]) / 255.0f;
    } else {
        const auto* s = reinterpret_cast<const float*>(src.bytes.data());
        for (std::size_t i = 0; i < n; ++i) out.bytes[i] = quantize_unorm8(s[i]);
    }
    return out;
}

} // namespace tl
