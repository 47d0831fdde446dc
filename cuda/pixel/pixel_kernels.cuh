// Device side shared by every per-pixel mechanism and by the stencils' fused epilogue: the op
// chain maths over a group of pixels, pixel formats as 16-byte chunks, chunk/tail addressing and
// the LUT tables staged in shared memory.
#pragma once

#include "pixel_params.hpp"

#include <cuda_runtime.h>
#include <cstdint>

namespace tl::cuda::pixel {

// ---- why the maths looks like this ------------------------------------------------------------
// A chain of three ops moves 8 bytes per RGBA8 pixel; an H100 streams that in ~28 us at 4K, which
// leaves about a hundred instruction slots per pixel for everything. The first version spent far
// more: accurate powf (a few dozen instructions per channel), an IEEE division per LUT entry,
// two integer<->float conversions per channel (I2F/F2I run at a quarter of the FP32 rate), and
// the op switch with its parameters re-read for every single pixel. So:
//  - the chain runs over N pixels at once with the ops loop outermost: each op's kind and
//    constants are read (uniform, from the parameter bank) once per N pixels, not per pixel;
//  - constants that are the same for every pixel (1 / gamma, 1 / (white - black)) come from the
//    host (build_ops_block), computed with the reference's own float operations;
//  - bytes become floats and floats become bytes through the 2^23 trick (below): no conversions;
//  - the pixel kernels stage each LUT as floats already divided by 255 in shared memory;
//  - pow is 2^(e * log2 x) on the special-function unit (error bound below).
// Adds and multiplies are still spelled with explicit rounding intrinsics so that nvcc cannot
// fuse them into FMAs: every op but the two powers equals tl::reference_pixel_ops (x86, no FMA)
// bit for bit.

__device__ __forceinline__ float add(float x, float y) { return __fadd_rn(x, y); }
__device__ __forceinline__ float sub(float x, float y) { return __fsub_rn(x, y); }
__device__ __forceinline__ float mul(float x, float y) { return __fmul_rn(x, y); }

// x / d given r = 1 / d (rounded): a multiply and one FMA correction step, which is the correctly
// rounded quotient except in rare cases, where it is one ulp off (the RGBA8 result is then off by
// at most 1 LSB and only if it sat on a rounding boundary). For d = 255 and x = 0..255 it equals
// the IEEE division for every x (tests/unit/test_pixel_tables.cpp checks all 256).
__device__ __forceinline__ float div_by(float x, float d, float r) {
    const float q = mul(x, r);
    return __fmaf_rn(__fmaf_rn(-q, d, x), r, q);
}

// x^e for x >= 0, e in [0.2, 10] (1 / gamma with gamma in 0.1..5), as ex2(e * lg2(x)) on the
// special-function unit. PTX bounds: lg2.approx 2^-22 absolute for x in (0.5, 2), else 2^-22
// relative; ex2.approx 2^-22 relative. A result that matters for 8 bits (>= 2^-9) has
// |e lg2 x| <= 9, so the exponent is off by at most 9 * 1.25 * 2^-22 + 10 * 2^-22 ~ 5e-6 and the
// result by at most ln 2 * 5e-6 + 2^-22 ~ 4e-6 relative: 0.001 LSB of 255. An RGBA8 output
// therefore differs from the reference (itself a different pow, std::pow) by at most 1 LSB, and
// only when the exact value lies within 0.001 LSB of a rounding boundary — the same kind of
// difference accurate powf already had. ftz: a subnormal x gives 0 where the exact x^e is below
// (2^-126)^0.2 ~ 2e-8. Threshold or Lut after a power can still turn such a 1-LSB difference into a
// large one (as with powf), which is why the tests put them before any power.
__device__ __forceinline__ float log2_sfu(float x) {
    float y;
    asm("lg2.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x));
    return y;
}
__device__ __forceinline__ float exp2_sfu(float x) {
    float y;
    asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x));
    return y;
}
__device__ __forceinline__ float pow_sfu(float x, float e) { return exp2_sfu(mul(e, log2_sfu(x))); }

// Rec.709 luma with the host's grouping: (0.2126 r + 0.7152 g) + 0.0722 b.
__device__ __forceinline__ float luma(const float c[3]) {
    return add(add(mul(0.2126f, c[0]), mul(0.7152f, c[1])), mul(0.0722f, c[2]));
}

// ---- bytes <-> floats without conversion instructions -----------------------------------------
// A float in [2^23, 2^24) has spacing 1, so its low mantissa byte is its integer part minus 2^23.
inline constexpr float kTwo23 = 8388608.0f;
inline constexpr std::uint32_t kTwo23Bits = 0x4B000000u;

// tl::quantize_unorm8 as float bits 2^23 + q, q = floor(y) with y = clamp(v, 0, 1) * 255 + 0.5
// (multiply and add rounded apart, as the reference): y is in [0.5, 255.5], and adding 2^23 with
// rounding down lands exactly on 2^23 + floor(y). The low byte is q.
__device__ __forceinline__ std::uint32_t quantize_bits(float v) {
    const float y = add(mul(__saturatef(v), 255.0f), 0.5f);
    return __float_as_uint(__fadd_rd(y, kTwo23));
}
__device__ __forceinline__ std::uint32_t quantize(float v) { return quantize_bits(v) - kTwo23Bits; }

// float(byte I of v) * (1/255), the reference's conversion: the byte placed in the mantissa of
// 2^23 (one byte permute), minus 2^23 (exact), times the rounded 1/255.
template <int I>
__device__ __forceinline__ float unpack_unorm8(std::uint32_t v) {
    const float f = __uint_as_float(__byte_perm(v, kTwo23Bits, 0x7440u | unsigned(I)));
    return mul(sub(f, kTwo23), 1.0f / 255.0f);
}

// R, G, B from the low bytes of three quantize_bits results, alpha from byte 3 of `src`.
__device__ __forceinline__ std::uint32_t pack_unorm8(std::uint32_t r, std::uint32_t g, std::uint32_t b,
                                                     std::uint32_t src) {
    const std::uint32_t rg = __byte_perm(r, g, 0x0040u);    // r.byte0, g.byte0
    const std::uint32_t ba = __byte_perm(b, src, 0x0070u);  // b.byte0, src.byte3
    return __byte_perm(rg, ba, 0x5410u);
}

// ---- LUT tables -------------------------------------------------------------------------------
// As OpsBlock carries them (bytes), and as the pixel kernels stage them in shared memory: floats
// already divided by 255, so a lookup is one shared load.
using LutTables = std::uint8_t[kMaxPixelLuts][3][256];
using StagedLuts = float[kMaxPixelLuts][3][256];

// The reference's float(entry) / 255 (correctly rounded, see div_by).
__device__ __forceinline__ float lut_value(std::uint32_t entry) {
    const float x = __uint_as_float(kTwo23Bits | entry) - kTwo23;  // exact, no I2F
    return div_by(x, 255.0f, 1.0f / 255.0f);
}
__device__ __forceinline__ float lut_entry(const LutTables& t, int lut, int ch, std::uint32_t i) {
    return lut_value(t[lut][ch][i]);
}
__device__ __forceinline__ float lut_entry(const StagedLuts& t, int lut, int ch, std::uint32_t i) {
    return t[lut][ch][i];
}
// One LUT's bytes (3 x 256) staged in shared memory by the op that reads it: the fused stencils
// build their byte table this way (dev::stage_epilogue), one LUT at a time in the table's bytes.
struct OneLut {
    const std::uint8_t (*bytes)[256];
};
__device__ __forceinline__ float lut_entry(const OneLut& t, int /*lut: the staged one*/, int ch, std::uint32_t i) {
    return lut_value(t.bytes[ch][i]);
}

// Stages the chain's LUTs from the parameter bank in shared memory, where per-lane random indices
// do not serialise as they would on the constant cache. Caller synchronises the block.
__device__ __forceinline__ void load_luts(const OpsBlock& ops, StagedLuts& luts) {
    // One 4-byte parameter read and one 16-byte shared store per 4 entries.
    const int words = ops.lut_count * 3 * 256 / 4;
    const auto* from = reinterpret_cast<const std::uint32_t*>(&ops.luts[0][0][0]);
    auto* to = reinterpret_cast<float4*>(&luts[0][0][0]);
    auto entry = [](std::uint32_t b) {
        const float x = __uint_as_float(kTwo23Bits | b) - kTwo23;  // exact, no I2F
        return div_by(x, 255.0f, 1.0f / 255.0f);                  // == x / 255 for every byte
    };
    for (int i = threadIdx.x; i < words; i += blockDim.x) {
        const std::uint32_t w = from[i];
        to[i] = make_float4(entry(w & 0xffu), entry((w >> 8) & 0xffu), entry((w >> 16) & 0xffu), entry(w >> 24));
    }
}
// The same tables as bytes (a quarter of the shared memory; each lookup then divides).
__device__ __forceinline__ void load_luts(const OpsBlock& ops, LutTables& luts) {
    const int words = ops.lut_count * 3 * 256 / 4;
    const auto* from = reinterpret_cast<const std::uint32_t*>(&ops.luts[0][0][0]);
    auto* to = reinterpret_cast<std::uint32_t*>(&luts[0][0][0]);
    for (int i = threadIdx.x; i < words; i += blockDim.x) to[i] = from[i];
}

// ---- the chain --------------------------------------------------------------------------------
// One op on N pixels (c[pixel][channel], R G B). The switch is on a value uniform across the grid,
// so every warp takes the same branch; within a case everything unrolls over the N pixels.
template <int N, class Luts>
__device__ __forceinline__ void apply_op_n(const DevOp& op, const Luts& luts, float (&c)[N][3]) {
    switch (static_cast<PixelOpKind>(op.kind)) {
    case PixelOpKind::BrightnessContrast: {
        const float contrast = op.p[0], brightness = op.p[1];
#pragma unroll
        for (int p = 0; p < N; ++p)
#pragma unroll
            for (int i = 0; i < 3; ++i) c[p][i] = add(add(mul(sub(c[p][i], 0.5f), contrast), 0.5f), brightness);
        return;
    }
    case PixelOpKind::Gamma: {
        const float e = op.p[0];
        if (e == 1.0f) {  // gamma 1: std::pow(x, 1) is x exactly; so is this
#pragma unroll
            for (int p = 0; p < N; ++p)
#pragma unroll
                for (int i = 0; i < 3; ++i) c[p][i] = fmaxf(c[p][i], 0.0f);
            return;
        }
#pragma unroll
        for (int p = 0; p < N; ++p)
#pragma unroll
            for (int i = 0; i < 3; ++i) c[p][i] = pow_sfu(fmaxf(c[p][i], 0.0f), e);
        return;
    }
    case PixelOpKind::Saturation: {
        const float s = op.p[0];
#pragma unroll
        for (int p = 0; p < N; ++p) {
            const float l = luma(c[p]);
#pragma unroll
            for (int i = 0; i < 3; ++i) c[p][i] = add(l, mul(s, sub(c[p][i], l)));
        }
        return;
    }
    case PixelOpKind::Grayscale:
#pragma unroll
        for (int p = 0; p < N; ++p) {
            const float l = luma(c[p]);
            c[p][0] = c[p][1] = c[p][2] = l;
        }
        return;
    case PixelOpKind::Invert:
#pragma unroll
        for (int p = 0; p < N; ++p)
#pragma unroll
            for (int i = 0; i < 3; ++i) c[p][i] = sub(1.0f, c[p][i]);
        return;
    case PixelOpKind::Threshold: {
        const float t = op.p[0];
#pragma unroll
        for (int p = 0; p < N; ++p) {
            const float v = luma(c[p]) >= t ? 1.0f : 0.0f;
            c[p][0] = c[p][1] = c[p][2] = v;
        }
        return;
    }
    case PixelOpKind::Levels: {
        const float black = op.p[0], range = op.p[1], inv_range = op.p[2], e = op.p[3];
#pragma unroll
        for (int p = 0; p < N; ++p)
#pragma unroll
            for (int i = 0; i < 3; ++i)
                c[p][i] = fminf(fmaxf(div_by(sub(c[p][i], black), range, inv_range), 0.0f), 1.0f);
        if (e == 1.0f) return;  // auto-levels: no power, exact
#pragma unroll
        for (int p = 0; p < N; ++p)
#pragma unroll
            for (int i = 0; i < 3; ++i) c[p][i] = pow_sfu(c[p][i], e);
        return;
    }
    case PixelOpKind::ColorMatrix: {
        const float* m = op.p;
#pragma unroll
        for (int p = 0; p < N; ++p) {
            const float r = add(add(mul(m[0], c[p][0]), mul(m[1], c[p][1])), mul(m[2], c[p][2]));
            const float g = add(add(mul(m[3], c[p][0]), mul(m[4], c[p][1])), mul(m[5], c[p][2]));
            const float b = add(add(mul(m[6], c[p][0]), mul(m[7], c[p][1])), mul(m[8], c[p][2]));
            c[p][0] = r;
            c[p][1] = g;
            c[p][2] = b;
        }
        return;
    }
    case PixelOpKind::Lut: {
        const int lut = op.lut;
#pragma unroll
        for (int p = 0; p < N; ++p)
#pragma unroll
            for (int i = 0; i < 3; ++i) c[p][i] = lut_entry(luts, lut, i, quantize(c[p][i]));
        return;
    }
    }
}

// The chain (from op `first` on) on N pixels at once, ops outermost.
template <int N, class Luts>
__device__ __forceinline__ void apply_chain_n(const OpsBlock& ops, const Luts& luts, float (&c)[N][3], int first = 0) {
    const int count = ops.count;
#pragma unroll 1
    for (int i = first; i < count; ++i) apply_op_n<N>(ops.ops[i], luts, c);
}

// The chain on one pixel (R, G, B in c): what a stencil's fused epilogue calls. `luts` may be the
// OpsBlock's own byte tables (read from the parameter bank) or tables staged with load_luts.
template <class Luts>
__device__ __forceinline__ void apply_chain(const OpsBlock& ops, const Luts& luts, float c[3]) {
    float g[1][3] = {{c[0], c[1], c[2]}};
    apply_chain_n<1>(ops, luts, g);
    c[0] = g[0][0];
    c[1] = g[0][1];
    c[2] = g[0][2];
}

// ---- pixel formats ------------------------------------------------------------------------------
// A format processes one pixel (its storage type) and K 16-byte chunks at once.
struct Rgba8 {
    using Pixel = std::uint32_t;  // R lowest byte
    static constexpr int pixels_per_chunk = 4;
    static constexpr int bytes_per_pixel = 4;

    // N pixels in place. Alpha passes through as its original byte (the reference's float round
    // trip of alpha is exact).
    template <int N, class Luts>
    __device__ __forceinline__ static void process_n(std::uint32_t (&v)[N], const OpsBlock& ops, const Luts& luts) {
        float c[N][3];
        int first = 0;
        if (ops.count > 0 && ops.ops[0].kind == int(PixelOpKind::Lut)) {
            // A LUT first in the chain indexes by the stored byte itself: quantize(b * (1/255)) == b
            // for every byte b (tests/unit/test_pixel_device_maths.cpp), so unpacking and
            // re-quantising cancel out, and a grading chain that starts with its LUT skips both.
            const int lut = ops.ops[0].lut;
#pragma unroll
            for (int p = 0; p < N; ++p) {
                c[p][0] = lut_entry(luts, lut, 0, v[p] & 0xffu);
                c[p][1] = lut_entry(luts, lut, 1, (v[p] >> 8) & 0xffu);
                c[p][2] = lut_entry(luts, lut, 2, (v[p] >> 16) & 0xffu);
            }
            first = 1;
        } else {
#pragma unroll
            for (int p = 0; p < N; ++p) {
                c[p][0] = unpack_unorm8<0>(v[p]);
                c[p][1] = unpack_unorm8<1>(v[p]);
                c[p][2] = unpack_unorm8<2>(v[p]);
            }
        }
        apply_chain_n<N>(ops, luts, c, first);
#pragma unroll
        for (int p = 0; p < N; ++p)
            v[p] = pack_unorm8(quantize_bits(c[p][0]), quantize_bits(c[p][1]), quantize_bits(c[p][2]), v[p]);
    }
    template <class Luts>
    __device__ __forceinline__ static Pixel process(Pixel v, const OpsBlock& ops, const Luts& luts) {
        std::uint32_t one[1] = {v};
        process_n<1>(one, ops, luts);
        return one[0];
    }
    template <int K, class Luts>
    __device__ __forceinline__ static void process_chunks(uint4 (&v)[K], const OpsBlock& ops, const Luts& luts) {
        std::uint32_t px[4 * K];
#pragma unroll
        for (int k = 0; k < K; ++k) {
            px[4 * k] = v[k].x;
            px[4 * k + 1] = v[k].y;
            px[4 * k + 2] = v[k].z;
            px[4 * k + 3] = v[k].w;
        }
        process_n<4 * K>(px, ops, luts);
#pragma unroll
        for (int k = 0; k < K; ++k) v[k] = make_uint4(px[4 * k], px[4 * k + 1], px[4 * k + 2], px[4 * k + 3]);
    }
};

struct Rgba32f {
    using Pixel = float4;
    static constexpr int pixels_per_chunk = 1;
    static constexpr int bytes_per_pixel = 16;

    template <class Luts>
    __device__ __forceinline__ static Pixel process(Pixel v, const OpsBlock& ops, const Luts& luts) {
        float c[1][3] = {{v.x, v.y, v.z}};
        apply_chain_n<1>(ops, luts, c);
        return make_float4(c[0][0], c[0][1], c[0][2], v.w);  // not clamped, like the reference
    }
    template <int K, class Luts>
    __device__ __forceinline__ static void process_chunks(uint4 (&v)[K], const OpsBlock& ops, const Luts& luts) {
        float c[K][3];
#pragma unroll
        for (int k = 0; k < K; ++k) {
            c[k][0] = __uint_as_float(v[k].x);
            c[k][1] = __uint_as_float(v[k].y);
            c[k][2] = __uint_as_float(v[k].z);
        }
        apply_chain_n<K>(ops, luts, c);
#pragma unroll
        for (int k = 0; k < K; ++k)
            v[k] = make_uint4(__float_as_uint(c[k][0]), __float_as_uint(c[k][1]), __float_as_uint(c[k][2]), v[k].w);
    }
};

// ---- addressing -------------------------------------------------------------------------------
// Byte offset of chunk g (0 <= g < total_chunks) within its image, given the image's pitch.
// A packed image is flattened to one row by the host; skipping the division then matters, since
// an integer division costs about as much as the whole chain does per pixel.
__device__ __forceinline__ std::size_t chunk_offset(const PixelGrid& g, unsigned chunk, std::size_t pitch) {
    if (g.rows == 1) return std::size_t(chunk) * 16u;
    const unsigned row = chunk / g.row_chunks;
    const unsigned col = chunk - row * g.row_chunks;
    return std::size_t(row) * pitch + std::size_t(col) * 16u;
}

// This thread's chunks of a batch of n (j = tid, tid + blockDim, ...: the lanes it copied itself),
// K at a time so that the chain's per-op overhead is paid once per 4K RGBA8 pixels. load(j) gives
// chunk j, store(j, v) writes it; a group's chunks past n are computed on zeros and not stored.
template <class Fmt, int K, class Luts, class Load, class Store>
__device__ __forceinline__ void process_batch(unsigned n, const OpsBlock& ops, const Luts& luts, Load&& load,
                                              Store&& store) {
    for (unsigned j0 = threadIdx.x; j0 < n; j0 += K * blockDim.x) {
        uint4 v[K];
#pragma unroll
        for (int k = 0; k < K; ++k) {
            const unsigned j = j0 + unsigned(k) * blockDim.x;
            v[k] = j < n ? load(j) : make_uint4(0u, 0u, 0u, 0u);
        }
        Fmt::process_chunks(v, ops, luts);
#pragma unroll
        for (int k = 0; k < K; ++k) {
            const unsigned j = j0 + unsigned(k) * blockDim.x;
            if (j < n) store(j, v[k]);
        }
    }
}

// The pixels after the last full chunk of every row, one per thread over the whole grid
// (RGBA8 widths that are not a multiple of 4: at most 3 pixels a row, read with plain loads).
template <class Fmt, class Luts>
__device__ __forceinline__ void process_tails(const PixelGrid& g, const OpsBlock& ops, const Luts& luts) {
    if (g.tail_px == 0) return;
    const unsigned total = unsigned(g.rows) * unsigned(g.tail_px);
    const int first_x = int(g.row_chunks) * Fmt::pixels_per_chunk;
    for (unsigned t = blockIdx.x * blockDim.x + threadIdx.x; t < total; t += gridDim.x * blockDim.x) {
        const unsigned row = t / unsigned(g.tail_px);
        const int x = first_x + int(t - row * unsigned(g.tail_px));
        const auto* s = reinterpret_cast<const typename Fmt::Pixel*>(g.src + std::size_t(row) * g.src_pitch) + x;
        auto* d = reinterpret_cast<typename Fmt::Pixel*>(g.dst + std::size_t(row) * g.dst_pitch) + x;
        *d = Fmt::process(*s, ops, luts);
    }
}

} // namespace tl::cuda::pixel
