// Device side shared by every per-pixel mechanism: the op chain maths, pixel formats as
// 16-byte chunks, chunk/tail addressing and the LUT tables in shared memory.
#pragma once

#include "pixel_params.hpp"

#include <cuda_runtime.h>
#include <cstdint>

namespace tl::cuda::pixel {

// ---- op maths ---------------------------------------------------------------------------------
// Every add and multiply is spelled with an explicit rounding intrinsic so that nvcc cannot fuse
// it into an FMA: the results then equal tl::reference_pixel_ops (x86, no FMA) bit for bit,
// except after powf (Gamma, Levels), whose last-place error differs from the host's. That matters
// for Threshold and Lut, where a one-ulp difference before the op can flip the whole result.
__device__ __forceinline__ float add(float x, float y) { return __fadd_rn(x, y); }
__device__ __forceinline__ float sub(float x, float y) { return __fsub_rn(x, y); }
__device__ __forceinline__ float mul(float x, float y) { return __fmul_rn(x, y); }

// Rec.709 luma with the host's grouping: (0.2126 r + 0.7152 g) + 0.0722 b.
__device__ __forceinline__ float luma(const float c[3]) {
    return add(add(mul(0.2126f, c[0]), mul(0.7152f, c[1])), mul(0.0722f, c[2]));
}

// tl::quantize_unorm8: floor(clamp(v, 0, 1) * 255 + 0.5), with the multiply and add rounded apart.
__device__ __forceinline__ std::uint32_t quantize(float v) {
    return static_cast<std::uint32_t>(add(mul(__saturatef(v), 255.0f), 0.5f));
}

using LutTables = std::uint8_t[kMaxPixelLuts][3][256];

__device__ __forceinline__ void apply_op(const DevOp& op, const LutTables& luts, float c[3]) {
    switch (static_cast<PixelOpKind>(op.kind)) {
    case PixelOpKind::BrightnessContrast:
#pragma unroll
        for (int i = 0; i < 3; ++i) c[i] = add(add(mul(sub(c[i], 0.5f), op.b), 0.5f), op.a);
        return;
    case PixelOpKind::Gamma: {
        const float e = 1.0f / op.a;
#pragma unroll
        for (int i = 0; i < 3; ++i) c[i] = powf(fmaxf(c[i], 0.0f), e);
        return;
    }
    case PixelOpKind::Saturation: {
        const float l = luma(c);
#pragma unroll
        for (int i = 0; i < 3; ++i) c[i] = add(l, mul(op.a, sub(c[i], l)));
        return;
    }
    case PixelOpKind::Grayscale: {
        const float l = luma(c);
        c[0] = c[1] = c[2] = l;
        return;
    }
    case PixelOpKind::Invert:
#pragma unroll
        for (int i = 0; i < 3; ++i) c[i] = sub(1.0f, c[i]);
        return;
    case PixelOpKind::Threshold: {
        const float v = luma(c) >= op.a ? 1.0f : 0.0f;
        c[0] = c[1] = c[2] = v;
        return;
    }
    case PixelOpKind::Levels: {
        const float e = 1.0f / op.c;
        const float range = sub(op.b, op.a);
#pragma unroll
        for (int i = 0; i < 3; ++i) {
            const float t = fminf(fmaxf(__fdiv_rn(sub(c[i], op.a), range), 0.0f), 1.0f);
            c[i] = powf(t, e);
        }
        return;
    }
    case PixelOpKind::ColorMatrix: {
        const float* m = op.m;
        const float r = add(add(mul(m[0], c[0]), mul(m[1], c[1])), mul(m[2], c[2]));
        const float g = add(add(mul(m[3], c[0]), mul(m[4], c[1])), mul(m[5], c[2]));
        const float b = add(add(mul(m[6], c[0]), mul(m[7], c[1])), mul(m[8], c[2]));
        c[0] = r;
        c[1] = g;
        c[2] = b;
        return;
    }
    case PixelOpKind::Lut:
#pragma unroll
        for (int i = 0; i < 3; ++i) c[i] = __fdiv_rn(float(luts[op.lut][i][quantize(c[i])]), 255.0f);
        return;
    }
}

__device__ __forceinline__ void apply_chain(const OpsBlock& ops, const LutTables& luts, float c[3]) {
    for (int i = 0; i < ops.count; ++i) apply_op(ops.ops[i], luts, c);
}

// Copies the chain's LUTs from the parameter bank to shared memory, where per-lane random
// indices do not serialise as they would on the constant cache. Caller synchronises the block.
__device__ __forceinline__ void load_luts(const OpsBlock& ops, LutTables& luts) {
    const int words = ops.lut_count * 3 * 256 / 4;
    const auto* from = reinterpret_cast<const std::uint32_t*>(&ops.luts[0][0][0]);
    auto* to = reinterpret_cast<std::uint32_t*>(&luts[0][0][0]);
    for (int i = threadIdx.x; i < words; i += blockDim.x) to[i] = from[i];
}

// ---- pixel formats ------------------------------------------------------------------------------
// A format knows how to process one pixel (its storage type) and one 16-byte chunk.
struct Rgba8 {
    using Pixel = std::uint32_t;  // R lowest byte
    static constexpr int pixels_per_chunk = 4;
    static constexpr int bytes_per_pixel = 4;
    __device__ __forceinline__ static Pixel process(Pixel v, const OpsBlock& ops, const LutTables& luts) {
        constexpr float s = 1.0f / 255.0f;  // same conversion as the reference: v * (1/255)
        float c[3] = {float(v & 0xffu) * s, float((v >> 8) & 0xffu) * s, float((v >> 16) & 0xffu) * s};
        apply_chain(ops, luts, c);
        // Alpha passes through as its original byte (the reference's float round trip is exact).
        return quantize(c[0]) | (quantize(c[1]) << 8) | (quantize(c[2]) << 16) | (v & 0xff000000u);
    }
    __device__ __forceinline__ static uint4 process_chunk(uint4 v, const OpsBlock& ops, const LutTables& luts) {
        return make_uint4(process(v.x, ops, luts), process(v.y, ops, luts), process(v.z, ops, luts),
                          process(v.w, ops, luts));
    }
};

struct Rgba32f {
    using Pixel = float4;
    static constexpr int pixels_per_chunk = 1;
    static constexpr int bytes_per_pixel = 16;
    __device__ __forceinline__ static Pixel process(Pixel v, const OpsBlock& ops, const LutTables& luts) {
        float c[3] = {v.x, v.y, v.z};
        apply_chain(ops, luts, c);
        return make_float4(c[0], c[1], c[2], v.w);  // not clamped, like the reference
    }
    __device__ __forceinline__ static uint4 process_chunk(uint4 v, const OpsBlock& ops, const LutTables& luts) {
        const float4 r = process(make_float4(__uint_as_float(v.x), __uint_as_float(v.y), __uint_as_float(v.z),
                                             __uint_as_float(v.w)),
                                 ops, luts);
        return make_uint4(__float_as_uint(r.x), __float_as_uint(r.y), __float_as_uint(r.z), __float_as_uint(r.w));
    }
};

// ---- addressing -------------------------------------------------------------------------------
// Byte offset of chunk g (0 <= g < total_chunks) within its image, given the image's pitch.
__device__ __forceinline__ std::size_t chunk_offset(const PixelGrid& g, unsigned chunk, std::size_t pitch) {
    const unsigned row = chunk / g.row_chunks;
    const unsigned col = chunk - row * g.row_chunks;
    return std::size_t(row) * pitch + std::size_t(col) * 16u;
}

// The pixels after the last full chunk of every row, one per thread over the whole grid
// (RGBA8 widths that are not a multiple of 4: at most 3 pixels a row, read with plain loads).
template <class Fmt>
__device__ __forceinline__ void process_tails(const PixelGrid& g, const OpsBlock& ops, const LutTables& luts) {
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
