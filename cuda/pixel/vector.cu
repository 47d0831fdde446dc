// Mechanism "vector": 16-byte loads and stores (uint4 = 4 RGBA8 pixels or 1 RGBA32F pixel) with
// two independent loads in flight per thread before any is used; the pixels past the last full
// chunk of a row (RGBA8 widths not a multiple of 4) use plain loads.
//
// Two chunks (8 RGBA8 pixels) per thread, not four: the chain over 16 pixels held 48 floats at
// once and needed 72 registers (3 blocks of 256 per SM); over 8 pixels the RGBA8 kernel needs 40
// (ptxas -v, sm_90: 6 blocks per SM), so while some blocks run the chain others have their loads
// in flight. H100, 4K RGBA8, median of 100: chain3 (lut, brightness-contrast, gamma)
// 28.8 -> 26.8 us (copy kernel 25.6), chain1 26.4 -> 26.2, chain8 52.9 -> 51.2. Also measured,
// slower: four chunks as two groups of two (48 registers) 26.8 / 27.7 / 62.2 us for chain1 / 3 /
// 8; eight chunks per thread 31.9-34.6 us for chain3; a 64-register cap on four chunks spilled.
//
// One block per 2 x blockDim chunks, as many blocks as the image needs, not a persistent grid:
// a 4K image is ~5.1 steps of all resident blocks, so a grid-stride loop over them left the last
// step to a tenth of the blocks (half-empty SMs while the rest waited); with many short blocks
// the block scheduler fills each SM again as soon as a block retires.
#include "pixel_kernels.cuh"

#include <algorithm>

namespace tl::cuda::pixel {

namespace {

constexpr int kUnroll = 2;

// Block x covers chunks [x * kUnroll * blockDim, (x + 1) * kUnroll * blockDim): the launcher
// starts ceil(total_chunks / (kUnroll * blockDim)) blocks (at least one, for the tails).
template <class Fmt>
__global__ void pixel_vector_kernel(const PixelGrid g, const __grid_constant__ OpsBlock ops) {
    extern __shared__ __align__(16) uint4 dyn[];  // the chain's LUTs, staged (none without a Lut op)
    StagedLuts& luts = *reinterpret_cast<StagedLuts*>(dyn);

    // Plain (coherent) loads, not __ldg: src may be dst (in place), which the read-only path forbids.
    // Lane i takes chunks i, i + blockDim, ... so every one of the kUnroll loads is coalesced across
    // the warp. They are issued first, so the LUT staging below runs while they are in flight.
    const unsigned base = blockIdx.x * blockDim.x * kUnroll + threadIdx.x;
    uint4 v[kUnroll];
#pragma unroll
    for (int k = 0; k < kUnroll; ++k) {
        const unsigned c = base + unsigned(k) * blockDim.x;
        v[k] = c < g.total_chunks ? *reinterpret_cast<const uint4*>(g.src + chunk_offset(g, c, g.src_pitch))
                                  : make_uint4(0u, 0u, 0u, 0u);
    }
    if (ops.lut_count > 0) {  // uniform over the grid: the barrier is reached by all or by none
        load_luts(ops, luts);
        __syncthreads();
    }
    process_tails<Fmt>(g, ops, luts);

    // All kUnroll chunks through the chain together: each op is dispatched once per 8 RGBA8 pixels.
    Fmt::process_chunks(v, ops, luts);
#pragma unroll
    for (int k = 0; k < kUnroll; ++k) {
        const unsigned c = base + unsigned(k) * blockDim.x;
        if (c < g.total_chunks) *reinterpret_cast<uint4*>(g.dst + chunk_offset(g, c, g.dst_pitch)) = v[k];
    }
}

template <class Fmt>
Result launch_fmt(const LaunchArgs& a) {
    const auto kernel = pixel_vector_kernel<Fmt>;
    const int block = a.policy.block;
    const long long per_block = static_cast<long long>(block) * kUnroll;
    const long long work = std::max<long long>((a.grid.total_chunks + per_block - 1) / per_block, 1);
    const std::size_t smem = staged_lut_bytes(a.ops);
    int resident = 0;  // only to check that a block fits; the grid is the whole image
    if (auto r = occupancy_grid(reinterpret_cast<const void*>(kernel), "pixel_vector_kernel", block, smem, work,
                                a.device, resident);
        !r)
        return r;
    kernel<<<static_cast<unsigned>(work), block, smem, a.stream>>>(a.grid, a.ops);
    return launch_outcome("pixel_vector_kernel");
}

} // namespace

Result launch_vector(const LaunchArgs& a) {
    return a.grid.format == int(PixelFormat::RGBA8) ? launch_fmt<Rgba8>(a) : launch_fmt<Rgba32f>(a);
}

} // namespace tl::cuda::pixel
