// The float identities the per-pixel kernels rely on (cuda/pixel/pixel_kernels.cuh), checked in
// IEEE arithmetic on the host: the 2^23 round-down trick that replaces F2I in quantisation, the
// 2^23 trick that replaces I2F when unpacking a byte, unpack-then-quantise giving the byte back
// (a leading LUT indexes by the byte), and the FMA-corrected division by 255.
#include "reference.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>

namespace {

constexpr float kTwo23 = 8388608.0f;

std::uint32_t bits(float f) {
    std::uint32_t u = 0;
    std::memcpy(&u, &f, sizeof u);
    return u;
}

float from_bits(std::uint32_t u) {
    float f = 0;
    std::memcpy(&f, &u, sizeof f);
    return f;
}

// x + y rounded towards minus infinity (the device's __fadd_rd), from the round-to-nearest sum
// and the exact sum in double (exact here: both operands have 24-bit mantissas within 2^-30..2^24).
float add_rd(float x, float y) {
    const float s = x + y;
    const double exact = double(x) + double(y);
    return double(s) > exact ? std::nextafter(s, -INFINITY) : s;
}

// The device's quantize: clamp, * 255, + 0.5 (rounded apart), then + 2^23 rounded down; the low
// byte of the bits is the result.
std::uint32_t device_quantize(float v) {
    const float c = v < 0.0f ? 0.0f : (v > 1.0f ? 1.0f : v);
    const float y = c * 255.0f + 0.5f;  // two roundings: x86-64 SSE, no FMA contraction at -O2
    return bits(add_rd(y, kTwo23)) & 0xffu;
}

TEST(PixelDeviceMaths, RoundDownAddOf2To23FloorsLikeQuantizeUnorm8) {
    // Every float near each rounding boundary (k + 0.5) / 255, plus a regular sweep and the ends.
    long long checked = 0;
    for (int k = 0; k <= 255; ++k) {
        float v = (float(k) + 0.5f) / 255.0f;
        for (int i = 0; i < 64; ++i) v = std::nextafter(v, -INFINITY);
        for (int i = 0; i < 128; ++i, v = std::nextafter(v, INFINITY)) {
            ASSERT_EQ(device_quantize(v), tl::quantize_unorm8(v)) << "v = " << v;
            ++checked;
        }
    }
    for (int i = -1000; i <= 301000; ++i) {
        const float v = float(i) / 300000.0f;
        ASSERT_EQ(device_quantize(v), tl::quantize_unorm8(v)) << "v = " << v;
        ++checked;
    }
    for (float v : {-1.0f, -0.0f, 0.0f, 1e-30f, 0.5f / 255.0f, 1.0f, 1.5f, 1e30f})
        EXPECT_EQ(device_quantize(v), tl::quantize_unorm8(v)) << "v = " << v;
    EXPECT_GT(checked, 300000);
}

TEST(PixelDeviceMaths, ByteIn2To23MantissaIsTheByteExactly) {
    for (std::uint32_t b = 0; b < 256; ++b) {
        const float f = from_bits(0x4B000000u | b) - kTwo23;
        EXPECT_EQ(f, float(b));
        // And the reference's conversion from it: v * (1/255).
        EXPECT_EQ(f * (1.0f / 255.0f), float(b) * (1.0f / 255.0f));
    }
}

// Why a LUT first in the chain may index by the stored byte: unpacking then quantising gives the
// byte back, for every byte.
TEST(PixelDeviceMaths, QuantizeOfUnpackedByteIsTheByte) {
    for (int b = 0; b < 256; ++b) EXPECT_EQ(tl::quantize_unorm8(float(b) * (1.0f / 255.0f)), b);
}

TEST(PixelDeviceMaths, FmaCorrectedDivisionBy255IsTheIeeeQuotientForEveryByte) {
    const float r = 1.0f / 255.0f;
    int plain_multiply_differs = 0;
    for (int k = 0; k < 256; ++k) {
        const float x = float(k);
        const float q = x * r;
        const float corrected = std::fma(std::fma(-q, 255.0f, x), r, q);
        EXPECT_EQ(corrected, x / 255.0f) << "k = " << k;
        if (q != x / 255.0f) ++plain_multiply_differs;
    }
    // Why the correction step exists: the multiply alone is wrong for about half the bytes.
    EXPECT_GT(plain_multiply_differs, 0);
}

} // namespace
