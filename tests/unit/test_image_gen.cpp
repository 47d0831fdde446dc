// Procedural generators: names, size validation, determinism, right size/format/alpha, known pixels.
#include "image/image_gen.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <set>

namespace tl {
namespace {

constexpr Generator kAll[] = {Generator::ZonePlate, Generator::Checkerboard, Generator::Noise, Generator::Gradient};

TEST(ImageGen, NamesRoundTrip) {
    std::set<std::string_view> names;
    for (const auto& info : generator_infos()) {
        names.insert(info.name);
        EXPECT_EQ(to_string(info.generator), info.name);
        EXPECT_EQ(parse_generator(info.name), info.generator);
        EXPECT_FALSE(info.label.empty());
        EXPECT_FALSE(info.description.empty());
    }
    EXPECT_EQ(names, (std::set<std::string_view>{"zone-plate", "checkerboard", "noise", "gradient"}));
    EXPECT_FALSE(parse_generator("zoneplate").has_value());
}

TEST(ImageGen, SizeValidation) {
    EXPECT_EQ(validate_image_size(1, 1), "");
    EXPECT_EQ(validate_image_size(16384, 16384), "");
    EXPECT_EQ(validate_image_size(0, 5), "image size 0x5 is out of range: width and height must be 1..16384");
    EXPECT_NE(validate_image_size(16385, 1), "");
    EXPECT_NE(validate_image_size(4, -1), "");
    for (Generator g : kAll) {
        EXPECT_TRUE(generate_image(g, 0, 10).empty());
        EXPECT_TRUE(generate_image(g, 10, 16385).empty());
    }
}

TEST(ImageGen, RightSizeOpaqueAndDeterministic) {
    for (Generator g : kAll)
        for (auto [w, h] : {std::pair{1, 1}, std::pair{17, 5}, std::pair{1, 129}, std::pair{640, 480}}) {
            const Image a = generate_image(g, w, h, 7);
            const Image b = generate_image(g, w, h, 7);
            ASSERT_EQ(a.width, w);
            ASSERT_EQ(a.height, h);
            ASSERT_EQ(a.format, PixelFormat::RGBA8);
            ASSERT_EQ(a.bytes.size(), static_cast<std::size_t>(w) * h * 4);
            EXPECT_EQ(a.bytes, b.bytes) << to_string(g);
            for (int y = 0; y < h; ++y)
                for (int x = 0; x < w; ++x) ASSERT_EQ(a.rgba8(x, y)[3], 255) << to_string(g);
        }
}

TEST(ImageGen, SeedChangesNoiseOnly) {
    EXPECT_NE(generate_image(Generator::Noise, 64, 64, 1).bytes, generate_image(Generator::Noise, 64, 64, 2).bytes);
    EXPECT_EQ(generate_image(Generator::Gradient, 64, 64, 1).bytes, generate_image(Generator::Gradient, 64, 64, 2).bytes);
    // Noise uses the whole byte range and differs between neighbours.
    const Image n = generate_image(Generator::Noise, 256, 256, 3);
    int lo = 255, hi = 0;
    for (std::size_t i = 0; i < n.bytes.size(); i += 4) {
        lo = std::min<int>(lo, n.bytes[i]);
        hi = std::max<int>(hi, n.bytes[i]);
    }
    EXPECT_LE(lo, 2);
    EXPECT_GE(hi, 253);
    // A wider image is not the narrower one's rows re-wrapped: row 1 of 64-wide != pixels 64.. of 128-wide.
    const Image narrow = generate_image(Generator::Noise, 64, 2, 3);
    const Image wide = generate_image(Generator::Noise, 128, 2, 3);
    EXPECT_NE(std::vector<std::uint8_t>(narrow.bytes.begin() + 256, narrow.bytes.begin() + 512),
              std::vector<std::uint8_t>(wide.bytes.begin() + 256, wide.bytes.begin() + 512));
}

TEST(ImageGen, KnownPixels) {
    // Gradient: red along x, green along y, blue = 1 - (u+v)/2.
    const Image g = generate_image(Generator::Gradient, 11, 5);
    EXPECT_EQ(std::vector<int>(g.rgba8(0, 0), g.rgba8(0, 0) + 3), (std::vector<int>{0, 0, 255}));
    EXPECT_EQ(std::vector<int>(g.rgba8(10, 4), g.rgba8(10, 4) + 3), (std::vector<int>{255, 255, 0}));
    EXPECT_EQ(std::vector<int>(g.rgba8(10, 0), g.rgba8(10, 0) + 3), (std::vector<int>{255, 0, 128}));  // 127.5 rounds up

    // Checkerboard of 256x128: cells of 128/16 = 8 pixels, white first.
    const Image c = generate_image(Generator::Checkerboard, 256, 128);
    EXPECT_EQ(c.rgba8(0, 0)[0], 255);
    EXPECT_EQ(c.rgba8(7, 7)[0], 255);
    EXPECT_EQ(c.rgba8(8, 0)[0], 0);
    EXPECT_EQ(c.rgba8(0, 8)[1], 0);
    EXPECT_EQ(c.rgba8(8, 8)[2], 255);

    // Zone plate: bright at the centre (cos ~ 1), grey, and mirror-symmetric about both axes.
    const Image z = generate_image(Generator::ZonePlate, 64, 48);
    EXPECT_GE(z.rgba8(32, 24)[0], 254);
    for (int y = 0; y < 48; ++y)
        for (int x = 0; x < 64; ++x) {
            const auto* p = z.rgba8(x, y);
            ASSERT_EQ(p[0], p[1]);
            ASSERT_EQ(p[1], p[2]);
            ASSERT_EQ(p[0], z.rgba8(63 - x, y)[0]) << x << "," << y;
            ASSERT_EQ(p[0], z.rgba8(x, 47 - y)[0]) << x << "," << y;
        }
    // ... and it has rings: both near-black and near-white pixels.
    int dark = 0;
    for (std::size_t i = 0; i < z.bytes.size(); i += 4) dark += z.bytes[i] < 10;
    EXPECT_GT(dark, 0);
}

TEST(ImageGen, EightKIsQuick) {
    const auto t0 = std::chrono::steady_clock::now();
    const Image z = generate_image(Generator::ZonePlate, 7680, 4320);
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    EXPECT_EQ(z.width, 7680);
    EXPECT_EQ(z.height, 4320);
    // Generous bound (shared CI cores): a per-pixel bug, not scheduling noise, would exceed it.
    EXPECT_LT(s, 20.0);
}

} // namespace
} // namespace tl
