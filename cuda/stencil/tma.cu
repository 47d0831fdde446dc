// Mechanism "tma": persistent CTAs stream tiles through an N-stage ring of shared-memory boxes
// that the Tensor Memory Accelerator fills (cp.async.bulk.tensor.2d, UTMALDG in SASS), each
// stage completing on an mbarrier by transaction bytes; optional TMA store of the output tile.
//
// Per CTA (one tile = tile_w x tile_h outputs, one box = (tile_h + 2R) rows x (HL + tile_w + R) px,
// HL = R rounded up to 16 bytes so every box x start is 16-byte aligned):
//   thread 0:  fills stages 0..S-1 with the CTA's first S tiles
//   loop k:    wait full[k % S] (phase (k / S) & 1)
//              edge tile and Clamp/Mirror: fix the zero-filled halo in shared memory
//              every thread: 4 adjacent outputs per work item from the shared box
//              sync; thread 0 refills stage k % S with tile k + S (overlaps the next compute)
#include "tma_common.cuh"
#include "tma_box_stream.hpp"
#include "tma_gauss_stream.hpp"

#include <algorithm>
#include <type_traits>

namespace tl::cuda::detail {

using namespace dev_tma;

// Register caps (__launch_bounds__ maxThreads, minBlocks) for two RGBA8 instantiations that
// were register-bound on occupancy (ptxas -v before -> after; blocks per SM, default 64x32 tile):
//   Sobel      122 -> 96 registers (4 bytes spilled), 4 -> 5 blocks: it launches one 128-thread
//              block per tile (run_tma), so the cap is computed for 128 threads per block
//   Gaussian   125 -> 78 (no spill), 2 -> 3 blocks of 256 threads
// H100, 4K RGBA8 clamp: tma Sobel 59.3 -> 54.7 us (with sqrt.approx, filters.cuh), Gaussian
// s=0.5/1.5/3 108.0/184.7/275.2 -> 93.5/160.3/241.0 us. minBlocks 0 leaves ptxas unconstrained:
// the other instantiations compile as before (the RGBA32F twins spill under these caps).
// Emboss (98) and UserKernel3 (100) would fit 80 without spilling at (128, 6); not yet timed.
// Since the RGBA8 3x3 filters run in integers (filters.cuh, swar4) Sobel needs 77 registers and
// emboss 58, so these caps no longer bind them. Capping Sobel at (128, 8) (64 registers, 8 blocks
// instead of 6 per SM) was expected to bring it from 35 to ~31 us and measured 35.3 -> 36.1 us
// (H100 4K clamp): not kept.
template <class Filter, class Pixel>
inline constexpr bool kTmaSobel8 =
    std::is_same_v<Pixel, tl::cuda::dev::PixelRGBA8> &&
    std::is_same_v<tl::cuda::dev::base_filter_t<Filter>, tl::cuda::dev::SobelFilter>;
template <class Filter, class Pixel>
inline constexpr int kTmaMaxThreads = kTmaSobel8<Filter, Pixel> ? 128 : 256;
template <class Filter, class Pixel>
inline constexpr int kTmaMinBlocks =
    kTmaSobel8<Filter, Pixel> ? 5
    : std::is_same_v<Pixel, tl::cuda::dev::PixelRGBA8> && std::is_same_v<tl::cuda::dev::base_filter_t<Filter>, tl::cuda::dev::GaussianFilter> ? 3
                                                                                                                  : 0;

template <class Filter, class Pixel>
__global__ void __launch_bounds__((kTmaMaxThreads<Filter, Pixel>), (kTmaMinBlocks<Filter, Pixel>))
    stencil_tma_kernel(const __grid_constant__ CUtensorMap src_map, const __grid_constant__ CUtensorMap dst_map,
                       const __grid_constant__ Filter filter, const TileGeom g) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    using Storage = typename Pixel::Storage;
    extern __shared__ unsigned char smem_raw[];
    __shared__ alignas(8) std::uint64_t full[4];
    unsigned char* base = align128(smem_raw);
    unsigned char* after_ring = base + std::size_t(g.stages) * g.stage_bytes;
    auto* staging = g.tma_store ? reinterpret_cast<Storage*>(after_ring) : nullptr;
    // (kStripRows, tile_w + 2R) float4 behind the staging tile; separable filters only.
    auto* vbuf = reinterpret_cast<float4*>(
        after_ring + (g.tma_store ? std::size_t(g.tile_w) * std::size_t(g.tile_h) * sizeof(Storage) : 0));
    const int tid = static_cast<int>(threadIdx.x);
    const int nthreads = static_cast<int>(blockDim.x);
    const int ntiles = g.tiles_x * g.tiles_y;
    const int epp = sizeof(Storage) / 4;  // tensor elements per pixel

    auto issue = [&](int tile, int stage) {
        const int tx = tile % g.tiles_x, ty = tile / g.tiles_x;
        mbar_arrive_expect_tx(&full[stage], g.box_bytes);
        // The box starts halo_left pixels left of (R rounded up to 16 bytes: TMA faults on box x
        // starts off a 16-byte boundary) and R rows above the tile, negative at the image edge:
        // TMA zero-fills whatever lies outside the tensor.
        tma_load_2d(base + std::size_t(stage) * g.stage_bytes, &src_map, (tx * g.tile_w - g.halo_left) * epp,
                    ty * g.tile_h - g.radius, &full[stage]);
    };

    // Thread 0 starts the first tiles' loads before a fused chain's tables are built, so the
    // build overlaps the loads' DRAM latency instead of preceding it.
    if (tid == 0) {
        prefetch_map(&src_map);
        for (int s = 0; s < g.stages; ++s) mbar_init(&full[s], 1);
        fence_barrier_init();
        for (int s = 0; s < g.stages; ++s) {
            const int t = static_cast<int>(blockIdx.x) + s * static_cast<int>(gridDim.x);
            if (t < ntiles) issue(t, s);
        }
    }
    tl::cuda::dev::stage_epilogue(filter);  // published by the barrier below
    __syncthreads();

    for (int k = 0;; ++k) {
        const int tile = static_cast<int>(blockIdx.x) + k * static_cast<int>(gridDim.x);
        if (tile >= ntiles) break;
        const int stage = k % g.stages;
        auto* box = reinterpret_cast<Storage*>(base + std::size_t(stage) * g.stage_bytes);
        const int x0 = (tile % g.tiles_x) * g.tile_w, y0 = (tile / g.tiles_x) * g.tile_h;
        mbar_wait(&full[stage], static_cast<std::uint32_t>((k / g.stages) & 1));
        if (g.border != Border::Zero && tile_touches_edge(g, x0, y0)) {  // uniform per CTA
            fix_border<Pixel>(box, g, x0, y0, tid, nthreads, 0, g.tile_h + 2 * g.radius);
            __syncthreads();
        }
        // Right-edge tiles of images whose rows end mid 16-byte chunk skip the TMA store (see
        // dst_rows_aligned); uniform per CTA.
        Storage* stg = (staging && (g.dst_rows_aligned || x0 + g.tile_w <= g.width)) ? staging : nullptr;
        compute_any<Filter, Pixel>(filter, box, g, x0, y0, tid, nthreads, stg, vbuf, [] { __syncthreads(); });
        if (stg) {
            fence_proxy_async_smem();  // each writer orders its staging writes before the TMA store
            __syncthreads();
            if (tid == 0) {
                tma_store_2d(&dst_map, x0 * epp, y0, stg);
                bulk_commit();
                bulk_wait_read();  // staging is rewritten by the next tile
            }
        }
        __syncthreads();  // every thread is done with this stage
        if (tid == 0) {
            const int next = tile + g.stages * static_cast<int>(gridDim.x);
            if (next < ntiles) {
                fence_proxy_async_smem();  // the fix-up's generic writes before TMA overwrites the stage
                issue(next, stage);
            }
        }
    }
    if (staging && tid == 0) bulk_wait_all();
#else
    (void)src_map; (void)dst_map; (void)filter; (void)g;
#endif
}

namespace {

constexpr int kThreads = 256;

template <class Filter, class Pixel>
Result run_tma(const LaunchArgs& a, const Filter& f, const HopperDevice& dev) {
    const int radius = filter_radius(a.params);
    const bool separable = IsSeparable<dev::base_filter_t<Filter>>::value;
    // Gaussian RGBA8 on tensor cores (band_mma.cuh): 16-column strips, one warp each, no strip buffer.
    const int band_w = band_mma::kApplies<Filter, Pixel> ? fit_tile_w(a.policy.tile_w, a.src.format, radius, band_mma::kStripW) : 0;
    const bool band = band_mma::kApplies<Filter, Pixel> && band_mma::fits(radius, band_w);
    const int tile_w = band ? band_w : fit_tile_w(a.policy.tile_w, a.src.format, radius, separable ? kRun : 4);
    if (tile_w < 4)
        return Result::fail("tma: " + tma_no_room_reason(a.src.format, radius));
    const int tile_h = a.policy.tile_h;
    const int stages = a.policy.stages;
    const std::size_t strip = separable && !band ? separable_strip_bytes(tile_w, radius) : 0;
    TmaSetup s;
    if (Result r = prepare_tma(a, "tma", tile_w, tile_h, stages, a.policy.tma_store, strip, dev, &s); !r) return r;

    auto kernel = stencil_tma_kernel<Filter, Pixel>;
    const int smem = static_cast<int>(s.plan.shared_bytes);
    if (cudaError_t e = cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, smem); e != cudaSuccess)
        return Result::fail(std::string("stencil_tma_kernel: cannot reserve shared memory: ") + cudaGetErrorName(e));
    // Fixed-radius filters have (tile_w / 4) x ceil(tile_h / kRowsPerItem) work items per tile
    // (128 for the default 64x32): a 256-thread block left half its warps idle while they still
    // held registers (Sobel: 122 per thread), halving the CTAs per SM and the TMA bytes in flight.
    // Such blocks get one thread per work item (a multiple of 32, 64..256) instead. So does the user
    // 5x5 kernel's float form (UserKernel5Filter, the same items): H100 4K clamp, with its sliding
    // window form (128 registers), 256 threads per 64x32 tile 66.7 us, one per item 57.4.
    int threads = kThreads;
    if constexpr (dev::StaticRadius<Filter>::value ||
                  std::is_same_v<dev::base_filter_t<Filter>, dev::UserKernel5Filter>) {
        const int items = (s.geom.tile_w / 4) * ((s.geom.tile_h + kRowsPerItem - 1) / kRowsPerItem);
        threads = std::clamp((items + 31) / 32 * 32, 64, kThreads);
    }
    if (band) threads = std::clamp(tile_w / band_mma::kStripW * 32, 32, kThreads);
    threads = std::min(threads, kTmaMaxThreads<Filter, Pixel>);  // the kernel's __launch_bounds__
    int per_sm = 0;
    cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, threads, static_cast<std::size_t>(smem));
    if (per_sm < 1) return Result::fail("tma: " + std::to_string(smem) + " bytes of shared memory per block do not fit on an SM");
    const int ntiles = s.plan.tiles_x * s.plan.tiles_y;
    const int grid = std::min(ntiles, per_sm * dev.sm_count);
    kernel<<<grid, threads, static_cast<std::size_t>(smem), a.stream>>>(s.src_map, s.dst_map, f, s.geom);
    return tma_launch_error("stencil_tma_kernel");
}

} // namespace

// Loads one RGBA8 box whose top-left corner is (x, y) (any signed values) and copies it to
// `out` (box_w * box_h uint32, row-major). tests/gpu/test_tma_box_start.cpp uses it to check
// that a box x start needs no 16-byte alignment (DESIGN.md asks for that to be verified).
__global__ void stencil_tma_probe_kernel(const __grid_constant__ CUtensorMap map, int x, int y, int n,
                                         std::uint32_t bytes, std::uint32_t* out) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    extern __shared__ unsigned char smem_raw[];
    __shared__ alignas(8) std::uint64_t full;
    unsigned char* base = align128(smem_raw);
    if (threadIdx.x == 0) {
        mbar_init(&full, 1);
        fence_barrier_init();
    }
    __syncthreads();
    if (threadIdx.x == 0) {
        mbar_arrive_expect_tx(&full, bytes);
        tma_load_2d(base, &map, x, y, &full);
    }
    mbar_wait(&full, 0);
    const auto* tile = reinterpret_cast<const std::uint32_t*>(base);
    for (int i = static_cast<int>(threadIdx.x); i < n; i += static_cast<int>(blockDim.x)) out[i] = tile[i];
#else
    (void)map; (void)x; (void)y; (void)n; (void)bytes; (void)out;
#endif
}

Result tma_probe_box(const DeviceImage& src, int x, int y, int box_w, int box_h, void* out, cudaStream_t stream) {
    HopperDevice dev;
    if (Result r = query_hopper("tma probe", &dev); !r) return r;
    if (src.format != PixelFormat::RGBA8) return Result::fail("tma probe: RGBA8 only");
    CUtensorMap map{};
    if (Result r = encode_rgba8_source_map(&map, src, box_w, box_h, "tma probe"); !r) return r;
    const std::uint32_t bytes = std::uint32_t(box_w * box_h * 4);
    stencil_tma_probe_kernel<<<1, 128, bytes + 128, stream>>>(map, x, y, box_w * box_h, bytes,
                                                               static_cast<std::uint32_t*>(out));
    return tma_launch_error("stencil_tma_probe_kernel");
}

Result launch_tma(const LaunchArgs& a) {
    HopperDevice dev;
    if (Result r = query_hopper("tma", &dev); !r) return r;
    // Box on RGBA8: the column-streaming running-sum kernel (tma_box_stream.cu) where it applies.
    if (std::optional<Result> r = launch_tma_box_stream(a, dev)) return *r;
    // Gaussian on RGBA8 (every radius, sigma 0.5..10): the column-streaming tensor-core kernel
    // (tma_gauss_stream.cu).
    if (std::optional<Result> r = launch_tma_gauss_stream(a, dev)) return *r;
    return dev::with_pixel(a.src.format, [&](auto pixel) {
        using Pixel = decltype(pixel);
        // The tile forms (with_tile_forms): Box and user kernels of radius 1 as their compile-time-
        // radius twins (register window path), a 5x5 user kernel on RGBA8 in its float form over raw
        // bytes, a fused op chain.
        return dev::with_filter(a.params, [&](auto filter) {
            return dev::with_tile_forms<Pixel>(filter, a.ops, [&](const auto& fe) {
                return run_tma<std::decay_t<decltype(fe)>, Pixel>(a, fe, dev);
            });
        });
    });
}

} // namespace tl::cuda::detail
