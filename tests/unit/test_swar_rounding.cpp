// The integer facts the RGBA8 SWAR 3x3 path relies on (cuda/stencil/swar_math.hpp), checked on the
// host for every value they can meet: box r=1's multiply-shift rounding against the reference's own
// integer rounding, and the per-lane biases that keep every 16-bit lane in [0, 2^16).
#include "stencil/swar_math.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <random>
#include <vector>

namespace {

using namespace tl::cuda::swar_math;

// The reference (cuda/reference.cpp, box_rgba8) stores floor((2s + n) / 2n) with n = 9.
TEST(SwarRounding, BoxDivisionMatchesTheReferenceForEveryWindowSum) {
    for (std::uint32_t s = 0; s <= kBoxSumMax; ++s) {
        const std::uint32_t want = (2u * s + 9u) / 18u;
        ASSERT_EQ(div9_rounded(s), want) << "window sum " << s;
        // The device takes byte 2 of the product as the quotient: nothing may lie above it.
        ASSERT_LT(div9_rounded_bits(s), 1u << 24) << "window sum " << s;
        ASSERT_LE(want, 255u);
    }
}

// The multiply-shift is exact only up to a bound; make sure the box sum stays far inside it, so a
// change to kDiv9Mul that breaks the identity for larger sums is caught too.
TEST(SwarRounding, BoxDivisionHoldsWellPastTheLargestSum) {
    int first_wrong = -1;
    for (std::uint32_t s = 0; s < 20000u; ++s)
        if (div9_rounded(s) != (2u * s + 9u) / 18u) {
            first_wrong = int(s);
            break;
        }
    EXPECT_TRUE(first_wrong < 0 || first_wrong > int(kBoxSumMax)) << "first wrong sum " << first_wrong;
}

// A lane's final value (the filter's integer result plus its bias) must be a 16-bit unsigned
// value for the packed min/max and the lane extraction to be right; the ranges below are the
// extreme integer results of each filter over bytes 0..255 (filters.cuh, swar4 of each filter).
struct LaneCase {
    const char* filter;
    int lo, hi;  // the filter's extreme integer result per channel
    std::uint32_t bias;
};

TEST(SwarRounding, EveryFiltersBiasKeepsItsLanesInRange) {
    const LaneCase cases[] = {
        {"sobel gx/gy", -4 * 255, 4 * 255, kBias1024},
        {"laplacian", -4 * 255, 4 * 255, kBias1024},
        {"emboss", -4 * 255, 5 * 255, kBias1024},
        {"sharpen 16e - blur16", -12 * 255, 12 * 255, kSharpenBias},
        {"box sum", 0, 9 * 255, 0u},
    };
    for (const auto& c : cases) {
        const long long lo = c.lo + static_cast<long long>(c.bias);
        const long long hi = c.hi + static_cast<long long>(c.bias);
        EXPECT_GE(lo, 0) << c.filter;
        EXPECT_LT(hi, 1 << 16) << c.filter;
    }
    // Laplacian takes |s| + 1024 as max(X, 2048 - X): 2048 - X must not borrow either.
    EXPECT_GT(2 * kBias1024, 4u * 255u + kBias1024);
    // Laplacian and emboss clamp to [1024, 1024 + 255] and keep the low byte: 1024 has a zero one.
    EXPECT_EQ(kBias1024 & 0xffu, 0u);
}

// The extremes used above, from the weights themselves, so the table cannot drift from the filters.
TEST(SwarRounding, FilterExtremesFollowFromTheirWeights) {
    auto extremes = [](const int (&w)[9], int& lo, int& hi) {
        lo = hi = 0;
        for (int k : w) (k < 0 ? lo : hi) += k * 255;
    };
    int lo = 0, hi = 0;
    const int sobel_x[9] = {-1, 0, 1, -2, 0, 2, -1, 0, 1};
    extremes(sobel_x, lo, hi);
    EXPECT_EQ(lo, -4 * 255);
    EXPECT_EQ(hi, 4 * 255);
    const int laplacian[9] = {0, 1, 0, 1, -4, 1, 0, 1, 0};
    extremes(laplacian, lo, hi);
    EXPECT_EQ(lo, -4 * 255);
    EXPECT_EQ(hi, 4 * 255);
    const int emboss[9] = {-2, -1, 0, -1, 1, 1, 0, 1, 2};
    extremes(emboss, lo, hi);
    EXPECT_EQ(lo, -4 * 255);
    EXPECT_EQ(hi, 5 * 255);
    // 16 e - blur16, blur16 = [1 2 1; 2 4 2; 1 2 1]
    const int sharpen16[9] = {-1, -2, -1, -2, 12, -2, -1, -2, -1};
    extremes(sharpen16, lo, hi);
    EXPECT_EQ(lo, -12 * 255);
    EXPECT_EQ(hi, 12 * 255);
}

} // namespace

namespace {

using namespace tl::cuda::swar_math;

// Sharpen's integer finish (swar_math::sharpen_dyadic): for every dyadic amount it accepts, every
// centre byte e and every D = 16 e - blur16 in range, the lane keeps 16 bits and the byte equals
// the exact round-half-up of clamp(e + amount * D / 16) (computed here in double, exact for these
// small dyadic values).
TEST(SwarRounding, SharpenDyadicFinishIsExactWhereItIsUsed) {
    int accepted = 0;
    for (int q = 0; q <= 4; ++q)
        for (int p = 0; p <= 5 * (1 << q); ++p) {
            const float amount = float(p) / float(1 << q);
            const SharpenDyadic s = sharpen_dyadic(amount);
            if (s.p < 0) continue;
            ++accepted;
            const long long k = 1ll << s.shift;
            ASSERT_EQ(double(s.p) / double(k), double(amount) / 16.0) << amount;
            ASSERT_EQ(s.bias_units % 256u, 0u) << amount;
            ASSERT_LE(s.shift, 8) << amount;  // the device shifts after the clamp, unmasked
            for (int e = 0; e <= 255; ++e)
                for (int d = -3060; d <= 3060; ++d) {
                    const long long x = k * e + (long long)s.p * d + (long long)s.bias_units * k + k / 2;
                    ASSERT_GE(x, 0) << amount << " " << e << " " << d;
                    ASSERT_LT(x, 1 << 16) << amount << " " << e << " " << d;
                    double want = std::floor(double(e) + double(amount) * d / 16.0 + 0.5);
                    want = want < 0 ? 0 : (want > 255 ? 255 : want);
                    ASSERT_EQ(sharpen_dyadic_lane(std::uint32_t(e), std::uint32_t(16 * e - d), s),
                              std::uint32_t(want))
                        << "amount " << amount << " e " << e << " D " << d;
                }
        }
    // The default amount (1) and the bench's (1.5) must take the integer path.
    EXPECT_GE(sharpen_dyadic(1.0f).p, 0);
    EXPECT_GE(sharpen_dyadic(1.5f).p, 0);
    EXPECT_LT(sharpen_dyadic(0.3f).p, 0);  // not dyadic: the float finish
    EXPECT_GT(accepted, 3);
}

// Sharpen's folded float finish (swar_math::sharpen_float_fold, the device's FFMA on the lane's raw
// bits): where the fold is taken, for every centre byte e and every D = 16 e - blur16 in range, the
// byte is the exact clamp(e + k D) rounded to nearest (computed here in double: k D is exact there),
// except where e + k D lies within the fold's shift of a half, where it may be either neighbour.
// Amounts whose k has few significant bits (1.0625 = 17 / 16) or too few candidates (0.05) keep the
// two-step finish.
TEST(SwarRounding, SharpenFloatFoldMovesTheRoundingPointByItsShiftOnly) {
    const float taken[] = {0.3f, 0.7f, 1.2f, 2.2f, 3.3f, 4.9f, 0.011f, 0.001f};
    for (float amount : taken) {
        const SharpenFloatFold f = sharpen_float_fold(amount);
        ASSERT_TRUE(f.taken) << amount;
        ASSERT_LE(std::fabs(f.shift), kSharpenFoldMaxShift) << amount;
        ASSERT_EQ(f.lane_bias >> 16, f.lane_bias & 0xffffu) << amount;  // the same fb in both lanes
        ASSERT_EQ(f.lane_high & 0xffffu, 0u) << amount;
        ASSERT_EQ(f.e_base & 0xffu, 0u) << amount;
        const double k = double(amount * (1.0f / 16.0f));
        long near_half = 0, two_step_differs = 0;
        for (int e = 0; e <= 255; ++e)
            for (int d = -3060; d <= 3060; ++d) {
                const double exact = double(e) + k * double(d);
                const double lo = std::floor(exact), frac = exact - lo;
                auto clamp = [](double v) { return std::uint32_t(v < 0 ? 0 : (v > 255 ? 255 : v)); };
                const std::uint32_t got = sharpen_float_folded_lane(std::uint32_t(e), d, amount, f);
                if (std::fabs(frac - 0.5) <= std::fabs(f.shift)) {
                    ++near_half;
                    ASSERT_TRUE(got == clamp(lo) || got == clamp(lo + 1.0)) << amount << " " << e << " " << d;
                } else {
                    ASSERT_EQ(got, clamp(frac < 0.5 ? lo : lo + 1.0))
                        << "amount " << amount << " e " << e << " D " << d;
                }
                const float two_step = std::fmaf(amount * (1.0f / 16.0f), float(d), 12582912.0f + float(e));
                two_step_differs += got != clamp(double(two_step) - 12582912.0);
            }
        std::printf(
            "amount %g: shift %.3g LSB, %ld (e, D) within it of a half, %ld differ from the two-step "
            "finish\n",
            double(amount), f.shift, near_half, two_step_differs);
    }
    EXPECT_FALSE(sharpen_float_fold(1.0625f).taken);
    EXPECT_FALSE(sharpen_float_fold(0.05f).taken);
    EXPECT_FALSE(sharpen_float_fold(0.0f).taken);
    EXPECT_FALSE(sharpen_float_fold(std::nanf("")).taken);
}

// One window of N bytes through the planar form against the exact result scale * sum(w p) + 255
// bias rounded half up: within 1 LSB, and exact where the exact value lies away from a half by
// more than the float error of the sum. Returns whether it was away from a half.
template <int N>
bool planar_window_matches(const UserPlanarFormT<N>& f, const float (&w)[N], float scale, float bias,
                           const std::uint32_t (&p)[N]) {
    double v = 255.0 * double(bias), magnitude = std::fabs(v);
    for (int k = 0; k < N; ++k) {
        const double term = double(scale) * double(w[k]) * double(p[k]);
        v += term;
        magnitude += std::fabs(term);
    }
    const double want = std::floor(std::fmin(std::fmax(v, 0.0), 255.0) + 0.5);
    const double got = double(user_planar_byte(f, p));
    EXPECT_LE(std::fabs(got - want), 1.0) << "exact value " << v;
    if (std::fabs(v - std::floor(v) - 0.5) <= 1e-5 * magnitude + 1e-6) return false;
    EXPECT_EQ(got, want) << "exact value " << v;
    return true;
}

// Weight sets both user 3x3 forms below are tested on: the check's "frac" set, tenths, mixed signs
// of several magnitudes, tiny weights under a large scale.
struct UserCase3 {
    float w[9];
    float scale, bias;
};
constexpr UserCase3 kUserCases3[] = {
    // check's "frac"
    {{0.0625f, 0.125f, 0.0625f, 0.125f, -0.75f, 0.125f, 0.0625f, 0.3f, 0.0625f}, 1.5f, 0.25f},
    {{0.1f, 0.1f, 0.1f, 0.1f, 0.2f, 0.1f, 0.1f, 0.1f, 0.1f}, 1.0f, 0.0f},
    {{-0.3f, 0.7f, -0.3f, 1.1f, 3.3f, 1.1f, -0.3f, 0.7f, -0.3f}, 1.0f / 7.0f, 0.1f},
    {{1e-6f, 3e-6f, 1e-6f, 3e-6f, 7e-6f, 3e-6f, 1e-6f, 3e-6f, 1e-6f}, 37000.0f, -0.05f},
};
// Calls one(p) on 200000 random 3x3 windows of bytes, then on the five uniform ones.
template <class Fn>
void for_user_windows3(std::mt19937& rng, Fn&& one) {
    std::uniform_int_distribution<int> byte(0, 255);
    for (int n = 0; n < 200000; ++n) {
        std::uint32_t p[9];
        for (auto& b : p) b = std::uint32_t(byte(rng));
        one(p);
    }
    for (std::uint32_t fill : {0u, 1u, 128u, 254u, 255u}) {
        std::uint32_t p[9];
        for (auto& b : p) b = fill;
        one(p);
    }
}

// The user 3x3 kernel's float form over raw bytes (swar_math::UserPlanarForm, which `registers`
// runs for weights without an integer form): against the exact result scale * sum(w p) + 255 bias
// rounded half up, on random windows, extreme windows and weight sets of several magnitudes. It
// may differ by 1 LSB where the exact result lies within float error of a half (the check's
// tolerance), and must match exactly everywhere else. This also fails if the host flushes
// denormals (every byte would read as 0).
TEST(SwarRounding, UserPlanarFormMatchesTheExactResult) {
    std::vector<UserCase3> cases(std::begin(kUserCases3), std::end(kUserCases3));
    cases.push_back({{250.3f, -250.3f, 0.0f, 17.1f, -17.1f, 0.0f, 0.0f, 0.0f, 0.01f}, 0.003f, 0.5f});
    std::mt19937 rng(1234);
    for (const UserCase3& c : cases) {
        const UserPlanarForm f = user_planar_form(c.w, c.scale, c.bias);
        ASSERT_TRUE(f.usable);
        long away_from_half = 0;
        // Float error of the sum: well under 1e-6 of the terms' magnitudes.
        for_user_windows3(rng, [&](const std::uint32_t(&p)[9]) {
            away_from_half += planar_window_matches(f, c.w, c.scale, c.bias, p);
        });
        EXPECT_GT(away_from_half, 100000);
    }
    // Where the form cannot hold the kernel, the plain float window runs.
    const float zeros[9] = {};
    const float nan_w[9] = {0.1f, std::nanf(""), 0, 0, 0, 0, 0, 0, 0};
    const float ok[9] = {0.1f, 0, 0, 0, 0, 0, 0, 0, 0};
    EXPECT_FALSE(user_planar_form(zeros, 1.0f, 0.0f).usable);
    EXPECT_FALSE(user_planar_form(nan_w, 1.0f, 0.0f).usable);
    EXPECT_FALSE(user_planar_form(ok, 0.0f, 0.0f).usable);
    EXPECT_FALSE(user_planar_form(ok, INFINITY, 0.0f).usable);
}

// The user 3x3 kernel's 16-bit fixed-point form (swar_math::UserFixedForm, which `registers` runs
// for weights without an integer form where error_bound <= 1/16 LSB): against the exact result
// rounded half up, on random and extreme windows. The form's own sum (C + sum q p) / 2^s lies
// within error_bound of exact + 0.5, the byte within 1 LSB of the exact rounding everywhere and
// equal to it wherever the exact value is farther than error_bound from a half.
TEST(SwarRounding, UserFixedFormMatchesTheExactResult) {
    std::vector<UserCase3> cases(std::begin(kUserCases3), std::end(kUserCases3));
    cases.push_back({{0.3f, -0.2f, 0.1f, 0.7f, 0.05f, -0.4f, 0.9f, 0.33f, -0.6f}, 1.0f, 0.3f});
    // A mild sharpen whose weights all round the same way at s = 14 (errors -0.4 each): the drift
    // correction rounds two of them the other way.
    cases.push_back({{0.0f, -0.15f, 0.0f, -0.15f, 1.6f, -0.15f, 0.0f, -0.15f, 0.0f}, 1.0f, 0.0f});
    std::mt19937 rng(99);
    for (const UserCase3& c : cases) {
        const UserFixedForm f = user_fixed_form(c.w, c.scale, c.bias);
        ASSERT_TRUE(f.usable) << "error bound " << f.error_bound;
        EXPECT_LE(double(f.error_bound), kUserFixedMaxError);
        // The weights' rounding errors cancel to within 1/2 (the kernel's gain on a flat region).
        double drift = 0.0;
        for (int k = 0; k < 9; ++k)
            drift += double(user_fixed_weight(f, k)) - double(c.scale) * double(c.w[k]) * std::ldexp(1.0, f.shift);
        EXPECT_LE(std::fabs(drift), 0.5);
        long away_from_half = 0;
        auto one = [&](const std::uint32_t(&p)[9]) {
            double v = 255.0 * double(c.bias);
            std::int64_t acc = f.acc_init;
            for (int k = 0; k < 9; ++k) {
                v += double(c.scale) * double(c.w[k]) * double(p[k]);
                acc += std::int64_t(user_fixed_weight(f, k)) * std::int64_t(p[k]);
            }
            ASSERT_LT(std::llabs(acc), 1ll << 31);
            ASSERT_LE(std::fabs(std::ldexp(double(acc), -f.shift) - (v + 0.5)), double(f.error_bound) + 1e-9) << v;
            const double want = std::floor(std::fmin(std::fmax(v, 0.0), 255.0) + 0.5);
            const double got = double(user_fixed_byte(f, p));
            ASSERT_LE(std::fabs(got - want), 1.0) << "exact value " << v;
            if (std::fabs(v - std::floor(v) - 0.5) <= double(f.error_bound) + 1e-9) return;
            ASSERT_EQ(got, want) << "exact value " << v;
            ++away_from_half;
        };
        for_user_windows3(rng, one);
        // Windows with every positive weight at 255 and every negative one at 0, and the reverse:
        // the sum's extremes, where an overflow would show.
        for (int sign : {1, -1}) {
            std::uint32_t p[9];
            for (int k = 0; k < 9; ++k) p[k] = (user_fixed_weight(f, k) * sign > 0) ? 255u : 0u;
            one(p);
        }
        EXPECT_GT(away_from_half, 150000);
    }
    // Exact where every scaled weight and the bias land on the 2^-s grid (registers then prefers it
    // to the integer form), not where the scale is not dyadic.
    const float ints[9] = {1, 2, 1, 0, 0, 0, -1, -2, -1};
    EXPECT_TRUE(user_fixed_form(ints, 0.5f, 0.5f).exact);
    EXPECT_EQ(user_fixed_form(ints, 0.5f, 0.5f).error_bound, 0.0f);
    EXPECT_TRUE(user_fixed_form(ints, 4.0f, 0.2f).usable);
    EXPECT_FALSE(user_fixed_form(ints, 4.0f, 0.2f).exact);  // 255 * 0.2f is not on the grid
    EXPECT_FALSE(user_fixed_form(ints, 1.0f / 9.0f, 0.0f).exact);
    EXPECT_FALSE(user_fixed_form(kUserCases3[0].w, kUserCases3[0].scale, kUserCases3[0].bias).exact);
    // Where the bound is too loose, or nothing fits, the float form runs instead.
    const float coarse[9] = {7.3f, -7.1f, 7.7f, 6.9f, -7.45f, 7.15f, -6.85f, 7.05f, 7.65f};
    const UserFixedForm loose = user_fixed_form(coarse, 1.0f, 0.0f);
    EXPECT_GT(double(loose.error_bound), kUserFixedMaxError);
    EXPECT_FALSE(loose.usable);
    const float huge[9] = {40000.0f, 0, 0, 0, 0, 0, 0, 0, 0};
    const float nan_w[9] = {0.1f, std::nanf(""), 0, 0, 0, 0, 0, 0, 0};
    const float ok[9] = {0.1f, 0, 0, 0, 0, 0, 0, 0, 0};
    EXPECT_FALSE(user_fixed_form(huge, 1.0f, 0.0f).usable);
    EXPECT_FALSE(user_fixed_form(nan_w, 1.0f, 0.0f).usable);
    EXPECT_FALSE(user_fixed_form(ok, 1.0f, std::nanf("")).usable);
    EXPECT_FALSE(user_fixed_form(ok, INFINITY, 0.0f).usable);
}

// The device's data layout of that form (UserKernel3Filter::byte_pairs and fixed4), emulated with
// the PTX semantics of prmt, dp2a and cvt.pack.sat.u8.s32.b32: 4 outputs of one row from 3 rows of
// 6 random pixels equal user_fixed_byte per channel, with the centre pixel's alpha kept.
std::uint32_t prmt(std::uint32_t a, std::uint32_t b, std::uint32_t sel) {
    const std::uint64_t bytes = (std::uint64_t(b) << 32) | a;
    std::uint32_t d = 0;
    for (int i = 0; i < 4; ++i)
        d |= std::uint32_t((bytes >> (8 * ((sel >> (4 * i)) & 7u))) & 0xffu) << (8 * i);
    return d;
}
std::int32_t dp2a(bool hi, std::uint32_t w, std::uint32_t b, std::int32_t c) {
    const int i = hi ? 2 : 0;
    const std::int32_t w0 = std::int16_t(w & 0xffffu), w1 = std::int16_t(w >> 16);
    return c + w0 * std::int32_t((b >> (8 * i)) & 0xffu) + w1 * std::int32_t((b >> (8 * (i + 1))) & 0xffu);
}
std::uint32_t pack_sat_u8(std::int32_t a, std::int32_t b, std::uint32_t c) {
    auto sat = [](std::int32_t v) { return std::uint32_t(v < 0 ? 0 : (v > 255 ? 255 : v)); };
    return (c << 16) | (sat(a) << 8) | sat(b);
}
TEST(SwarRounding, UserFixedFormLayoutMatchesItsTwin) {
    const float w[9] = {0.3f, -0.2f, 0.1f, 0.7f, 0.05f, -0.4f, 0.9f, 0.33f, -0.6f};
    const UserFixedForm f = user_fixed_form(w, 1.0f, 0.3f);
    ASSERT_TRUE(f.usable);
    std::mt19937 rng(7);
    for (int n = 0; n < 20000; ++n) {
        std::uint32_t px[3][6], pairs[3][6];
        for (auto& row : px)
            for (auto& v : row) v = std::uint32_t(rng());
        for (int r = 0; r < 3; ++r) {
            const std::uint32_t* p = px[r];
            for (int j = 0; j < 3; ++j) {
                pairs[r][j] = prmt(p[2 * j], p[2 * j + 1], 0x5140u);
                pairs[r][3 + j] = prmt(p[2 * j], p[2 * j + 1], 0x7362u);
            }
        }
        for (int i = 0; i < 4; ++i) {
            std::int32_t acc[3] = {f.acc_init, f.acc_init, f.acc_init};
            for (int r = 0; r < 3; ++r) {
                const std::uint32_t* wr = f.words + 4 * r;
                const int first = i / 2;  // the pair holding pixel i (outputs 0-1: pair 0; 2-3: pair 1)
                const std::uint32_t wa = wr[(i & 1) ? 2 : 0], wb = wr[(i & 1) ? 3 : 1];
                acc[0] = dp2a(false, wb, pairs[r][first + 1], dp2a(false, wa, pairs[r][first], acc[0]));
                acc[1] = dp2a(true, wb, pairs[r][first + 1], dp2a(true, wa, pairs[r][first], acc[1]));
                acc[2] =
                    dp2a(false, wb, pairs[r][3 + first + 1], dp2a(false, wa, pairs[r][3 + first], acc[2]));
            }
            const std::uint32_t centre = px[1][i + 1];
            const std::uint32_t ba = pack_sat_u8(std::int32_t(centre >> 24), acc[2] >> f.shift, 0u);
            const std::uint32_t got = pack_sat_u8(acc[1] >> f.shift, acc[0] >> f.shift, ba);
            for (int ch = 0; ch < 3; ++ch) {
                std::uint32_t p[9];
                for (int r = 0; r < 3; ++r)
                    for (int dx = 0; dx < 3; ++dx) p[3 * r + dx] = (px[r][i + dx] >> (8 * ch)) & 0xffu;
                ASSERT_EQ((got >> (8 * ch)) & 0xffu, user_fixed_byte(f, p))
                    << "output " << i << " channel " << ch;
            }
            ASSERT_EQ(got >> 24, centre >> 24);
        }
    }
}

// The user 5x5 kernel's form (UserKernel5Filter::planar_item on the tile mechanisms): the same rule
// over 25 taps, with check's asymmetric 5x5 weights and a Gaussian-like set of fractional ones.
TEST(SwarRounding, UserPlanarForm5x5MatchesTheExactResult) {
    struct Case {
        float w[25];
        float scale, bias;
    };
    Case cases[2]{};
    for (int i = 0; i < 25; ++i) cases[0].w[i] = float((i * 7) % 11) - 3.0f;  // check_core's "user 5x5"
    cases[0].scale = 1.0f / 40.0f;
    cases[0].bias = 0.1f;
    const float g[5] = {0.0545f, 0.2442f, 0.4026f, 0.2442f, 0.0545f};
    for (int i = 0; i < 25; ++i) cases[1].w[i] = g[i / 5] * g[i % 5];
    cases[1].scale = 1.0f;
    cases[1].bias = -0.01f;
    std::mt19937 rng(5);
    std::uniform_int_distribution<int> byte(0, 255);
    for (const Case& c : cases) {
        const auto f = user_planar_form(c.w, c.scale, c.bias);
        ASSERT_TRUE(f.usable);
        constexpr int kWindows = 100000;
        long away_from_half = 0;
        for (int n = 0; n < kWindows; ++n) {
            std::uint32_t p[25];
            for (auto& b : p) b = std::uint32_t(byte(rng));
            if (n < 5)
                for (auto& b : p)
                    b = std::uint32_t(n == 0 ? 0 : n == 1 ? 255 : n == 2 ? 1 : n == 3 ? 128 : 254);
            away_from_half += planar_window_matches(f, c.w, c.scale, c.bias, p);
        }
        EXPECT_GT(away_from_half, kWindows / 2);
    }
    float zeros[25] = {};
    EXPECT_FALSE(user_planar_form(zeros, 1.0f, 0.0f).usable);
}

// Sobel's magnitude in half precision (swar_math::sobel_half_byte, the twin of SobelFilter::swar4's
// finish) over every gradient pair the integer form produces: within 1 LSB of the exact rounding of
// min(sqrt(gx^2 + gy^2), 255) everywhere, and equal to it wherever that lies more than 255 * 2^-10
// from a half (two fp16 roundings of |g|^2, each at most 2^-11 relative, halved by the sqrt). And
// r * 512 never within 2^-12 of a tie, so the device's sqrt.approx (relative error ~2^-22) rounds
// to the same byte as this twin's correctly rounded sqrt.
TEST(SwarRounding, SobelHalfMagnitudeMatchesTheExactResult) {
    long differ = 0, pairs = 0;
    double closest_tie = 1.0;
    for (int gx = -1020; gx <= 1020; ++gx) {
        for (int gy = -1020; gy <= 1020; ++gy) {
            const double exact = std::sqrt(double(gx) * gx + double(gy) * gy);
            const double want = std::floor(std::fmin(exact, 255.0) + 0.5);
            const std::uint32_t got = sobel_half_byte(gx, gy);
            const double root = sobel_half_root(gx, gy);
            closest_tie = std::fmin(closest_tie, std::fabs(root - std::floor(root) - 0.5));
            ++pairs;
            if (double(got) == want) continue;
            ++differ;
            ASSERT_LE(std::fabs(double(got) - want), 1.0) << "gx " << gx << " gy " << gy;
            ASSERT_LE(std::fabs(exact - std::floor(exact) - 0.5), 255.0 * 0x1p-10)
                << "gx " << gx << " gy " << gy;
        }
    }
    EXPECT_GT(closest_tie, 0x1p-12);
    // The device's operands are these values' fp16 bits.
    auto half_value = [](std::uint16_t h) {
        const int e = (h >> 10) & 0x1f, m = h & 0x3ff;
        const double v = e == 0 ? std::ldexp(double(m), -24) : std::ldexp(1.0 + m / 1024.0, e - 15);
        return (h & 0x8000) ? -v : v;
    };
    EXPECT_EQ(half_value(kSobelHalfScaleBits), kSobelHalfScale);
    EXPECT_EQ(half_value(kSobelHalfBiasBits), kSobelHalfBias);
    EXPECT_EQ(half_value(kSobelHalfClampBits), kSobelHalfClamp);
    EXPECT_EQ(half2_bits(kSobelHalfClampBits), 0x33F033F0u);
    // Half precision costs a few off-by-ones near halves, not a systematic error.
    EXPECT_LT(differ, pairs / 100) << differ << " of " << pairs << " pairs differ by 1";
    std::printf(
        "sobel half magnitude: %ld of %ld gradient pairs 1 LSB off the exact rounding, closest tie %.3g\n",
        differ, pairs, closest_tie);
}

// The user 3x3 kernel's integer form folds its finish into one FFMA on the lane's raw float bits
// (2^23 + L) where user_integer_fold finds the constant exact: then, for every 16-bit lane value,
// that FFMA must give the float nearest int_scale (L - fb) + 255 bias + 2^23 exactly (computed here
// in long double, exact for these weights). Among the cases: the check suite's "user 3x3" (halves
// with bias 0.5: scale 1/2 after the shift), a Gaussian in sixteenths, an integer sharpen, and
// constants that are no float (ninths; 3/64 with negative weights and a bias; 4 x (2^23 + 2040)
// past 2^24), which keep the two-step finish.
TEST(SwarRounding, UserIntegerFoldIsExactWhereTaken) {
    struct Case {
        float int_scale, bias;
        std::uint32_t neg;  // sum of the negative integer weights' magnitudes
        bool exact;
    };
    const Case cases[] = {{0.5f, 0.5f, 4, true},         {1.0f / 16.0f, 0.0f, 0, true},
                          {1.0f, 0.0f, 4, true},         {1.0f / 9.0f, 0.0f, 0, false},
                          {4.0f, 0.2f, 8, false},        {0.25f, -0.1f, 2, true},
                          {3.0f / 64.0f, 0.0f, 0, true}, {3.0f / 64.0f, 0.25f, 12, false}};
    for (const Case& c : cases) {
        const float add = 255.0f * c.bias;
        const std::uint32_t fb = 255u * c.neg;
        const UserIntegerFold fold = user_integer_fold(c.int_scale, add, fb);
        EXPECT_EQ(fold.exact, c.exact) << "int_scale " << c.int_scale << " bias " << c.bias;
        if (!fold.exact) continue;
        int two_step_differs = 0;
        for (std::uint32_t lane = 0; lane <= 0xffffu; ++lane) {
            const float bits = 8388608.0f + float(lane);  // exact
            const float got = std::fmaf(c.int_scale, bits, fold.k);
            const long double exact = (long double)c.int_scale * ((long double)lane - (long double)fb) +
                                      (long double)add + 8388608.0L;
            const float want = float(exact);
            ASSERT_EQ(got, want) << "int_scale " << c.int_scale << " bias " << c.bias << " lane " << lane;
            const float two_step = std::fmaf(c.int_scale, float(lane) - float(fb), add) + 8388608.0f;
            two_step_differs += two_step != got;
        }
        std::printf("int_scale %g bias %g: the two-step finish differs at %d of 65536 lanes\n",
                    double(c.int_scale), double(c.bias), two_step_differs);
    }
    // Out of the folded range: no fold, whatever the terms.
    EXPECT_FALSE(user_integer_fold(1e30f, 0.0f, 0).exact);
    EXPECT_FALSE(user_integer_fold(std::nanf(""), 0.0f, 0).exact);
}

// The registers kernels' item / groups (divide_item): exact for every item below 2^28 whatever
// the divisor; checked at each divisor's multiples and their neighbours (where an estimate one
// too large shows), at the largest items, and at random items.
TEST(SwarRounding, ItemDivisionIsExactBelowTheLimit) {
    std::mt19937 rng(7);
    const int limit = int(kItemDivisionLimit);
    for (int groups : {1, 2, 3, 4, 5, 7, 60, 480, 960, 961, 1920, 4095, 4096, 8192, 65535, (1 << 20) + 7,
                       1 << 27, limit - 1}) {
        const std::uint32_t magic = item_division_magic(groups);
        auto check = [&](int item) {
            const ItemPlace p = divide_item(item, groups, magic);
            ASSERT_EQ(p.run, item / groups) << "item " << item << " groups " << groups;
            ASSERT_EQ(p.group, item % groups) << "item " << item << " groups " << groups;
        };
        for (int item = 0; item < 3000; ++item) check(item);
        for (int k = 1; k < 3000 && std::int64_t(k) * groups + 1 < limit; ++k)
            for (int d = -1; d <= 1; ++d) check(k * groups + d);
        for (int item = limit - 3000; item < limit; ++item) check(item);
        std::uniform_int_distribution<int> any(0, limit - 1);
        for (int i = 0; i < 20000; ++i) check(any(rng));
    }
}

// Past the limit the estimate can be off by more than one: the launcher's refusal is needed.
TEST(SwarRounding, ItemDivisionNeedsTheLimit) {
    int wrong = 0;
    const int groups = (1 << 20) + 7;
    const std::uint32_t magic = item_division_magic(groups);
    for (int item = int(kItemDivisionLimit); item < int(kItemDivisionLimit) + 4 * groups && wrong == 0;
         item += 97) {
        const ItemPlace p = divide_item(item, groups, magic);
        wrong += p.run != item / groups || p.group != item % groups;
    }
    EXPECT_GT(wrong, 0);
}

} // namespace
