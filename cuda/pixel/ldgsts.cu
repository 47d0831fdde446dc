// Mechanism "ldgsts": a persistent grid (every resident CTA, no more) where each thread keeps
// `stages` batches in flight with asynchronous global->shared copies (LDGSTS, sm_80+) while it
// computes the oldest one. Lesson order: the ring, the prologue, the steady state.
#include "pixel_kernels.cuh"

#include <cuda_pipeline_primitives.h>

#include <algorithm>

namespace tl::cuda::pixel {

namespace {

// Chunks a thread computes together (the default batch gives each thread 2 per batch).
constexpr int kGroup = 2;

// Ring in dynamic shared memory: (Stages, batch_chunks) uint4, slot k % Stages holds the CTA's
// k-th batch. Batch b covers chunks [b * batch_chunks, (b + 1) * batch_chunks) of the image,
// CTA x takes batches x, x + gridDim, x + 2 gridDim, ...
//
// Every thread copies chunks j = tid, tid + blockDim, ... of a batch and later computes exactly
// those chunks. cp.async.wait_group makes a thread's own copies visible to that thread, so the
// steady state needs no block barrier at all: each thread runs its own pipeline over its lanes
// of the ring. (A thread that consumed another thread's copies would need __syncthreads.)
template <class Fmt, int Stages>
__global__ void pixel_ldgsts_kernel(const PixelGrid g, const __grid_constant__ OpsBlock ops, const unsigned batch_chunks) {
    extern __shared__ __align__(16) uint4 ring[];  // then the chain's LUTs, staged as floats
    StagedLuts& luts = *reinterpret_cast<StagedLuts*>(ring + Stages * batch_chunks);

    // The CTA's batches: b = blockIdx.x, blockIdx.x + gridDim.x, ... (round-robin). Handing each CTA
    // one contiguous share instead evens out the rounds but measured slower on an H100 (8K chain3,
    // ldgsts s1 1.14x -> 1.18x the copy, bulk s2 1.14x -> 1.24x): presumably because with the whole
    // grid on one moving front of the image, neighbouring CTAs share DRAM pages.
    const unsigned num_batches = (g.total_chunks + batch_chunks - 1) / batch_chunks;
    const unsigned batches = blockIdx.x < num_batches ? (num_batches - blockIdx.x + gridDim.x - 1) / gridDim.x : 0u;
    auto batch_first = [&](unsigned k) { return (blockIdx.x + k * gridDim.x) * batch_chunks; };
    auto batch_length = [&](unsigned k) { return min(batch_chunks, g.total_chunks - batch_first(k)); };

    // Issues the CTA's k-th batch into slot k % Stages, then commits one group, even when there is
    // no such batch: group k must always be the k-th group, so the wait below stays a constant.
    auto issue = [&](unsigned k) {
        if (k < batches) {
            uint4* slot = ring + (k % Stages) * batch_chunks;
            const unsigned first = batch_first(k), n = batch_length(k);
            for (unsigned j = threadIdx.x; j < n; j += blockDim.x)  // 16 aligned bytes: one LDGSTS.128 (bypassing L1)
                __pipeline_memcpy_async(&slot[j], g.src + chunk_offset(g, first + j, g.src_pitch), 16);
        }
        __pipeline_commit();
    };

    // Prologue: fill the ring first, then stage the LUTs while those copies fly.
#pragma unroll
    for (int s = 0; s < Stages; ++s) issue(unsigned(s));
    load_luts(ops, luts);
    __syncthreads();

    // The tails (at most 3 pixels a row) are computed while the first batches land.
    process_tails<Fmt>(g, ops, luts);

    // Steady state: wait for the oldest batch, compute it, refill its slot with the batch
    // `Stages` ahead.
    for (unsigned k = 0; k < batches; ++k) {
        __pipeline_wait_prior(Stages - 1);  // groups 0..k done: Stages - 1 younger ones may fly
        const unsigned first = batch_first(k);
        const uint4* slot = ring + (k % Stages) * batch_chunks;
        process_batch<Fmt, kGroup>(
            batch_length(k), ops, luts, [&](unsigned j) { return slot[j]; },
            [&](unsigned j, uint4 v) { *reinterpret_cast<uint4*>(g.dst + chunk_offset(g, first + j, g.dst_pitch)) = v; });
        issue(k + Stages);  // this thread has read its lanes of the slot: safe to overwrite
    }
    __pipeline_wait_prior(0);  // only empty groups remain; leave nothing in flight at exit
}

template <class Fmt, int Stages>
Result launch_stages(const LaunchArgs& a, unsigned batch_chunks) {
    const auto kernel = pixel_ldgsts_kernel<Fmt, Stages>;
    const int block = a.policy.block;
    const std::size_t smem = std::size_t(Stages) * batch_chunks * 16u + staged_lut_bytes(a.ops);
    // Static shared memory counts against the default 48 KiB too, so opt in whenever the
    // dynamic part alone nears it (3 stages x 16 KiB is exactly 48 KiB and did not fit).
    if (smem >= 40u * 1024u) {
        if (auto r = reserve_dynamic_smem(reinterpret_cast<const void*>(kernel), "pixel_ldgsts_kernel", smem, a.device); !r)
            return r;
    }
    const long long batches = (static_cast<long long>(a.grid.total_chunks) + batch_chunks - 1) / batch_chunks;
    int grid = 0;
    if (auto r = occupancy_grid(reinterpret_cast<const void*>(kernel), "pixel_ldgsts_kernel", block, smem,
                                std::max<long long>(batches, 1), a.device, grid);
        !r)
        return r;
    kernel<<<grid, block, smem, a.stream>>>(a.grid, a.ops, batch_chunks);
    return launch_outcome("pixel_ldgsts_kernel");
}

template <class Fmt>
Result launch_fmt(const LaunchArgs& a) {
    const int batch_px = a.policy.batch_pixels;
    const unsigned batch_chunks = batch_px > 0 ? unsigned(batch_px / Fmt::pixels_per_chunk)
                                               : unsigned(default_batch_chunks(PixelMechanism::Ldgsts, a.policy.block));
    switch (a.policy.stages) {
    case 1: return launch_stages<Fmt, 1>(a, batch_chunks);
    case 2: return launch_stages<Fmt, 2>(a, batch_chunks);
    case 3: return launch_stages<Fmt, 3>(a, batch_chunks);
    default: return launch_stages<Fmt, 4>(a, batch_chunks);
    }
}

} // namespace

Result launch_ldgsts(const LaunchArgs& a) {
    return a.grid.format == int(PixelFormat::RGBA8) ? launch_fmt<Rgba8>(a) : launch_fmt<Rgba32f>(a);
}

} // namespace tl::cuda::pixel
