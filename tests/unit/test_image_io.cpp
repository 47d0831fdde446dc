// Image files: PNG round trip, BMP/TGA decoding, format conversion, and every bad input a user can
// hand us (missing, directory, empty, text, corrupt, truncated, huge header) gives a sentence, no image.
#include "image/image_gen.hpp"
#include "image/image_io.hpp"

#include <gtest/gtest.h>

#include <unistd.h>

#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <random>
#include <string>
#include <vector>

namespace tl {
namespace {

namespace fs = std::filesystem;

// A fresh directory per test, removed afterwards.
class ImageIo : public ::testing::Test {
protected:
    void SetUp() override {
        const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
        dir_ = fs::temp_directory_path() /
               ("tilelab_image_io_" + std::to_string(::getpid()) + "_" + info->name());
        fs::remove_all(dir_);
        fs::create_directories(dir_);
    }
    void TearDown() override {
        std::error_code ec;
        fs::permissions(dir_ / "locked.png", fs::perms::owner_all, ec);
        fs::remove_all(dir_, ec);
    }
    fs::path write(const std::string& name, const std::vector<std::uint8_t>& bytes) {
        const fs::path p = dir_ / name;
        std::ofstream f(p, std::ios::binary);
        f.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
        return p;
    }
    static std::vector<std::uint8_t> read(const fs::path& p) {
        std::ifstream f(p, std::ios::binary);
        return {std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>()};
    }
    // A failed load has no image and an error naming the file and containing `reason`.
    static void expect_error(const LoadResult& r, const fs::path& p, const std::string& reason) {
        EXPECT_FALSE(r.image.has_value());
        EXPECT_NE(r.error.find(p.filename().string()), std::string::npos) << r.error;
        EXPECT_NE(r.error.find(reason), std::string::npos) << r.error;
    }
    fs::path dir_;
};

Image noise_with_alpha(int w, int h) {
    Image img = generate_image(Generator::Noise, w, h, 42);
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) img.rgba8(x, y)[3] = static_cast<std::uint8_t>((x * 37 + y * 11) & 0xff);
    return img;
}

std::uint32_t crc32(const std::uint8_t* data, std::size_t n) {
    std::uint32_t c = 0xffffffffu;
    for (std::size_t i = 0; i < n; ++i) {
        c ^= data[i];
        for (int k = 0; k < 8; ++k) c = (c >> 1) ^ (0xedb88320u & (0u - (c & 1u)));
    }
    return c ^ 0xffffffffu;
}

void put_be32(std::vector<std::uint8_t>& v, std::uint32_t x) {
    for (int s = 24; s >= 0; s -= 8) v.push_back(static_cast<std::uint8_t>(x >> s));
}
void put_le(std::vector<std::uint8_t>& v, std::uint32_t x, int bytes) {
    for (int i = 0; i < bytes; ++i) v.push_back(static_cast<std::uint8_t>(x >> (8 * i)));
}

// A well-formed PNG signature + IHDR (with a correct CRC) + IEND, claiming w x h pixels.
std::vector<std::uint8_t> png_header_only(std::uint32_t w, std::uint32_t h, std::uint8_t color_type) {
    std::vector<std::uint8_t> v = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
    auto chunk = [&](const char* type, const std::vector<std::uint8_t>& data) {
        put_be32(v, static_cast<std::uint32_t>(data.size()));
        std::vector<std::uint8_t> td(type, type + 4);
        td.insert(td.end(), data.begin(), data.end());
        v.insert(v.end(), td.begin(), td.end());
        put_be32(v, crc32(td.data(), td.size()));
    };
    std::vector<std::uint8_t> ihdr;
    put_be32(ihdr, w);
    put_be32(ihdr, h);
    ihdr.insert(ihdr.end(), {8, color_type, 0, 0, 0});
    chunk("IHDR", ihdr);
    chunk("IEND", {});
    return v;
}

TEST_F(ImageIo, PngRoundTripIsLossless) {
    const Image img = noise_with_alpha(37, 23);
    const fs::path p = dir_ / "round.png";
    ASSERT_EQ(save_png(p, img), "");
    const LoadResult r = load_image(p);
    ASSERT_TRUE(r.image.has_value()) << r.error;
    EXPECT_EQ(r.error, "");
    EXPECT_EQ(r.image->width, 37);
    EXPECT_EQ(r.image->height, 23);
    EXPECT_EQ(r.image->format, PixelFormat::RGBA8);
    EXPECT_EQ(r.image->bytes, img.bytes);
}

TEST_F(ImageIo, SavingRgba32fQuantizes) {
    Image f(2, 1, PixelFormat::RGBA32F);
    const float px[8] = {0.5f, -1.0f, 2.0f, 1.0f, 0.25f, 1.0f / 255.0f, 0.0f, 0.5f};
    std::memcpy(f.bytes.data(), px, sizeof px);
    const fs::path p = dir_ / "float.png";
    ASSERT_EQ(save_png(p, f), "");
    const LoadResult r = load_image(p);
    ASSERT_TRUE(r.image.has_value()) << r.error;
    EXPECT_EQ(r.image->bytes, (std::vector<std::uint8_t>{128, 0, 255, 255, 64, 1, 0, 128}));
}

TEST_F(ImageIo, DecodesBmpAndTgaToRgba8WithOpaqueAlpha) {
    // 2x2 24-bit BMP, rows bottom-up, BGR, each row padded to 4 bytes.
    std::vector<std::uint8_t> bmp = {'B', 'M'};
    put_le(bmp, 54 + 16, 4);
    put_le(bmp, 0, 4);
    put_le(bmp, 54, 4);
    put_le(bmp, 40, 4);
    put_le(bmp, 2, 4);
    put_le(bmp, 2, 4);
    put_le(bmp, 1, 2);
    put_le(bmp, 24, 2);
    for (int i = 0; i < 6; ++i) put_le(bmp, 0, 4);
    // bottom row (y=1): blue, white;  top row (y=0): red, green
    bmp.insert(bmp.end(), {255, 0, 0, 255, 255, 255, 0, 0, 0, 0, 255, 0, 255, 0, 0, 0});
    const LoadResult b = load_image(write("tiny.bmp", bmp));
    ASSERT_TRUE(b.image.has_value()) << b.error;
    ASSERT_EQ(b.image->width, 2);
    ASSERT_EQ(b.image->height, 2);
    EXPECT_EQ(b.image->bytes, (std::vector<std::uint8_t>{255, 0, 0, 255, 0, 255, 0, 255, 0, 0, 255, 255, 255, 255, 255, 255}));

    // 2x1 uncompressed 32-bit TGA (BGRA), origin top-left (descriptor bit 5).
    std::vector<std::uint8_t> tga = {0, 0, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2, 0, 1, 0, 32, 0x28};
    tga.insert(tga.end(), {30, 20, 10, 40, 3, 2, 1, 200});
    const LoadResult t = load_image(write("tiny.tga", tga));
    ASSERT_TRUE(t.image.has_value()) << t.error;
    EXPECT_EQ(t.image->bytes, (std::vector<std::uint8_t>{10, 20, 30, 40, 1, 2, 3, 200}));
}

TEST(ImageLoad, DecodesJpeg) {
    const fs::path p = fs::path(TILELAB_TEST_DATA_DIR) / "red_blue_16x8.jpg";
    const LoadResult r = load_image(p);
    ASSERT_TRUE(r.image.has_value()) << r.error;
    ASSERT_EQ(r.image->width, 16);
    ASSERT_EQ(r.image->height, 8);
    // Lossy, so away from the colour edge (and its 8x8 block) within a few levels.
    const auto* red = r.image->rgba8(2, 4);
    const auto* blue = r.image->rgba8(13, 4);
    EXPECT_NEAR(red[0], 255, 8);
    EXPECT_NEAR(red[1], 0, 8);
    EXPECT_NEAR(red[2], 0, 8);
    EXPECT_NEAR(blue[0], 0, 8);
    EXPECT_NEAR(blue[2], 255, 8);
    EXPECT_EQ(red[3], 255);
}

TEST(ImageLoad, ShippedAssetsDecode) {
    // The default images in assets/ are RGB PNGs: they load as RGBA8 with opaque alpha.
    const fs::path assets = fs::path(TILELAB_TEST_DATA_DIR).parent_path().parent_path().parent_path() / "assets";
    int found = 0;
    for (const auto& entry : fs::directory_iterator(assets)) {
        if (entry.path().extension() != ".png") continue;
        ++found;
        const LoadResult r = load_image(entry.path());
        ASSERT_TRUE(r.image.has_value()) << r.error;
        EXPECT_GT(r.image->width, 0);
        EXPECT_EQ(r.image->bytes.size(), static_cast<std::size_t>(r.image->width) * r.image->height * 4);
        EXPECT_EQ(r.image->rgba8(r.image->width / 2, r.image->height / 2)[3], 255) << entry.path();
    }
    EXPECT_GT(found, 0) << "no PNG found in " << assets;
}

TEST(ImageConvert, Rgba8ToFloatIsExactAndBack) {
    Image img(256, 1, PixelFormat::RGBA8);
    for (int i = 0; i < 256 * 4; ++i) img.bytes[static_cast<std::size_t>(i)] = static_cast<std::uint8_t>(i / 4);
    const Image f = convert(img, PixelFormat::RGBA32F);
    ASSERT_EQ(f.format, PixelFormat::RGBA32F);
    for (int x = 0; x < 256; ++x) EXPECT_EQ(f.rgba32f(x, 0)[1], float(x) / 255.0f);
    EXPECT_EQ(convert(f, PixelFormat::RGBA8).bytes, img.bytes);
    EXPECT_EQ(convert(img, PixelFormat::RGBA8).bytes, img.bytes);  // same format: a copy

    Image g(1, 1, PixelFormat::RGBA32F);
    const float px[4] = {0.5f, -3.0f, 7.0f, std::nextafter(0.5f, 0.0f)};
    std::memcpy(g.bytes.data(), px, sizeof px);
    EXPECT_EQ(convert(g, PixelFormat::RGBA8).bytes, (std::vector<std::uint8_t>{128, 0, 255, 127}));
}

TEST_F(ImageIo, MissingFile) {
    const fs::path p = dir_ / "nope.png";
    expect_error(load_image(p), p, "does not exist");
}

TEST_F(ImageIo, Directory) {
    const fs::path p = dir_ / "a_folder.png";
    fs::create_directories(p);
    expect_error(load_image(p), p, "directory");
}

TEST_F(ImageIo, EmptyFile) {
    const fs::path p = write("empty.png", {});
    expect_error(load_image(p), p, "empty");
}

TEST_F(ImageIo, TextFile) {
    const std::string text = "hello, this is not an image\n";
    const fs::path p = write("notes.png", std::vector<std::uint8_t>(text.begin(), text.end()));
    expect_error(load_image(p), p, "not a PNG, JPEG, BMP or TGA image");
}

TEST_F(ImageIo, CorruptPngData) {
    // A real PNG whose compressed IDAT bytes are overwritten with 0xFF: the header reads fine,
    // the zlib stream does not.
    const fs::path good = dir_ / "good.png";
    ASSERT_EQ(save_png(good, noise_with_alpha(16, 16)), "");
    auto bytes = read(good);
    const std::string s(bytes.begin(), bytes.end());
    const auto at = s.find("IDAT");
    ASSERT_NE(at, std::string::npos);
    const std::size_t len = (std::size_t(bytes[at - 4]) << 24) | (std::size_t(bytes[at - 3]) << 16) |
                            (std::size_t(bytes[at - 2]) << 8) | std::size_t(bytes[at - 1]);
    for (std::size_t i = 0; i < len; ++i) bytes[at + 4 + i] = 0xff;
    const fs::path p = write("corrupt.png", bytes);
    expect_error(load_image(p), p, "corrupt");

    // Garbage after a valid signature: not decodable at all.
    std::vector<std::uint8_t> junk(bytes.begin(), bytes.begin() + 8);
    for (int i = 0; i < 100; ++i) junk.push_back(static_cast<std::uint8_t>(i * 7));
    const fs::path q = write("junk.png", junk);
    const LoadResult r = load_image(q);
    EXPECT_FALSE(r.image.has_value());
    EXPECT_NE(r.error.find("junk.png"), std::string::npos) << r.error;
}

TEST_F(ImageIo, TruncatedPng) {
    const fs::path good = dir_ / "good.png";
    ASSERT_EQ(save_png(good, noise_with_alpha(64, 64)), "");
    auto bytes = read(good);
    bytes.resize(bytes.size() / 2);
    const fs::path p = write("truncated.png", bytes);
    expect_error(load_image(p), p, "corrupt or truncated");
}

TEST_F(ImageIo, HugePngHeaderIsRefusedBeforeDecoding) {
    // 20000x20000 RGBA would be 1.6 GB: refused from the header, for RGBA and for greyscale
    // (which stb_image itself would accept as a header).
    for (std::uint8_t color : {std::uint8_t{6}, std::uint8_t{0}}) {
        const fs::path p = write("huge" + std::to_string(color) + ".png", png_header_only(20000, 20000, color));
        const LoadResult r = load_image(p);
        expect_error(r, p, "20000x20000");
        EXPECT_NE(r.error.find("16384x16384"), std::string::npos) << r.error;
    }
    // Just over the limit in one dimension.
    const fs::path wide = write("wide.png", png_header_only(16385, 1, 6));
    expect_error(load_image(wide), wide, "16385x1");
}

TEST_F(ImageIo, HugeBmpHeaderIsRefusedBeforeDecoding) {
    std::vector<std::uint8_t> bmp = {'B', 'M'};
    put_le(bmp, 54, 4);
    put_le(bmp, 0, 4);
    put_le(bmp, 54, 4);
    put_le(bmp, 40, 4);
    put_le(bmp, 20000, 4);
    put_le(bmp, 20000, 4);
    put_le(bmp, 1, 2);
    put_le(bmp, 24, 2);
    for (int i = 0; i < 6; ++i) put_le(bmp, 0, 4);
    const fs::path p = write("huge.bmp", bmp);
    expect_error(load_image(p), p, "20000x20000");
}

TEST_F(ImageIo, UnreadableFile) {
    if (::geteuid() == 0) GTEST_SKIP() << "running as root: file permissions do not stop root from reading";
    const fs::path p = dir_ / "locked.png";
    ASSERT_EQ(save_png(p, noise_with_alpha(4, 4)), "");
    fs::permissions(p, fs::perms::none);
    expect_error(load_image(p), p, "Permission denied");
}

TEST_F(ImageIo, SaveErrorsAreSentences) {
    const Image img = noise_with_alpha(3, 3);
    const fs::path missing_dir = dir_ / "no_such_dir" / "out.png";
    const std::string e1 = save_png(missing_dir, img);
    EXPECT_NE(e1.find("out.png"), std::string::npos) << e1;
    EXPECT_NE(e1.find("No such file or directory"), std::string::npos) << e1;
    const std::string e2 = save_png(dir_, img);
    EXPECT_NE(e2.find("directory"), std::string::npos) << e2;
    const std::string e3 = save_png(dir_ / "empty.png", Image{});
    EXPECT_NE(e3.find("empty"), std::string::npos) << e3;
    EXPECT_FALSE(fs::exists(dir_ / "empty.png"));
}

} // namespace
} // namespace tl
