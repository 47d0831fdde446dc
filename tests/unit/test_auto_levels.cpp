// auto_levels: black/white points from percentiles of the pooled R+G+B histogram, identity for
// flat or empty histograms, and the resulting op stretches an image to the full range (CPU only).
#include "pixel_api.hpp"
#include "reference.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>

namespace {

using tl::cuda::ChannelHistograms;
using tl::cuda::auto_levels;

void expect_identity(const tl::PixelOp& op) {
    EXPECT_EQ(op.kind, tl::PixelOpKind::Levels);
    EXPECT_EQ(op.a, 0.0f);
    EXPECT_EQ(op.b, 1.0f);
    EXPECT_EQ(op.c, 1.0f);
}

TEST(AutoLevels, ExtremesWithZeroAndHundredPercent) {
    ChannelHistograms h{};
    for (std::size_t c = 0; c < 3; ++c)
        for (std::size_t i = 50; i <= 200; ++i) h[c][i] = 10;
    const tl::PixelOp op = auto_levels(h, 0.0f, 100.0f);
    EXPECT_EQ(op.kind, tl::PixelOpKind::Levels);
    EXPECT_FLOAT_EQ(op.a, 50.0f / 255.0f);
    EXPECT_FLOAT_EQ(op.b, 200.0f / 255.0f);
    EXPECT_EQ(op.c, 1.0f);
    EXPECT_TRUE(tl::validate(op).empty()) << tl::validate(op);
}

TEST(AutoLevels, PercentilesIgnoreSparseOutliers) {
    // 0.4 % of the samples at 0 and at 255 (outliers), the rest in 100..150.
    ChannelHistograms h{};
    for (auto& ch : h) {
        ch[0] = 4;
        ch[255] = 4;
        for (std::size_t i = 100; i <= 150; ++i) ch[i] = 0;
        ch[100] = 496;
        ch[150] = 496;
    }
    const tl::PixelOp op = auto_levels(h);  // 0.5 % .. 99.5 %
    EXPECT_FLOAT_EQ(op.a, 100.0f / 255.0f);
    EXPECT_FLOAT_EQ(op.b, 150.0f / 255.0f);
    // With 0 % / 100 % the outliers count.
    const tl::PixelOp all = auto_levels(h, 0.0f, 100.0f);
    EXPECT_EQ(all.a, 0.0f);
    EXPECT_EQ(all.b, 1.0f);
}

TEST(AutoLevels, ChannelsArePooled) {
    // Red covers 20..40, blue 200..220: one black and one white point for all three channels.
    ChannelHistograms h{};
    for (std::size_t i = 20; i <= 40; ++i) h[0][i] = 1;
    for (std::size_t i = 200; i <= 220; ++i) h[2][i] = 1;
    const tl::PixelOp op = auto_levels(h, 0.0f, 100.0f);
    EXPECT_FLOAT_EQ(op.a, 20.0f / 255.0f);
    EXPECT_FLOAT_EQ(op.b, 220.0f / 255.0f);
}

TEST(AutoLevels, DegenerateInputsGiveIdentity) {
    ChannelHistograms empty{};
    expect_identity(auto_levels(empty));
    ChannelHistograms flat{};
    for (auto& ch : flat) ch[77] = 1000;
    expect_identity(auto_levels(flat));
    ChannelHistograms h{};
    for (auto& ch : h)
        for (auto& v : ch) v = 1;
    expect_identity(auto_levels(h, 60.0f, 40.0f));  // low >= high
    expect_identity(auto_levels(h, 50.0f, 50.0f));
    // Out-of-range percentiles are clamped to 0..100, not rejected.
    const tl::PixelOp clamped = auto_levels(h, -5.0f, 250.0f);
    EXPECT_EQ(clamped.a, 0.0f);
    EXPECT_EQ(clamped.b, 1.0f);
}

TEST(AutoLevels, StretchesAnImageToTheFullRange) {
    tl::Image img(64, 32, tl::PixelFormat::RGBA8), out(64, 32, tl::PixelFormat::RGBA8);
    std::mt19937 rng(3);
    for (auto& b : img.bytes) b = static_cast<std::uint8_t>(90 + rng() % 61);  // 90..150
    ChannelHistograms h{};
    for (int y = 0; y < img.height; ++y)
        for (int x = 0; x < img.width; ++x)
            for (std::size_t c = 0; c < 3; ++c) ++h[c][img.rgba8(x, y)[c]];
    const std::vector<tl::PixelOp> ops{auto_levels(h, 0.0f, 100.0f)};
    tl::reference_pixel_ops(ops, img.view(), out.view());
    int lo = 255, hi = 0;
    for (int y = 0; y < out.height; ++y)
        for (int x = 0; x < out.width; ++x)
            for (int c = 0; c < 3; ++c) {
                lo = std::min<int>(lo, out.rgba8(x, y)[c]);
                hi = std::max<int>(hi, out.rgba8(x, y)[c]);
            }
    EXPECT_EQ(lo, 0);
    EXPECT_EQ(hi, 255);
}

} // namespace
