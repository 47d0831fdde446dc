// Per-pixel ops of the CPU reference against hand-computed values; names, defaults and validation.
#include "reference.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>
#include <set>
#include <vector>

namespace tl {
namespace {

std::array<float, 4> run32(std::vector<PixelOp> ops, std::array<float, 4> px) {
    Image img(1, 1, PixelFormat::RGBA32F);
    for (int c = 0; c < 4; ++c) img.rgba32f(0, 0)[c] = px[static_cast<std::size_t>(c)];
    Image out(1, 1, PixelFormat::RGBA32F);
    reference_pixel_ops(ops, img.view(), out.view());
    const float* p = out.rgba32f(0, 0);
    return {p[0], p[1], p[2], p[3]};
}

std::array<int, 4> run8(std::vector<PixelOp> ops, std::array<int, 4> px) {
    Image img(1, 1, PixelFormat::RGBA8);
    for (int c = 0; c < 4; ++c) img.rgba8(0, 0)[c] = static_cast<std::uint8_t>(px[static_cast<std::size_t>(c)]);
    Image out(1, 1, PixelFormat::RGBA8);
    reference_pixel_ops(ops, img.view(), out.view());
    const auto* p = out.rgba8(0, 0);
    return {p[0], p[1], p[2], p[3]};
}

PixelOp op(PixelOpKind k, float a = 0.0f, float b = 1.0f, float c = 1.0f) {
    PixelOp o = default_pixel_op(k);
    o.a = a;
    o.b = b;
    o.c = c;
    return o;
}

void expect_rgb_near(std::array<float, 4> got, float r, float g, float b, float tol = 1e-6f) {
    EXPECT_NEAR(got[0], r, tol);
    EXPECT_NEAR(got[1], g, tol);
    EXPECT_NEAR(got[2], b, tol);
}

TEST(PixelOps, NamesAreTheDocumentedOnesAndRoundTrip) {
    const std::set<std::string_view> expected = {"brightness-contrast", "gamma", "saturation", "grayscale", "invert",
                                                 "threshold", "levels", "color-matrix", "lut"};
    std::set<std::string_view> seen;
    for (const auto& info : pixel_op_infos()) {
        seen.insert(info.name);
        EXPECT_FALSE(info.label.empty());
        EXPECT_FALSE(info.description.empty());
        EXPECT_EQ(to_string(info.kind), info.name);
        EXPECT_EQ(parse_pixel_op_kind(info.name), info.kind);
        EXPECT_EQ(validate(default_pixel_op(info.kind)), "") << info.name;
    }
    EXPECT_EQ(seen, expected);
    EXPECT_FALSE(parse_pixel_op_kind("sepia").has_value());
}

TEST(PixelOps, Invert) {
    EXPECT_EQ(run8({op(PixelOpKind::Invert)}, {10, 200, 255, 77}), (std::array<int, 4>{245, 55, 0, 77}));
    expect_rgb_near(run32({op(PixelOpKind::Invert)}, {0.25f, 1.5f, 0.0f, 0.5f}), 0.75f, -0.5f, 1.0f);
}

TEST(PixelOps, BrightnessContrast) {
    // Float: (0.6 - 0.5) * 1.5 + 0.5 + 0 = 0.65;  0 -> -0.25 (not clamped in RGBA32F).
    const auto f = run32({op(PixelOpKind::BrightnessContrast, 0.0f, 1.5f)}, {0.6f, 0.0f, 0.5f, 1.0f});
    expect_rgb_near(f, 0.65f, -0.25f, 0.5f);
    // Bytes with contrast 1.5 and brightness 0.2 (51): 1.5 v - 63.75 + 51 -> 100: 137.25 -> 137;
    // 250: 311 -> 255 (clamped); 10: 2.25 -> 2.
    EXPECT_EQ(run8({op(PixelOpKind::BrightnessContrast, 0.2f, 1.5f)}, {100, 250, 10, 9}),
              (std::array<int, 4>{137, 255, 2, 9}));
    // Contrast 0 gives exactly 0.5 = 127.5 / 255 on RGBA8: the half rounds up to 128.
    EXPECT_EQ(run8({op(PixelOpKind::BrightnessContrast, 0.0f, 0.0f)}, {3, 77, 250, 5}), (std::array<int, 4>{128, 128, 128, 5}));
    // Contrast 0 flattens everything to 0.5 + brightness.
    expect_rgb_near(run32({op(PixelOpKind::BrightnessContrast, -0.25f, 0.0f)}, {0.9f, 0.1f, 0.3f, 1.0f}), 0.25f, 0.25f,
                    0.25f);
}

TEST(PixelOps, Gamma) {
    // gamma 2: c^(1/2). 0.25 -> 0.5; negative input is clamped to 0 first; 1 stays 1.
    expect_rgb_near(run32({op(PixelOpKind::Gamma, 2.0f)}, {0.25f, -0.5f, 1.0f, 1.0f}), 0.5f, 0.0f, 1.0f);
    // Byte 64: sqrt(64/255) = 0.50098 -> 127.75 -> 128. Gamma 0.5 squares: 128 -> 0.25196 -> 64.25 -> 64.
    EXPECT_EQ(run8({op(PixelOpKind::Gamma, 2.0f)}, {64, 0, 255, 255})[0], 128);
    EXPECT_EQ(run8({op(PixelOpKind::Gamma, 0.5f)}, {128, 0, 255, 255})[0], 64);
}

TEST(PixelOps, SaturationAndGrayscale) {
    // (0.5, 0.25, 0.25): luma = 0.1063 + 0.1788 + 0.01805 = 0.30315.
    // Saturation 2: 2c - l = (0.69685, 0.19685, 0.19685).  Saturation 0: grey (l, l, l).
    expect_rgb_near(run32({op(PixelOpKind::Saturation, 2.0f)}, {0.5f, 0.25f, 0.25f, 1.0f}), 0.69685f, 0.19685f, 0.19685f);
    expect_rgb_near(run32({op(PixelOpKind::Saturation, 0.0f)}, {0.5f, 0.25f, 0.25f, 1.0f}), 0.30315f, 0.30315f, 0.30315f);
    expect_rgb_near(run32({op(PixelOpKind::Grayscale)}, {0.5f, 0.25f, 0.25f, 1.0f}), 0.30315f, 0.30315f, 0.30315f);
    // Rec.709 weights on pure primaries: 0.2126 * 255 = 54.2 -> 54, 0.7152 * 255 = 182.4 -> 182, 0.0722 * 255 = 18.4 -> 18.
    EXPECT_EQ(run8({op(PixelOpKind::Grayscale)}, {255, 0, 0, 1}), (std::array<int, 4>{54, 54, 54, 1}));
    EXPECT_EQ(run8({op(PixelOpKind::Grayscale)}, {0, 255, 0, 2}), (std::array<int, 4>{182, 182, 182, 2}));
    EXPECT_EQ(run8({op(PixelOpKind::Grayscale)}, {0, 0, 255, 3}), (std::array<int, 4>{18, 18, 18, 3}));
}

TEST(PixelOps, Threshold) {
    EXPECT_EQ(run8({op(PixelOpKind::Threshold, 0.5f)}, {153, 153, 153, 40}), (std::array<int, 4>{255, 255, 255, 40}));
    EXPECT_EQ(run8({op(PixelOpKind::Threshold, 0.5f)}, {102, 102, 102, 40}), (std::array<int, 4>{0, 0, 0, 40}));
    // Pure red has luma 0.2126: above 0.2, below 0.25.
    EXPECT_EQ(run8({op(PixelOpKind::Threshold, 0.2f)}, {255, 0, 0, 255})[1], 255);
    EXPECT_EQ(run8({op(PixelOpKind::Threshold, 0.25f)}, {255, 0, 0, 255})[0], 0);
    // The comparison is >=: black passes a threshold of 0.
    EXPECT_EQ(run8({op(PixelOpKind::Threshold, 0.0f)}, {0, 0, 0, 255})[0], 255);
}

TEST(PixelOps, Levels) {
    // black 0.2, white 0.6, gamma 1: 0.4 -> 0.5, 0.1 -> 0 (clamped), 0.9 -> 1 (clamped).
    expect_rgb_near(run32({op(PixelOpKind::Levels, 0.2f, 0.6f, 1.0f)}, {0.4f, 0.1f, 0.9f, 1.0f}), 0.5f, 0.0f, 1.0f);
    // gamma 2: 0.3 -> 0.25 -> sqrt = 0.5.
    expect_rgb_near(run32({op(PixelOpKind::Levels, 0.2f, 0.6f, 2.0f)}, {0.3f, 0.2f, 0.6f, 1.0f}), 0.5f, 0.0f, 1.0f);
}

TEST(PixelOps, ColorMatrix) {
    PixelOp swap = default_pixel_op(PixelOpKind::ColorMatrix);
    swap.matrix = {0, 0, 1, 0, 1, 0, 1, 0, 0};  // R <-> B
    expect_rgb_near(run32({swap}, {0.1f, 0.2f, 0.3f, 1.0f}), 0.3f, 0.2f, 0.1f);
    EXPECT_EQ(run8({swap}, {1, 2, 3, 4}), (std::array<int, 4>{3, 2, 1, 4}));
    PixelOp diff = default_pixel_op(PixelOpKind::ColorMatrix);
    diff.matrix = {1, -1, 0, 0.5f, 0.5f, 0, 0, 0, 2};  // rows are output channels
    expect_rgb_near(run32({diff}, {0.25f, 0.5f, 0.75f, 1.0f}), -0.25f, 0.375f, 1.5f);
}

TEST(PixelOps, LookupTable) {
    PixelOp lut = default_pixel_op(PixelOpKind::Lut);
    for (int i = 0; i < 256; ++i) {
        lut.lut[0][static_cast<std::size_t>(i)] = static_cast<std::uint8_t>(255 - i);
        lut.lut[1][static_cast<std::size_t>(i)] = static_cast<std::uint8_t>(i / 2);
        lut.lut[2][static_cast<std::size_t>(i)] = 7;
    }
    EXPECT_EQ(run8({lut}, {10, 100, 200, 33}), (std::array<int, 4>{245, 50, 7, 33}));
    // Float input: index = round(clamp(c) * 255): 0.5 -> 128 (R 127, G 64); 2.0 -> 255 (R 0); -1 -> 0 (G 0).
    expect_rgb_near(run32({lut}, {0.5f, 0.5f, 0.5f, 1.0f}), 127.0f / 255.0f, 64.0f / 255.0f, 7.0f / 255.0f);
    expect_rgb_near(run32({lut}, {2.0f, -1.0f, 0.0f, 1.0f}), 0.0f, 0.0f, 7.0f / 255.0f);
}

TEST(PixelOps, ChainRunsInFloatAndQuantizesOnlyAtTheEnd) {
    // 200 + 0.5 = 1.284 (kept above 1), then - 0.5 -> 200 again. Clamping in between would give 128.
    const std::vector<PixelOp> chain = {op(PixelOpKind::BrightnessContrast, 0.5f, 1.0f),
                                        op(PixelOpKind::BrightnessContrast, -0.5f, 1.0f)};
    EXPECT_EQ(run8(chain, {200, 0, 255, 255}), (std::array<int, 4>{200, 0, 255, 255}));
    // Order matters: brightness +0.2 (51) then invert gives 255 - (100 + 51) = 104;
    // invert then brightness gives (255 - 100) + 51 = 206.
    EXPECT_EQ(run8({op(PixelOpKind::BrightnessContrast, 0.2f, 1.0f), op(PixelOpKind::Invert)}, {100, 0, 0, 255})[0], 104);
    EXPECT_EQ(run8({op(PixelOpKind::Invert), op(PixelOpKind::BrightnessContrast, 0.2f, 1.0f)}, {100, 0, 0, 255})[0], 206);
    // An empty chain copies.
    EXPECT_EQ(run8({}, {1, 2, 3, 4}), (std::array<int, 4>{1, 2, 3, 4}));
}

TEST(PixelOps, DefaultsOfAdjustmentsAreIdentityAndInPlaceWorks) {
    std::mt19937 rng(4);
    Image img(37, 11, PixelFormat::RGBA8);
    for (auto& b : img.bytes) b = static_cast<std::uint8_t>(rng() & 0xff);
    for (PixelOpKind k : {PixelOpKind::BrightnessContrast, PixelOpKind::Gamma, PixelOpKind::Saturation,
                          PixelOpKind::Levels, PixelOpKind::ColorMatrix, PixelOpKind::Lut}) {
        Image copy = img;
        const PixelOp d = default_pixel_op(k);
        reference_pixel_ops(std::span<const PixelOp>(&d, 1), copy.view(), copy.view());  // in place
        EXPECT_EQ(copy.bytes, img.bytes) << to_string(k);
    }
}

TEST(PixelOps, ValidationNamesTheParameterAndRange) {
    EXPECT_EQ(validate(op(PixelOpKind::BrightnessContrast, 1.5f, 1.0f)), "brightness 1.5 is out of range: valid -1..1");
    EXPECT_EQ(validate(op(PixelOpKind::BrightnessContrast, 0.0f, 5.0f)), "contrast 5 is out of range: valid 0..4");
    EXPECT_EQ(validate(op(PixelOpKind::BrightnessContrast, -1.0f, 4.0f)), "");
    EXPECT_EQ(validate(op(PixelOpKind::Gamma, 0.05f)), "gamma 0.05 is out of range: valid 0.1..5");
    EXPECT_EQ(validate(op(PixelOpKind::Gamma, 5.0f)), "");
    EXPECT_EQ(validate(op(PixelOpKind::Saturation, 4.5f)), "saturation 4.5 is out of range: valid 0..4");
    EXPECT_EQ(validate(op(PixelOpKind::Threshold, -0.1f)), "threshold -0.1 is out of range: valid 0..1");
    EXPECT_EQ(validate(op(PixelOpKind::Levels, 0.5f, 0.4f, 1.0f)), "levels white 0.4 must be greater than black 0.5");
    EXPECT_EQ(validate(op(PixelOpKind::Levels, 0.5f, 0.5f, 1.0f)), "levels white 0.5 must be greater than black 0.5");
    EXPECT_EQ(validate(op(PixelOpKind::Levels, 0.0f, 1.0f, 6.0f)), "levels gamma 6 is out of range: valid 0.1..5");
    EXPECT_NE(validate(op(PixelOpKind::Gamma, std::numeric_limits<float>::quiet_NaN())), "");
    PixelOp m = default_pixel_op(PixelOpKind::ColorMatrix);
    m.matrix[5] = 4.5f;
    EXPECT_EQ(validate(m), "color-matrix entry (row 1, column 2) 4.5 is out of range: valid -4..4");
    PixelOp lut = default_pixel_op(PixelOpKind::Lut);
    lut.lut.pop_back();
    EXPECT_EQ(validate(lut), "lut needs 3 tables (R, G, B) of 256 entries; it has 2");
    // A chain with an invalid op writes nothing (the destination of run8 starts as zeros), as the
    // GPU launchers refuse it, rather than reading past a short LUT or dividing by white - black.
    EXPECT_EQ(run8({op(PixelOpKind::Invert), lut}, {1, 2, 3, 4}), (std::array<int, 4>{0, 0, 0, 0}));
    EXPECT_EQ(run8({op(PixelOpKind::Levels, 0.5f, 0.5f, 1.0f)}, {1, 2, 3, 4}), (std::array<int, 4>{0, 0, 0, 0}));
}

} // namespace
} // namespace tl
