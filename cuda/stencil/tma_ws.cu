// Mechanism "tma_ws": warp-specialised TMA pipeline. Warp 0 is the producer: one elected lane
// issues cp.async.bulk.tensor loads into an S-stage ring and runs up to S tiles ahead; warps
// 1..8 are consumers that compute from the ring. Two mbarriers per stage carry the hand-off:
//   full[s]:  producer arrive.expect_tx(box bytes) + TMA complete_tx  -> consumers may read
//   empty[s]: one arrive per consumer warp                            -> producer may refill
// Compared with "tma", no __syncthreads sits between a tile's compute and the next load: the
// producer only waits for the stage it is about to overwrite.
#include "tma_common.cuh"

#include <algorithm>

namespace tl::cuda::detail {

using namespace dev_tma;

namespace {
constexpr int kConsumerWarps = 8;
constexpr int kThreads = 32 * (1 + kConsumerWarps);
} // namespace

template <class Filter, class Pixel>
__global__ void __launch_bounds__(kThreads) stencil_tma_ws_kernel(const __grid_constant__ CUtensorMap src_map,
                                                                  const __grid_constant__ Filter filter, const TileGeom g) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    using Storage = typename Pixel::Storage;
    extern __shared__ unsigned char smem_raw[];
    __shared__ alignas(8) std::uint64_t full[4];
    __shared__ alignas(8) std::uint64_t empty[4];
    unsigned char* base = align128(smem_raw);
    auto* vbuf = reinterpret_cast<float4*>(base + std::size_t(g.stages) * g.stage_bytes);  // separable filters
    const int warp = static_cast<int>(threadIdx.x) / 32;
    const int lane = static_cast<int>(threadIdx.x) % 32;
    const int ntiles = g.tiles_x * g.tiles_y;
    const int epp = sizeof(Storage) / 4;

    auto issue = [&](int k, int stage) {
        const int tile = static_cast<int>(blockIdx.x) + k * static_cast<int>(gridDim.x);
        const int tx = tile % g.tiles_x, ty = tile / g.tiles_x;
        mbar_arrive_expect_tx(&full[stage], g.box_bytes);
        tma_load_2d(base + std::size_t(stage) * g.stage_bytes, &src_map, (tx * g.tile_w - g.halo_left) * epp,
                    ty * g.tile_h - g.radius, &full[stage]);
    };
    // The producer thread starts the first `stages` tiles' loads before a fused chain's tables are
    // built, so the build overlaps the loads' DRAM latency instead of preceding it.
    int first = 0;  // tiles already issued (producer thread)
    if (threadIdx.x == 0) {
        prefetch_map(&src_map);
        for (int s = 0; s < g.stages; ++s) {
            mbar_init(&full[s], 1);
            mbar_init(&empty[s], kConsumerWarps);
        }
        fence_barrier_init();
        for (; first < g.stages && static_cast<int>(blockIdx.x) + first * static_cast<int>(gridDim.x) < ntiles; ++first)
            issue(first, first);
    }
    tl::cuda::dev::stage_epilogue(filter);  // published by the barrier below
    __syncthreads();

    if (warp == 0) {
        // Producer. Only lane 0 works; the other 31 lanes of the warp simply leave (they hold no
        // barrier role), which frees their issue slots for the consumers.
        if (lane != 0) return;
        for (int k = first;; ++k) {
            const int tile = static_cast<int>(blockIdx.x) + k * static_cast<int>(gridDim.x);
            if (tile >= ntiles) break;
            const int stage = k % g.stages;
            if (k >= g.stages) {
                mbar_wait(&empty[stage], static_cast<std::uint32_t>(((k / g.stages) - 1) & 1));
                fence_proxy_async_smem();  // consumers' fix-up writes before TMA overwrites the stage
            }
            issue(k, stage);
        }
        return;
    }

    // Consumers.
    const int tid = static_cast<int>(threadIdx.x) - 32;
    constexpr int nthreads = 32 * kConsumerWarps;
    for (int k = 0;; ++k) {
        const int tile = static_cast<int>(blockIdx.x) + k * static_cast<int>(gridDim.x);
        if (tile >= ntiles) break;
        const int stage = k % g.stages;
        auto* box = reinterpret_cast<Storage*>(base + std::size_t(stage) * g.stage_bytes);
        const int x0 = (tile % g.tiles_x) * g.tile_w, y0 = (tile / g.tiles_x) * g.tile_h;
        mbar_wait(&full[stage], static_cast<std::uint32_t>((k / g.stages) & 1));
        if (g.border != Border::Zero && tile_touches_edge(g, x0, y0)) {
            fix_border<Pixel>(box, g, x0, y0, tid, nthreads, 0, g.tile_h + 2 * g.radius);
            named_sync(1, nthreads);
        }
        compute_any<Filter, Pixel, false>(filter, box, g, x0, y0, tid, nthreads, nullptr, vbuf,
                                          [] { named_sync(1, nthreads); });
        __syncwarp();
        if (lane == 0) mbar_arrive(&empty[stage]);
    }
#else
    (void)src_map; (void)filter; (void)g;
#endif
}

namespace {

template <class Filter, class Pixel>
Result run_tma_ws(const LaunchArgs& a, const Filter& f, const HopperDevice& dev) {
    const int radius = filter_radius(a.params);
    const bool separable = IsSeparable<dev::base_filter_t<Filter>>::value;
    const int tile_w = fit_tile_w(a.policy.tile_w, a.src.format, radius, separable ? kRun : 4);
    if (tile_w < 4)
        return Result::fail("tma_ws: " + tma_no_room_reason(a.src.format, radius));
    const std::size_t strip = separable ? separable_strip_bytes(tile_w, radius) : 0;
    TmaSetup s;
    if (Result r = prepare_tma(a, "tma_ws", tile_w, a.policy.tile_h, a.policy.stages, false, strip, dev, &s); !r) return r;
    auto kernel = stencil_tma_ws_kernel<Filter, Pixel>;
    const int smem = static_cast<int>(s.plan.shared_bytes);
    if (cudaError_t e = cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, smem); e != cudaSuccess)
        return Result::fail(std::string("stencil_tma_ws_kernel: cannot reserve shared memory: ") + cudaGetErrorName(e));
    int per_sm = 0;
    cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, kThreads, static_cast<std::size_t>(smem));
    if (per_sm < 1) return Result::fail("tma_ws: " + std::to_string(smem) + " bytes of shared memory per block do not fit on an SM");
    const int ntiles = s.plan.tiles_x * s.plan.tiles_y;
    const int grid = std::min(ntiles, per_sm * dev.sm_count);
    kernel<<<grid, kThreads, static_cast<std::size_t>(smem), a.stream>>>(s.src_map, f, s.geom);
    return tma_launch_error("stencil_tma_ws_kernel");
}

} // namespace

Result launch_tma_ws(const LaunchArgs& a) {
    HopperDevice dev;
    if (Result r = query_hopper("tma_ws", &dev); !r) return r;
    return dev::with_pixel(a.src.format, [&](auto pixel) {
        using Pixel = decltype(pixel);
        // The tile forms (with_tile_forms): Box and user kernels of radius 1 as their compile-time-
        // radius twins (register window path), a 5x5 user kernel on RGBA8 in its float form over raw
        // bytes, a fused op chain.
        return dev::with_filter(a.params, [&](auto filter) {
            return dev::with_tile_forms<Pixel>(filter, a.ops, [&](const auto& fe) {
                return run_tma_ws<std::decay_t<decltype(fe)>, Pixel>(a, fe, dev);
            });
        });
    });
}

} // namespace tl::cuda::detail
