// CPU reference stencil filters against values computed by hand on tiny images, plus properties
// (alpha passthrough, RGBA8 vs RGBA32F, brute-force Box/Gaussian) on larger ones.
#include "reference.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

namespace tl {
namespace {

constexpr Border kBorders[] = {Border::Clamp, Border::Zero, Border::Mirror};

// RGBA8 image whose R channel is given row by row; G = B = 0, A = 255 unless given.
Image rgba8_from_red(int w, int h, const std::vector<int>& red) {
    Image img(w, h, PixelFormat::RGBA8);
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) {
            auto* p = img.rgba8(x, y);
            p[0] = static_cast<std::uint8_t>(red[static_cast<std::size_t>(y * w + x)]);
            p[1] = 0;
            p[2] = 0;
            p[3] = 255;
        }
    return img;
}

Image rgba32f_from_red(int w, int h, const std::vector<float>& red) {
    Image img(w, h, PixelFormat::RGBA32F);
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) {
            float* p = img.rgba32f(x, y);
            p[0] = red[static_cast<std::size_t>(y * w + x)];
            p[1] = p[2] = 0.0f;
            p[3] = 1.0f;
        }
    return img;
}

Image filtered(const FilterParams& p, Border b, const Image& src) {
    Image dst(src.width, src.height, src.format);
    reference_filter(p, b, src.view(), dst.view());
    return dst;
}

std::vector<int> red8(const Image& img) {
    std::vector<int> r;
    for (int y = 0; y < img.height; ++y)
        for (int x = 0; x < img.width; ++x) r.push_back(img.rgba8(x, y)[0]);
    return r;
}

FilterParams box(int r) {
    FilterParams p;
    p.kind = FilterKind::Box;
    p.radius = r;
    return p;
}

FilterParams kind(FilterKind k) {
    FilterParams p;
    p.kind = k;
    return p;
}

Image random_image(int w, int h, PixelFormat f, std::uint32_t seed) {
    std::mt19937 rng(seed);
    Image img(w, h, f);
    if (f == PixelFormat::RGBA8) {
        for (auto& b : img.bytes) b = static_cast<std::uint8_t>(rng() & 0xff);
    } else {
        std::uniform_real_distribution<float> u(0.0f, 1.0f);
        auto* p = reinterpret_cast<float*>(img.bytes.data());
        for (std::size_t i = 0; i < img.bytes.size() / 4; ++i) p[i] = u(rng);
    }
    return img;
}

// The 4x3 test image: R = 9 * (1 + x + 4y), so the mean of any 9 pixels is a whole byte value.
//    9  18  27  36
//   45  54  63  72
//   81  90  99 108
std::vector<int> ramp_4x3() {
    std::vector<int> r;
    for (int i = 1; i <= 12; ++i) r.push_back(9 * i);
    return r;
}

TEST(ReferenceBox, ThreeByThreeClampByHand) {
    // Corner (0,0) with clamp: rows {0,0,1} x columns {0,0,1}:
    //   (9+9+18) + (9+9+18) + (45+45+54) = 216, / 9 = 24.
    // Interior pixels of a linear ramp equal the centre (54, 63).
    const auto out = red8(filtered(box(1), Border::Clamp, rgba8_from_red(4, 3, ramp_4x3())));
    EXPECT_EQ(out, (std::vector<int>{24, 30, 39, 45, 48, 54, 63, 69, 72, 78, 87, 93}));
}

TEST(ReferenceBox, ThreeByThreeZeroByHand) {
    // Corner (0,0) with zero border: only 9 + 18 + 45 + 54 = 126 is inside, / 9 = 14.
    // Corner (3,2): 63 + 72 + 99 + 108 = 342, / 9 = 38.
    const auto out = red8(filtered(box(1), Border::Zero, rgba8_from_red(4, 3, ramp_4x3())));
    EXPECT_EQ(out, (std::vector<int>{14, 24, 30, 22, 33, 54, 63, 45, 30, 48, 54, 38}));
}

TEST(ReferenceBox, ThreeByThreeMirrorEqualsClampAtRadiusOne) {
    // Mirror folds -1 to 0 and w to w-1, exactly like clamp when the radius is 1.
    const auto out = red8(filtered(box(1), Border::Mirror, rgba8_from_red(4, 3, ramp_4x3())));
    EXPECT_EQ(out, (std::vector<int>{24, 30, 39, 45, 48, 54, 63, 69, 72, 78, 87, 93}));
}

TEST(ReferenceBox, FiveByFiveEachBorderByHand) {
    // RGBA32F, R = (1 + x + 4y) / 16 on 4x3; expected = (sum of the 25 folded indices) / 25 / 16.
    // Mirror (0,0): columns fold to {1,0,0,1,2}, rows to {1,0,0,1,2}:
    //   sum = 5 * (2+1+1+2+3) + 5 * 4 * (1+0+0+1+2) = 45 + 80 = 125.
    // Clamp (0,0): columns {0,0,0,1,2}, rows {0,0,0,1,2}: 5 * (1+1+1+2+3) + 5 * 4 * 3 = 40 + 60 = 100.
    // Zero (0,0): only x, y in 0..2 are inside: 9 + 3 * 3 + 4 * 3 * 3 = 54.
    std::vector<float> red;
    for (int i = 1; i <= 12; ++i) red.push_back(float(i) / 16.0f);
    const Image src = rgba32f_from_red(4, 3, red);
    const std::vector<std::vector<int>> sums = {
        {100, 115, 130, 145, 140, 155, 170, 185, 180, 195, 210, 225},  // clamp
        {54, 78, 78, 63, 54, 78, 78, 63, 54, 78, 78, 63},              // zero
        {125, 135, 150, 160, 145, 155, 170, 180, 165, 175, 190, 200},  // mirror
    };
    for (int b = 0; b < 3; ++b) {
        const Image out = filtered(box(2), kBorders[b], src);
        for (int i = 0; i < 12; ++i) {
            const float* p = out.rgba32f(i % 4, i / 4);
            EXPECT_NEAR(p[0], sums[b][i] / 25.0 / 16.0, 1e-6) << to_string(kBorders[b]) << " pixel " << i;
            EXPECT_EQ(p[3], 1.0f);
        }
    }
}

TEST(ReferenceBox, ZeroBorderDarkensTheEdgesOfAWhiteImage) {
    // All 255: a corner sees 4 of 9 inside (4/9 * 255 = 113.3), an edge 6 of 9 (170), interior 255.
    const Image out = filtered(box(1), Border::Zero, rgba8_from_red(3, 3, std::vector<int>(9, 255)));
    EXPECT_EQ(red8(out), (std::vector<int>{113, 170, 113, 170, 255, 170, 113, 170, 113}));
}

TEST(ReferenceBox, MirrorWithRadiusLargerThanTheImage) {
    // 1x1: every tap folds onto the one pixel, so any radius returns it unchanged.
    for (int r : {1, 5, 32}) {
        for (Border b : {Border::Mirror, Border::Clamp}) {
            EXPECT_EQ(red8(filtered(box(r), b, rgba8_from_red(1, 1, {77}))), (std::vector<int>{77})) << r;
        }
    }
    // 1x1 with zero border: 77 / 9 = 8.56 -> 9.
    EXPECT_EQ(red8(filtered(box(1), Border::Zero, rgba8_from_red(1, 1, {77}))), (std::vector<int>{9}));

    // 2x1 [a=0, b=255]. Radius 2, mirror: x=0 taps -2..2 fold to b a a b b -> (2a+3b)/5 = 153;
    // x=1 taps -1..3 fold to a a b b a -> (3a+2b)/5 = 102. Rows all fold to row 0.
    const Image two = rgba8_from_red(2, 1, {0, 255});
    EXPECT_EQ(red8(filtered(box(2), Border::Mirror, two)), (std::vector<int>{153, 102}));
    // Clamp is the other way round: x=0 -> a a a b b = 102, x=1 -> a a b b b = 153.
    EXPECT_EQ(red8(filtered(box(2), Border::Clamp, two)), (std::vector<int>{102, 153}));
    // Zero: only (a + b) of 25 taps is inside: 255 / 25 = 10.2 -> 10.
    EXPECT_EQ(red8(filtered(box(2), Border::Zero, two)), (std::vector<int>{10, 10}));
    // Radius 5, mirror: x=0 taps -5..5 fold to a a b b a a b b a a b (6 a, 5 b): 5*255/11 = 115.9 -> 116;
    // x=1 taps -4..6 fold to a b b a a b b a a b b (5 a, 6 b): 6*255/11 = 139.1 -> 139.
    EXPECT_EQ(red8(filtered(box(5), Border::Mirror, two)), (std::vector<int>{116, 139}));
}

TEST(ReferenceSobel, VerticalStepEdgeByHand) {
    // Columns 0,1 = 0 and 2,3 = 51 (0.2). At x=1 and x=2 the step lies under the kernel:
    // gx = (c-a) + 2(f-d) + (i-g) = 0.2 + 0.4 + 0.2 = 0.8, gy = 0 -> 0.8 * 255 = 204.
    // At x=0 and x=3 (clamp) both sides are equal: 0.
    const Image src = rgba8_from_red(4, 3, {0, 0, 51, 51, 0, 0, 51, 51, 0, 0, 51, 51});
    EXPECT_EQ(red8(filtered(kind(FilterKind::Sobel), Border::Clamp, src)),
              (std::vector<int>{0, 204, 204, 0, 0, 204, 204, 0, 0, 204, 204, 0}));
    // Zero border at the top-right corner (3,0): above is 0, right is 0.
    //   gx = (0-0) + 2(0-0.2) + (0-0.2) = -0.6;  gy = (0.2 + 2*0.2 + 0) - 0 = 0.6;
    //   sqrt(0.72) = 0.8485 -> 216.4 -> 216.  Middle row (3,1): gx = -0.8, gy = 0.2+0.4 - 0.2-0.4 = 0 -> 204.
    //   (2,0): gx = (0-0) + 2(0.2-0) + (0.2-0) = 0.6, gy = (0+0.4+0.2) - 0 = 0.6 -> 216.
    //   (1,0): gx = 0 + 2(0.2-0) + (0.2-0) = 0.6, gy = (0+0+0.2) - 0 = 0.2 -> sqrt(0.4) = 0.632 -> 161.
    EXPECT_EQ(red8(filtered(kind(FilterKind::Sobel), Border::Zero, src)),
              (std::vector<int>{0, 161, 216, 216, 0, 204, 204, 204, 0, 161, 216, 216}));
}

TEST(ReferenceSobel, HorizontalStepUsesTheTransposedKernel) {
    // Row 0 = 0, rows 1,2 = 0.2 (in G this time): gy = 0.8 at y=0 and y=1, 0 at y=2 (clamp).
    Image src(3, 3, PixelFormat::RGBA32F);
    for (int y = 0; y < 3; ++y)
        for (int x = 0; x < 3; ++x) {
            float* p = src.rgba32f(x, y);
            p[0] = p[2] = 0.0f;
            p[1] = y == 0 ? 0.0f : 0.2f;
            p[3] = 1.0f;
        }
    const Image out = filtered(kind(FilterKind::Sobel), Border::Clamp, src);
    for (int x = 0; x < 3; ++x) {
        EXPECT_NEAR(out.rgba32f(x, 0)[1], 0.8f, 1e-6);
        EXPECT_NEAR(out.rgba32f(x, 1)[1], 0.8f, 1e-6);
        EXPECT_NEAR(out.rgba32f(x, 2)[1], 0.0f, 1e-6);
        EXPECT_EQ(out.rgba32f(x, 1)[0], 0.0f);
    }
    // Sobel of a step of 0.25 in RGBA32F is 1.0: not clamped, and a bigger step gives more than 1.
    for (int y = 0; y < 3; ++y)
        for (int x = 0; x < 3; ++x) src.rgba32f(x, y)[1] = y == 0 ? 0.0f : 0.5f;
    EXPECT_NEAR(filtered(kind(FilterKind::Sobel), Border::Clamp, src).rgba32f(1, 0)[1], 2.0f, 1e-6);
}

TEST(ReferenceLaplacian, SingleBrightPixelByHand) {
    // 5x5 of zeros with 51 (0.2) in the centre: centre |0 - 4*0.2| = 0.8 -> 204,
    // its 4 neighbours |0.2| -> 51, diagonals and the rest 0.
    std::vector<int> red(25, 0);
    red[12] = 51;
    const auto out = red8(filtered(kind(FilterKind::Laplacian), Border::Clamp, rgba8_from_red(5, 5, red)));
    std::vector<int> expect(25, 0);
    expect[12] = 204;
    expect[7] = expect[11] = expect[13] = expect[17] = 51;
    EXPECT_EQ(out, expect);
}

TEST(ReferenceSharpen, SingleBrightPixelIsNotClampedInFloat) {
    // 0.5 at the centre of zeros, amount 1, blur = [1 2 1; 2 4 2; 1 2 1] / 16:
    //   centre: blur = 4*0.5/16 = 0.125 -> 0.5 + (0.5 - 0.125) = 0.875
    //   edge neighbour: blur = 2*0.5/16 = 0.0625 -> -0.0625;  diagonal: -0.03125.
    std::vector<float> red(9, 0.0f);
    red[4] = 0.5f;
    FilterParams p = kind(FilterKind::Sharpen);
    p.amount = 1.0f;
    const Image out = filtered(p, Border::Zero, rgba32f_from_red(3, 3, red));
    const float expect[9] = {-0.03125f, -0.0625f, -0.03125f, -0.0625f, 0.875f, -0.0625f, -0.03125f, -0.0625f, -0.03125f};
    for (int i = 0; i < 9; ++i) EXPECT_NEAR(out.rgba32f(i % 3, i / 3)[0], expect[i], 1e-7) << i;
    // The same in RGBA8 clamps the negatives to 0: 0.875 * 255 = 223.1 -> 223.
    std::vector<int> red_u8(9, 0);
    red_u8[4] = 255;  // 1.0: centre 1 + (1 - 0.25) = 1.75 -> 255
    EXPECT_EQ(red8(filtered(p, Border::Zero, rgba8_from_red(3, 3, red_u8))),
              (std::vector<int>{0, 0, 0, 0, 255, 0, 0, 0, 0}));
    // Amount 0 is the identity.
    p.amount = 0.0f;
    const Image same = filtered(p, Border::Mirror, rgba32f_from_red(3, 3, red));
    for (int i = 0; i < 9; ++i) EXPECT_EQ(same.rgba32f(i % 3, i / 3)[0], red[static_cast<std::size_t>(i)]);
}

TEST(ReferenceEmboss, SingleBrightPixelShowsTheKernelRotated) {
    // out(x,y) = sum k(dx,dy) p(x+dx, y+dy) with k = [-2 -1 0; -1 1 1; 0 1 2] (rows dy = -1..1).
    // A lone 0.25 at the centre of a 3x3 appears at pixel (1-dx, 1-dy) with weight k(dx,dy),
    // i.e. the kernel rotated by 180 degrees, times 0.25.
    std::vector<float> red(9, 0.0f);
    red[4] = 0.25f;
    const Image out = filtered(kind(FilterKind::Emboss), Border::Zero, rgba32f_from_red(3, 3, red));
    const float expect[9] = {0.5f, 0.25f, 0.0f, 0.25f, 0.25f, -0.25f, 0.0f, -0.25f, -0.5f};
    for (int i = 0; i < 9; ++i) EXPECT_NEAR(out.rgba32f(i % 3, i / 3)[0], expect[i], 1e-7) << i;
}

TEST(ReferenceUserKernel, ScaleBiasAndOrientation) {
    // Identity 3x3 with scale 2, bias 0.1: 2p + 0.1.
    FilterParams p = kind(FilterKind::UserKernel);
    p.user_size = 3;
    p.user = {};
    p.user[4] = 1.0f;
    p.user_scale = 2.0f;
    p.user_bias = 0.1f;
    std::vector<float> red;
    for (int i = 0; i < 12; ++i) red.push_back(float(i) / 16.0f);
    const Image src = rgba32f_from_red(4, 3, red);
    Image out = filtered(p, Border::Clamp, src);
    for (int i = 0; i < 12; ++i) EXPECT_NEAR(out.rgba32f(i % 4, i / 4)[0], 2.0f * red[static_cast<std::size_t>(i)] + 0.1f, 1e-6);

    // 5x5 with a single 1 at row 0, column 4 (dy = -2, dx = +2): out(x,y) = p(x+2, y-2), clamped.
    p.user_size = 5;
    p.user = {};
    p.user[4] = 1.0f;
    p.user_scale = 1.0f;
    p.user_bias = 0.0f;
    out = filtered(p, Border::Clamp, src);
    for (int y = 0; y < 3; ++y)
        for (int x = 0; x < 4; ++x) {
            const int sx = std::min(x + 2, 3);
            const int sy = std::max(y - 2, 0);
            EXPECT_EQ(out.rgba32f(x, y)[0], red[static_cast<std::size_t>(sy * 4 + sx)]) << x << "," << y;
        }
}

TEST(ReferenceGaussian, ConstantImageStaysConstantAndZeroBorderByHand) {
    FilterParams p = kind(FilterKind::Gaussian);
    p.sigma = 1.0f;
    const Image flat = rgba32f_from_red(9, 7, std::vector<float>(63, 0.6f));
    for (Border b : {Border::Clamp, Border::Mirror}) {
        const Image out = filtered(p, b, flat);
        for (int y = 0; y < 7; ++y)
            for (int x = 0; x < 9; ++x) EXPECT_NEAR(out.rgba32f(x, y)[0], 0.6f, 1e-6);
    }
    // Zero border, corner of a 1x1 image: only the centre tap is inside: 0.6 * w0^2,
    // w0 = 1 / 2.5059500 (sigma 1, see the weights test).
    const Image one = filtered(p, Border::Zero, rgba32f_from_red(1, 1, {0.6f}));
    const double w0 = 1.0 / 2.5059500;
    EXPECT_NEAR(one.rgba32f(0, 0)[0], 0.6 * w0 * w0, 1e-6);
}

// Straightforward definitions, summed in double: Box = mean of the window, Gaussian = the full 2D sum.
Image brute_force(const FilterParams& p, Border b, const Image& src) {
    Image out(src.width, src.height, PixelFormat::RGBA32F);
    int r = p.radius;
    std::array<float, 61> g{};
    if (p.kind == FilterKind::Gaussian) g = gaussian_weights(p.sigma, &r);
    for (int y = 0; y < src.height; ++y)
        for (int x = 0; x < src.width; ++x) {
            double acc[3] = {0, 0, 0};
            for (int dy = -r; dy <= r; ++dy)
                for (int dx = -r; dx <= r; ++dx) {
                    const int fx = fold_coord(x + dx, src.width, b);
                    const int fy = fold_coord(y + dy, src.height, b);
                    if (fx < 0 || fy < 0) continue;
                    const double w = p.kind == FilterKind::Gaussian ? double(g[dx + r]) * double(g[dy + r]) : 1.0;
                    for (int c = 0; c < 3; ++c)
                        acc[c] += w * (src.format == PixelFormat::RGBA8 ? src.rgba8(fx, fy)[c] / 255.0 : src.rgba32f(fx, fy)[c]);
                }
            const double n = p.kind == FilterKind::Gaussian ? 1.0 : double((2 * r + 1) * (2 * r + 1));
            float* o = out.rgba32f(x, y);
            for (int c = 0; c < 3; ++c) o[c] = static_cast<float>(acc[c] / n);
            o[3] = src.format == PixelFormat::RGBA8 ? src.rgba8(x, y)[3] / 255.0f : src.rgba32f(x, y)[3];
        }
    return out;
}

TEST(ReferenceBox, MatchesTheStraightforwardDefinitionAtAwkwardSizes) {
    const std::pair<int, int> sizes[] = {{1, 1}, {2, 1}, {1, 3}, {17, 5}, {33, 40}};
    for (auto [w, h] : sizes)
        for (int r : {1, 3, 32})
            for (Border b : kBorders) {
                const Image src8 = random_image(w, h, PixelFormat::RGBA8, static_cast<std::uint32_t>(w * 100 + h));
                const Image src32 = random_image(w, h, PixelFormat::RGBA32F, static_cast<std::uint32_t>(w * 7 + h));
                const Image expect8 = brute_force(box(r), b, src8);
                const Image expect32 = brute_force(box(r), b, src32);
                const Image got8 = filtered(box(r), b, src8);
                const Image got32 = filtered(box(r), b, src32);
                for (int y = 0; y < h; ++y)
                    for (int x = 0; x < w; ++x)
                        for (int c = 0; c < 4; ++c) {
                            // A box mean of bytes is never within 1/(2n) LSB of a .5 boundary, so the
                            // reference's RGBA8 result is exactly the rounded true mean.
                            EXPECT_EQ(int(got8.rgba8(x, y)[c]), int(quantize_unorm8(expect8.rgba32f(x, y)[c])))
                                << w << "x" << h << " r" << r << " " << to_string(b);
                            EXPECT_NEAR(got32.rgba32f(x, y)[c], expect32.rgba32f(x, y)[c], 1e-5)
                                << w << "x" << h << " r" << r << " " << to_string(b);
                        }
            }
}

TEST(ReferenceBox, LargeImagesSplitAcrossThreadsMatchTheDefinition) {
    // Big enough that the reference splits rows between threads: each band starts its own window.
    FilterParams gauss = kind(FilterKind::Gaussian);
    gauss.sigma = 1.7f;
    for (Border b : kBorders) {
        const Image src8 = random_image(300, 257, PixelFormat::RGBA8, 31);
        const Image src32 = random_image(300, 257, PixelFormat::RGBA32F, 32);
        const Image expect8 = brute_force(box(5), b, src8);
        Image q(300, 257, PixelFormat::RGBA8);
        for (std::size_t i = 0; i < q.bytes.size(); ++i)
            q.bytes[i] = quantize_unorm8(reinterpret_cast<const float*>(expect8.bytes.data())[i]);
        EXPECT_EQ(filtered(box(5), b, src8).bytes, q.bytes) << to_string(b);
        EXPECT_EQ(compare_images(filtered(box(5), b, src32).view(), brute_force(box(5), b, src32).view(), 1e-5).pixels_over, 0)
            << to_string(b);
        EXPECT_EQ(compare_images(filtered(gauss, b, src32).view(), brute_force(gauss, b, src32).view(), 1e-5).pixels_over, 0)
            << to_string(b);
    }
}

TEST(ReferenceGaussian, MatchesTheFull2DSum) {
    for (float sigma : {0.5f, 1.3f, 4.0f, 10.0f})
        for (Border b : kBorders) {
            FilterParams p = kind(FilterKind::Gaussian);
            p.sigma = sigma;
            const Image src = random_image(23, 19, PixelFormat::RGBA32F, 5);
            const Image expect = brute_force(p, b, src);
            const Image got = filtered(p, b, src);
            const ImageDiff d = compare_images(got.view(), expect.view(), 1e-5);
            EXPECT_EQ(d.pixels_over, 0) << "sigma " << sigma << " " << to_string(b) << " worst " << d.max_abs;
        }
}

TEST(ReferenceFilters, AlphaIsCopiedFromTheCentre) {
    Image src8 = random_image(13, 9, PixelFormat::RGBA8, 11);
    Image src32 = random_image(13, 9, PixelFormat::RGBA32F, 12);
    for (const auto& info : filter_infos()) {
        FilterParams p = kind(info.kind);
        p.radius = 4;
        p.sigma = 2.0f;
        p.user_size = 5;
        p.user.fill(0.04f);
        for (Border b : kBorders) {
            const Image o8 = filtered(p, b, src8);
            const Image o32 = filtered(p, b, src32);
            for (int y = 0; y < 9; ++y)
                for (int x = 0; x < 13; ++x) {
                    EXPECT_EQ(o8.rgba8(x, y)[3], src8.rgba8(x, y)[3]) << info.name;
                    EXPECT_EQ(o32.rgba32f(x, y)[3], src32.rgba32f(x, y)[3]) << info.name;
                }
        }
    }
}

TEST(ReferenceFilters, TinyImagesWithEveryFilterAndBorder) {
    // 1x1, 1xN and Nx1 images with windows far larger than the image: finite results, no stray reads
    // (the sanitizer build would flag them), and a constant image stays constant under the blurs.
    for (auto [w, h] : {std::pair{1, 1}, std::pair{1, 4}, std::pair{5, 1}, std::pair{2, 2}})
        for (const auto& info : filter_infos())
            for (Border b : kBorders) {
                FilterParams p = kind(info.kind);
                p.radius = 32;
                p.sigma = 10.0f;
                p.user_size = 5;
                p.user.fill(1.0f / 25.0f);
                const Image src = rgba32f_from_red(w, h, std::vector<float>(static_cast<std::size_t>(w * h), 0.5f));
                const Image out = filtered(p, b, src);
                for (int y = 0; y < h; ++y)
                    for (int x = 0; x < w; ++x) {
                        const float* px = out.rgba32f(x, y);
                        for (int c = 0; c < 4; ++c) EXPECT_TRUE(std::isfinite(px[c])) << info.name;
                        const bool blur = info.kind == FilterKind::Box || info.kind == FilterKind::Gaussian;
                        if (blur && b != Border::Zero) {
                            EXPECT_NEAR(px[0], 0.5f, 1e-5) << info.name;
                        }
                    }
            }
}

TEST(ReferenceFilters, Rgba8AndRgba32fAgreeWithinOneLsb) {
    const Image src8 = random_image(31, 17, PixelFormat::RGBA8, 3);
    Image src32(31, 17, PixelFormat::RGBA32F);
    for (std::size_t i = 0; i < src8.bytes.size(); ++i)
        reinterpret_cast<float*>(src32.bytes.data())[i] = float(src8.bytes[i]) / 255.0f;
    for (const auto& info : filter_infos()) {
        FilterParams p = kind(info.kind);
        p.radius = 3;
        p.sigma = 1.5f;
        p.amount = 2.0f;
        p.user_size = 3;
        p.user = {0, -1, 0, -1, 5, -1, 0, -1, 0};
        p.user_bias = 0.05f;
        for (Border b : kBorders) {
            const Image o8 = filtered(p, b, src8);
            const Image o32 = filtered(p, b, src32);
            Image q(31, 17, PixelFormat::RGBA8);
            for (std::size_t i = 0; i < q.bytes.size(); ++i)
                q.bytes[i] = quantize_unorm8(reinterpret_cast<const float*>(o32.bytes.data())[i]);
            const ImageDiff d = compare_images(o8.view(), q.view(), 1.0);
            EXPECT_EQ(d.pixels_over, 0) << info.name << " " << to_string(b);
            EXPECT_LE(d.max_abs, 1.0) << info.name << " " << to_string(b);
        }
    }
}

TEST(ReferenceFilters, InPlaceEqualsOutOfPlace) {
    for (FilterKind k : {FilterKind::Box, FilterKind::Gaussian, FilterKind::Sobel}) {
        const Image src = random_image(20, 12, PixelFormat::RGBA8, 9);
        const Image expect = filtered(kind(k), Border::Mirror, src);
        Image inplace = src;
        reference_filter(kind(k), Border::Mirror, inplace.view(), inplace.view());
        EXPECT_EQ(inplace.bytes, expect.bytes) << to_string(k);
    }
}

TEST(ReferenceFilters, RespectsTheRowPitch) {
    // Views with 3 pixels of padding per row must give the same pixels as packed images, and the
    // padding of the destination must stay untouched.
    for (PixelFormat f : {PixelFormat::RGBA8, PixelFormat::RGBA32F})
        for (FilterKind k : {FilterKind::Box, FilterKind::Gaussian, FilterKind::Sobel}) {
            const Image packed = random_image(10, 6, f, 21);
            const std::size_t bpp = bytes_per_pixel(f);
            const std::size_t row = 10 * bpp;
            const std::size_t pitch = 13 * bpp;
            std::vector<std::uint8_t> src(pitch * 6, 0xAB), dst(pitch * 6, 0xCD);
            for (int y = 0; y < 6; ++y) std::memcpy(src.data() + pitch * y, packed.bytes.data() + row * y, row);
            FilterParams p = kind(k);
            p.radius = 2;
            reference_filter(p, Border::Clamp, ConstImageView(src.data(), pitch, 10, 6, f),
                             ImageView{dst.data(), pitch, 10, 6, f});
            const Image expect = filtered(p, Border::Clamp, packed);
            for (int y = 0; y < 6; ++y) {
                EXPECT_EQ(std::memcmp(dst.data() + pitch * y, expect.bytes.data() + row * y, row), 0)
                    << to_string(k) << " " << to_string(f) << " row " << y;
                for (std::size_t i = row; i < pitch; ++i) ASSERT_EQ(dst[pitch * y + i], 0xCD);
            }
        }
}

TEST(CompareImages, ReportsWorstPixelAndCount) {
    Image a(4, 3, PixelFormat::RGBA8), b(4, 3, PixelFormat::RGBA8);
    b.rgba8(1, 2)[2] = 5;
    b.rgba8(3, 0)[0] = 1;
    b.rgba8(0, 1)[3] = 5;  // row 1 comes before row 2 in scan order
    const ImageDiff d = compare_images(a.view(), b.view(), 1.0);
    EXPECT_EQ(d.max_abs, 5.0);
    EXPECT_EQ(d.worst_x, 0);  // first worst pixel in row-major order
    EXPECT_EQ(d.worst_y, 1);
    EXPECT_EQ(d.pixels_over, 2);  // the two 5s; the 1 is within tolerance
    const ImageDiff same = compare_images(a.view(), a.view(), 0.0);
    EXPECT_EQ(same.max_abs, 0.0);
    EXPECT_EQ(same.pixels_over, 0);
    EXPECT_EQ(same.worst_x, -1);

    Image f(2, 1, PixelFormat::RGBA32F), g(2, 1, PixelFormat::RGBA32F);
    g.rgba32f(1, 0)[1] = 0.25f;
    const ImageDiff df = compare_images(f.view(), g.view(), 1e-4);
    EXPECT_DOUBLE_EQ(df.max_abs, 0.25);
    EXPECT_EQ(df.worst_x, 1);
    EXPECT_EQ(df.pixels_over, 1);
    g.rgba32f(0, 0)[0] = std::numeric_limits<float>::quiet_NaN();
    EXPECT_TRUE(std::isinf(compare_images(f.view(), g.view(), 1e-4).max_abs));  // NaN never passes

    // Different sizes are not comparable: reported as maximally different, not a crash.
    Image small(1, 1, PixelFormat::RGBA8);
    EXPECT_TRUE(std::isinf(compare_images(a.view(), small.view(), 1.0).max_abs));
}

} // namespace
} // namespace tl
