// The compute half of every shared-memory mechanism (smem, ldgsts): given an input tile with its
// halo already in shared memory, write the tile's outputs. Box and Gaussian run separably inside
// the tile (vertical pass into a float4 strip, then horizontal), other filters read their window.
#pragma once

#include "filters.cuh"

#include <type_traits>

namespace tl::cuda::dev {

// Geometry of one tile in shared memory, in pixels:
//   input  (th + 2r, tw + 2r) Storage at in[(ly * stride) + ox + lx], pixel (x0 - r + lx, y0 - r + ly)
//   strip  (strip_rows, tw + 2r) float4, vertical sums of strip_rows output rows at a time
// ox > 0 only where the loader aligned the row start down (ldgsts: 16-byte copies).
struct TileShape {
    int tw, th, r;
    int stride;      // Storage elements per shared row (>= ox + tw + 2r)
    int ox;          // first used element of a shared row
    int strip_rows;  // rows of the float4 strip (separable filters); 0 when unused
};

// Separable filters: 1D weights per tap (Box: all 1, normalised at the end).
template <class Filter> struct Separable : std::false_type {};
template <> struct Separable<BoxFilter> : std::true_type {};
template <> struct Separable<GaussianFilter> : std::true_type {};

__device__ __forceinline__ float tap_weight(const BoxFilter&, int) { return 1.0f; }
__device__ __forceinline__ float tap_weight(const GaussianFilter& g, int k) { return g.weights[k]; }
__device__ __forceinline__ float final_scale(const BoxFilter& b) {
    const float n = float(2 * b.radius + 1);
    return 1.0f / (n * n);
}
__device__ __forceinline__ float final_scale(const GaussianFilter&) { return 1.0f; }
// Filters whose radius is the compile-time constant 1 (Sobel, Laplacian, Sharpen, Emboss).
template <class Filter, class = void> struct Radius1 : std::false_type {};
template <class Filter>
struct Radius1<Filter, std::enable_if_t<std::is_pointer_v<decltype(&Filter::radius)>>>  // static member only
    : std::bool_constant<Filter::radius == 1> {};

// Halo width of a filter functor (host and device).
__host__ __device__ inline int functor_radius(const BoxFilter& f) { return f.radius; }
__host__ __device__ inline int functor_radius(const GaussianFilter& f) { return f.radius; }
__host__ __device__ inline int functor_radius(const UserKernelFilter& f) { return f.radius; }
__host__ __device__ inline int functor_radius(const UserKernel5Filter& f) { return f.radius; }
template <class F> __host__ __device__ inline int functor_radius(const F&) { return F::radius; }
template <class F, bool T> __host__ __device__ inline int functor_radius(const Fused<F, T>& f) {
    return functor_radius(static_cast<const F&>(f));
}

// Byte offset of the strip behind `buffers` input tiles (16-byte aligned for float4).
__host__ __device__ inline std::size_t strip_offset(const TileShape& s, int buffers, std::size_t storage_bytes) {
    return (static_cast<std::size_t>(buffers) * static_cast<std::size_t>(s.th + 2 * s.r) *
                static_cast<std::size_t>(s.stride) * storage_bytes + 15) / 16 * 16;
}

// Bytes of shared memory the compute half needs beyond the input tile.
inline std::size_t strip_bytes(const TileShape& s) {
    return static_cast<std::size_t>(s.strip_rows) * static_cast<std::size_t>(s.tw + 2 * s.r) * sizeof(float4);
}

// 3x3 stencils: each thread walks down a column of rows_per_thread outputs keeping a 3x3 window
// of unpacked pixels in registers, so each step reads and unpacks one new row of 3 pixels
// instead of all 9. (3, 3) float4 registers. op(window) -> float4, window(dx, dy); `fin` is the
// filter whose finish() stores the result (the op itself, or the functor an op lambda wraps).
template <class Pixel, class Op, class Fin>
__device__ __forceinline__ void walk3x3(const Op& op, const Fin& fin, const typename Pixel::Storage* in, const TileShape& s, int x0,
                                        int y0, void* dst, std::size_t dst_pitch, int w, int h) {
    using Storage = typename Pixel::Storage;
    const int rows_per_thread = (s.th + blockDim.y - 1) / blockDim.y;
    const int ly0 = threadIdx.y * rows_per_thread;
    const int ly1 = min(s.th, ly0 + rows_per_thread);
    for (int lx = threadIdx.x; lx < s.tw; lx += blockDim.x) {
        const int x = x0 + lx;
        if (x >= w || ly0 >= ly1) continue;
        const Storage* p = in + ly0 * s.stride + s.ox + lx;  // input row ly + 1 is output row ly's centre
        float4 win[3][3];
        for (int k = 0; k < 2; ++k)
            for (int dx = 0; dx < 3; ++dx) win[k + 1][dx] = Pixel::to_float(p[k * s.stride + dx]);
        for (int ly = ly0; ly < ly1; ++ly) {
            const int y = y0 + ly;
            for (int dx = 0; dx < 3; ++dx) {
                win[0][dx] = win[1][dx];
                win[1][dx] = win[2][dx];
                win[2][dx] = Pixel::to_float(p[(ly - ly0 + 2) * s.stride + dx]);
            }
            if (y >= h) break;
            auto window = [&win](int dx, int dy) { return win[dy + 1][dx + 1]; };
            row_ptr<Pixel>(dst, dst_pitch, y)[x] = finish<Pixel>(fin, op(window));
        }
    }
    __syncthreads();
}

// RGBA8 3x3 stencils on a tile whose row starts are aligned for 16-byte copies (ldgsts: the
// pixel left of the tile at element ox = 3, so output column lx sits at element lx + 4, 16-byte
// aligned): a work item is 4 adjacent outputs x kRows rows. Each step reads one new row segment
// of 6 pixels with one 16-byte and two 4-byte shared loads, converts each pixel once and feeds
// the 4 outputs from registers, then writes them as one 16-byte store. walk3x3 above converts 3
// pixels per output and stores 4 bytes per thread.
struct Walk3x3Vec {
    static constexpr int kRows = 4;
    // True when the tile layout and destination allow the vector walk.
    __device__ __forceinline__ static bool fits(const TileShape& s) {
        return s.r == 1 && s.ox == 3 && s.tw % 4 == 0 && s.stride % 4 == 0;
    }
};

template <class Pixel, class Fin>
__device__ __forceinline__ void load_row6(float4 (&d)[6], const std::uint32_t* chunk) {
    // chunk: element lx (16-byte aligned); pixels x - 1 .. x + 4 are elements lx + 3 .. lx + 8.
    // window_unpack: alpha as raw bits (the outputs take it from the centre unchanged), R, G, B
    // in storage units for homogeneous filters.
    const uint4 q = *reinterpret_cast<const uint4*>(chunk + 4);
    const std::uint32_t mid[4] = {q.x, q.y, q.z, q.w};
    unpack_row6<Fin>(chunk[3], mid, chunk[8], d);
}

// The same row segment for the integer (SWAR) form of the filter (filters.cuh, namespace swar):
// 6 pixels unpacked into (R, B) and G-pair 16-bit lanes, and the 4 centre pixels kept raw (alpha).
__device__ __forceinline__ void load_row6_swar(swar::Row& d, std::uint32_t (&raw)[4], const std::uint32_t* chunk) {
    const uint4 mid = *reinterpret_cast<const uint4*>(chunk + 4);
    raw[0] = mid.x;
    raw[1] = mid.y;
    raw[2] = mid.z;
    raw[3] = mid.w;
    unpack_row6(chunk[3], raw, chunk[8], d);
}

template <class Pixel, class Op, class Fin>
__device__ __forceinline__ void walk3x3_vec(const Op& op, const Fin& fin, const std::uint32_t* in, const TileShape& s, int x0, int y0,
                                            void* dst, std::size_t dst_pitch, int w, int h) {
    constexpr int kRows = Walk3x3Vec::kRows;
    const int groups = s.tw / 4;
    const int runs = (s.th + kRows - 1) / kRows;
    const int tid = threadIdx.y * blockDim.x + threadIdx.x;
    const int nthreads = blockDim.x * blockDim.y;
    // x0 is a multiple of tw (a multiple of 4), so every group starts on a 16-byte boundary of
    // an aligned row.
    const bool vec = reinterpret_cast<std::uintptr_t>(dst) % 16 == 0 && dst_pitch % 16 == 0;
    for (int item = tid; item < groups * runs; item += nthreads) {
        const int ry = item / groups;
        const int lx = (item - ry * groups) * 4;
        const int ly0 = ry * kRows;
        const int x = x0 + lx;
        if (x >= w || y0 + ly0 >= h) continue;
        const std::uint32_t* row = in + ly0 * s.stride + lx;  // input row ly + 1 is output row ly's centre
        if constexpr (std::is_same_v<Op, Fin> && swar3x3_v<Fin, Pixel>) {
            // The filter itself (not a lambda around it) with an integer form: its swar4 on
            // unpacked lanes instead of the float window.
            swar::Row lanes[3];
            std::uint32_t raw[3][4];
            load_row6_swar(lanes[0], raw[0], row);
            load_row6_swar(lanes[1], raw[1], row + s.stride);
#pragma unroll
            for (int step = 0; step < kRows; ++step) {
                const int ly = ly0 + step;
                if (ly >= s.th || y0 + ly >= h) break;
                load_row6_swar(lanes[(step + 2) % 3], raw[(step + 2) % 3], row + (step + 2) * s.stride);
                std::uint32_t out[4];
                op.swar4(lanes[step % 3], lanes[(step + 1) % 3], lanes[(step + 2) % 3], raw[(step + 1) % 3], out);
                finish4(fin, out);
                auto* o = row_ptr<Pixel>(dst, dst_pitch, y0 + ly) + x;
                if (vec && x + 3 < w) {
                    *reinterpret_cast<uint4*>(o) = make_uint4(out[0], out[1], out[2], out[3]);
                } else {
#pragma unroll
                    for (int i = 0; i < 4; ++i)
                        if (x + i < w) o[i] = out[i];
                }
            }
            continue;
        }
        float4 ring[3][6];
        load_row6<Pixel, Fin>(ring[0], row);
        load_row6<Pixel, Fin>(ring[1], row + s.stride);
#pragma unroll
        for (int step = 0; step < kRows; ++step) {
            const int ly = ly0 + step;
            if (ly >= s.th || y0 + ly >= h) break;
            load_row6<Pixel, Fin>(ring[(step + 2) % 3], row + (step + 2) * s.stride);
            std::uint32_t out[4];
            window_outputs4<Fin>(op, ring, step, out);
            finish4(fin, out);
            auto* o = row_ptr<Pixel>(dst, dst_pitch, y0 + ly) + x;
            if (vec && x + 3 < w) {
                *reinterpret_cast<uint4*>(o) = make_uint4(out[0], out[1], out[2], out[3]);
            } else {
#pragma unroll
                for (int i = 0; i < 4; ++i)
                    if (x + i < w) o[i] = out[i];
            }
        }
    }
    __syncthreads();
}

// Either 3x3 walk: the vector one where the layout allows it (RGBA8, aligned rows), else the
// column walk.
template <class Pixel, class Op, class Fin>
__device__ __forceinline__ void walk3x3_any(const Op& op, const Fin& fin, const typename Pixel::Storage* in, const TileShape& s, int x0,
                                            int y0, void* dst, std::size_t dst_pitch, int w, int h) {
    if constexpr (sizeof(typename Pixel::Storage) == 4) {
        if (Walk3x3Vec::fits(s)) {
            walk3x3_vec<Pixel>(op, fin, reinterpret_cast<const std::uint32_t*>(in), s, x0, y0, dst, dst_pitch, w, h);
            return;
        }
    }
    walk3x3<Pixel>(op, fin, in, s, x0, y0, dst, dst_pitch, w, h);
}

// The user 5x5 kernel's window, one output per thread over the tile (the weights indexed with
// compile-time constants, so they stay in the constant bank). No barrier.
template <class Pixel, class Filter>
__device__ __forceinline__ void user5_window_tile(const Filter& f, const typename Pixel::Storage* in,
                                                  const TileShape& s, int x0, int y0, void* dst,
                                                  std::size_t dst_pitch, int w, int h) {
    using Storage = typename Pixel::Storage;
    for (int ly = threadIdx.y; ly < s.th; ly += blockDim.y)
        for (int lx = threadIdx.x; lx < s.tw; lx += blockDim.x) {
            const int x = x0 + lx, y = y0 + ly;
            if (x >= w || y >= h) continue;
            const Storage* centre = in + (ly + 2) * s.stride + s.ox + lx + 2;
            float4 acc = make_float4(0.f, 0.f, 0.f, 0.f);
#pragma unroll
            for (int dy = -2; dy <= 2; ++dy)
#pragma unroll
                for (int dx = -2; dx <= 2; ++dx)
                    fma_into(acc, f.weights[(dy + 2) * 5 + dx + 2],
                             Pixel::to_float(centre[dy * s.stride + dx]));
            const float a = Pixel::to_float(centre[0]).w;
            row_ptr<Pixel>(dst, dst_pitch, y)[x] =
                finish<Pixel>(f, make_float4(fmaf(f.scale, acc.x, f.bias), fmaf(f.scale, acc.y, f.bias),
                                             fmaf(f.scale, acc.z, f.bias), a));
        }
}

// Writes output pixels (x0 + lx, y0 + ly) for the tile; every thread of the block takes part and
// the caller has already made the input tile visible (__syncthreads). Ends with a barrier so
// the caller may overwrite the input buffer afterwards.
template <class Filter, class Pixel>
__device__ __forceinline__ void compute_tile(const Filter& f, const typename Pixel::Storage* in, float4* strip,
                                             const TileShape& s, int x0, int y0, void* dst, std::size_t dst_pitch,
                                             int w, int h) {
    using Storage = typename Pixel::Storage;
    using Base = base_filter_t<Filter>;  // a fused functor computes as the filter it wraps
    const int r = s.r;
    if constexpr (std::is_same_v<Base, BoxFilter>) {
        // Box: running sums in storage units (exact for RGBA8: integers below 2^24).
        // Vertical: each thread owns 8 rows of one input column of the strip: one (2r+1)-row
        // sum, then slides it (add the row entering, drop the row leaving). Horizontal: each
        // thread slides a (2r+1)-wide sum over 4 neighbouring outputs. Cost per output is
        // about (2r + 15) / 8 + (2r + 7) / 4 taps instead of (2r+1)^2.
        const int span = s.tw + 2 * r;
        const int tid = threadIdx.y * blockDim.x + threadIdx.x;
        const int nthreads = blockDim.x * blockDim.y;
        const float n = float(2 * r + 1);
        const float scale = Pixel::raw_scale / (n * n);
        const int segs = s.tw / 4;
        constexpr int kRowsPerThread = 8;
        for (int cy = 0; cy < s.th; cy += s.strip_rows) {
            const int rows = min(s.strip_rows, s.th - cy);
            const int row_segs = (rows + kRowsPerThread - 1) / kRowsPerThread;
            for (int item = tid; item < span * row_segs; item += nthreads) {
                const int sg = item / span, c = item - sg * span;
                const int j0 = sg * kRowsPerThread, j1 = min(rows, j0 + kRowsPerThread);
                const Storage* col = in + (cy + j0) * s.stride + s.ox + c;
                float4 acc = make_float4(0.f, 0.f, 0.f, 0.f);
                for (int k = 0; k <= 2 * r; ++k) acc = acc + Pixel::to_raw(col[k * s.stride]);
                strip[j0 * span + c] = acc;
                for (int j = j0 + 1; j < j1; ++j) {
                    acc = acc + Pixel::to_raw(col[(j - j0 + 2 * r) * s.stride]) - Pixel::to_raw(col[(j - j0 - 1) * s.stride]);
                    strip[j * span + c] = acc;
                }
            }
            __syncthreads();
            for (int i = tid; i < rows * segs; i += nthreads) {
                const int j = i / segs, lx0 = (i - j * segs) * 4;
                const int y = y0 + cy + j;
                if (y >= h) continue;
                const float4* row = strip + j * span + lx0;
                float4 sum = make_float4(0.f, 0.f, 0.f, 0.f);
                for (int k = 0; k <= 2 * r; ++k) sum = sum + row[k];
                const Storage* centre = in + (cy + j + r) * s.stride + s.ox + lx0 + r;
                auto* out = row_ptr<Pixel>(dst, dst_pitch, y) + x0 + lx0;
                Storage res[4];
                for (int q = 0; q < 4; ++q) {
                    if (q > 0) sum = sum + row[q + 2 * r] - row[q - 1];
                    res[q] = Pixel::from_float(with_alpha(scale * sum, Pixel::to_float(centre[q]).w));
                }
                finish4(f, res);
                // Four RGBA8 pixels are one 16-byte store when they are all inside and aligned.
                if constexpr (sizeof(Storage) == 4) {
                    if (x0 + lx0 + 3 < w && reinterpret_cast<std::uintptr_t>(out) % 16 == 0) {
                        *reinterpret_cast<uint4*>(out) = make_uint4(res[0], res[1], res[2], res[3]);
                        continue;
                    }
                }
                for (int q = 0; q < 4; ++q)
                    if (x0 + lx0 + q < w) out[q] = res[q];
            }
            __syncthreads();
        }
    } else if constexpr (Separable<Base>::value) {
        const int span = s.tw + 2 * r;
        // Tap weights staged in shared memory: indexing the kernel-parameter copy with a runtime
        // tap number would make the compiler copy the whole functor to local memory.
        __shared__ float taps[61];
        for (int k = threadIdx.y * blockDim.x + threadIdx.x; k <= 2 * r; k += blockDim.x * blockDim.y)
            taps[k] = tap_weight(f, k);
        __syncthreads();
        const float scale = final_scale(f) * Pixel::raw_scale;
        for (int cy = 0; cy < s.th; cy += s.strip_rows) {
            const int rows = min(s.strip_rows, s.th - cy);
            // Vertical pass: strip[j][c] = sum_k w[k] * in[cy + j + k][c]   (rows, tw + 2r) float4
            // 2D thread walk (no per-pixel division): x across the warp, rows across warps.
            // A work item is one column and 4 output rows: a 4-deep window of converted pixels
            // slides down the taps ((4 + 2r) loads and conversions per 4 outputs instead of
            // 4 (2r + 1)); per output the taps are summed in the same order as one at a time.
            // Consecutive threads take consecutive columns.
            const int groups = (rows + 3) / 4;
            for (int item = threadIdx.y * blockDim.x + threadIdx.x; item < groups * span;
                 item += blockDim.x * blockDim.y) {
                const int q = item / span, c = item - q * span;
                const int j0 = q * 4;
                const Storage* col = in + (cy + j0) * s.stride + s.ox + c;
                if (j0 + 4 <= rows) {
                    float4 win[4], acc[4];
#pragma unroll
                    for (int i = 0; i < 4; ++i) {
                        win[i] = Pixel::to_raw(col[i * s.stride]);
                        acc[i] = make_float4(0.f, 0.f, 0.f, 0.f);
                    }
                    for (int k = 0; k <= 2 * r; ++k) {
                        const float t = taps[k];
#pragma unroll
                        for (int i = 0; i < 4; ++i) fma_into(acc[i], t, win[i]);
                        if (k < 2 * r) {
                            win[0] = win[1];
                            win[1] = win[2];
                            win[2] = win[3];
                            win[3] = Pixel::to_raw(col[(k + 4) * s.stride]);
                        }
                    }
#pragma unroll
                    for (int i = 0; i < 4; ++i) strip[(j0 + i) * span + c] = acc[i];
                } else {
                    for (int j = j0; j < rows; ++j) {
                        const Storage* cj = col + (j - j0) * s.stride;
                        float4 acc = make_float4(0.f, 0.f, 0.f, 0.f);
                        // Storage units (no per-tap 1/255); the scale is applied once per output.
                        for (int k = 0; k <= 2 * r; ++k) fma_into(acc, taps[k], Pixel::to_raw(cj[k * s.stride]));
                        strip[j * span + c] = acc;
                    }
                }
            }
            __syncthreads();
            // Horizontal pass over the strip, alpha from the centre input pixel. A work item is 4
            // adjacent outputs of one row: a 4-wide register window slides along the taps (one
            // 16-byte strip load per tap instead of 4), same summation order as one output at a
            // time. Consecutive threads take consecutive rows. 16-byte stores where aligned.
            const int quads = s.tw / 4;  // tw is a multiple of 16 (plan_tile)
            const bool vec = sizeof(Storage) == 4 && reinterpret_cast<std::uintptr_t>(dst) % 16 == 0 &&
                             dst_pitch % 16 == 0;
            for (int item = threadIdx.y * blockDim.x + threadIdx.x; item < rows * quads;
                 item += blockDim.x * blockDim.y) {
                const int qd = item / rows, j = item - qd * rows;
                const int lx = qd * 4;
                const int x = x0 + lx, y = y0 + cy + j;
                if (x >= w || y >= h) continue;
                const float4* row = strip + j * span + lx;
                float4 win[4] = {row[0], row[1], row[2], row[3]};
                float4 acc[4];
#pragma unroll
                for (int i = 0; i < 4; ++i) acc[i] = make_float4(0.f, 0.f, 0.f, 0.f);
                for (int k = 0; k <= 2 * r; ++k) {
                    const float t = taps[k];
#pragma unroll
                    for (int i = 0; i < 4; ++i) fma_into(acc[i], t, win[i]);
                    if (k < 2 * r) {
                        win[0] = win[1];
                        win[1] = win[2];
                        win[2] = win[3];
                        win[3] = row[k + 4];
                    }
                }
                const Storage* centre = in + (cy + j + r) * s.stride + s.ox + lx + r;
                Storage res[4];
#pragma unroll
                for (int i = 0; i < 4; ++i)
                    res[i] = Pixel::from_float(with_alpha(scale * acc[i], Pixel::to_float(centre[i]).w));
                finish4(f, res);
                auto* out = row_ptr<Pixel>(dst, dst_pitch, y) + x;
                if constexpr (sizeof(Storage) == 4) {
                    if (vec && x + 3 < w) {
                        *reinterpret_cast<uint4*>(out) = make_uint4(res[0], res[1], res[2], res[3]);
                        continue;
                    }
                }
#pragma unroll
                for (int i = 0; i < 4; ++i)
                    if (x + i < w) out[i] = res[i];
            }
            __syncthreads();
        }
    } else if constexpr (Radius1<Base>::value) {
        walk3x3_any<Pixel>(f, f, in, s, x0, y0, dst, dst_pitch, w, h);
    } else if constexpr (std::is_same_v<Base, UserKernel5Filter> && std::is_same_v<Pixel, PixelRGBA8>) {
        // The user 5x5 kernel's float form over raw bytes (UserKernel5Filter::planar_item), as on
        // the TMA tile mechanisms: a work item is 4 adjacent outputs x 4 rows (a 64x64 tile has
        // 256, one per thread of the default block). Pixels are read one word at a time (the row
        // start is not 16-byte aligned here), volatile so that each channel reads them again
        // instead of keeping all 8 rows' pixels live. Weights the form cannot hold (a zero scale,
        // weights that are not finite): the per-pixel window (user5_window_tile), as before.
        const int tid = threadIdx.y * blockDim.x + threadIdx.x;
        const int nthreads = blockDim.x * blockDim.y;
        const int groups = s.tw / 4, runs = (s.th + 3) / 4;
        for (int item = tid; f.planar.usable && item < groups * runs; item += nthreads) {
            const int ry = item / groups;
            const int lx = (item - ry * groups) * 4, ly0 = ry * 4;
            const int x = x0 + lx;
            if (x >= w || y0 + ly0 >= h) continue;
            const int rows = min(4, min(s.th - ly0, h - y0 - ly0));
            const auto* corner =
                reinterpret_cast<const volatile std::uint32_t*>(in + ly0 * s.stride + s.ox + lx);
            std::uint32_t out[4][4];
            f.template planar_item<4>(
                rows,
                [&](int i, std::uint32_t(&px)[8]) {
#pragma unroll
                    for (int k = 0; k < 8; ++k) px[k] = corner[i * s.stride + k];
                },
                [&](int step, std::uint32_t(&c)[4]) {
#pragma unroll
                    for (int k = 0; k < 4; ++k) c[k] = corner[(step + 2) * s.stride + 2 + k];
                },
                out);
            for (int step = 0; step < rows; ++step) {
                finish4(f, out[step]);
                auto* o = row_ptr<Pixel>(dst, dst_pitch, y0 + ly0 + step) + x;
                if (x + 3 < w && reinterpret_cast<std::uintptr_t>(o) % 16 == 0) {
                    *reinterpret_cast<uint4*>(o) =
                        make_uint4(out[step][0], out[step][1], out[step][2], out[step][3]);
                } else {
                    for (int i = 0; i < 4; ++i)
                        if (x + i < w) o[i] = out[step][i];
                }
            }
        }
        if (!f.planar.usable) user5_window_tile<Pixel>(f, in, s, x0, y0, dst, dst_pitch, w, h);
        __syncthreads();
    } else if constexpr (std::is_same_v<Base, UserKernelFilter>) {
        // The weights are indexed with compile-time constants (fully unrolled 3x3 or 5x5 loops),
        // so they stay in the constant bank instead of being copied to local memory.
        if (f.radius == 1) {
            auto op = [&f](const auto& win) {
                float4 acc = make_float4(0.f, 0.f, 0.f, 0.f);
#pragma unroll
                for (int dy = -1; dy <= 1; ++dy)
#pragma unroll
                    for (int dx = -1; dx <= 1; ++dx) fma_into(acc, f.weights[(dy + 1) * 3 + dx + 1], win(dx, dy));
                return make_float4(fmaf(f.scale, acc.x, f.bias), fmaf(f.scale, acc.y, f.bias),
                                   fmaf(f.scale, acc.z, f.bias), win(0, 0).w);
            };
            walk3x3_any<Pixel>(op, f, in, s, x0, y0, dst, dst_pitch, w, h);
        } else {
            user5_window_tile<Pixel>(f, in, s, x0, y0, dst, dst_pitch, w, h);
            __syncthreads();
        }
    } else {
        for (int ly = threadIdx.y; ly < s.th; ly += blockDim.y)
        for (int lx = threadIdx.x; lx < s.tw; lx += blockDim.x) {
            const int x = x0 + lx, y = y0 + ly;
            if (x >= w || y >= h) continue;
            const Storage* centre = in + (ly + r) * s.stride + s.ox + lx + r;
            const int stride = s.stride;
            auto win = [centre, stride](int dx, int dy) { return Pixel::to_float(centre[dy * stride + dx]); };
            row_ptr<Pixel>(dst, dst_pitch, y)[x] = finish<Pixel>(f, f(win));
        }
        __syncthreads();
    }
}

} // namespace tl::cuda::dev

namespace tl::cuda::detail {

// Host: picks the tile for a filter radius so that `buffers` input tiles plus the strip fit in
// `smem_limit` bytes; align_px > 1 leaves room to align each row start down to that many pixels.
// Returns tw == 0 when even a 16x16 tile does not fit.
inline dev::TileShape plan_tile(int r, std::size_t bpp, bool separable, int buffers, std::size_t smem_limit,
                                int align_px, std::size_t* smem_bytes) {
    dev::TileShape s{};
    for (int tw = 64, th = 64; tw >= 16;) {
        const int span = tw + 2 * r;
        s.tw = tw;
        s.th = th;
        s.r = r;
        s.ox = 0;
        // Room for the row start to move left by up to align_px - 1 and the end to round up.
        s.stride = align_px > 1 ? (span + 2 * align_px - 1) / align_px * align_px : span;
        s.strip_rows = separable ? (th < 16 ? th : 16) : 0;
        const std::size_t bytes = dev::strip_offset(s, buffers, bpp) + dev::strip_bytes(s);
        if (bytes <= smem_limit) {
            *smem_bytes = bytes;
            return s;
        }
        if (th > tw / 2) th /= 2;  // shrink height first: halo rows cost less than halo columns
        else { tw /= 2; th = tw; }
    }
    s.tw = 0;
    *smem_bytes = 0;
    return s;
}

} // namespace tl::cuda::detail
