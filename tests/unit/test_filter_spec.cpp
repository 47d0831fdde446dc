// Filter, border and format names, parameter validation, Gaussian weights, border folding, rounding.
#include "filter_spec.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <set>

namespace tl {
namespace {

TEST(FilterSpec, FilterNamesAreTheDocumentedOnesAndRoundTrip) {
    const std::set<std::string_view> expected = {"box", "gaussian", "sobel", "laplacian", "sharpen", "emboss", "user"};
    std::set<std::string_view> seen;
    for (const auto& info : filter_infos()) {
        seen.insert(info.name);
        EXPECT_FALSE(info.label.empty());
        EXPECT_FALSE(info.description.empty());
        EXPECT_EQ(to_string(info.kind), info.name);
        ASSERT_TRUE(parse_filter_kind(info.name).has_value());
        EXPECT_EQ(*parse_filter_kind(info.name), info.kind);
    }
    EXPECT_EQ(seen, expected);
    EXPECT_EQ(filter_infos().size(), 7u);
    EXPECT_FALSE(parse_filter_kind("Box").has_value());  // names are exact, lower case
    EXPECT_FALSE(parse_filter_kind("").has_value());
    EXPECT_FALSE(parse_filter_kind("median").has_value());
}

TEST(FilterSpec, BorderAndFormatNamesRoundTrip) {
    EXPECT_EQ(to_string(Border::Clamp), "clamp");
    EXPECT_EQ(to_string(Border::Zero), "zero");
    EXPECT_EQ(to_string(Border::Mirror), "mirror");
    for (Border b : {Border::Clamp, Border::Zero, Border::Mirror}) EXPECT_EQ(parse_border(to_string(b)), b);
    EXPECT_FALSE(parse_border("wrap").has_value());

    EXPECT_EQ(to_string(PixelFormat::RGBA8), "rgba8");
    EXPECT_EQ(to_string(PixelFormat::RGBA32F), "rgba32f");
    for (PixelFormat f : {PixelFormat::RGBA8, PixelFormat::RGBA32F}) EXPECT_EQ(parse_pixel_format(to_string(f)), f);
    EXPECT_FALSE(parse_pixel_format("rgb8").has_value());
}

TEST(FilterSpec, BoxRadiusRange) {
    FilterParams p;
    p.kind = FilterKind::Box;
    for (int r : {1, 2, 31, 32}) {
        p.radius = r;
        EXPECT_EQ(validate(p), "") << r;
        EXPECT_EQ(filter_radius(p), r);
    }
    p.radius = 40;
    EXPECT_EQ(validate(p), "box radius 40 is out of range: valid 1..32");
    p.radius = 0;
    EXPECT_EQ(validate(p), "box radius 0 is out of range: valid 1..32");
    p.radius = 33;
    EXPECT_NE(validate(p), "");
    p.radius = -5;
    EXPECT_NE(validate(p).find("-5"), std::string::npos);
}

TEST(FilterSpec, GaussianSigmaRangeAndRadius) {
    FilterParams p;
    p.kind = FilterKind::Gaussian;
    p.sigma = 0.5f;
    EXPECT_EQ(validate(p), "");
    EXPECT_EQ(filter_radius(p), 2);  // ceil(1.5)
    p.sigma = 1.0f;
    EXPECT_EQ(filter_radius(p), 3);
    p.sigma = 2.5f;
    EXPECT_EQ(filter_radius(p), 8);  // ceil(7.5)
    p.sigma = 10.0f;
    EXPECT_EQ(validate(p), "");
    EXPECT_EQ(filter_radius(p), 30);
    p.sigma = 0.4f;
    EXPECT_EQ(validate(p), "gaussian sigma 0.4 is out of range: valid 0.5..10");
    p.sigma = 10.5f;
    EXPECT_EQ(validate(p), "gaussian sigma 10.5 is out of range: valid 0.5..10");
    p.sigma = std::numeric_limits<float>::quiet_NaN();
    EXPECT_NE(validate(p), "");
    EXPECT_LE(filter_radius(p), 30);  // never a radius that overflows the weight table
    p.sigma = 1e9f;
    EXPECT_LE(filter_radius(p), 30);
}

TEST(FilterSpec, SharpenAndFixedKernels) {
    FilterParams p;
    p.kind = FilterKind::Sharpen;
    p.amount = 0.0f;
    EXPECT_EQ(validate(p), "");
    p.amount = 5.0f;
    EXPECT_EQ(validate(p), "");
    p.amount = 5.5f;
    EXPECT_EQ(validate(p), "sharpen amount 5.5 is out of range: valid 0..5");
    p.amount = -1.0f;
    EXPECT_NE(validate(p), "");
    for (FilterKind k : {FilterKind::Sobel, FilterKind::Laplacian, FilterKind::Sharpen, FilterKind::Emboss}) {
        FilterParams q;
        q.kind = k;
        EXPECT_EQ(validate(q), "");
        EXPECT_EQ(filter_radius(q), 1);
    }
}

TEST(FilterSpec, UserKernelSizeAndWeights) {
    FilterParams p;
    p.kind = FilterKind::UserKernel;
    p.user_size = 3;
    EXPECT_EQ(validate(p), "");
    EXPECT_EQ(filter_radius(p), 1);
    p.user_size = 5;
    EXPECT_EQ(validate(p), "");
    EXPECT_EQ(filter_radius(p), 2);
    p.user_size = 4;
    EXPECT_EQ(validate(p), "user kernel size 4 is not supported: valid 3 or 5");
    p.user_size = 3;
    p.user[4] = std::numeric_limits<float>::infinity();
    EXPECT_NE(validate(p).find("row 1, column 1"), std::string::npos) << validate(p);
    p.user[4] = 1.0f;
    p.user[20] = std::numeric_limits<float>::quiet_NaN();  // outside a 3x3 kernel: ignored
    EXPECT_EQ(validate(p), "");
    p.user_size = 5;
    EXPECT_NE(validate(p), "");
    p.user[20] = 0.0f;
    p.user_scale = std::numeric_limits<float>::quiet_NaN();
    EXPECT_NE(validate(p).find("scale"), std::string::npos);
}

TEST(FilterSpec, GaussianWeightsSigmaOneByHand) {
    // sigma 1, radius 3: raw weights exp(-x^2/2) = 1, 0.6065307, 0.1353353, 0.0111090;
    // their sum is 1 + 2 * (0.6065307 + 0.1353353 + 0.0111090) = 2.5059500.
    int r = 0;
    const auto w = gaussian_weights(1.0f, &r);
    ASSERT_EQ(r, 3);
    const double sum = 2.5059500;
    EXPECT_NEAR(w[3], 1.0 / sum, 1e-6);
    EXPECT_NEAR(w[2], 0.6065307 / sum, 1e-6);
    EXPECT_NEAR(w[4], 0.6065307 / sum, 1e-6);
    EXPECT_NEAR(w[1], 0.1353353 / sum, 1e-6);
    EXPECT_NEAR(w[0], 0.0111090 / sum, 1e-6);
    EXPECT_EQ(w[7], 0.0f);
}

TEST(FilterSpec, GaussianWeightsNormalisedSymmetricForEverySigma) {
    for (float s = 0.5f; s <= 10.0f; s += 0.25f) {
        int r = 0;
        const auto w = gaussian_weights(s, &r);
        ASSERT_EQ(r, static_cast<int>(std::ceil(3.0f * s)));
        ASSERT_LE(r, 30);
        double sum = 0.0;
        for (int i = 0; i < 2 * r + 1; ++i) {
            sum += w[i];
            EXPECT_EQ(w[i], w[2 * r - i]);
            if (i < r) {
                EXPECT_LT(w[i], w[i + 1]);
            }
        }
        EXPECT_NEAR(sum, 1.0, 1e-6) << "sigma " << s;
        for (int i = 2 * r + 1; i < 61; ++i) EXPECT_EQ(w[i], 0.0f);
    }
}

TEST(FilterSpec, FoldCoordMirrorRepeatsTheEdgePixel) {
    // n = 3:  ... 2 1 0 | 0 1 2 | 2 1 0 | 0 1 2 ...
    EXPECT_EQ(fold_coord(-1, 3, Border::Mirror), 0);
    EXPECT_EQ(fold_coord(-2, 3, Border::Mirror), 1);
    EXPECT_EQ(fold_coord(-3, 3, Border::Mirror), 2);
    EXPECT_EQ(fold_coord(-4, 3, Border::Mirror), 2);
    EXPECT_EQ(fold_coord(-7, 3, Border::Mirror), 0);
    EXPECT_EQ(fold_coord(3, 3, Border::Mirror), 2);
    EXPECT_EQ(fold_coord(4, 3, Border::Mirror), 1);
    EXPECT_EQ(fold_coord(5, 3, Border::Mirror), 0);
    EXPECT_EQ(fold_coord(6, 3, Border::Mirror), 0);
    // n = 1: every coordinate is the one pixel; n = 2 repeats each pixel twice across every edge.
    for (int i = -70; i <= 70; ++i) EXPECT_EQ(fold_coord(i, 1, Border::Mirror), 0);
    const int expect2[] = {0, 1, 1, 0, 0, 1, 1, 0};  // i = -4 .. 3 when n = 2: a b | b a | a b | b a
    for (int i = -4; i < 4; ++i) EXPECT_EQ(fold_coord(i, 2, Border::Mirror), expect2[i + 4]) << i;
}

TEST(FilterSpec, FoldCoordClampAndZero) {
    EXPECT_EQ(fold_coord(-5, 4, Border::Clamp), 0);
    EXPECT_EQ(fold_coord(9, 4, Border::Clamp), 3);
    EXPECT_EQ(fold_coord(2, 4, Border::Clamp), 2);
    EXPECT_EQ(fold_coord(-1, 4, Border::Zero), -1);
    EXPECT_EQ(fold_coord(4, 4, Border::Zero), -1);
    EXPECT_EQ(fold_coord(3, 4, Border::Zero), 3);
}

TEST(FilterSpec, QuantizeRoundsHalfUpAndClamps) {
    EXPECT_EQ(quantize_unorm8(0.0f), 0);
    EXPECT_EQ(quantize_unorm8(1.0f), 255);
    EXPECT_EQ(quantize_unorm8(-0.5f), 0);
    EXPECT_EQ(quantize_unorm8(7.0f), 255);
    // 0.5 * 255 = 127.5 exactly: the half rounds up.
    EXPECT_EQ(quantize_unorm8(0.5f), 128);
    // The float just below 0.5 gives 127.49999..., which rounds down.
    EXPECT_EQ(quantize_unorm8(std::nextafter(0.5f, 0.0f)), 127);
    EXPECT_EQ(quantize_unorm8(0.25f), 64);  // 63.75
    for (int v = 0; v < 256; ++v) EXPECT_EQ(quantize_unorm8(float(v) / 255.0f), v);
}

} // namespace
} // namespace tl
