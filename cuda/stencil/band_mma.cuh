// Gaussian blur of RGBA8 tiles on tensor cores: the separable filter as two band-matrix products
// per 16-pixel strip (mma.sync m16n8k16, fp16 operands, fp32 accumulation); compute_any's path
// for Gaussian RGBA8 on the TMA mechanisms when the radius and tile width fit.
//
// Why: the FP32 separable path costs 2 (2R + 1) FMAs per channel per pixel (152 per pixel at
// R = 9 over 4 channels, about 38 us of an H100's FP32 peak at 4K before any load or convert),
// so it cannot come near the copy time. A 1D convolution is a product with a band matrix, and
// tensor cores do that at many times the FP32 rate.
//
// Per channel c (R, G, B; alpha is the centre's byte, as every filter here does), per strip of
// 16 output columns lx..lx+15 and per block of 8 box rows rb..rb+7:
//   horizontal  H[m, n] = sum_j  Ah_j[m, k] * B_j[k, n]          (16 x 8, KH k-blocks)
//               Ah_j[m, k] = w[16 j + phys(k) - HL - m + R]      band of weights (0 outside)
//               B_j[k, n]  = 1024 + tile[rb + n][lx + 16 j + phys(k)].c  (u8 -> fp16, exact), or for
//                            W = 4 2^-24 tile[...].c (fp16 subnormal, exact; kSubnormalBytes)
//   vertical    O[m, n] = sum_q  H[m, o + 8 q + k] * Bv_q[k, n]   (16 x 8 output rows o..o+7,
//               Bv_q[k, n] = w[8 q + k - n]                       W blocks of 8 box rows, m16n8k8)
// The output matrix of the first product is, register for register, the A operand of the
// second (m = output column, k = box row): one 8-row H block packed to fp16 is one m16n8k8 A
// fragment, with no shared-memory round trip. Each H block is computed once and kept in a
// sliding window of W blocks (the 2R + 8 box rows a step reads) while the strip walks down 8
// rows per step.
//
// Why m16n8k8 for the vertical pass: with m16n8k16 a block was the low half of one A operand
// and the high half of the next step's, so every vertical MMA first copied 4 registers into a
// fresh quad (SASS: 24 IMAD.MOV per step beside 6 HMMA); an m16n8k8 A operand is exactly one
// block's register pair. It also drops the unused fourth block for R = 5..8 (W = 3, not 4).
// Expected: s=3 ~15 % fewer instructions, s=1.5 also a quarter less prologue. Measured (H100 4K
// clamp, default 64x32 tile, 2 stages): s=1.5 45.5 -> 42.8 us, s=3 53.4 -> 53.3, warp
// instructions 23.5 -> 23.2 M: the copies were gone but the step was not where the time was.
// The TMA stream's W = 4 kernels (tma_gauss_stream.cu) take two blocks per m16n8k16 again, with
// the window in fixed register slots (vertical_step_fixed: 6 HMMA per step instead of 12).
//
// Where the time goes (ncu, s=3, the default 64x32 tile, 128 threads, 80 registers, 35 KB of
// shared memory: 6 blocks = 5 warps per scheduler): issue 0.58 per scheduler per cycle (1.4
// eligible warps), 23.2 M warp instructions = 89 thread instructions per pixel. Per warp and
// tile (4 steps of 8 rows): the steps (horizontal block + vertical + output, ~150 each) are 62 %
// of them; the W - 1 = 3 H blocks before the first output are paid per tile (64-row tiles:
// s=3 49.7 us at 64x64, 1 stage; 48.3 at 128x64, 2 stages, 118 registers; against 53.3); the
// per-tile fragment set-up here is 10 % and the integer divisions of the warp/strip split in
// tile_with 7 %; outside this file, the TMA kernel's per-tile index math 6.5 % and fix_border
// (edge tiles, one division per cell) 9 %. All of that is per-tile work, independent of R.
//
// The k order inside a 16-pixel k-block is free (A and B agree on it): lane t's four k slots
// {2t, 2t+1, 2t+8, 2t+9} are pixels 4t..4t+3, so one 16-byte shared load per lane and row feeds
// the B fragments of all three channels. The u8 -> fp16 conversion puts each byte under the
// exponent of 1024 (one PRMT per two values); the 1024 * sum(weights) this adds to every sum is
// taken off by starting the accumulator at -1024 * sum(fp16 weights).
// The W = 4 kernels (kSubnormalBytes) instead read each byte p as the fp16 subnormal with its
// bits, p 2^-24 (the PRMT puts a zero byte above it), exact, with the horizontal weights scaled
// by 2^15 (w 2^15 <= 32768 < 65504), so a sum is h 2^-9 with no bias to take off: the
// accumulator starts at zero (RZ), not at a register quad copied every step (12 moves per step
// in the (3, 4) kernel). The vertical pass carries the 2^-9 and the rounding multiplies it out
// (one FFMA per channel, with a scale of 1 in the other form).
//
// Error against the CPU reference (1 LSB tolerance): fp16 weights are within 2^-11 relative,
// so each pass moves a result by at most 255 * 2^-11 = 0.125 LSB; H rounded to fp16 (< 256)
// by at most 1/16 LSB; fp32 accumulation adds ~1e-4 LSB: at most 0.32 LSB in all. The result
// is quantised as floor(v + 0.5) by starting the vertical accumulator at 0.5 (0.5 2^-9 for W = 4).
#pragma once

#include "filters.cuh"

#include <cuda_fp16.h>

#include <cstdint>
#include <type_traits>

namespace tl::cuda::detail::band_mma {

inline constexpr int kStripW = 16;   // output columns per strip (the MMA's M)
inline constexpr int kStepRows = 8;  // output rows per step (the MMA's N)
// KH = 3 horizontal k-blocks (48 box columns) hold HL + 16 + R <= 48 and W = 4 blocks of 8 box
// rows hold 8 + 2R <= 32: R <= 12 (sigma <= 4). Larger radii keep the FP32 path in the tiles.
inline constexpr int kMaxRadius = 12;
// The column-streaming kernel (tma_gauss_stream.cu) goes on to every radius the Gaussian has
// (sigma 10: R = 30): KH = 5 k-blocks hold HL + 16 + R <= 80 and W = 9 blocks 8 + 2R <= 72 rows.
inline constexpr int kMaxStreamRadius = 30;
// Scales: bytes enter as p 2^-24, horizontal weights as w 2^15, so sums come out as v 2^-9; the
// vertical accumulator starts at 0.5 2^-9 and the output is floor(d 2^9 + 2^23) - 2^23.
inline constexpr float kHorizontalScale = 32768.0f;
inline constexpr float kOutputScale = 512.0f;
inline constexpr float kRoundBias = 0.5f / kOutputScale;
// Which form the W-block kernels take: subnormal bytes for W = 4 (radius 9..12); W < 4 keep
// 1024 + byte with the bias quad. H100, stream kernels, A/B in one run (subnormal -> 1024 + byte):
// 8K sigma 1.5 116.2 / 116.6 -> 105.1 / 105.1 us (with subnormal bytes that kernel, 64
// registers, fits 8 CTAs per SM, but capping it at 7 did not bring 105 back: not understood),
// 8K sigma 0.5 114 either way; 4K sigma 0.5 32.6 -> 32.9 / 33.2, sigma 1.5 32.0 -> 32.3 / 32.5.
template <int W>
inline constexpr bool kSubnormalBytes = W >= 4;

// Box columns left of the tile for RGBA8 (R rounded up to 16 bytes), as the planner's halo.
__host__ __device__ constexpr int halo_left_rgba8(int radius) { return (radius + 3) / 4 * 4; }
__host__ __device__ constexpr int horizontal_kblocks(int radius) {
    return (halo_left_rgba8(radius) + radius + kStripW + 15) / 16;
}
__host__ __device__ constexpr int vertical_blocks(int radius) { return (2 * radius + kStepRows + 7) / 8; }

// Whether a tile of this width and radius runs here (host: launch geometry; device: dispatch).
__host__ __device__ constexpr bool fits(int radius, int tile_w) {
    return radius >= 1 && radius <= kMaxRadius && tile_w >= kStripW && tile_w % kStripW == 0;
}

// Pixel (within a 16-pixel k-block) that k slot k of an m16n8k16 fragment stands for.
__host__ __device__ constexpr int phys(int k) { return 4 * ((k & 7) >> 1) + (k & 1) + 2 * (k >> 3); }

template <class Filter, class Pixel>
inline constexpr bool kApplies =
    std::conjunction_v<std::is_same<Pixel, tl::cuda::dev::PixelRGBA8>,
                       std::is_same<tl::cuda::dev::base_filter_t<Filter>, tl::cuda::dev::GaussianFilter>>;

// d = a * b + c for one m16n8k16 tile (HMMA.16816.F32 in SASS); `c` is one value for all four
// accumulator elements, so starting a sum costs no register moves.
__device__ __forceinline__ void mma16816(float (&d)[4], const std::uint32_t (&a)[4], std::uint32_t b0,
                                         std::uint32_t b1, float c0, float c1, float c2, float c3) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    asm("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, "
        "{%10, %11, %12, %13};"
        : "=f"(d[0]), "=f"(d[1]), "=f"(d[2]), "=f"(d[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1), "f"(c0), "f"(c1), "f"(c2), "f"(c3));
#else
    (void)d;
    (void)a;
    (void)b0;
    (void)b1;
    (void)c0;
    (void)c1;
    (void)c2;
    (void)c3;
#endif
}
// d = a * b + c for one m16n8k8 tile (HMMA.1688.F32): the vertical pass, one 8-row H block per A.
__device__ __forceinline__ void mma_k8(float (&d)[4], std::uint32_t a0, std::uint32_t a1, std::uint32_t b,
                                       float c0, float c1, float c2, float c3) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    asm("mma.sync.aligned.m16n8k8.row.col.f32.f16.f16.f32 {%0, %1, %2, %3}, {%4, %5}, {%6}, {%7, %8, %9, "
        "%10};"
        : "=f"(d[0]), "=f"(d[1]), "=f"(d[2]), "=f"(d[3])
        : "r"(a0), "r"(a1), "r"(b), "f"(c0), "f"(c1), "f"(c2), "f"(c3));
#else
    (void)d;
    (void)a0;
    (void)a1;
    (void)b;
    (void)c0;
    (void)c1;
    (void)c2;
    (void)c3;
#endif
}
__device__ __forceinline__ void mma_start(float (&d)[4], const std::uint32_t (&a)[4], std::uint32_t b0,
                                          std::uint32_t b1, float c) {
    mma16816(d, a, b0, b1, c, c, c, c);
}
__device__ __forceinline__ void mma_acc(float (&d)[4], const std::uint32_t (&a)[4], std::uint32_t b0,
                                        std::uint32_t b1) {
    mma16816(d, a, b0, b1, d[0], d[1], d[2], d[3]);
}

__device__ __forceinline__ std::uint32_t pack_half2(float lo, float hi) {
    const __half2 h = __floats2half2_rn(lo, hi);  // lo in the low 16 bits: the even k / n index
    return *reinterpret_cast<const std::uint32_t*>(&h);
}

// Weights idx and idx + 1 of the band as one fp16 pair (0 outside 0..taps-1): lane l holds the
// pair (w[l - 1], w[l]), so every fragment register, which always holds two consecutive taps, is
// one shuffle; idx + 1 in 0..taps covers every pair with a tap in the band (taps <= 25 < 32).
__device__ __forceinline__ std::uint32_t band_pair(std::uint32_t lane_pair, int idx, int taps) {
    const std::uint32_t v = __shfl_sync(0xffffffffu, lane_pair, (idx + 1) & 31);
    return static_cast<unsigned>(idx + 1) <= static_cast<unsigned>(taps) ? v : 0u;
}

// The constant fragments of one strip: horizontal A (band of T^T) and vertical B (band of Wv^T).
template <int KH, int W>
struct Fragments {
    std::uint32_t ah[KH][4];
    std::uint32_t bv[W];
    float h_init;  // -1024 * sum of the fp16 weights, the conversion's bias; not set (nor read) where
                   // kSubnormalBytes: the products start from a compile-time 0 there
};

// kTail8: the last horizontal k-block is an m16n8k8 one (8 box columns, pixels 16 (KH - 1) + k), its
// A fragment in ah[KH - 1][0..1] (see horizontal_from_chunks).
template <int KH, int W, bool kTail8 = false>
__device__ __forceinline__ void make_fragments(const float* weights, int R, int HL, int lane,
                                               Fragments<KH, W>& fr) {
    const int taps = 2 * R + 1;
    const int g = lane >> 2, t = lane & 3;
    // Each fragment register holds one fp16 pair of band taps (idx, idx + 1): hband(idx) of the
    // horizontal band, vband(idx) of the vertical one.
    std::uint32_t pair = 0, hpair = 0;
    if constexpr (W <= 4) {
        // fp16-rounded weights, so the bias removed (1024 + byte form) is the one the products add.
        const float wl = lane < taps ? __half2float(__float2half_rn(weights[lane])) : 0.0f;
        const float wprev = lane >= 1 && lane <= taps ? weights[lane - 1] : 0.0f;
        pair = pack_half2(wprev, wl);  // the vertical band
        // The horizontal band: times kHorizontalScale (a power of two: the fp16 weights times it)
        // for subnormal bytes; as is, with the bias of 1024 + byte to take off, otherwise.
        hpair = pair;
        if constexpr (kSubnormalBytes<W>) {
            hpair = pack_half2(wprev * kHorizontalScale, wl * kHorizontalScale);
        } else {
            float sum = wl;
#pragma unroll
            for (int o = 16; o > 0; o >>= 1) sum += __shfl_xor_sync(0xffffffffu, sum, o);
            fr.h_init = -1024.0f * sum;
        }
    }
    // Radius 13..30 (W > 4): up to 61 taps, more than a warp has lanes for band_pair's shuffles, so
    // each pair is read from the weights (once per kernel; the subnormal form, no m16n8k8 tail).
    static_assert(W <= 4 || (kSubnormalBytes<W> && !kTail8), "the wide shapes read subnormal bytes");
    auto read_pair = [&](int idx, float scale) {
        auto tap = [&](int i) { return i >= 0 && i < taps ? weights[i] * scale : 0.0f; };
        return pack_half2(tap(idx), tap(idx + 1));
    };
    auto hband = [&](int idx) -> std::uint32_t {
        if constexpr (W > 4) return read_pair(idx, kHorizontalScale);
        else return band_pair(hpair, idx, taps);
    };
    auto vband = [&](int idx) -> std::uint32_t {
        if constexpr (W > 4) return read_pair(idx, 1.0f);
        else return band_pair(pair, idx, taps);
    };
#pragma unroll
    for (int j = 0; j < KH; ++j) {
        if (kTail8 && j == KH - 1) {
            // m16n8k8: Ah[m][k] = w[16 j + k - HL - m + R]; reg 0: (m = g, k = 2t, 2t+1), reg 1: m = g + 8.
            const int base = 16 * j + 2 * t - HL - g + R;
            fr.ah[j][0] = hband(base);
            fr.ah[j][1] = hband(base - 8);
            fr.ah[j][2] = fr.ah[j][3] = 0u;
            continue;
        }
        // Ah_j[m][k] = w[16 j + phys(k) - HL - m + R]; reg 0: (m = g, k = 2t, 2t+1), reg 1: m = g + 8,
        // reg 2: (m = g, k = 2t+8, 2t+9), reg 3: m = g + 8.
        const int base = 16 * j + 4 * t - HL - g + R;
        fr.ah[j][0] = hband(base);
        fr.ah[j][1] = hband(base - 8);
        fr.ah[j][2] = hband(base + 2);
        fr.ah[j][3] = hband(base - 6);
    }
#pragma unroll
    for (int q = 0; q < W; ++q) fr.bv[q] = vband(8 * q + 2 * t - g);  // Bv_q: (k = 2t, 2t+1; n = g)
}

// One horizontal block from the lane's KH 16-byte chunks of its box row (chunk j: pixels
// 16 j + 4t .. 16 j + 4t + 3 of the strip's columns), R, G, B as packed fp16 A-operand halves:
// out[c][0] = (m = g, k = 2t, 2t+1), out[c][1] = m + 8.
// kTail8 (make_fragments): the last chunk holds only pixels 16 (KH - 1) + 2t, + 1 (in .x, .y), one
// m16n8k8 B register per channel.
template <int KH, int W, bool kTail8 = false>
__device__ __forceinline__ void horizontal_from_chunks(const uint4 (&chunk)[KH], const Fragments<KH, W>& fr,
                                                       std::uint32_t (&out)[3][2]) {
    static_assert(!kTail8 || KH >= 2, "the products start on a 16-column block");
    float acc[3][4];
#pragma unroll
    for (int j = 0; j < KH; ++j) {
        const uint4 q = chunk[j];
        if (kTail8 && j == KH - 1) {
            constexpr std::uint32_t kHigh8 = kSubnormalBytes<W> ? 0u : 0x64646464u;
            const std::uint32_t rg = __byte_perm(q.x, q.y, 0x5140u), ba = __byte_perm(q.x, q.y, 0x7362u);
            const std::uint32_t b8[3] = {__byte_perm(rg, kHigh8, 0x4140u), __byte_perm(rg, kHigh8, 0x4342u),
                                         __byte_perm(ba, kHigh8, 0x4140u)};
#pragma unroll
            for (int c = 0; c < 3; ++c)
                mma_k8(acc[c], fr.ah[j][0], fr.ah[j][1], b8[c], acc[c][0], acc[c][1], acc[c][2], acc[c][3]);
            continue;
        }
        // Pixels 4t, 4t+1 (reg 0) and 4t+2, 4t+3 (reg 1); each half = a zero byte over the byte
        // (the fp16 subnormal byte * 2^-24), or 0x64 over it (1024 + byte).
        constexpr std::uint32_t kHigh = kSubnormalBytes<W> ? 0u : 0x64646464u;
        const std::uint32_t rg01 = __byte_perm(q.x, q.y, 0x5140u), ba01 = __byte_perm(q.x, q.y, 0x7362u);
        const std::uint32_t rg23 = __byte_perm(q.z, q.w, 0x5140u), ba23 = __byte_perm(q.z, q.w, 0x7362u);
        const std::uint32_t b[3][2] = {
            {__byte_perm(rg01, kHigh, 0x4140u), __byte_perm(rg23, kHigh, 0x4140u)},
            {__byte_perm(rg01, kHigh, 0x4342u), __byte_perm(rg23, kHigh, 0x4342u)},
            {__byte_perm(ba01, kHigh, 0x4140u), __byte_perm(ba23, kHigh, 0x4140u)}};
#pragma unroll
        for (int c = 0; c < 3; ++c) {
            if (j == 0)
                mma_start(acc[c], fr.ah[j], b[c][0], b[c][1], kSubnormalBytes<W> ? 0.0f : fr.h_init);
            else
                mma_acc(acc[c], fr.ah[j], b[c][0], b[c][1]);
        }
    }
#pragma unroll
    for (int c = 0; c < 3; ++c) {
        out[c][0] = pack_half2(acc[c][0], acc[c][1]);
        out[c][1] = pack_half2(acc[c][2], acc[c][3]);
    }
}

// One horizontal block: box rows row0..row0+7 of the strip whose first box column is col0.
// Rows past the box and columns past its row are clamped: they only meet zero weights (or feed
// outputs below the tile, which are not stored), and any byte converts to a finite fp16.
template <int KH, int W>
__device__ __forceinline__ void horizontal_block(const std::uint32_t* tile, int stride, int row0,
                                                 int last_row, int col0, int last_col4,
                                                 const Fragments<KH, W>& fr, int lane,
                                                 std::uint32_t (&out)[3][2]) {
    const int g = lane >> 2, t = lane & 3;
    const std::uint32_t* row = tile + min(row0 + g, last_row) * stride;
    uint4 chunk[KH];
#pragma unroll
    for (int j = 0; j < KH; ++j)
        chunk[j] = *reinterpret_cast<const uint4*>(row + min(col0 + 16 * j + 4 * t, last_col4));
    horizontal_from_chunks<KH, W>(chunk, fr, out);
}

// The vertical products of one step: d[c] = sum over the W window blocks (oldest first, starting
// at slot `first`, which the callers' unrolled loops make a constant, so every window index is
// one) plus 0.5 for the rounding, one m16n8k8 per block.
template <int W>
__device__ __forceinline__ void vertical_step(const std::uint32_t (&win)[W][3][2], const std::uint32_t (&bv)[W],
                                              int first, float (&d)[3][4]) {
    constexpr float c0 = kSubnormalBytes<W> ? kRoundBias : 0.5f;  // the rounding's 0.5
#pragma unroll
    for (int c = 0; c < 3; ++c) {
#pragma unroll
        for (int q = 0; q < W; ++q) {
            const std::uint32_t(&h)[3][2] = win[(first + q) % W];
            if (q == 0)
                mma_k8(d[c], h[c][0], h[c][1], bv[q], c0, c0, c0, c0);
            else
                mma_k8(d[c], h[c][0], h[c][1], bv[q], d[c][0], d[c][1], d[c][2], d[c][3]);
        }
    }
}

// The vertical products of a W = 4 step whose window stays in fixed register slots: slots 0, 1 and
// 2, 3 are always the two m16n8k16 A quads (an m16n8k16 A fragment is two m16n8k8 ones side by
// side, k 0..7 then 8..15), whatever blocks they hold, and the weights follow the blocks instead
// (`w01`, `w23`: the weight registers of the blocks in slots 0, 1 and 2, 3, one of the four pairs
// rotating_weight_pairs makes). So no register moves between steps. Two blocks per m16n8k16
// (session 21, then on a window that moved down one slot per step, newer pair first): H200 4K
// sigma 3 35.3-35.6 -> 34.9-35.1 us, 8K 115.7-116.3 -> 112.6-113.7; in the tile path (cluster) it
// cost 1 us at 4K, which keeps the m16n8k8 chain, as W < 4 does (W = 2 with one m16n8k16: 4K
// sigma 0.5 28.6 -> 29.3).
__device__ __forceinline__ void vertical_step_fixed(const std::uint32_t (&win)[4][3][2], const std::uint32_t (&w01)[2],
                                                    const std::uint32_t (&w23)[2], float (&d)[3][4]) {
    constexpr float c0 = kRoundBias;  // the rounding's 0.5 (kSubnormalBytes<4>)
#pragma unroll
    for (int c = 0; c < 3; ++c) {
        const std::uint32_t a23[4] = {win[2][c][0], win[2][c][1], win[3][c][0], win[3][c][1]};
        mma16816(d[c], a23, w23[0], w23[1], c0, c0, c0, c0);
        const std::uint32_t a01[4] = {win[0][c][0], win[0][c][1], win[1][c][0], win[1][c][1]};
        mma16816(d[c], a01, w01[0], w01[1], d[c][0], d[c][1], d[c][2], d[c][3]);
    }
}
// At step s the block in slot j is window block (j - s) mod 4 (slot s mod 4 holds the oldest), so
// slots 0, 1 take weight pair p[s mod 4] and slots 2, 3 p[(s + 2) mod 4].
__device__ __forceinline__ void rotating_weight_pairs(const std::uint32_t (&bv)[4], std::uint32_t (&p)[4][2]) {
    p[0][0] = bv[0], p[0][1] = bv[1];
    p[1][0] = bv[3], p[1][1] = bv[0];
    p[2][0] = bv[2], p[2][1] = bv[3];
    p[3][0] = bv[1], p[3][1] = bv[2];
}

// The four RGBA8 outputs of a lane from one step's accumulators: d[c][e] is v + 0.5 (times 2^-9
// where kSubnormalBytes) with v in [0, 255.4]; times the scale plus 2^23, rounded down (one FFMA),
// leaves floor(v + 0.5) in the low byte (the reference's quantisation of v / 255). Alpha is the
// centre pixel's byte.
template <int W>
__device__ __forceinline__ void pack_outputs(const float (&d)[3][4], const std::uint32_t (&centre)[4],
                                             std::uint32_t (&out)[4]) {
    constexpr float kScale = kSubnormalBytes<W> ? kOutputScale : 1.0f;
#pragma unroll
    for (int e = 0; e < 4; ++e) {
        const std::uint32_t r = __float_as_uint(__fmaf_rd(d[0][e], kScale, 8388608.0f));
        const std::uint32_t gg = __float_as_uint(__fmaf_rd(d[1][e], kScale, 8388608.0f));
        const std::uint32_t b = __float_as_uint(__fmaf_rd(d[2][e], kScale, 8388608.0f));
        out[e] = __byte_perm(__byte_perm(r, gg, 0x0040u), __byte_perm(b, centre[e], 0x0070u), 0x5410u);
    }
}

// Stores a lane's 4 outputs of a 16 x 8 output block (pack_outputs' order: rows y, y + 1 by e & 1,
// columns x, x + 8 by e >> 1) to dst. `whole`: the block lies inside the image (uniform per
// warp); otherwise each store tests its row against y_end and its column against x_end.
// store_outputs_at: the same with `at` already the address of pixel (x, y).
__device__ __forceinline__ void store_outputs_at(char* at, std::size_t pitch, const std::uint32_t (&out)[4], bool whole,
                                                 int y, int y_end, int x, int x_end) {
    auto* p0 = reinterpret_cast<std::uint32_t*>(at);
    auto* p1 = reinterpret_cast<std::uint32_t*>(at + pitch);
    if (whole) {
        p0[0] = out[0];
        p1[0] = out[1];
        p0[8] = out[2];
        p1[8] = out[3];
        return;
    }
#pragma unroll
    for (int e = 0; e < 4; ++e)
        if (y + (e & 1) < y_end && x + 8 * (e >> 1) < x_end) ((e & 1) ? p1 : p0)[8 * (e >> 1)] = out[e];
}
__device__ __forceinline__ void store_outputs(void* dst, std::size_t pitch, int x, int y, const std::uint32_t (&out)[4],
                                              bool whole, int y_end, int x_end) {
    store_outputs_at(static_cast<char*>(dst) + std::size_t(y) * pitch + std::size_t(x) * 4u, pitch, out, whole, y, y_end,
                     x, x_end);
}

// One strip (16 columns from tile column lx) over output rows [row_begin, row_end) of the tile,
// 8 rows per step. `Geom` is the TMA mechanisms' TileGeom.
template <int KH, int W, class Filter, class Geom>
__device__ __forceinline__ void strip(const Filter& f, const std::uint32_t* tile, const Geom& g, int x0,
                                      int y0, int lx, int row_begin, int row_end, int lane,
                                      const Fragments<KH, W>& fr, std::uint32_t* staging) {
    const int R = g.radius;
    const int stride = g.box_stride;
    const int last_row = g.tile_h + 2 * R - 1;
    const int last_col4 = stride - 4;
    const int gq = lane >> 2, t = lane & 3;
    const int steps = (row_end - row_begin + kStepRows - 1) / kStepRows;
    // The lane's output pixels: columns lx + gq (+ 8), rows o + 2t (+ 1), as the D fragment holds them.
    std::uint32_t win[W][3][2];
#pragma unroll
    for (int q = 0; q < W - 1; ++q)
        horizontal_block<KH, W>(tile, stride, row_begin + kStepRows * q, last_row, lx, last_col4, fr, lane,
                                win[q]);
    for (int s0 = 0; s0 < steps; s0 += W) {
#pragma unroll
        for (int u = 0; u < W; ++u) {
            const int s = s0 + u;
            const int o = row_begin + kStepRows * s;  // first output row of this step (tile-local)
            if (s >= steps || (!staging && y0 + o >= g.height)) break;  // uniform per warp
            // Block s + W - 1 enters the window; the loop is unrolled W times, so every slot index
            // is a constant.
            horizontal_block<KH, W>(tile, stride, o + kStepRows * (W - 1), last_row, lx, last_col4, fr, lane,
                                    win[(u + W - 1) % W]);
            float d[3][4];
            vertical_step<W>(win, fr.bv, u, d);
            // d[c][e]: e = 0 (col gq, row 2t), 1 (gq, 2t+1), 2 (gq+8, 2t), 3 (gq+8, 2t+1).
            // The lane's outputs: rows ly0, ly0 + 1 (e & 1) and columns lc0, lc0 + 8 (e >> 1).
            const int ly0 = o + 2 * t, lc0 = lx + gq;
            const std::uint32_t* centre0 = tile + min(ly0 + R, last_row) * stride + lc0 + g.halo_left;
            const std::uint32_t* centre1 = tile + min(ly0 + 1 + R, last_row) * stride + lc0 + g.halo_left;
            const std::uint32_t centre[4] = {centre0[0], centre1[0], centre0[8], centre1[8]};
            std::uint32_t out[4];
            pack_outputs<W>(d, centre, out);
            tl::cuda::dev::finish4(f, out);
            if (staging) {
#pragma unroll
                for (int e = 0; e < 4; ++e)
                    if (ly0 + (e & 1) < row_end)
                        staging[(ly0 + (e & 1)) * g.tile_w + lc0 + 8 * (e >> 1)] = out[e];
                continue;
            }
            // One row address per lane and step; the per-pixel bounds tests only where the
            // strip's 16 x 8 outputs reach past the tile or the image (uniform per warp).
            store_outputs(g.dst, g.dst_pitch, x0 + lc0, y0 + ly0, out,
                          o + kStepRows <= row_end && y0 + o + kStepRows <= g.height && x0 + lx + kStripW <= g.width,
                          min(y0 + row_end, g.height), g.width);
        }
    }
}

template <int KH, int W, class Filter, class Geom>
__device__ __forceinline__ void tile_with(const Filter& f, const std::uint32_t* tile, const Geom& g, int x0,
                                          int y0, int tid, int nthreads, std::uint32_t* staging) {
    const int lane = tid & 31, warp = tid >> 5, nwarps = nthreads >> 5;
    Fragments<KH, W> fr;
    make_fragments<KH, W>(f.weights, g.radius, g.halo_left, lane, fr);
    const int strips = g.tile_w / kStripW;
    // Rows are split between warps only when warps outnumber strips: every split costs the
    // W - 1 H blocks a strip computes before its first output.
    const int segs_wanted = nwarps > strips ? nwarps / strips : 1;
    const int seg_rows = ((g.tile_h + segs_wanted - 1) / segs_wanted + kStepRows - 1) / kStepRows * kStepRows;
    const int segs = (g.tile_h + seg_rows - 1) / seg_rows;
    for (int item = warp; item < strips * segs; item += nwarps) {
        const int seg = item / strips, lx = (item - seg * strips) * kStripW;
        if (!staging && x0 + lx >= g.width) continue;  // uniform per warp
        const int rb = seg * seg_rows;
        strip<KH, W>(f, tile, g, x0, y0, lx, rb, min(rb + seg_rows, g.tile_h), lane, fr, staging);
    }
}

// compute_any's contract for one tile. No closing barrier (`sync` is unused): nothing here is
// shared between warps but the stage, which every caller releases itself afterwards (tma:
// __syncthreads, tma_ws: an empty-barrier arrival per warp, cluster: the kernel ends).
template <class Filter, class Geom, class Sync>
__device__ __forceinline__ void gaussian_tile(const Filter& f, const std::uint32_t* tile, const Geom& g,
                                              int x0, int y0, int tid, int nthreads, std::uint32_t* staging,
                                              Sync sync) {
    // (KH, W): R <= 4: (2, 2); R = 5..8: (2, 3); R = 9..12: (3, 4).
    const int kh = horizontal_kblocks(g.radius), w = vertical_blocks(g.radius);
    if (w <= 2)
        tile_with<2, 2>(f, tile, g, x0, y0, tid, nthreads, staging);
    else if (w == 3 && kh == 2)
        tile_with<2, 3>(f, tile, g, x0, y0, tid, nthreads, staging);
    else
        tile_with<3, 4>(f, tile, g, x0, y0, tid, nthreads, staging);
    (void)sync;
}

}  // namespace tl::cuda::detail::band_mma
