// Device-side filter functors, pixel load/store and border folding shared by every mechanism.
// A filter is a functor with a radius and operator()(window) -> float4, where window(dx, dy)
// returns the neighbour (dx, dy) in [0,1] units (RGBA). Kernels are templates over
// <Filter, Pixel>; the border mode and the radius of Box/Gaussian are runtime values.
#pragma once

#include "filter_spec.hpp"
#include "pixel/pixel_kernels.cuh"  // apply_chain and OpsBlock: the fused epilogue
#include "stencil_api.hpp"
#include "swar_math.hpp"  // the SWAR path's division and lane biases, checked on the host

#include <cuda_runtime.h>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <type_traits>

namespace tl::cuda::dev {

// ---- pixels ---------------------------------------------------------------------------------
// RGBA8 is one uint32 per pixel (R lowest byte); RGBA32F is one float4.
struct PixelRGBA8 {
    using Storage = std::uint32_t;
    static constexpr PixelFormat format = PixelFormat::RGBA8;
    // Byte -> float without the quarter-rate I2F: placing the byte in the mantissa of 2^23 and
    // subtracting 2^23 gives float(byte) exactly (one PRMT + one FADD), then the same * (1/255)
    // as the reference, so the result is bit-identical to float(byte) * (1/255).
    __device__ __forceinline__ static float byte_to_float(Storage v, unsigned selector) {
        return __uint_as_float(__byte_perm(v, 0x4B000000u, selector)) - 8388608.0f;
    }
    // Channel values in storage units (0..255 here, exact in float): sums of them are exact.
    static constexpr float raw_scale = 1.0f / 255.0f;
    __device__ __forceinline__ static float4 to_raw(Storage v) {
        return make_float4(byte_to_float(v, 0x7540u), byte_to_float(v, 0x7541u), byte_to_float(v, 0x7542u),
                           byte_to_float(v, 0x7543u));
    }
    __device__ __forceinline__ static float4 to_float(Storage v) {
        constexpr float s = 1.0f / 255.0f;
        return make_float4(byte_to_float(v, 0x7540u) * s, byte_to_float(v, 0x7541u) * s,
                           byte_to_float(v, 0x7542u) * s, byte_to_float(v, 0x7543u) * s);
    }
    // floor(t) for t = sat(v) * 255 + 0.5 in [0.5, 255.5]: adding 2^23 rounding down leaves
    // floor(t) in the low mantissa bits, the same value as the reference's truncating cast
    // without the quarter-rate F2I.
    __device__ __forceinline__ static std::uint32_t q_bits(float v) {
        return __float_as_uint(__fadd_rd(__saturatef(v) * 255.0f + 0.5f, 8388608.0f));
    }
    __device__ __forceinline__ static std::uint32_t q(float v) { return q_bits(v) & 0xffu; }
    __device__ __forceinline__ static Storage from_float(float4 c) {
        const std::uint32_t lo = __byte_perm(q_bits(c.x), q_bits(c.y), 0x0040u);  // R, G in bytes 0, 1
        const std::uint32_t hi = __byte_perm(q_bits(c.z), q_bits(c.w), 0x0040u);  // B, A in bytes 0, 1
        return __byte_perm(lo, hi, 0x5410u);
    }
    __device__ __forceinline__ static Storage zero() { return 0u; }
    // The register-window 3x3 paths: R, G, B as to_float, and .w carrying the pixel's alpha byte
    // as raw bits (byte 3, the rest zero: always a finite float). Every filter returns its
    // centre's alpha unchanged (filters.cuh: "alpha from centre"), and byte / 255 quantised
    // back is that byte, so from_float_alpha_bits stores exactly what from_float would, without
    // the alpha's unpack per pixel (3 instructions) and quantise per output (3).
    __device__ __forceinline__ static float4 to_float_alpha_bits(Storage v) {
        constexpr float s = 1.0f / 255.0f;
        return make_float4(byte_to_float(v, 0x7540u) * s, byte_to_float(v, 0x7541u) * s,
                           byte_to_float(v, 0x7542u) * s, __uint_as_float(v & 0xff000000u));
    }
    __device__ __forceinline__ static Storage from_float_alpha_bits(float4 c) {
        const std::uint32_t lo = __byte_perm(q_bits(c.x), q_bits(c.y), 0x0040u);  // R, G in bytes 0, 1
        const std::uint32_t hi = __byte_perm(q_bits(c.z), __float_as_uint(c.w), 0x0070u);  // B, A
        return __byte_perm(lo, hi, 0x5410u);
    }
    // The same in storage units (R, G, B in 0..255) for homogeneous filters (see Homogeneous):
    // the unpack skips its * (1/255) (3 instructions per pixel), the quantiser scales once per
    // output channel inside its saturating multiply (no extra instruction).
    __device__ __forceinline__ static float4 to_raw_alpha_bits(Storage v) {
        return make_float4(byte_to_float(v, 0x7540u), byte_to_float(v, 0x7541u), byte_to_float(v, 0x7542u),
                           __uint_as_float(v & 0xff000000u));
    }
    __device__ __forceinline__ static std::uint32_t q_bits_raw(float v) {
        return __float_as_uint(__fadd_rd(__saturatef(v * (1.0f / 255.0f)) * 255.0f + 0.5f, 8388608.0f));
    }
    __device__ __forceinline__ static Storage from_raw_alpha_bits(float4 c) {
        const std::uint32_t lo = __byte_perm(q_bits_raw(c.x), q_bits_raw(c.y), 0x0040u);
        const std::uint32_t hi = __byte_perm(q_bits_raw(c.z), __float_as_uint(c.w), 0x0070u);
        return __byte_perm(lo, hi, 0x5410u);
    }
};

struct PixelRGBA32F {
    using Storage = float4;
    static constexpr PixelFormat format = PixelFormat::RGBA32F;
    static constexpr float raw_scale = 1.0f;
    __device__ __forceinline__ static float4 to_raw(Storage v) { return v; }
    __device__ __forceinline__ static float4 to_float(Storage v) { return v; }
    __device__ __forceinline__ static Storage from_float(float4 c) { return c; }
    __device__ __forceinline__ static Storage zero() { return make_float4(0.f, 0.f, 0.f, 0.f); }
};

template <class Pixel>
__device__ __forceinline__ const typename Pixel::Storage* row_ptr(const void* base, std::size_t pitch, int y) {
    return reinterpret_cast<const typename Pixel::Storage*>(static_cast<const char*>(base) + pitch * std::size_t(y));
}
template <class Pixel>
__device__ __forceinline__ typename Pixel::Storage* row_ptr(void* base, std::size_t pitch, int y) {
    return reinterpret_cast<typename Pixel::Storage*>(static_cast<char*>(base) + pitch * std::size_t(y));
}

// Reads pixel (x, y) of a global image with the border rule applied (any x, y).
template <class Pixel>
__device__ __forceinline__ typename Pixel::Storage load_bordered(const void* base, std::size_t pitch, int w, int h,
                                                                 int x, int y, Border border) {
    const int fx = fold_coord(x, w, border);
    const int fy = fold_coord(y, h, border);
    if (fx < 0 || fy < 0) return Pixel::zero();
    return row_ptr<Pixel>(base, pitch, fy)[fx];
}

__device__ __forceinline__ float4 operator+(float4 a, float4 b) { return make_float4(a.x + b.x, a.y + b.y, a.z + b.z, a.w + b.w); }
__device__ __forceinline__ float4 operator-(float4 a, float4 b) { return make_float4(a.x - b.x, a.y - b.y, a.z - b.z, a.w - b.w); }
__device__ __forceinline__ float4 operator*(float s, float4 a) { return make_float4(s * a.x, s * a.y, s * a.z, s * a.w); }
__device__ __forceinline__ void fma_into(float4& acc, float w, float4 p) {
    acc.x = fmaf(w, p.x, acc.x); acc.y = fmaf(w, p.y, acc.y); acc.z = fmaf(w, p.z, acc.z);
}
__device__ __forceinline__ float4 with_alpha(float4 rgb, float a) { return make_float4(rgb.x, rgb.y, rgb.z, a); }

// ---- integer SWAR for the RGBA8 3x3 filters ---------------------------------------------------
// Sobel, Laplacian, sharpen, emboss and box r=1 have small integer weights, so on RGBA8 they are
// computed on the bytes in integers, two channels per 32-bit register in 16-bit lanes ("SIMD
// within a register"): a pixel becomes rb = (R, B), two neighbours' G one register (G, G), and every tap
// is one lane of an IADD3/LEA that adds both channels of a register at once. Sums are linear
// integer arithmetic mod 2^32 on rb = R + 2^16 B, so intermediate terms may borrow across the
// lane boundary freely; only the final value of each lane has to lie in [0, 2^16), which a
// per-lane bias guarantees (a filter adds it once, and its finish subtracts or saturates it
// away). The per-channel finish runs only where the filter needs it: packed 16-bit min/max
// (VIMNMX) for the clamps, a multiply-shift for box's division, float only for Sobel's magnitude
// and sharpen's non-integer amount. Why: the float window path spent 66-97 instructions per
// output (H100 ncu: issue-bound at 25-41 % of DRAM peak), a byte-to-float unpack per tap channel
// and an FFMA per tap channel; see compute_tile_swar (tma_common.cuh) for the measured effect.
namespace swar {

// One box row of 6 columns (pixels x - 1 .. x + 4 for the outputs x .. x + 3): rb[k] = (R, B)
// lanes of column k, gp[k] = (G of column k, G of column k + 1) lanes. So the G of two neighbouring
// outputs is one register: outputs i and i + 1 (i even) read gp[i .. i + 2] as output i's (R, B)
// reads rb[i .. i + 2], the same formula on the same column offsets, and 6 registers carry 4
// outputs' lanes instead of 8 (the (G, 0) form before it left half of every G register empty).
struct Row {
    std::uint32_t rb[6], gp[5];
};

// The 6 pixels' lanes: one PRMT per (R, B) register, and the G pairs as a chain in which each
// pair takes its low G from the previous pair's high lane and its high G from the next pixel
// (one PRMT per pair, one more to start): 12 PRMT per row, as the (G, 0) form took.
__device__ __forceinline__ void unpack(const std::uint32_t (&px)[6], Row& d) {
#pragma unroll
    for (int k = 0; k < 6; ++k) d.rb[k] = __byte_perm(px[k], 0u, 0x4240u);  // R, 0, B, 0
    const std::uint32_t g0 = __byte_perm(px[0], 0u, 0x4441u);               // G 0, 0, 0, 0
    d.gp[0] = __byte_perm(g0, px[1], 0x1510u);                              // G 0, 0, G 1, 0
#pragma unroll
    for (int k = 1; k < 5; ++k) d.gp[k] = __byte_perm(d.gp[k - 1], px[k + 1], 0x1512u);  // G k, 0, G k+1, 0
}

// `v` in both 16-bit lanes.
__host__ __device__ constexpr std::uint32_t both(std::uint32_t v) { return v | (v << 16); }

// Unsigned 16-bit lane-wise max / min (one VIMNMX each on sm_90).
__device__ __forceinline__ std::uint32_t max2(std::uint32_t a, std::uint32_t b) { return __vmaxu2(a, b); }
__device__ __forceinline__ std::uint32_t min2(std::uint32_t a, std::uint32_t b) { return __vminu2(a, b); }

// R from byte 0 of rb, G from the low byte of g's lane L, B from byte 2 of rb, alpha from byte 3 of
// the centre pixel `c` (3x3 filters keep the centre's alpha). L = i % 2 for output i of a G pair.
__device__ __forceinline__ std::uint32_t pack_low_bytes(std::uint32_t rb, std::uint32_t g, int lane,
                                                        std::uint32_t c) {
    return __byte_perm(__byte_perm(rb, g, lane == 0 ? 0x0240u : 0x0260u), c, 0x7210u);
}

// Selectors for a row's (R, B) registers or G pairs (of a Row, or of a filter's column sums
// with the same two members).
struct RB {
    template <class X>
    __device__ __forceinline__ static const auto& of(const X& x) {
        return x.rb;
    }
};
struct GP {
    template <class X>
    __device__ __forceinline__ static const auto& of(const X& x) {
        return x.gp;
    }
};

// A filter's integer form written once per lane register: `reg(S{}, k)` computes the finished
// lanes of the output whose window starts at column k of the S arrays (S = RB or GP). It runs on
// the (R, B) registers of outputs 0..3 (k = i) and on the G pairs of outputs 0, 1 and 2, 3
// (k = 0, 2); out[i] then packs rb[i] with lane i % 2 of g[i / 2].
template <class Reg>
__device__ __forceinline__ void swar4_lanes(const std::uint32_t (&c)[4], std::uint32_t (&out)[4],
                                            const Reg& reg) {
    const std::uint32_t g[2] = {reg(GP{}, 0), reg(GP{}, 2)};
#pragma unroll
    for (int i = 0; i < 4; ++i) out[i] = pack_low_bytes(reg(RB{}, i), g[i / 2], i % 2, c[i]);
}

// Lane `L` (0 or 1, known at compile time where inlined) of `w` under the high 16 bits of `high`,
// as a float: 2^23 + lane for the default 0x4B000000 (its bits).
__device__ __forceinline__ float lane_bits_float(std::uint32_t w, int L, std::uint32_t high = 0x4B000000u) {
    return __uint_as_float(__byte_perm(w, high, L == 0 ? 0x7610u : 0x7632u));
}

// Lane `L` of `w` minus `bias`, as a float (exact: the lane is placed in the mantissa of 2^23).
template <int L>
__device__ __forceinline__ float lane_float(std::uint32_t w, float bias) {
    return lane_bits_float(w, L) - (8388608.0f + bias);
}

// `v` = 2^23 + a value already rounded to an integer (a float's unit there is 1), clamped to
// 2^23 + [0, 255]: the byte in the low mantissa bits (two FMNMX). The user kernel's float
// finishes end with it (sharpen's clamps two channels at a time: clamp_pair).
__device__ __forceinline__ std::uint32_t clamped_byte_bits(float v) {
    return __float_as_uint(fminf(fmaxf(v, 8388608.0f), 8388608.0f + 255.0f));
}

// 1.5 x 2^23: a float in [2^23, 2^24) has unit 1, so kSignedMagic + v for an integer v in
// [-2^22, 2^22) has the bits kSignedMagicBits + v, whose low 16 bits are v as a signed 16-bit lane.
inline constexpr float kSignedMagic = 12582912.0f;
inline constexpr std::uint32_t kSignedMagicBits = 0x4B400000u;

// kSignedMagic + byte `B` of the pixel word `c` (exact, one PRMT).
template <int B>
__device__ __forceinline__ float byte_signed_magic(std::uint32_t c) {
    return __uint_as_float(__byte_perm(c, kSignedMagicBits, 0x7640u | unsigned(B)));
}

// Two results over kSignedMagic (bits kSignedMagicBits + v, |v| < 2^15) as the lanes of one
// register, clamped to [0, 255]: one PRMT and two VIMNMX for two channels, where clamping each
// float (clamped_byte_bits) takes two FMNMX per channel. Their low bytes are then the channel
// bytes, for pack_low_bytes.
__device__ __forceinline__ std::uint32_t clamp_pair(std::uint32_t lo, std::uint32_t hi) {
    return min2(__vmaxs2(__byte_perm(lo, hi, 0x5410u), 0u), both(255u));
}

// Column sums of a row's (R, B) registers and G pairs, in the row's layout (RB and GP select them).
using Cols = Row;
// The 3-tap weighted column sums top + 2 mid + bottom.
__device__ __forceinline__ void col121(const Row& t, const Row& m, const Row& b, Cols& v) {
#pragma unroll
    for (int k = 0; k < 6; ++k) v.rb[k] = t.rb[k] + b.rb[k] + 2u * m.rb[k];
#pragma unroll
    for (int k = 0; k < 5; ++k) v.gp[k] = t.gp[k] + b.gp[k] + 2u * m.gp[k];
}

} // namespace swar

// ---- filters --------------------------------------------------------------------------------
// Semantics match tl::reference_filter (cuda/reference.hpp): RGB filtered, alpha from centre.

struct BoxFilter {
    int radius;
    template <class Win> __device__ __forceinline__ float4 operator()(const Win& w) const {
        float4 acc = make_float4(0.f, 0.f, 0.f, 0.f);
        for (int dy = -radius; dy <= radius; ++dy)
            for (int dx = -radius; dx <= radius; ++dx) fma_into(acc, 1.0f, w(dx, dy));
        const float n = float((2 * radius + 1) * (2 * radius + 1));
        return with_alpha((1.0f / n) * acc, w(0, 0).w);
    }
};

// 2D application of the separable Gaussian (the fused single-pass form); weights normalised.
struct GaussianFilter {
    int radius;
    float weights[61];
    template <class Win> __device__ __forceinline__ float4 operator()(const Win& w) const {
        float4 acc = make_float4(0.f, 0.f, 0.f, 0.f);
        for (int dy = -radius; dy <= radius; ++dy) {
            float4 row = make_float4(0.f, 0.f, 0.f, 0.f);
            for (int dx = -radius; dx <= radius; ++dx) fma_into(row, weights[dx + radius], w(dx, dy));
            fma_into(acc, weights[dy + radius], row);
        }
        return with_alpha(acc, w(0, 0).w);
    }
};

struct SobelFilter {
    static constexpr int radius = 1;
    // sqrt.approx (one MUFU op, relative error about 2^-22) instead of the correctly rounded
    // sqrtf: the result is quantised to 1/255 steps, so it can differ from the reference by
    // at most 1 LSB, and only where the value lies within a few ulp of a rounding boundary
    // (the RGBA8 check tolerance is 1 LSB; RGBA32F is checked at 1e-4 relative). sqrtf's
    // refinement and slow-path call per channel cost registers (tma: 122 -> 111) and issue
    // slots. H100 4K RGBA8: smem 156 -> 133 us, ldgsts 71 -> 63, tma_ws 113 -> 65, cluster
    // 110 -> 86; check matrix clean.
    __device__ __forceinline__ static float mag(float x, float y) {
        float r;
        asm("sqrt.approx.f32 %0, %1;" : "=f"(r) : "f"(x * x + y * y));
        return r;
    }
    template <class Win> __device__ __forceinline__ float4 operator()(const Win& w) const {
        const float4 a = w(-1, -1), b = w(0, -1), c = w(1, -1);
        const float4 d = w(-1, 0), e = w(0, 0), f = w(1, 0);
        const float4 g = w(-1, 1), h = w(0, 1), i = w(1, 1);
        const float4 gx = (c - a) + 2.0f * (f - d) + (i - g);
        const float4 gy = (g - a) + 2.0f * (h - b) + (i - c);
        return make_float4(mag(gx.x, gy.x), mag(gx.y, gy.y), mag(gx.z, gy.z), e.w);
    }
    // RGBA8 integer form (see namespace swar): per column v = top + 2 mid + bottom and
    // d = bottom - top, shared by the 3 outputs that read the column; gx = v(+1) - v(-1),
    // gy = d(-1) + 2 d(0) + d(+1), exact integers in 16-bit lanes biased by 1024. The magnitude in
    // half precision, two channels per instruction (swar_math::sobel_half_root, whose host twin the
    // unit tests run over every (gx, gy) pair): each gradient register read as an fp16 pair and
    // turned into (g_lo, g_hi) * 2^-9 by one HFMA2, |g|^2 * 2^-18 by an HMUL2 and an HFMA2,
    // clamped to 255^2 with an HMNMX2, then per channel widened to f32 for sqrt.approx.ftz (|g|^2
    // is never a denormal there) and rounded to the byte by one FFMA on 2^23. The f32 form before
    // it (per channel two lane-to-float conversions, FMUL, FFMA, FMNMX, MUFU, FADD) took 9
    // instructions per channel; it was exact but for sqrt.approx, this one is 1 LSB off the exact
    // rounding for 0.07 % of the gradient pairs (within the check's tolerance).
    __device__ __forceinline__ static std::uint32_t grad_half2(std::uint32_t lanes) {
        std::uint32_t r;  // lanes' bits as halves are (1024 + g) 2^-24; times 2^15, minus 2
        asm("fma.rn.f16x2 %0, %1, %2, %3;"
            : "=r"(r)
            : "r"(lanes), "r"(swar_math::half2_bits(swar_math::kSobelHalfScaleBits)),
              "r"(swar_math::half2_bits(swar_math::kSobelHalfBiasBits)));
        return r;
    }
    __device__ __forceinline__ static std::uint32_t mag2_half2(std::uint32_t gx, std::uint32_t gy) {
        std::uint32_t xx, m;
        asm("mul.rn.f16x2 %0, %1, %1;" : "=r"(xx) : "r"(gx));
        asm("fma.rn.f16x2 %0, %1, %1, %2;" : "=r"(m) : "r"(gy), "r"(xx));
        // 65024 2^-18: the largest half not above 255^2 2^-18 (its root, 254.998, rounds to 255)
        asm("min.f16x2 %0, %1, %2;"
            : "=r"(m)
            : "r"(m), "r"(swar_math::half2_bits(swar_math::kSobelHalfClampBits)));
        return m;
    }
    template <int L>
    __device__ __forceinline__ static std::uint32_t root_bits(std::uint32_t m2) {
        float f, r;
        if constexpr (L == 0)
            asm("{ .reg .f16 l, h; mov.b32 {l, h}, %1; cvt.f32.f16 %0, l; }" : "=f"(f) : "r"(m2));
        else
            asm("{ .reg .f16 l, h; mov.b32 {l, h}, %1; cvt.f32.f16 %0, h; }" : "=f"(f) : "r"(m2));
        asm("sqrt.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(f));
        return __float_as_uint(__fmaf_rn(r, 512.0f, 8388608.0f));
    }
    __device__ __forceinline__ void swar4(const swar::Row& t, const swar::Row& m, const swar::Row& b, const std::uint32_t (&c)[4],
                                          std::uint32_t (&out)[4]) const {
        constexpr std::uint32_t bias = swar::both(swar_math::kBias1024);
        swar::Cols v, d;  // v = top + 2 mid + bottom, d = bottom - top
        swar::col121(t, m, b, v);
#pragma unroll
        for (int k = 0; k < 6; ++k) d.rb[k] = b.rb[k] - t.rb[k];
#pragma unroll
        for (int k = 0; k < 5; ++k) d.gp[k] = b.gp[k] - t.gp[k];
        // |g|^2 of both lanes of the register whose window starts at column k
        auto mag2 = [&](auto sel, int k) {
            using S = decltype(sel);
            const auto& V = S::of(v);
            const auto& D = S::of(d);
            const std::uint32_t gx = V[k + 2] - V[k] + bias;
            const std::uint32_t gy = D[k] + D[k + 2] + 2u * D[k + 1] + bias;
            return mag2_half2(grad_half2(gx), grad_half2(gy));
        };
        const std::uint32_t g[2] = {mag2(swar::GP{}, 0), mag2(swar::GP{}, 2)};
#pragma unroll
        for (int i = 0; i < 4; ++i) {
            const std::uint32_t rb = mag2(swar::RB{}, i);
            const std::uint32_t gr = i % 2 == 0 ? root_bits<0>(g[i / 2]) : root_bits<1>(g[i / 2]);
            out[i] = pixel::pack_unorm8(root_bits<0>(rb), gr, root_bits<1>(rb), c[i]);
        }
    }
};

struct LaplacianFilter {
    static constexpr int radius = 1;
    template <class Win> __device__ __forceinline__ float4 operator()(const Win& w) const {
        const float4 e = w(0, 0);
        const float4 s = (w(-1, 0) + w(1, 0)) + (w(0, -1) + w(0, 1)) - 4.0f * e;
        return make_float4(fabsf(s.x), fabsf(s.y), fabsf(s.z), e.w);
    }
    // RGBA8 integer form: X = s + 1024 per lane, |s| + 1024 = max(X, 2048 - X), clamped to
    // 1024 + 255 with packed 16-bit min/max; the low byte of each lane is then min(|s|, 255),
    // exactly the reference's quantised |s| / 255.
    __device__ __forceinline__ void swar4(const swar::Row& t, const swar::Row& m, const swar::Row& b, const std::uint32_t (&c)[4],
                                          std::uint32_t (&out)[4]) const {
        constexpr std::uint32_t bias = swar::both(swar_math::kBias1024);
        swar::swar4_lanes(c, out, [&](auto sel, int k) {
            using S = decltype(sel);
            const auto &T = S::of(t), &M = S::of(m), &B = S::of(b);
            const std::uint32_t x = M[k] + M[k + 2] + T[k + 1] + B[k + 1] - 4u * M[k + 1] + bias;
            return swar::min2(swar::max2(x, 2u * bias - x), bias + swar::both(255u));
        });
    }
};

struct SharpenFilter {
    static constexpr int radius = 1;
    float amount;
    swar_math::SharpenDyadic dyadic{};  // set by with_filter: the integer finish where amount allows
    swar_math::SharpenFloatFold fold{};  // set by with_filter for the other amounts: swar4_float_folded
    template <class Win> __device__ __forceinline__ float4 operator()(const Win& w) const {
        const float4 e = w(0, 0);
        const float4 blur = (1.0f / 16.0f) * ((w(-1, -1) + w(1, -1) + w(-1, 1) + w(1, 1)) +
                                              2.0f * (w(0, -1) + w(-1, 0) + w(1, 0) + w(0, 1)) + 4.0f * e);
        return with_alpha(e + amount * (e - blur), e.w);
    }
    // RGBA8 integer form: the blur times 16 from shared column sums (v = top + 2 mid + bottom,
    // blur16 = v(-1) + 2 v(0) + v(+1)), D = 16 e - blur16 exact per lane. A dyadic amount
    // (swar_math::sharpen_dyadic: 1, 1.5, 0.25, ...) finishes in the lanes too: K e + p D, a
    // lane-wise shift and a packed clamp. Any other amount finishes per channel in float,
    // e + (amount / 16) * D (one FFMA; amount / 16 is exact) rounded to the byte by that FFMA
    // (round_bits).
    // Expected to take sharpen from 34.5 to ~31.5 us (H100 4K clamp, tma): measured in one run
    // a=1.5 (integer) 33.8 us against a=0.3 (float) 33.4, no change: the 3x3 kernels all sit
    // at 31-35 us whatever their instruction count. Fused with chain3 it is 40.7 against 42.7.
    // Kept because it is exact (the float finish may be 1 LSB off) and not slower.
    __device__ __forceinline__ void swar4(const swar::Row& t, const swar::Row& m, const swar::Row& b, const std::uint32_t (&c)[4],
                                          std::uint32_t (&out)[4]) const {
        if (dyadic.p >= 0)  // uniform
            swar4_dyadic(t, m, b, c, out);
        else
            swar4_float(t, m, b, c, out);
    }
    // The two finishes of swar4 alone, for kernels instantiated per finish (registers.cu: one
    // kernel holding both needed 96 registers).
    __device__ __forceinline__ void swar4_dyadic(const swar::Row& t, const swar::Row& m, const swar::Row& b,
                                                 const std::uint32_t (&c)[4], std::uint32_t (&out)[4]) const {
        swar::Cols v;
        swar::col121(t, m, b, v);
        const std::uint32_t centre = dyadic.centre, p = std::uint32_t(dyadic.p);
        const std::uint32_t add = swar::both(dyadic.add), lo = swar::both(dyadic.lo),
                            hi = swar::both(dyadic.hi);
        const unsigned sh = unsigned(dyadic.shift);
        // swar_math::sharpen_dyadic_lane on both lanes: X = (K + 16 p) e - p blur16 + B + K / 2,
        // clamped, then shifted (unmasked: the packing reads bytes 0 and 2 only)
        swar::swar4_lanes(c, out, [&](auto sel, int k) {
            using S = decltype(sel);
            const auto& V = S::of(v);
            const std::uint32_t blur16 = V[k] + V[k + 2] + 2u * V[k + 1];
            const std::uint32_t x = centre * S::of(m)[k + 1] + add - p * blur16;
            return swar::min2(swar::max2(x, lo), hi) >> sh;
        });
    }
    // The float finishes' frame: the blur's column sums, D + bias (D = 16 e - blur16) in both lanes
    // of each register whose window starts at column j, and each channel rounded by
    // fin(x, L, centre, B) (lane L of x, byte B of the centre pixel: integral constants) to a float
    // whose low 16 bits are the signed value, clamped two channels at a time by swar::clamp_pair and
    // packed.
    template <class Fin>
    __device__ __forceinline__ static void float_finish4(const swar::Row& t, const swar::Row& m,
                                                         const swar::Row& b, const std::uint32_t (&c)[4],
                                                         std::uint32_t (&out)[4], std::uint32_t bias,
                                                         const Fin& fin) {
        using I0 = std::integral_constant<int, 0>;
        using I1 = std::integral_constant<int, 1>;
        using I2 = std::integral_constant<int, 2>;
        swar::Cols v;
        swar::col121(t, m, b, v);
        auto lanes = [&](auto sel, int j) {
            using S = decltype(sel);
            const auto& V = S::of(v);
            return 16u * S::of(m)[j + 1] + bias - (V[j] + V[j + 2] + 2u * V[j + 1]);
        };
        std::uint32_t g[2];  // the clamped G of outputs 0, 1 and 2, 3
#pragma unroll
        for (int j = 0; j < 2; ++j) {
            const std::uint32_t x = lanes(swar::GP{}, 2 * j);
            g[j] = swar::clamp_pair(fin(x, I0{}, c[2 * j], I1{}), fin(x, I1{}, c[2 * j + 1], I1{}));
        }
#pragma unroll
        for (int i = 0; i < 4; ++i) {
            const std::uint32_t x = lanes(swar::RB{}, i);
            const std::uint32_t rb = swar::clamp_pair(fin(x, I0{}, c[i], I0{}), fin(x, I1{}, c[i], I2{}));
            out[i] = swar::pack_low_bytes(rb, g[i / 2], i % 2, c[i]);
        }
    }
    // e + k D to the nearest integer over swar::kSignedMagic: `e_magic` is 1.5 x 2^23 + e (exact),
    // where a float's unit is 1, so the FFMA's one rounding is the rounding to the byte (to
    // nearest; the reference rounds its float result half up, so the two can differ by 1 LSB
    // where e + k D lies within float error of a half), and the result's low 16 bits are the
    // signed value (|e + k D| <= 255 + 5 x 3060 / 16: amount <= 5), clamped two channels at a time by
    // swar::clamp_pair.
    __device__ __forceinline__ static std::uint32_t round_bits(float k, float d, float e_magic) {
        return __float_as_uint(fmaf(k, d, e_magic));
    }
    __device__ __forceinline__ void swar4_float(const swar::Row& t, const swar::Row& m, const swar::Row& b,
                                                const std::uint32_t (&c)[4], std::uint32_t (&out)[4]) const {
        constexpr float fb = float(swar_math::kSharpenBias);
        const float k = amount * (1.0f / 16.0f);
        float_finish4(t, m, b, c, out, swar::both(swar_math::kSharpenBias),
                      [&](std::uint32_t x, auto L, std::uint32_t centre, auto B) {
                          return round_bits(k, swar::lane_float<decltype(L)::value>(x, fb),
                                            swar::byte_signed_magic<decltype(B)::value>(centre));
                      });
    }
    // swar4_float with the lane's FADD folded into the FFMA (swar_math::sharpen_float_fold, where
    // `fold.taken`): the lanes hold D + fb, read under fold.lane_high as the float X + D, and the
    // centre byte under fold.e_base, so fma(k, X + D, F0 + e) rounds e + k D (its rounding point
    // moved by fold.shift, |shift| <= 2^-12 LSB) with the result's low 16 bits the signed value, as
    // round_bits gives. One FADD per channel fewer (48 of a `registers` item's ~560 instructions);
    // registers.cu runs it in a kernel of its own (Finish::SharpenFloatFolded).
    __device__ __forceinline__ void swar4_float_folded(const swar::Row& t, const swar::Row& m,
                                                       const swar::Row& b, const std::uint32_t (&c)[4],
                                                       std::uint32_t (&out)[4]) const {
        const float k = amount * (1.0f / 16.0f);
        const std::uint32_t high = fold.lane_high, e_base = fold.e_base;
        // lane L of x (D + fb) under the high bits, times k, plus byte B of the centre under F0's bits
        float_finish4(t, m, b, c, out, fold.lane_bias,
                      [&](std::uint32_t x, auto L, std::uint32_t centre, auto B) {
                          const float xd = swar::lane_bits_float(x, L, high);
                          const float e = __uint_as_float(__byte_perm(centre, e_base, 0x7650u | unsigned(B)));
                          return __float_as_uint(fmaf(k, xd, e));
                      });
    }
};

struct EmbossFilter {
    static constexpr int radius = 1;
    template <class Win> __device__ __forceinline__ float4 operator()(const Win& w) const {
        const float4 e = w(0, 0);
        const float4 s = (w(1, 0) + w(0, 1) + e) + 2.0f * (w(1, 1) - w(-1, -1)) - (w(0, -1) + w(-1, 0));
        return with_alpha(s, e.w);
    }
    // RGBA8 integer form: X = s + 1024 per lane, clamped to [1024, 1279] with packed 16-bit
    // min/max, whose low byte is clamp(s, 0, 255): the reference's quantised s / 255, exactly.
    __device__ __forceinline__ void swar4(const swar::Row& t, const swar::Row& m, const swar::Row& b, const std::uint32_t (&c)[4],
                                          std::uint32_t (&out)[4]) const {
        constexpr std::uint32_t bias = swar::both(swar_math::kBias1024);
        swar::swar4_lanes(c, out, [&](auto sel, int k) {
            using S = decltype(sel);
            const auto &T = S::of(t), &M = S::of(m), &B = S::of(b);
            const std::uint32_t x =
                (M[k + 2] + B[k + 1] + M[k + 1]) + 2u * (B[k + 2] - T[k]) - (T[k + 1] + M[k]) + bias;
            return swar::min2(swar::max2(x, bias), bias + swar::both(255u));
        });
    }
};

// User kernel, 3x3 (radius 1) or 5x5 (radius 2): scale * sum(w * p) + bias.
struct UserKernelFilter {
    int radius;
    float weights[25];
    float scale, bias;
    template <class Win> __device__ __forceinline__ float4 operator()(const Win& w) const {
        const int n = 2 * radius + 1;
        float4 acc = make_float4(0.f, 0.f, 0.f, 0.f);
        for (int dy = -radius; dy <= radius; ++dy)
            for (int dx = -radius; dx <= radius; ++dx) fma_into(acc, weights[(dy + radius) * n + dx + radius], w(dx, dy));
        const float4 e = w(0, 0);
        return make_float4(fmaf(scale, acc.x, bias), fmaf(scale, acc.y, bias), fmaf(scale, acc.z, bias), e.w);
    }
};

// Radius-1 twins of BoxFilter and UserKernelFilter with the radius as a compile-time constant,
// so the mechanisms' fixed-radius paths (register window sliding down the rows, one conversion
// per pixel, 16-byte stores) take them; the arithmetic is BoxFilter's / UserKernelFilter's for
// radius 1 in the same order, so results are bit-identical. Mechanisms that do not know them
// keep using the runtime-radius functors from with_filter().
struct Box3Filter {
    static constexpr int radius = 1;
    template <class Win> __device__ __forceinline__ float4 operator()(const Win& w) const {
        float4 acc = make_float4(0.f, 0.f, 0.f, 0.f);
#pragma unroll
        for (int dy = -1; dy <= 1; ++dy)
#pragma unroll
            for (int dx = -1; dx <= 1; ++dx) fma_into(acc, 1.0f, w(dx, dy));
        return with_alpha((1.0f / 9.0f) * acc, w(0, 0).w);
    }
    // RGBA8 integer form: the window sum from shared column sums (exact, <= 2295 per lane, no
    // bias), then round(s / 9) per channel as one multiply (swar_math::div9_rounded_bits), the
    // quotient landing in byte 2, which the packing PRMTs pick: the reference's exact mean,
    // bit for bit.
    __device__ __forceinline__ void swar4(const swar::Row& t, const swar::Row& m, const swar::Row& b, const std::uint32_t (&c)[4],
                                          std::uint32_t (&out)[4]) const {
        swar::Cols v;  // column sums top + mid + bottom
#pragma unroll
        for (int j = 0; j < 6; ++j) v.rb[j] = t.rb[j] + m.rb[j] + b.rb[j];
#pragma unroll
        for (int j = 0; j < 5; ++j) v.gp[j] = t.gp[j] + m.gp[j] + b.gp[j];
        const std::uint32_t g01 = v.gp[0] + v.gp[1] + v.gp[2], g23 = v.gp[2] + v.gp[3] + v.gp[4];
#pragma unroll
        for (int i = 0; i < 4; ++i) {
            const std::uint32_t rb = v.rb[i] + v.rb[i + 1] + v.rb[i + 2];
            const std::uint32_t g = i < 2 ? g01 : g23;
            const std::uint32_t qr = swar_math::div9_rounded_bits(rb & 0xffffu);
            const std::uint32_t qb = swar_math::div9_rounded_bits(rb >> 16);
            const std::uint32_t qg = swar_math::div9_rounded_bits(i % 2 == 0 ? g & 0xffffu : g >> 16);
            // bytes: R = qr.2, G = qg.2, B = qb.2, alpha = c.3
            out[i] = __byte_perm(__byte_perm(__byte_perm(qr, qg, 0x0062u), qb, 0x0610u), c[i], 0x7210u);
        }
    }
};

struct UserKernel3Filter {
    static constexpr int radius = 1;
    float weights[9];
    float scale, bias;
    // RGBA8 integer form, which `registers` runs when every weight times 2^s (s = 0..8, the
    // smallest that works) is an integer and those integers' sum |w 2^s| <= 257 (hand-typed
    // kernels usually are: 1 2 1 / 2 4 2 / 1 2 1, or the same in sixteenths; set_integer_form
    // decides on the host): S = sum (w 2^s) p exact in the 16-bit lanes of the window rows,
    // offset by 255 x the negative weights' sum so that no lane goes below 0 (borrows between
    // lanes cancel: the final lanes are in 0..65535), then per channel (scale / 2^s) S + 255 bias
    // in one FFMA (scale / 2^s exact), rounded to the byte by adding 2^23 (to nearest; the
    // reference rounds its float result half up: they can differ by 1 LSB within float error of
    // a half, as the float window can) and clamped with two FMNMX. Where the constant allows
    // (`folded`), the lane's bias and the 2^23 are folded into that FFMA, which then rounds once.
    bool integer = false;
    int iw[9] = {};
    float int_scale = 0.0f;       // scale / 2^s
    std::uint32_t lane_bias = 0;  // 255 x sum of the negative integer weights' magnitudes, in both lanes
    void set_integer_form() {
        for (int shift = 0; shift <= 8 && !integer; ++shift) {
            const float m = float(1 << shift);
            int pos = 0, neg = 0;
            bool ok = true;
            for (int i = 0; i < 9 && ok; ++i) {
                const float w = weights[i] * m;  // exact: a power of two
                ok = w <= 255.0f && w >= -255.0f && w == float(int(w));  // range first; rejects NaN
                iw[i] = ok ? int(w) : 0;
                (iw[i] < 0 ? neg : pos) += std::abs(iw[i]);
            }
            if (!ok || 255 * (pos + neg) > 65535) continue;
            lane_bias = swar::both(255u * std::uint32_t(neg));
            int_scale = scale / m;
            integer = true;
            const swar_math::UserIntegerFold fold =
                swar_math::user_integer_fold(int_scale, 255.0f * bias, 255u * std::uint32_t(neg));
            folded = fold.exact;
            fold_k = fold.k;
        }
    }
    // The finish as one FFMA on each lane's raw float bits (swar_math::user_integer_fold), where its
    // constant is a float exactly; else the lane's bias subtracted and the result's 2^23 added in two
    // FADD per channel. registers.cu runs the two in kernels of their own (Finish::UserIntegerFolded).
    bool folded = false;
    float fold_k = 0.0f;
    // The window's rows in this form are swar::Row, so one sum over G pairs gives the G of two
    // neighbouring outputs (9 multiply-adds for two outputs' G instead of 18).
    // kFolded: the finish folded into one FFMA (`folded`): int_scale (2^23 + L) + fold_k for lane L, rounded
    // once; else int_scale (L - fb) + 255 bias, then 2^23 added.
    template <bool kFolded = false>
    __device__ __forceinline__ void swar4_integer(const swar::Row& t, const swar::Row& m, const swar::Row& b,
                                                  const std::uint32_t (&c)[4],
                                                  std::uint32_t (&out)[4]) const {
        const float fb = float(lane_bias & 0xffffu);
        const float add = 255.0f * bias;
        auto finish = [&](float sum) {
            if constexpr (kFolded)
                return swar::clamped_byte_bits(fmaf(int_scale, sum, fold_k));
            else
                return swar::clamped_byte_bits(fmaf(int_scale, sum, add) + 8388608.0f);
        };
        // Lane L of w as the float finish takes it: 2^23 + L folded, L - fb otherwise.
        auto lane = [&](std::uint32_t w, int L) {
            if constexpr (kFolded)
                return swar::lane_bits_float(w, L);
            else
                return L == 0 ? swar::lane_float<0>(w, fb) : swar::lane_float<1>(w, fb);
        };
        // Sum over the 3x3 window of column pairs / columns starting at `k` (exact in the lanes).
        auto window = [&](auto sel, int k) {
            using S = decltype(sel);
            std::uint32_t a = lane_bias;
#pragma unroll
            for (int dx = 0; dx < 3; ++dx) {
                a += std::uint32_t(iw[dx]) * S::of(t)[k + dx];
                a += std::uint32_t(iw[3 + dx]) * S::of(m)[k + dx];
                a += std::uint32_t(iw[6 + dx]) * S::of(b)[k + dx];
            }
            return a;
        };
        const std::uint32_t g01 = window(swar::GP{}, 0), g23 = window(swar::GP{}, 2);
#pragma unroll
        for (int i = 0; i < 4; ++i) {
            const std::uint32_t x = window(swar::RB{}, i);
            const std::uint32_t gw = i < 2 ? g01 : g23;
            const std::uint32_t r = finish(lane(x, 0));
            const std::uint32_t g = finish(lane(gw, i % 2));
            const std::uint32_t bl = finish(lane(x, 1));
            out[i] = pixel::pack_unorm8(r, g, bl, c[i]);
        }
    }
    // RGBA8 float form for any weights (swar_math::UserPlanarForm; where `planar.usable`,
    // `registers` runs it for weights without the integer form, `tma` on its tiles for all): one
    // channel at a time, each byte as the denormal p 2^-149 (one PRMT), 9 FFMA per output and
    // channel on weights scaled by 2^e, one FMUL and one saturating conversion to round and clamp
    // (planar_byte). Three rows of one channel (18 floats) live at a time instead of three rows of
    // every channel (54).
    swar_math::UserPlanarForm planar{};
    // Byte C of a pixel word as a float with those bits: p * 2^-149.
    template <int C> static __device__ __forceinline__ float byte_denormal(std::uint32_t px) {
        return __uint_as_float(__byte_perm(px, 0u, 0x4440u | unsigned(C)));
    }
    // fma.rn.f32 without .ftz: the denormal inputs must not be flushed whatever the build flags.
    static __device__ __forceinline__ float fma_keep_denormals(float a, float b, float c) {
        float d;
        asm("fma.rn.f32 %0, %1, %2, %3;" : "=f"(d) : "f"(a), "f"(b), "f"(c));
        return d;
    }
    // The stored byte of a planar sum a (this form's and the 5x5 one's): out_scale a rounded to the
    // nearest integer (ties to even) and saturated to 0..255 in one conversion (cvt.rni.sat.u8.f32,
    // one SASS instruction on sm_90, F2IP.U8), where the finish took an FFMA on 2^23 and two FMNMX;
    // swar_math::user_planar_byte is its host twin.
    static __device__ __forceinline__ std::uint32_t planar_byte(float out_scale, float a) {
        float v;
        asm("mul.rn.f32 %0, %1, %2;" : "=f"(v) : "f"(out_scale), "f"(a));
        std::uint32_t r;
        asm("cvt.rni.sat.u8.f32 %0, %1;" : "=r"(r) : "f"(v));
        return r;
    }
    // Channel C of the 4 outputs whose windows are columns i .. i + 2 (i = 0..3) of the rows t, m,
    // b (byte_denormal values of pixels x - 1 .. x + 4), merged into out: C = 0 starts each word
    // with the byte and the centre pixel's alpha (c), C = 1 and 2 put their byte in place.
    template <int C>
    __device__ __forceinline__ void planar4(const float (&t)[6], const float (&m)[6], const float (&b)[6],
                                            const std::uint32_t (&c)[4], std::uint32_t (&out)[4]) const {
#pragma unroll
        for (int i = 0; i < 4; ++i) {
            float a = planar.acc_bias;
#pragma unroll
            for (int dx = 0; dx < 3; ++dx) {
                a = fma_keep_denormals(planar.w[dx], t[i + dx], a);
                a = fma_keep_denormals(planar.w[3 + dx], m[i + dx], a);
                a = fma_keep_denormals(planar.w[6 + dx], b[i + dx], a);
            }
            const std::uint32_t bits = planar_byte(planar.out_scale, a);
            if constexpr (C == 0) out[i] = __byte_perm(bits, c[i], 0x7000u);
            else if constexpr (C == 1) out[i] = __byte_perm(out[i], bits, 0x3240u);
            else out[i] = __byte_perm(out[i], bits, 0x3410u);
        }
    }
    // One work item of 4 adjacent outputs x `rows` (<= kRows) output rows in this form: channels
    // R, G, B in turn, each sliding its own 3-row window of byte_denormal floats down input rows
    // 0 .. rows + 1, so that out[step] fills in one byte per channel. row(i, px) gives input row
    // i's pixels x - 1 .. x + 4; centre(step, c) the 4 centre pixels of output row `step` (asked
    // for channel R only: their alpha goes with the first byte).
    template <int kRows, class RowFn, class CentreFn>
    __device__ __forceinline__ void planar_item(int rows, RowFn&& row, CentreFn&& centre,
                                                std::uint32_t (&out)[kRows][4]) const {
        auto channel = [&](auto cc) {
            constexpr int C = decltype(cc)::value;
            auto load = [&](int i, float (&d)[6]) {
                std::uint32_t px[6];
                row(i, px);
#pragma unroll
                for (int k = 0; k < 6; ++k) d[k] = byte_denormal<C>(px[k]);
            };
            float win[3][6];
            load(0, win[0]);
            load(1, win[1]);
#pragma unroll
            for (int step = 0; step < kRows; ++step) {
                if (step >= rows) break;
                load(step + 2, win[(step + 2) % 3]);
                std::uint32_t c[4] = {};
                if constexpr (C == 0) centre(step, c);
                planar4<C>(win[step % 3], win[(step + 1) % 3], win[(step + 2) % 3], c, out[step]);
            }
        };
        channel(std::integral_constant<int, 0>{});
        channel(std::integral_constant<int, 1>{});
        channel(std::integral_constant<int, 2>{});
    }
    // RGBA8 16-bit fixed-point form (swar_math::UserFixedForm; `registers` runs it on the GPUs that
    // take its one-address kernels, the H200, where `fixed.exact`, else where the integer form does
    // not apply and `fixed.usable`; see launch_registers): two taps of one channel per dp2a
    // (IDP.2A.LO/HI.S16.U8: two signed 16-bit weights times two bytes of one word, plus a 32-bit
    // sum), so 18 per output where the float form takes 27 FFMA, and the bytes need no conversion:
    // each input row is regrouped once into byte pairs of one channel (byte_pairs, 6 PRMT for 4
    // outputs' row, against 18 for the float form's denormals). The finish is an arithmetic shift
    // per channel and two saturating packs per output (cvt.pack.sat.u8.s32.b32, I2IP in SASS).
    swar_math::UserFixedForm fixed{};
    // One input row's pixels p0..p5 (x - 1 .. x + 4) as byte pairs: d[j] = (R, R', G, G') of pixels
    // (p2j, p2j+1), d[3 + j] = (B, B', A, A') of the same pair.
    static __device__ __forceinline__ void byte_pairs(std::uint32_t left, const std::uint32_t (&raw)[4],
                                                      std::uint32_t right, std::uint32_t (&d)[6]) {
        d[0] = __byte_perm(left, raw[0], 0x5140u);
        d[1] = __byte_perm(raw[1], raw[2], 0x5140u);
        d[2] = __byte_perm(raw[3], right, 0x5140u);
        d[3] = __byte_perm(left, raw[0], 0x7362u);
        d[4] = __byte_perm(raw[1], raw[2], 0x7362u);
        d[5] = __byte_perm(raw[3], right, 0x7362u);
    }
    // a + w.lo16 * b.byte[i] + w.hi16 * b.byte[i + 1], i = 0 (kHi false) or 2; w's halves signed.
    template <bool kHi> static __device__ __forceinline__ int dp2a(std::uint32_t w, std::uint32_t b, int a) {
        int d;
        if constexpr (kHi) asm("dp2a.hi.s32.u32 %0, %1, %2, %3;" : "=r"(d) : "r"(w), "r"(b), "r"(a));
        else asm("dp2a.lo.s32.u32 %0, %1, %2, %3;" : "=r"(d) : "r"(w), "r"(b), "r"(a));
        return d;
    }
    // (c << 16) | (sat_u8(a) << 8) | sat_u8(b): one I2IP.U8.S32.SAT.
    static __device__ __forceinline__ std::uint32_t pack_sat_u8(int a, int b, std::uint32_t c) {
        std::uint32_t d;
        asm("cvt.pack.sat.u8.s32.b32 %0, %1, %2, %3;" : "=r"(d) : "r"(a), "r"(b), "r"(c));
        return d;
    }
    // One kernel row's three taps of one channel for the 4 outputs, pair words p0 = pixels (0, 1),
    // p1 = (2, 3), p2 = (4, 5), weight words wr = fixed.words + 4 row: output 0 takes pixels 0..2
    // as (q0, q1) on pair 0 and (q2, 0) on pair 1, output 1 pixels 1..3 as (0, q0) and (q1, q2) on
    // the same pairs; outputs 2 and 3 the same one pair further.
    template <bool kHi>
    __device__ __forceinline__ void fixed_row(int row, std::uint32_t p0, std::uint32_t p1, std::uint32_t p2,
                                              int (&acc)[4]) const {
        const std::uint32_t* wr = fixed.words + 4 * row;
        acc[0] = dp2a<kHi>(wr[1], p1, dp2a<kHi>(wr[0], p0, acc[0]));
        acc[1] = dp2a<kHi>(wr[3], p1, dp2a<kHi>(wr[2], p0, acc[1]));
        acc[2] = dp2a<kHi>(wr[1], p2, dp2a<kHi>(wr[0], p1, acc[2]));
        acc[3] = dp2a<kHi>(wr[3], p2, dp2a<kHi>(wr[2], p1, acc[3]));
    }
    // The 4 outputs of one row from the byte pairs (byte_pairs) of input rows t, m, b; c = the 4
    // centre pixels (their alpha is kept).
    __device__ __forceinline__ void fixed4(const std::uint32_t (&t)[6], const std::uint32_t (&m)[6],
                                           const std::uint32_t (&b)[6], const std::uint32_t (&c)[4],
                                           std::uint32_t (&out)[4]) const {
        int r[4], g[4], bl[4];
#pragma unroll
        for (int i = 0; i < 4; ++i) r[i] = g[i] = bl[i] = fixed.acc_init;
        auto rows = [&](const std::uint32_t (&p)[6], int row) {
            fixed_row<false>(row, p[0], p[1], p[2], r);
            fixed_row<true>(row, p[0], p[1], p[2], g);
            fixed_row<false>(row, p[3], p[4], p[5], bl);
        };
        rows(t, 0);
        rows(m, 1);
        rows(b, 2);
#pragma unroll
        for (int i = 0; i < 4; ++i) {
            const int s = fixed.shift;
            const std::uint32_t ba = pack_sat_u8(int(c[i] >> 24), bl[i] >> s, 0u);
            out[i] = pack_sat_u8(g[i] >> s, r[i] >> s, ba);
        }
    }
    template <class Win> __device__ __forceinline__ float4 operator()(const Win& w) const {
        float4 acc = make_float4(0.f, 0.f, 0.f, 0.f);
#pragma unroll
        for (int dy = -1; dy <= 1; ++dy)
#pragma unroll
            for (int dx = -1; dx <= 1; ++dx) fma_into(acc, weights[(dy + 1) * 3 + dx + 1], w(dx, dy));
        const float4 e = w(0, 0);
        return make_float4(fmaf(scale, acc.x, bias), fmaf(scale, acc.y, bias), fmaf(scale, acc.z, bias), e.w);
    }
};

// The user 5x5 kernel on RGBA8 with the float form over raw bytes that UserKernel3Filter has
// (swar_math::UserPlanarFormT<25>), which the tile mechanisms run where `planar.usable`
// (with_user5_planar): one channel at a time, each byte the denormal p 2^-149 (one PRMT), 25 FFMA
// per output and channel, one FMUL and one saturating conversion to round and clamp (as
// UserKernel3Filter::planar_byte). Where the form cannot hold the weights, the
// runtime-radius window of UserKernelFilter (the base) runs, as it did for every 5x5 kernel before:
// 25 taps of four channels converted per tap (H100 4K: 140 us on `ldgsts`).
struct UserKernel5Filter : UserKernelFilter {
    swar_math::UserPlanarFormT<25> planar{};
    // One work item of 4 adjacent outputs x `rows` (<= kRows) output rows: channels R, G, B in turn.
    // Each input row (row(i, px): pixels x - 2 .. x + 5 of input row i, i = 0 .. rows + 3) is
    // converted once and added into every output row whose window holds it: output row s takes
    // input rows s .. s + 4, so its 4 sums are complete (and rounded into out[s]) once row s + 4 is
    // in. Per output and channel the sum runs row by row, 5 taps each, from acc_bias: the order
    // of swar_math::user_planar_byte. Up to 16 sums are open at once (a long chain of independent
    // FFMA), and only one converted row (8 floats) is live instead of a 5-row window (40; ptxas
    // gave that form 128 registers). centre(step, c) gives the 4 centre pixels of output row
    // `step` (channel R only: their alpha goes with the first byte).
    template <int kRows, class RowFn, class CentreFn>
    __device__ __forceinline__ void planar_item(int rows, RowFn&& row, CentreFn&& centre,
                                                std::uint32_t (&out)[kRows][4]) const {
        auto channel = [&](auto cc) {
            constexpr int C = decltype(cc)::value;
            float acc[kRows][4];
#pragma unroll
            for (int r = 0; r < kRows + 4; ++r) {
                if (r >= rows + 4) break;
                std::uint32_t px[8];
                row(r, px);
                float v[8];
#pragma unroll
                for (int k = 0; k < 8; ++k) v[k] = UserKernel3Filter::byte_denormal<C>(px[k]);
#pragma unroll
                for (int dy = 0; dy < 5; ++dy) {
                    const int s = r - dy;  // the output row this input row is tap row dy of
                    if (s < 0 || s >= kRows) continue;
#pragma unroll
                    for (int i = 0; i < 4; ++i) {
                        float a = dy == 0 ? planar.acc_bias : acc[s][i];
#pragma unroll
                        for (int dx = 0; dx < 5; ++dx)
                            a = UserKernel3Filter::fma_keep_denormals(planar.w[dy * 5 + dx], v[i + dx], a);
                        acc[s][i] = a;
                    }
                }
                const int done = r - 4;  // the output row whose last tap row this was
                if (done >= 0 && done < rows) {
                    std::uint32_t c[4] = {};
                    if constexpr (C == 0) centre(done, c);
#pragma unroll
                    for (int i = 0; i < 4; ++i) {
                        const std::uint32_t bits =
                            UserKernel3Filter::planar_byte(planar.out_scale, acc[done][i]);
                        if constexpr (C == 0)
                            out[done][i] = __byte_perm(bits, c[i], 0x7000u);
                        else if constexpr (C == 1)
                            out[done][i] = __byte_perm(out[done][i], bits, 0x3240u);
                        else
                            out[done][i] = __byte_perm(out[done][i], bits, 0x3410u);
                    }
                }
            }
        };
        channel(std::integral_constant<int, 0>{});
        channel(std::integral_constant<int, 1>{});
        channel(std::integral_constant<int, 2>{});
    }
};

// Calls fn with the user 5x5 kernel's planar twin (UserKernel5Filter) where `f` is a 5x5 user
// kernel on RGBA8, else with `f`. The tile mechanisms take it (compute_any in tma_common.cuh: tma,
// tma_ws, cluster; compute_tile in tile_compute.cuh: smem, ldgsts); global and texture keep the
// window of UserKernelFilter.
template <class Pixel, class Filter, class Fn>
decltype(auto) with_user5_planar(const Filter& f, Fn&& fn) {
    if constexpr (std::is_same_v<Filter, UserKernelFilter> && std::is_same_v<Pixel, PixelRGBA8>) {
        if (f.radius == 2) {
            UserKernel5Filter u{};
            static_cast<UserKernelFilter&>(u) = f;
            u.planar = swar_math::user_planar_form(u.weights, u.scale, u.bias);
            return fn(u);
        }
    }
    return fn(f);
}

// Host side: true when a functor's `radius` is a static member (the 3x3 functors and the radius-1
// twins with_fixed_radius makes; every one of them has radius 1). tma_common.cuh's FixedRadius
// concept says the same in device code; the host compiler rejects that form as a hard error on
// functors whose radius is a data member.
template <class F, class = void> struct StaticRadius : std::false_type {};
template <class F>
struct StaticRadius<F, std::enable_if_t<std::is_pointer_v<decltype(&F::radius)>>> : std::true_type {};

// Calls fn with the radius-1 twin of `f` where there is one (Box / UserKernel of radius 1),
// else with `f` itself.
template <class Filter, class Fn>
decltype(auto) with_fixed_radius(const Filter& f, Fn&& fn) {
    if constexpr (std::is_same_v<Filter, BoxFilter>) {
        if (f.radius == 1) return fn(Box3Filter{});
    } else if constexpr (std::is_same_v<Filter, UserKernelFilter>) {
        if (f.radius == 1) {
            UserKernel3Filter u{};
            for (int i = 0; i < 9; ++i) u.weights[i] = f.weights[i];
            u.scale = f.scale;
            u.bias = f.bias;
            u.set_integer_form();
            // `registers` prefers `integer`, then `fixed`, then `planar`; the tile mechanisms take `planar`.
            u.planar = swar_math::user_planar_form(u.weights, u.scale, u.bias);
            u.fixed = swar_math::user_fixed_form(u.weights, u.scale, u.bias);
            return fn(u);
        }
    }
    return fn(f);
}

// The Gaussian functor for sigma (host side): radius ceil(3 sigma) and its normalised weights.
inline GaussianFilter make_gaussian_filter(float sigma) {
    GaussianFilter g{};
    const auto wts = gaussian_weights(sigma, &g.radius);
    for (int i = 0; i < 2 * g.radius + 1; ++i) g.weights[i] = wts[static_cast<std::size_t>(i)];
    return g;
}

// swar_math::sharpen_float_fold walks up to ~20 K candidates (~50 us at amount 5, host): kept per
// thread for the last amount, which a bench or the UI launches again and again.
inline swar_math::SharpenFloatFold cached_sharpen_float_fold(float amount) {
    thread_local float last = std::numeric_limits<float>::quiet_NaN();
    thread_local swar_math::SharpenFloatFold fold{};
    if (!(amount == last)) {
        fold = swar_math::sharpen_float_fold(amount);
        last = amount;
    }
    return fold;
}

// Calls fn(functor) with the functor for these parameters (host side, before a launch), so a
// mechanism instantiates its kernel once per filter type.
template <class Fn>
decltype(auto) with_filter(const FilterParams& p, Fn&& fn) {
    switch (p.kind) {
    case FilterKind::Box: return fn(BoxFilter{p.radius});
    case FilterKind::Gaussian: return fn(make_gaussian_filter(p.sigma));
    case FilterKind::Sobel: return fn(SobelFilter{});
    case FilterKind::Laplacian: return fn(LaplacianFilter{});
    case FilterKind::Sharpen: {
        SharpenFilter s{p.amount};
        s.dyadic = swar_math::sharpen_dyadic(p.amount);
        if (s.dyadic.p < 0) s.fold = cached_sharpen_float_fold(p.amount);
        return fn(s);
    }
    case FilterKind::Emboss: return fn(EmbossFilter{});
    case FilterKind::UserKernel: {
        UserKernelFilter u{};
        u.radius = p.user_size / 2;
        for (int i = 0; i < p.user_size * p.user_size; ++i) u.weights[i] = p.user[i];
        u.scale = p.user_scale;
        u.bias = p.user_bias;
        return fn(u);
    }
    }
    return fn(SobelFilter{});
}

template <class Fn>
decltype(auto) with_pixel(PixelFormat f, Fn&& fn) {
    if (f == PixelFormat::RGBA32F) return fn(PixelRGBA32F{});
    return fn(PixelRGBA8{});
}

// ---- the fused epilogue ----------------------------------------------------------------------
// launch_fused() runs a filter F wrapped as Fused<F>: the same functor (it derives from F, so the
// mechanisms' type dispatch sees F through base_filter_t) plus the per-pixel op chain, carried by
// value in the kernel's parameter block (~4 KB; kernels take their filter as __grid_constant__ so
// the chain is read in place, never copied per thread). Every mechanism turns a filter's float4
// result into storage through finish<Pixel>(filter, value): Pixel::from_float for a plain filter;
// for a fused one, the per-pixel pass of launch_pixel_ops on that stored byte value, so fused
// output equals launch() then launch_pixel_ops() bit for bit:
//   bytes = from_float(v)                   the stencil's own quantisation (what launch() stores)
//   c     = byte * (1/255)                  the per-pixel kernels' unpacking
//   c     = apply_chain(c)                  cuda/pixel/pixel_kernels.cuh, the same code
//   out   = quantise(c), alpha byte kept    as tl::quantize_unorm8 and the per-pixel kernels
// RGBA8 only: with_epilogue() never wraps an RGBA32F launch, which keeps the instantiations to
// one fused kernel per (mechanism, filter type).
// A chain of per-channel ops only (brightness-contrast, gamma, invert, levels, LUT) maps each
// stored byte of R, G and B to an output byte independently of the other channels, so the whole
// chain, quantisation included, is one 256-entry table per channel. Fused<F, true> (chosen on
// the host by with_epilogue) makes every block build that table in stage_epilogue by running the
// device chain itself (chain_rgba8's exact steps) on the 256 byte values, and the epilogue then
// costs three shared byte loads per pixel: exact by construction, bit for bit what the chain
// computes (and what the two-pass path stores). Chains with a cross-channel op (saturation,
// grayscale, threshold, colour matrix) run as arithmetic. The table form is its own kernel, so it
// carries none of the chain call's registers and stack. H100 4K + chain3 (lut, brightness-
// contrast, gamma), best mechanism: the chain as arithmetic, sobel 90.3 us (an earlier bench); the table
// chosen at run time inside the chain kernel, sobel 54.2 and laplacian 41.3 (tma_ws;
// 64 registers, 8 blocks per SM); the table kernel of its own, sobel 45.2 (tma), laplacian 37.2,
// emboss 36.8, box r=1 37.2 (tma_ws; laplacian 50 registers, 9 blocks), against 57.5-60.3 for
// the two passes. Left: ncu counts 66 instructions per pixel for fused laplacian against 44
// plain, the table build (256 chains per block) and three lookups and repacking per pixel.
static_assert(alignof(pixel::OpsBlock) >= 8, "stage_epilogue reads a LUT from the parameter bank 8 bytes at a time");
template <class F, bool kByteTable = false>
struct Fused : F {
    pixel::OpsBlock ops;
    static constexpr bool byte_table = kByteTable;
};

// Host: whether every op of the chain works on each channel alone (see Fused).
inline bool chain_is_per_channel(const pixel::OpsBlock& ops) {
    if (ops.count <= 0) return false;
    for (int i = 0; i < ops.count; ++i) {
        switch (static_cast<PixelOpKind>(ops.ops[i].kind)) {
        case PixelOpKind::BrightnessContrast:
        case PixelOpKind::Gamma:
        case PixelOpKind::Invert:
        case PixelOpKind::Levels:
        case PixelOpKind::Lut: break;
        default: return false;
        }
    }
    return true;
}

template <class F> struct BaseFilter { using type = F; };
template <class F, bool T> struct BaseFilter<Fused<F, T>> { using type = F; };
// The filter a (possibly fused) functor computes: what type-based dispatch looks at.
template <class F> using base_filter_t = typename BaseFilter<F>::type;
template <class F> inline constexpr bool is_fused_v = !std::is_same_v<base_filter_t<F>, F>;

// floor(clamp(v, 0, 1) * 255 + 0.5) with the multiply and the add rounded apart: the per-pixel
// kernels' quantisation (tl::quantize_unorm8), not from_float's, which may fuse them.
__device__ __forceinline__ std::uint32_t chain_quantize(float v) {
    return static_cast<std::uint32_t>(__fadd_rn(__fmul_rn(__saturatef(v), 255.0f), 0.5f));
}

// The chain's LUTs as bytes in shared memory (3 KB, only in kernels that reference it: the fused
// ones): per-lane random indices into the parameter bank serialise on the constant cache. H100
// 4K sobel + chain3 fused on tma: 138 -> 136 us (the per-pixel call was the larger cost, see
// chain_rgba8x4).
__device__ __forceinline__ pixel::LutTables& fused_luts() {
    __shared__ pixel::LutTables tables;
    return tables;
}

// The folded chain of Fused<F, true>: 768 bytes instead of fused_luts' 3 KB. 256-byte aligned,
// so that a lookup's shared address is the table's address with its low byte replaced by the
// index: one PRMT per channel (chain_table_rgba8).
using ByteTable = std::uint8_t[3][256];
__device__ __forceinline__ ByteTable& fused_table() {
    __shared__ alignas(256) ByteTable table;
    return table;
}

// Every fused kernel calls this before its first block-wide barrier (which then publishes the
// tables); all threads of the block take part, whatever the block's shape.
template <class Filter>
__device__ __forceinline__ void stage_epilogue(const Filter& f) {
    if constexpr (is_fused_v<Filter>) {
        const int tid = int((threadIdx.z * blockDim.y + threadIdx.y) * blockDim.x + threadIdx.x);
        const int n = int(blockDim.x * blockDim.y * blockDim.z);
        if constexpr (Filter::byte_table) {
            // The folded chain (see Fused): entry i of channel ch is the chain on byte i.
            auto& table = fused_table();
            auto store_entry = [&table](int i, const float (&c)[3]) {
#pragma unroll
                for (int ch = 0; ch < 3; ++ch) table[ch][i] = std::uint8_t(chain_quantize(c[ch]));
            };
            constexpr int kPerThread = 2;  // entries per thread when the block has >= 128 threads
            if (n * kPerThread >= 256) {
                // Ops outermost, each thread's entries in registers; a LUT op first stages its LUT
                // in the table's own bytes, read from the parameter bank 8 bytes at a time at one
                // address per warp. Read in place, each lane's own index is a distinct address,
                // and the constant cache serialises them: 768 passes per LUT per block. H100 4K
                // laplacian + chain3 on registers, table build skipped against done that way:
                // 30.3 against 37.8 us.
                float c[kPerThread][3];
#pragma unroll
                for (int e = 0; e < kPerThread; ++e) {
                    const float v = float(min(tid + e * n, 255)) * (1.0f / 255.0f);
                    c[e][0] = c[e][1] = c[e][2] = v;
                }
                const int warp = tid / 32, lane = tid % 32, warps = (n + 31) / 32;
#pragma unroll 1
                for (int k = 0; k < f.ops.count; ++k) {
                    const pixel::DevOp& op = f.ops.ops[k];
                    if (op.kind == int(PixelOpKind::Lut)) {
                        __syncthreads();  // every thread done with the LUT staged before
                        const auto* from = reinterpret_cast<const uint2*>(&f.ops.luts[op.lut][0][0]);
                        auto* to = reinterpret_cast<uint2*>(&table[0][0]);
                        for (int j = warp; j < int(sizeof(ByteTable) / sizeof(uint2)); j += warps) {
                            const uint2 word = from[j];
                            if (lane == 0) to[j] = word;
                        }
                        __syncthreads();
                    }
                    pixel::apply_op_n<kPerThread>(op, pixel::OneLut{table}, c);
                }
                __syncthreads();  // the last staged LUT read by every thread before it is overwritten
#pragma unroll
                for (int e = 0; e < kPerThread; ++e) {
                    if (tid + e * n < 256) store_entry(tid + e * n, c[e]);
                }
            } else {
                // Small blocks (a user's block shape for global/texture/smem/ldgsts): one entry at a
                // time, the LUTs read in place.
                for (int i = tid; i < 256; i += n) {
                    const float v = float(i) * (1.0f / 255.0f);
                    float c[3] = {v, v, v};
                    pixel::apply_chain(f.ops, f.ops.luts, c);
                    store_entry(i, c);
                }
            }
        } else {
            const int words = f.ops.lut_count * 3 * 256 / 4;
            const auto* from = reinterpret_cast<const std::uint32_t*>(&f.ops.luts[0][0][0]);
            auto* to = reinterpret_cast<std::uint32_t*>(&fused_luts()[0][0][0]);
            for (int i = tid; i < words; i += n) to[i] = from[i];
        }
    }
}

// The chain on one stored RGBA8 value. Not inlined: the mechanisms unroll their stores (up to 16
// outputs per work item), and 16 inlined copies of the chain's switch (powf included) per kernel
// cost registers and about 3x the compile time of the stencil files; one call per pixel does not.
// `ops` points at the kernel's __grid_constant__ parameter, read in place.
inline __device__ __noinline__ std::uint32_t chain_rgba8(std::uint32_t b, const pixel::OpsBlock& ops) {
    constexpr float s = 1.0f / 255.0f;
    float c[3] = {float(b & 0xffu) * s, float((b >> 8) & 0xffu) * s, float((b >> 16) & 0xffu) * s};
    pixel::apply_chain(ops, fused_luts(), c);
    return chain_quantize(c[0]) | (chain_quantize(c[1]) << 8) | (chain_quantize(c[2]) << 16) | (b & 0xff000000u);
}

// The chain on 4 stored RGBA8 values at once (ops outermost: one dispatch per op for 4 pixels,
// and one call per 4 outputs). Where a mechanism produces 4 adjacent outputs per work item it
// quantises them with from_float and then calls finish4. H100 4K sobel + chain3 fused on tma: one
// call per pixel 136 us, one per 4 pixels 96 us (plain sobel 50, sobel then vector chain3 77).
inline __device__ __noinline__ uint4 chain_rgba8x4(uint4 v, const pixel::OpsBlock& ops) {
    constexpr float s = 1.0f / 255.0f;
    const std::uint32_t b[4] = {v.x, v.y, v.z, v.w};
    float c[4][3];
#pragma unroll
    for (int p = 0; p < 4; ++p) {
        c[p][0] = float(b[p] & 0xffu) * s;
        c[p][1] = float((b[p] >> 8) & 0xffu) * s;
        c[p][2] = float((b[p] >> 16) & 0xffu) * s;
    }
    pixel::apply_chain_n<4>(ops, fused_luts(), c);
    std::uint32_t o[4];
#pragma unroll
    for (int p = 0; p < 4; ++p)
        o[p] = chain_quantize(c[p][0]) | (chain_quantize(c[p][1]) << 8) | (chain_quantize(c[p][2]) << 16) |
               (b[p] & 0xff000000u);
    return make_uint4(o[0], o[1], o[2], o[3]);
}

// The folded chain (Fused::byte_table) on one stored RGBA8 value: per channel one PRMT puts the
// channel's byte into the low byte of the (256-aligned) table address and one shared byte load
// reads the entry; three PRMT pack the result. The plain C++ form (extract the byte, add the
// base, load) compiled to two or three instructions more per channel (SASS of fused laplacian).
// Expected ~5 instructions per pixel fewer and a few % of time; measured (H100 4K, ncu, fused
// laplacian + chain3 on tma) 17.07M -> 15.59M executed warp instructions, 42.7 -> 41.2 us, and in
// the bench 36.7 -> 36.5 us (tma_ws), within its noise.
template <int kOffset>
__device__ __forceinline__ std::uint32_t table_byte(std::uint32_t addr) {
    std::uint32_t v;
    asm volatile("ld.shared.u8 %0, [%1+%2];" : "=r"(v) : "r"(addr), "n"(kOffset));
    return v;
}
__device__ __forceinline__ std::uint32_t chain_table_rgba8(std::uint32_t b) {
    const std::uint32_t base = static_cast<std::uint32_t>(__cvta_generic_to_shared(&fused_table()[0][0]));
    const std::uint32_t r = table_byte<0>(__byte_perm(b, base, 0x7650u));
    const std::uint32_t g = table_byte<256>(__byte_perm(b, base, 0x7651u));
    const std::uint32_t bl = table_byte<512>(__byte_perm(b, base, 0x7652u));
    const std::uint32_t rg = __byte_perm(r, g, 0x0040u);   // r, g, -, -
    const std::uint32_t ba = __byte_perm(bl, b, 0x7000u);  // -, -, bl, alpha
    return __byte_perm(rg, ba, 0x7610u);
}

// Applies a fused filter's chain to 4 outputs already quantised with Pixel::from_float (nothing
// for a plain filter).
template <class Filter, class Storage>
__device__ __forceinline__ void finish4(const Filter& f, Storage (&out)[4]) {
    if constexpr (is_fused_v<Filter>) {
        static_assert(std::is_same_v<Storage, std::uint32_t>, "fused kernels are RGBA8 only");
        if constexpr (Filter::byte_table) {
#pragma unroll
            for (int p = 0; p < 4; ++p) out[p] = chain_table_rgba8(out[p]);
        } else {
            const uint4 r = chain_rgba8x4(make_uint4(out[0], out[1], out[2], out[3]), f.ops);
            out[0] = r.x;
            out[1] = r.y;
            out[2] = r.z;
            out[3] = r.w;
        }
    } else {
        (void)f;
        (void)out;
    }
}

template <class Pixel, class Filter>
__device__ __forceinline__ typename Pixel::Storage finish(const Filter& f, float4 v) {
    if constexpr (is_fused_v<Filter>) {
        static_assert(std::is_same_v<Pixel, PixelRGBA8>, "fused kernels are RGBA8 only");
        if constexpr (Filter::byte_table) return chain_table_rgba8(Pixel::from_float(v));
        else return chain_rgba8(Pixel::from_float(v), f.ops);
    } else {
        return Pixel::from_float(v);
    }
}

// Filters whose result scales with their input, f(k * window) = k * f(window) in R, G, B (alpha
// from the centre): the RGBA8 register-window paths run them in storage units (0..255) and
// scale once per output channel. The rounding differs from the [0,1] form by a few ulp, which
// can move a result that lies on a quantisation boundary by 1 LSB (the check tolerance); the
// Laplacian is exact either way (integer sums). Not UserKernel: its bias is in [0,1] units.
template <class F> struct Homogeneous : std::false_type {};
template <> struct Homogeneous<SobelFilter> : std::true_type {};
template <> struct Homogeneous<LaplacianFilter> : std::true_type {};
template <> struct Homogeneous<SharpenFilter> : std::true_type {};
template <> struct Homogeneous<EmbossFilter> : std::true_type {};
template <> struct Homogeneous<Box3Filter> : std::true_type {};
template <class F> inline constexpr bool homogeneous_v = Homogeneous<base_filter_t<F>>::value;

// Filters with an integer RGBA8 form (swar4): the RGBA8 register-window paths run it instead of
// the float window. RGBA32F, and every filter without it, keeps the float path.
template <class F> struct Swar3x3 : std::false_type {};
template <> struct Swar3x3<SobelFilter> : std::true_type {};
template <> struct Swar3x3<LaplacianFilter> : std::true_type {};
template <> struct Swar3x3<SharpenFilter> : std::true_type {};
template <> struct Swar3x3<EmbossFilter> : std::true_type {};
template <> struct Swar3x3<Box3Filter> : std::true_type {};
template <class F, class Pixel>
inline constexpr bool swar3x3_v = Swar3x3<base_filter_t<F>>::value && std::is_same_v<Pixel, PixelRGBA8>;

// The RGBA8 register-window paths' unpack: storage units for homogeneous filters, else [0,1];
// alpha as raw bits either way.
template <class Filter>
__device__ __forceinline__ float4 window_unpack(std::uint32_t v) {
    if constexpr (homogeneous_v<Filter>) return PixelRGBA8::to_raw_alpha_bits(v);
    else return PixelRGBA8::to_float_alpha_bits(v);
}

// One row of the RGBA8 3x3 register windows: pixels x - 1 (left), x .. x + 3 (mid) and x + 4
// (right), each unpacked once: for the float window (window_unpack) and for the integer form
// ((R, B) and (G, G) 16-bit lanes, swar::Row, filters' swar4).
template <class Filter>
__device__ __forceinline__ void unpack_row6(std::uint32_t left, const std::uint32_t (&mid)[4], std::uint32_t right,
                                            float4 (&d)[6]) {
    d[0] = window_unpack<Filter>(left);
#pragma unroll
    for (int k = 0; k < 4; ++k) d[k + 1] = window_unpack<Filter>(mid[k]);
    d[5] = window_unpack<Filter>(right);
}
__device__ __forceinline__ void unpack_row6(std::uint32_t left, const std::uint32_t (&mid)[4],
                                            std::uint32_t right, swar::Row& d) {
    const std::uint32_t px[6] = {left, mid[0], mid[1], mid[2], mid[3], right};
    swar::unpack(px, d);
}

// The stored value for the RGBA8 register-window paths (window_unpack's units, alpha as raw
// bits); those paths then run finish4 on their 4 outputs.
template <class Filter>
__device__ __forceinline__ std::uint32_t quantize_alpha_bits(float4 v) {
    if constexpr (homogeneous_v<Filter>) return PixelRGBA8::from_raw_alpha_bits(v);
    else return PixelRGBA8::from_float_alpha_bits(v);
}

// The 4 outputs of output row `step` of a 3-row float window (rows step, step + 1, step + 2 of
// `ring` modulo 3; columns 0 .. 5 = pixels x - 1 .. x + 4), each quantised with
// quantize_alpha_bits: the RGBA8 register-window paths without an integer form.
template <class Fin, class Op>
__device__ __forceinline__ void window_outputs4(const Op& op, const float4 (&ring)[3][6], int step,
                                                std::uint32_t (&out)[4]) {
#pragma unroll
    for (int i = 0; i < 4; ++i) {
        auto window = [&ring, step, i](int dx, int dy) { return ring[(step + dy + 1) % 3][i + dx + 1]; };
        out[i] = quantize_alpha_bits<Fin>(op(window));
    }
}

// Host: static shared memory a fused kernel adds (fused_luts), to keep out of the tile planners'
// budget so that a plan that fits the plain kernel still fits the fused one.
inline std::size_t epilogue_smem_bytes(const pixel::OpsBlock* ops) {
    return ops != nullptr ? sizeof(pixel::LutTables) : 0;
}

// Host: calls fn(f) for a plain launch, or fn(Fused<F>{f, *ops}) when the launch carries an op
// chain; RGBA32F launches are never wrapped (launch_fused refuses them before). The table form
// (Fused<F, true>) is instantiated for the 3x3 filters (the integer ones and the user 3x3
// kernel), to bound the kernels instantiated, and for any filter where the caller asks with
// kAnyTable (the tma streaming kernels and `registers`, one kernel per filter type each). The user
// 3x3 kernel fused on tma took 85.4 us with the chain as arithmetic (4K, chain3); the user 5x5
// kernel (UserKernel5Filter) 97.7 us on tma, against 79.6 for it and the chain as two launches.
template <class Pixel, bool kAnyTable = false, class Filter, class Fn>
decltype(auto) with_epilogue(const Filter& f, const pixel::OpsBlock* ops, Fn&& fn) {
    if constexpr (std::is_same_v<Pixel, PixelRGBA8>) {
        if (ops != nullptr) {
            if constexpr (kAnyTable || Swar3x3<Filter>::value || std::is_same_v<Filter, UserKernel3Filter> ||
                          std::is_same_v<Filter, UserKernel5Filter>) {
                if (chain_is_per_channel(*ops)) {
                    Fused<Filter, true> fused{f, *ops};
                    return fn(fused);
                }
            }
            Fused<Filter> fused{f, *ops};
            return fn(fused);
        }
    }
    return fn(f);
}

// Host: the forms a tile mechanism (tma, tma_ws, cluster, ldgsts) launches a filter in, one inside
// the other: the radius-1 twin of a Box or user kernel (with_fixed_radius: the register-window
// path), the 5x5 user kernel's float form over raw bytes on RGBA8 (with_user5_planar), and the op
// chain fused in (with_epilogue).
template <class Pixel, class Filter, class Fn>
decltype(auto) with_tile_forms(const Filter& f, const pixel::OpsBlock* ops, Fn&& fn) {
    return with_fixed_radius(f, [&](auto fixed) {
        return with_user5_planar<Pixel>(fixed,
                                        [&](auto planar) { return with_epilogue<Pixel>(planar, ops, fn); });
    });
}

} // namespace tl::cuda::dev
