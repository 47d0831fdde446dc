// The compute half of every shared-memory mechanism (smem, ldgsts): given an input tile with its
// halo already in shared memory, write the tile's outputs. Box and Gaussian run separably inside
// the tile (vertical pass into a float4 strip, then horizontal), other filters read their window.
#pragma once

#include "filters.cuh"

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
// Halo width of a filter functor (host and device).
__host__ __device__ inline int functor_radius(const BoxFilter& f) { return f.radius; }
__host__ __device__ inline int functor_radius(const GaussianFilter& f) { return f.radius; }
__host__ __device__ inline int functor_radius(const UserKernelFilter& f) { return f.radius; }
template <class F> __host__ __device__ inline int functor_radius(const F&) { return F::radius; }

// Byte offset of the strip behind `buffers` input tiles (16-byte aligned for float4).
__host__ __device__ inline std::size_t strip_offset(const TileShape& s, int buffers, std::size_t storage_bytes) {
    return (static_cast<std::size_t>(buffers) * static_cast<std::size_t>(s.th + 2 * s.r) *
                static_cast<std::size_t>(s.stride) * storage_bytes + 15) / 16 * 16;
}

// Bytes of shared memory the compute half needs beyond the input tile.
inline std::size_t strip_bytes(const TileShape& s) {
    return static_cast<std::size_t>(s.strip_rows) * static_cast<std::size_t>(s.tw + 2 * s.r) * sizeof(float4);
}

// Writes output pixels (x0 + lx, y0 + ly) for the tile; every thread of the block takes part and
// the caller has already made the input tile visible (__syncthreads). Ends with a barrier so
// the caller may overwrite the input buffer afterwards.
template <class Filter, class Pixel>
__device__ __forceinline__ void compute_tile(const Filter& f, const typename Pixel::Storage* in, float4* strip,
                                             const TileShape& s, int x0, int y0, void* dst, std::size_t dst_pitch,
                                             int w, int h) {
    using Storage = typename Pixel::Storage;
    const int nthreads = blockDim.x * blockDim.y;
    const int tid = threadIdx.y * blockDim.x + threadIdx.x;
    const int r = s.r;
    if constexpr (Separable<Filter>::value) {
        const int span = s.tw + 2 * r;
        const float scale = final_scale(f);
        for (int cy = 0; cy < s.th; cy += s.strip_rows) {
            const int rows = min(s.strip_rows, s.th - cy);
            // Vertical pass: strip[j][c] = sum_k w[k] * in[cy + j + k][c]   (rows, tw + 2r) float4
            for (int i = tid; i < rows * span; i += nthreads) {
                const int j = i / span, c = i - j * span;
                const Storage* col = in + (cy + j) * s.stride + s.ox + c;
                float4 acc = make_float4(0.f, 0.f, 0.f, 0.f);
                for (int k = 0; k <= 2 * r; ++k) fma_into(acc, tap_weight(f, k), Pixel::to_float(col[k * s.stride]));
                strip[j * span + c] = acc;
            }
            __syncthreads();
            // Horizontal pass over the strip, alpha from the centre input pixel.
            for (int i = tid; i < rows * s.tw; i += nthreads) {
                const int j = i / s.tw, lx = i - j * s.tw;
                const int x = x0 + lx, y = y0 + cy + j;
                if (x >= w || y >= h) continue;
                const float4* row = strip + j * span + lx;
                float4 acc = make_float4(0.f, 0.f, 0.f, 0.f);
                for (int k = 0; k <= 2 * r; ++k) fma_into(acc, tap_weight(f, k), row[k]);
                const float a = Pixel::to_float(in[(cy + j + r) * s.stride + s.ox + lx + r]).w;
                row_ptr<Pixel>(dst, dst_pitch, y)[x] = Pixel::from_float(with_alpha(scale * acc, a));
            }
            __syncthreads();
        }
    } else {
        for (int i = tid; i < s.tw * s.th; i += nthreads) {
            const int ly = i / s.tw, lx = i - ly * s.tw;
            const int x = x0 + lx, y = y0 + ly;
            if (x >= w || y >= h) continue;
            const Storage* centre = in + (ly + r) * s.stride + s.ox + lx + r;
            const int stride = s.stride;
            auto win = [centre, stride](int dx, int dy) { return Pixel::to_float(centre[dy * stride + dx]); };
            row_ptr<Pixel>(dst, dst_pitch, y)[x] = Pixel::from_float(f(win));
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
