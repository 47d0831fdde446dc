// Mechanism "vector": 16-byte loads and stores (uint4 = 4 RGBA8 pixels or 1 RGBA32F pixel) with
// four independent loads in flight per thread before any is used, grid-stride; the pixels past
// the last full chunk of a row (RGBA8 widths not a multiple of 4) use plain loads.
#include "pixel_kernels.cuh"

#include <algorithm>

namespace tl::cuda::pixel {

namespace {

constexpr int kUnroll = 4;

template <class Fmt>
__global__ void pixel_vector_kernel(const PixelGrid g, const __grid_constant__ OpsBlock ops) {
    __shared__ LutTables luts;
    load_luts(ops, luts);
    __syncthreads();
    process_tails<Fmt>(g, ops, luts);

    // Plain (coherent) loads, not __ldg: src may be dst (in place), which the read-only path forbids.
    // One step of a block covers kUnroll * blockDim chunks; lane i takes chunks i, i + blockDim,
    // ... so every one of the kUnroll loads is coalesced across the warp.
    const unsigned step = gridDim.x * blockDim.x * kUnroll;
    for (unsigned base = blockIdx.x * blockDim.x * kUnroll + threadIdx.x; base < g.total_chunks; base += step) {
        uint4 v[kUnroll];
#pragma unroll
        for (int k = 0; k < kUnroll; ++k) {
            const unsigned c = base + unsigned(k) * blockDim.x;
            if (c < g.total_chunks)
                v[k] = *reinterpret_cast<const uint4*>(g.src + chunk_offset(g, c, g.src_pitch));
        }
#pragma unroll
        for (int k = 0; k < kUnroll; ++k) {
            const unsigned c = base + unsigned(k) * blockDim.x;
            if (c < g.total_chunks)
                *reinterpret_cast<uint4*>(g.dst + chunk_offset(g, c, g.dst_pitch)) = Fmt::process_chunk(v[k], ops, luts);
        }
    }
}

template <class Fmt>
Result launch_fmt(const LaunchArgs& a) {
    const auto kernel = pixel_vector_kernel<Fmt>;
    const int block = a.policy.block;
    const long long per_block = static_cast<long long>(block) * kUnroll;
    const long long work = std::max<long long>((a.grid.total_chunks + per_block - 1) / per_block, 1);
    int grid = 0;
    if (auto r = occupancy_grid(reinterpret_cast<const void*>(kernel), "pixel_vector_kernel", block, 0, work,
                                a.device, grid);
        !r)
        return r;
    kernel<<<grid, block, 0, a.stream>>>(a.grid, a.ops);
    return launch_outcome("pixel_vector_kernel");
}

} // namespace

Result launch_vector(const LaunchArgs& a) {
    return a.grid.format == int(PixelFormat::RGBA8) ? launch_fmt<Rgba8>(a) : launch_fmt<Rgba32f>(a);
}

} // namespace tl::cuda::pixel
