// Mechanism "ldgsts": persistent blocks walk the tiles and keep the next `stages` tiles in flight
// with Ampere's asynchronous global->shared copies (cp.async.cg 16 bytes, SASS LDGSTS), so the
// DRAM latency of tile k+stages hides behind the arithmetic of tile k.
#include "mechanisms.hpp"
#include "tile_compute.cuh"

#include <cuda_pipeline.h>

namespace tl::cuda::detail {

namespace {

using namespace tl::cuda::dev;

__device__ __forceinline__ void wait_prior(int pending) {
    // The count is an immediate in the instruction: one case per allowed depth (stages 1..4).
    switch (pending) {
    case 0: __pipeline_wait_prior(0); break;
    case 1: __pipeline_wait_prior(1); break;
    case 2: __pipeline_wait_prior(2); break;
    default: __pipeline_wait_prior(3); break;
    }
}

struct TileGrid {
    int tiles_x, tiles_total;
};

// Issues the 16-byte copies of tile `tile` into `buf` (one commit group per call, possibly empty).
// Row starts are aligned down to PPC pixels (16 bytes); a chunk is copied only when all of its
// pixels lie inside the image; every other chunk is left for fix_up().
template <class Pixel>
__device__ __forceinline__ void issue_tile(typename Pixel::Storage* buf, const TileShape& s, const TileGrid& g, int tile,
                                           const void* src, std::size_t src_pitch, int w, int h) {
    using Storage = typename Pixel::Storage;
    constexpr int PPC = 16 / sizeof(Storage);  // pixels per 16-byte chunk
    if (tile < g.tiles_total) {
        const int x0 = (tile % g.tiles_x) * s.tw, y0 = (tile / g.tiles_x) * s.th;
        const int ax0 = x0 - s.r - s.ox;  // multiple of PPC
        const int chunks = (s.ox + s.tw + 2 * s.r + PPC - 1) / PPC;
        const int rows = s.th + 2 * s.r;
        for (int ly = threadIdx.y; ly < rows; ly += blockDim.y)
        for (int c = threadIdx.x; c < chunks; c += blockDim.x) {
            const int gx = ax0 + c * PPC, gy = y0 - s.r + ly;
            if (gy < 0 || gy >= h || gx < 0 || gx + PPC > w) continue;
            __pipeline_memcpy_async(buf + ly * s.stride + c * PPC, row_ptr<Pixel>(src, src_pitch, gy) + gx, 16);
        }
    }
    __pipeline_commit();
}

// Fills the pixels of the chunks issue_tile() skipped, with the border rule and plain loads.
template <class Pixel>
__device__ __forceinline__ void fix_up(typename Pixel::Storage* buf, const TileShape& s, int x0, int y0,
                                       const void* src, std::size_t src_pitch, int w, int h, Border border) {
    using Storage = typename Pixel::Storage;
    constexpr int PPC = 16 / sizeof(Storage);
    const int ax0 = x0 - s.r - s.ox;
    const int chunks = (s.ox + s.tw + 2 * s.r + PPC - 1) / PPC;
    const int rows = s.th + 2 * s.r;
    if (ax0 >= 0 && ax0 + chunks * PPC <= w && y0 - s.r >= 0 && y0 - s.r + rows <= h) return;  // all copied
    const int span = s.tw + 2 * s.r;
    for (int ly = threadIdx.y; ly < rows; ly += blockDim.y)
    for (int lx = threadIdx.x; lx < span; lx += blockDim.x) {
        const int gy = y0 - s.r + ly;
        const int cgx = ax0 + (s.ox + lx) / PPC * PPC;
        if (gy >= 0 && gy < h && cgx >= 0 && cgx + PPC <= w) continue;  // copied by LDGSTS
        buf[ly * s.stride + s.ox + lx] = load_bordered<Pixel>(src, src_pitch, w, h, x0 - s.r + lx, gy, border);
    }
}

// Shared memory: `stages` input buffers (th + 2r, stride) Storage, then the float4 strip.
template <class Filter, class Pixel>
__global__ void __launch_bounds__(256) stencil_ldgsts_kernel(const __grid_constant__ Filter f, TileShape s, TileGrid g, int stages,
                                                             const void* src, std::size_t src_pitch, void* dst,
                                                             std::size_t dst_pitch, int w, int h, Border border) {
    using Storage = typename Pixel::Storage;
    extern __shared__ float4 smem_raw[];
    Storage* bufs = reinterpret_cast<Storage*>(smem_raw);
    const int buf_elems = (s.th + 2 * s.r) * s.stride;
    float4* strip = reinterpret_cast<float4*>(reinterpret_cast<char*>(smem_raw) + strip_offset(s, stages, sizeof(Storage)));

    stage_epilogue(f);  // published by the barrier before the first tile's compute
    for (int k = 0; k < stages; ++k)
        issue_tile<Pixel>(bufs + k * buf_elems, s, g, blockIdx.x + k * gridDim.x, src, src_pitch, w, h);
    for (int k = 0;; ++k) {
        const int tile = blockIdx.x + k * gridDim.x;
        if (tile >= g.tiles_total) break;
        Storage* buf = bufs + (k % stages) * buf_elems;
        wait_prior(stages - 1);  // this thread's copies of tile k have landed
        __syncthreads();         // ... and everyone else's
        const int x0 = (tile % g.tiles_x) * s.tw, y0 = (tile / g.tiles_x) * s.th;
        fix_up<Pixel>(buf, s, x0, y0, src, src_pitch, w, h, border);
        __syncthreads();
        compute_tile<Filter, Pixel>(f, buf, strip, s, x0, y0, dst, dst_pitch, w, h);  // ends with a barrier
        issue_tile<Pixel>(buf, s, g, tile + stages * gridDim.x, src, src_pitch, w, h);
    }
    __pipeline_wait_prior(0);  // no copy may still target shared memory when the block exits
}

} // namespace

Result launch_ldgsts(const LaunchArgs& a) {
    return dev::with_pixel(a.src.format, [&](auto pixel) -> Result {
        using Pixel = decltype(pixel);
        using Storage = typename Pixel::Storage;
        constexpr int PPC = 16 / sizeof(Storage);
        // The tile forms (with_tile_forms): Box and user kernels of radius 1 as their
        // compile-time-radius twins (the 3x3 register walk) instead of the separable strip /
        // per-tap window, a 5x5 user kernel on RGBA8 in its float form over raw bytes, a fused op chain.
        return dev::with_filter(a.params, [&](auto filter0) -> Result {
            return dev::with_tile_forms<Pixel>(filter0, a.ops, [&](const auto& filter) -> Result {
                using Filter = std::decay_t<decltype(filter)>;
                const auto& prop = current_device_props();
                const int r = functor_radius(filter);
                std::size_t smem = 0;
                TileShape s =
                    plan_tile(r, sizeof(Storage), Separable<base_filter_t<Filter>>::value, a.policy.stages,
                              prop.sharedMemPerBlockOptin - epilogue_smem_bytes(a.ops), PPC, &smem);
                if (s.tw == 0)
                    return Result::fail("ldgsts: " + std::to_string(a.policy.stages) +
                                        " stages of the tile for this radius do not fit in shared "
                                        "memory; use fewer stages");
                s.ox = (PPC - r % PPC) % PPC;
                const TileGrid g{(a.src.width + s.tw - 1) / s.tw,
                                 ((a.src.width + s.tw - 1) / s.tw) * ((a.src.height + s.th - 1) / s.th)};
                auto kernel = stencil_ldgsts_kernel<Filter, Pixel>;
                // Above 48 KB in all (the fused kernels' static LUT tables count too) needs the
                // opt-in.
                if (smem + epilogue_smem_bytes(a.ops) + 1024 > 48 * 1024)
                    cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                         static_cast<int>(smem));
                const dim3 block = policy_block(a);
                int per_sm = 0;
                if (cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, int(block.x * block.y),
                                                                  smem) != cudaSuccess ||
                    per_sm < 1) {
                    (void)cudaGetLastError();
                    per_sm = 1;
                }
                const int grid = std::min(g.tiles_total, prop.multiProcessorCount * per_sm);
                kernel<<<grid, block, smem, a.stream>>>(filter, s, g, a.policy.stages, a.src.data,
                                                        a.src.pitch, a.dst.data, a.dst.pitch, a.src.width,
                                                        a.src.height, a.border);
                return launch_error("stencil_ldgsts_kernel");
            });
        });
    });
}

} // namespace tl::cuda::detail
