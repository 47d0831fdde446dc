// Mechanism "cluster": a thread-block cluster of C CTAs stacked along y shares halo rows through
// distributed shared memory. Each CTA loads only its own tile rows (plus the left/right halo
// columns) with TMA; the cluster's first CTA also loads the R rows above the cluster and the last
// one the R rows below. After cluster.sync() each CTA copies the R halo rows it is missing from
// its neighbours' shared memory (mapa + ld.shared::cluster) instead of re-reading
// them from L2, so a cluster of C tiles reads (C * tile_h + 2R) rows instead of C * (tile_h + 2R).
//
// Shared layout per CTA (RGBA8 shown; rows padded to 128 bytes so each region is a TMA target):
//   rows [0, R)            top halo     (rank 0: TMA;   others: copied from rank - 1)
//   rows [R, R + tile_h)   own rows     (TMA)
//   rows [R + tile_h, ..)  bottom halo  (rank C-1: TMA; others: copied from rank + 1)
#include "tma_common.cuh"

#include <cooperative_groups.h>

#include <algorithm>

namespace tl::cuda::detail {

using namespace dev_tma;
namespace cg = cooperative_groups;

namespace {
constexpr int kThreads = 256;
} // namespace

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
// This CTA's shared address -> the same offset in CTA `rank` of the cluster (shared::cluster window).
__device__ __forceinline__ std::uint32_t dsmem_map(std::uint32_t local, std::uint32_t rank) {
    std::uint32_t remote;
    asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(remote) : "r"(local), "r"(rank));
    return remote;
}
__device__ __forceinline__ uint4 dsmem_load16(std::uint32_t addr) {
    uint4 v;
    asm volatile("ld.shared::cluster.v4.u32 {%0, %1, %2, %3}, [%4];"
                 : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)
                 : "r"(addr)
                 : "memory");
    return v;
}
#endif

struct ClusterGeom {
    TileGeom g;
    std::uint32_t own_bytes;   // bytes of the own-rows box
    std::uint32_t halo_bytes;  // bytes of one halo box (R rows)
};

template <class Filter, class Pixel>
__global__ void __launch_bounds__(kThreads) stencil_cluster_kernel(const __grid_constant__ CUtensorMap own_map,
                                                                   const __grid_constant__ CUtensorMap halo_map,
                                                                   const __grid_constant__ Filter filter, const ClusterGeom cgeom) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    using Storage = typename Pixel::Storage;
    const TileGeom& g = cgeom.g;
    extern __shared__ unsigned char smem_raw[];
    __shared__ alignas(8) std::uint64_t full;
    // The dynamic shared window starts at the same offset in every CTA of the cluster, so the
    // aligned base (and every row) has the same offset in the neighbours too.
    auto* box = reinterpret_cast<Storage*>(align128(smem_raw));
    cg::cluster_group cluster = cg::this_cluster();
    const int rank = static_cast<int>(cluster.block_rank());
    const int csize = static_cast<int>(cluster.num_blocks());
    const int tid = static_cast<int>(threadIdx.x);
    const int epp = sizeof(Storage) / 4;
    const int R = g.radius;
    const int x0 = static_cast<int>(blockIdx.x) * g.tile_w;
    const int y0 = static_cast<int>(blockIdx.y) * g.tile_h;
    const int row_elems = g.box_stride;  // pixels per shared row
    auto row = [&](Storage* b, int r) { return b + std::size_t(r) * row_elems; };

    tl::cuda::dev::stage_epilogue(filter);  // published by the barrier below
    if (tid == 0) {
        mbar_init(&full, 1);
        fence_barrier_init();
    }
    __syncthreads();
    if (tid == 0) {
        const bool top = rank == 0, bottom = rank == csize - 1;
        mbar_arrive_expect_tx(&full, cgeom.own_bytes + (top ? cgeom.halo_bytes : 0u) + (bottom ? cgeom.halo_bytes : 0u));
        tma_load_2d(row(box, R), &own_map, (x0 - g.halo_left) * epp, y0, &full);
        if (top) tma_load_2d(row(box, 0), &halo_map, (x0 - g.halo_left) * epp, y0 - R, &full);
        if (bottom) tma_load_2d(row(box, R + g.tile_h), &halo_map, (x0 - g.halo_left) * epp, y0 + g.tile_h, &full);
    }
    mbar_wait(&full, 0);
    cluster.sync();  // every CTA's own rows have landed

    // Copy the missing halo rows from the neighbours' shared memory, 16 bytes at a time:
    // mapa turns this CTA's shared address into the neighbour's shared::cluster address, and
    // ld.shared::cluster reads it over the SM-to-SM network (distributed shared memory).
    const int vec_per_row = row_elems * int(sizeof(Storage)) / 16;
    const int halo_vecs = R * vec_per_row;
    if (rank > 0) {  // top halo = the last R own rows of rank - 1
        const std::uint32_t src = dsmem_map(smem_u32(row(box, g.tile_h)), static_cast<std::uint32_t>(rank - 1));
        auto* dst = reinterpret_cast<uint4*>(row(box, 0));
        for (int i = tid; i < halo_vecs; i += kThreads) dst[i] = dsmem_load16(src + 16u * std::uint32_t(i));
    }
    if (rank < csize - 1) {  // bottom halo = the first R own rows of rank + 1
        const std::uint32_t src = dsmem_map(smem_u32(row(box, R)), static_cast<std::uint32_t>(rank + 1));
        auto* dst = reinterpret_cast<uint4*>(row(box, R + g.tile_h));
        for (int i = tid; i < halo_vecs; i += kThreads) dst[i] = dsmem_load16(src + 16u * std::uint32_t(i));
    }
    // No neighbour reads this CTA's rows after this point, so the fix-up may rewrite them and the
    // CTA may later exit (a CTA must not leave while others still read its shared memory).
    cluster.sync();
    if (g.border != Border::Zero && tile_touches_edge(g, x0, y0)) {
        fix_border<Pixel>(box, g, x0, y0, tid, kThreads, 0, g.tile_h + 2 * R);
        __syncthreads();
    }
    auto* vbuf = reinterpret_cast<float4*>(row(box, g.tile_h + 2 * R));  // separable filters
    compute_any<Filter, Pixel, false>(filter, box, g, x0, y0, tid, kThreads, nullptr, vbuf,
                                      [] { __syncthreads(); });
#else
    (void)own_map; (void)halo_map; (void)filter; (void)cgeom;
#endif
}

namespace {

template <class Filter, class Pixel>
Result run_cluster(const LaunchArgs& a, const Filter& f, const HopperDevice& dev) {
    const int radius = filter_radius(a.params);
    const int csize = a.policy.cluster_size;
    if (csize < 1 || csize > 8)
        return Result::fail("cluster: cluster size " + std::to_string(csize) + " is outside 1..8 (the portable limit)");
    // Each halo must come from the adjacent CTA alone, so a tile is at least R rows tall: the
    // policy's tile_h is raised to the radius when it is smaller.
    const int tile_h = std::max(a.policy.tile_h, radius);
    if (tile_h < 1) return Result::fail("cluster: tile height " + std::to_string(a.policy.tile_h) + " is empty");
    const TmaElementLayout layout = tma_element_layout(a.src.format);
    const int px_bytes = layout.element_bytes * layout.elements_per_pixel;
    const int px_per_128 = 128 / px_bytes;
    const bool separable = IsSeparable<dev::base_filter_t<Filter>>::value;
    int tile_w = fit_tile_w(a.policy.tile_w, a.src.format, radius, separable ? kRun : 4);
    const int halo_left = tma_halo_left(a.src.format, radius);
    // Rows padded to 128 bytes so the halo and own-row regions each start 128-byte aligned.
    auto padded = [&](int w) { return (halo_left + w + radius + px_per_128 - 1) / px_per_128 * px_per_128; };
    while (tile_w >= 4 && padded(tile_w) * layout.elements_per_pixel > int(kTmaMaxBoxDim)) tile_w -= separable ? kRun : 4;
    if (tile_w < 4) return Result::fail("cluster: " + tma_no_room_reason(a.src.format, radius));
    const int row_px = padded(tile_w);

    // The planner checks the image side (address, pitch, sizes) and the shared-memory total for
    // one padded box; the own-rows and halo boxes are then checked one by one.
    TmaPlanRequest req;
    req.width = a.src.width;
    req.height = a.src.height;
    req.pitch = a.src.pitch;
    req.format = a.src.format;
    req.address = reinterpret_cast<std::uintptr_t>(a.src.data);
    req.radius = radius;
    req.tile_w = tile_w;
    req.box_row_align_bytes = 128;
    req.tile_h = tile_h;
    req.stages = 1;
    req.extra_shared = separable ? separable_strip_bytes(tile_w, radius) : 0;
    req.shared_limit = dev.smem_optin - dev::epilogue_smem_bytes(a.ops);
    const TmaTilePlan plan = plan_tma_tiles(req);
    if (!plan.ok) return Result::fail("cluster: " + plan.reason);
    if (plan.box_w_px != row_px) return Result::fail("cluster: internal error: planned box row differs from the padded row");

    TmaBoxDesc own = plan.box;
    own.box_dim[1] = static_cast<std::uint32_t>(tile_h);
    own.shared_offset = static_cast<std::uint32_t>(radius * row_px * px_bytes);
    TmaBoxDesc halo = plan.box;
    halo.box_dim[1] = static_cast<std::uint32_t>(radius);
    halo.shared_offset = static_cast<std::uint32_t>((radius + tile_h) * row_px * px_bytes);
    if (std::string why = validate_tma_box(own); !why.empty()) return Result::fail("cluster (own rows): " + why);
    if (std::string why = validate_tma_box(halo); !why.empty()) return Result::fail("cluster (halo rows): " + why);
    CUtensorMap own_map{}, halo_map{};
    if (Result r = encode_tensor_map(&own_map, own, a.src.format, a.src.data, "cluster"); !r) return r;
    if (Result r = encode_tensor_map(&halo_map, halo, a.src.format, a.src.data, "cluster"); !r) return r;

    ClusterGeom geom{};
    TileGeom& g = geom.g;
    g.width = a.src.width;
    g.height = a.src.height;
    g.tile_w = tile_w;
    g.tile_h = tile_h;
    g.radius = radius;
    g.halo_left = halo_left;
    g.box_stride = row_px;
    g.tiles_x = (a.src.width + tile_w - 1) / tile_w;
    g.tiles_y = (a.src.height + tile_h - 1) / tile_h;
    g.stages = 1;
    g.border = a.border;
    g.dst = a.dst.data;
    g.dst_pitch = a.dst.pitch;
    g.vec_store = reinterpret_cast<std::uintptr_t>(a.dst.data) % 16 == 0 && a.dst.pitch % 16 == 0;
    g.tma_store = false;
    geom.own_bytes = own.box_dim[0] * own.box_dim[1] * std::uint32_t(layout.element_bytes);
    geom.halo_bytes = halo.box_dim[0] * halo.box_dim[1] * std::uint32_t(layout.element_bytes);

    auto kernel = stencil_cluster_kernel<Filter, Pixel>;
    const std::size_t smem = std::size_t(tile_h + 2 * radius) * std::size_t(row_px) * std::size_t(px_bytes) +
                             req.extra_shared + kTmaSharedAlign;
    if (cudaError_t e = cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int(smem)); e != cudaSuccess)
        return Result::fail(std::string("stencil_cluster_kernel: cannot reserve shared memory: ") + cudaGetErrorName(e));

    cudaLaunchConfig_t cfg{};
    cfg.gridDim = dim3(unsigned(g.tiles_x), unsigned((g.tiles_y + csize - 1) / csize * csize), 1);
    cfg.blockDim = dim3(kThreads, 1, 1);
    cfg.dynamicSmemBytes = smem;
    cfg.stream = a.stream;
    cudaLaunchAttribute attr[1];
    attr[0].id = cudaLaunchAttributeClusterDimension;
    attr[0].val.clusterDim.x = 1;
    attr[0].val.clusterDim.y = unsigned(csize);
    attr[0].val.clusterDim.z = 1;
    cfg.attrs = attr;
    cfg.numAttrs = 1;
    int clusters = 0;
    if (cudaOccupancyMaxActiveClusters(&clusters, kernel, &cfg) != cudaSuccess || clusters < 1) {
        cudaGetLastError();
        return Result::fail("cluster: a cluster of " + std::to_string(csize) + " CTAs with " + std::to_string(smem) +
                            " bytes of shared memory each cannot be resident on this GPU");
    }
    if (cudaError_t e = cudaLaunchKernelEx(&cfg, kernel, own_map, halo_map, f, geom); e != cudaSuccess)
        return Result::fail(std::string("stencil_cluster_kernel: ") + cudaGetErrorName(e) + " (" + cudaGetErrorString(e) + ")");
    return tma_launch_error("stencil_cluster_kernel");
}

} // namespace

Result launch_cluster(const LaunchArgs& a) {
    HopperDevice dev;
    if (Result r = query_hopper("cluster", &dev); !r) return r;
    return dev::with_pixel(a.src.format, [&](auto pixel) {
        using Pixel = decltype(pixel);
        // The tile forms (with_tile_forms): Box and user kernels of radius 1 as their compile-time-
        // radius twins (register window path), a 5x5 user kernel on RGBA8 in its float form over raw
        // bytes, a fused op chain.
        return dev::with_filter(a.params, [&](auto filter) {
            return dev::with_tile_forms<Pixel>(filter, a.ops, [&](const auto& fe) {
                return run_cluster<std::decay_t<decltype(fe)>, Pixel>(a, fe, dev);
            });
        });
    });
}

} // namespace tl::cuda::detail
