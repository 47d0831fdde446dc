// Shared pieces of the Hopper mechanisms (tma, tma_ws, cluster): tensor-map encoding through the
// runtime's driver entry point, mbarrier / cp.async.bulk.tensor wrappers, the border fix-up of a
// zero-filled halo, and the compute + store of one output tile from a shared-memory tile.
#pragma once

#include "band_mma.cuh"  // Gaussian RGBA8 on tensor cores (compute_any)
#include "filters.cuh"
#include "mechanisms.hpp"
#include "tile_planner.hpp"

#include <cuda.h>          // CUtensorMap and its enums only: libcuda is never linked
#include <cudaTypedefs.h>  // PFN_cuTensorMapEncodeTiled_v12000

#include <algorithm>
#include <cstdint>
#include <string>
#include <type_traits>

namespace tl::cuda::detail {

// ---- host ------------------------------------------------------------------------------------

// Geometry a TMA kernel needs; the same struct is a kernel parameter.
struct TileGeom {
    int width, height;          // image size in pixels
    int tile_w, tile_h;         // output pixels per tile (tile_w a multiple of 4)
    int radius;                 // halo in pixels
    int halo_left;              // box columns left of the tile (radius rounded up to 16 bytes)
    int box_stride;             // pixels between rows of a shared tile
    int tiles_x, tiles_y;
    int stages;
    std::uint32_t stage_bytes;  // bytes between stages (multiple of 128)
    std::uint32_t box_bytes;    // bytes TMA writes per stage (mbarrier transaction count)
    Border border;
    void* dst;
    std::size_t dst_pitch;
    bool vec_store;             // dst base and pitch allow 16-byte stores
    bool tma_store;             // write the output tile with cp.async.bulk.tensor (tma only)
    bool dst_rows_aligned;      // dst row bytes are a multiple of 16 (TMA store safe at the right edge)
};

// The capability check shared by the three launchers: a readable refusal on older GPUs.
struct HopperDevice {
    int sm_count = 0;
    std::size_t smem_optin = 0;  // bytes of dynamic shared memory a block may opt in to
};
inline Result query_hopper(const char* mechanism, HopperDevice* out) {
    int dev = 0;
    if (cudaError_t e = cudaGetDevice(&dev); e != cudaSuccess)
        return Result::fail(std::string(mechanism) + ": no CUDA device (" + cudaGetErrorName(e) + ")");
    int major = 0, minor = 0, sms = 0, optin = 0;
    cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev);
    cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, dev);
    cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev);
    cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev);
    if (major < 9)
        return Result::fail(std::string(mechanism) + " needs compute capability 9.0; this GPU is " + std::to_string(major) +
                            "." + std::to_string(minor));
    out->sm_count = sms;
    out->smem_optin = static_cast<std::size_t>(optin);
    return Result::success();
}

// cuTensorMapEncodeTiled is a driver API function; it is reached through the runtime so the
// binary never needs libcuda.so.1 at load time (DESIGN.md: CI has no NVIDIA driver).
inline PFN_cuTensorMapEncodeTiled_v12000 tensor_map_encoder() {
    static const PFN_cuTensorMapEncodeTiled_v12000 fn = [] {
        void* p = nullptr;
        cudaDriverEntryPointQueryResult q{};
        if (cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &p, 12000, cudaEnableDefault, &q) != cudaSuccess ||
            q != cudaDriverEntryPointSuccess)
            return static_cast<PFN_cuTensorMapEncodeTiled_v12000>(nullptr);
        return reinterpret_cast<PFN_cuTensorMapEncodeTiled_v12000>(p);
    }();
    return fn;
}

// Encodes a rank-2 tiled map for a box the planner has validated (validate_tma_box).
// `swizzle`: the shared-memory side's layout (CU_TENSOR_MAP_SWIZZLE_128B needs box rows of at
// most 128 bytes and a 1024-byte aligned buffer).
inline Result encode_tensor_map(CUtensorMap* map, const TmaBoxDesc& d, PixelFormat f, void* address, const char* what,
                                CUtensorMapSwizzle swizzle = CU_TENSOR_MAP_SWIZZLE_NONE) {
    const auto encode = tensor_map_encoder();
    if (!encode) return Result::fail(std::string(what) + ": the driver does not provide cuTensorMapEncodeTiled");
    const cuuint64_t dims[2] = {d.global_dim[0], d.global_dim[1]};
    const cuuint64_t strides[1] = {d.global_stride};
    const cuuint32_t box[2] = {d.box_dim[0], d.box_dim[1]};
    const cuuint32_t elem_strides[2] = {1, 1};
    const CUtensorMapDataType type =
        f == PixelFormat::RGBA32F ? CU_TENSOR_MAP_DATA_TYPE_FLOAT32 : CU_TENSOR_MAP_DATA_TYPE_UINT32;
    // OOB fill NONE means zeros: exactly Border::Zero; other borders get the shared-memory fix-up.
    // L2 promotion 128 B (256 B until session 28). H200, one binary, four alternating pairs (4K RGBA8,
    // clamp, stages 2, copy kernel 20.1-20.4 us), 256 B -> 128 B: Box r=16 29.2-29.6 -> 28.7-28.9 us,
    // r=12 28.4-28.9 -> 28.0-28.4, r=2 25.0-25.3 -> 24.7-24.9, r=9 27.1-27.3 -> 26.8-27.2, Gaussian
    // sigma 0.5 26.8-27.3 -> 26.0-26.3, sigma 3 28.9-29.1 -> 28.7-28.9; 8K sigma 0.5 86.3-86.5 ->
    // 83.4-83.6. H100 (seven pairs, copy 25.7-26.0 us): within +-0.4 us either way at every radius
    // and sigma. ncu (H200, 4K Box r=16): L2 lookup hits 3.27 M -> 2.87 M sectors for the same
    // bytes. 64 B and none (H200, two pairs) were no faster than 256 B (Gaussian sigma 0.5
    // 27.3-27.5 us against 27.0-27.2).
    const CUresult r = encode(map, type, 2, address, dims, strides, box, elem_strides, CU_TENSOR_MAP_INTERLEAVE_NONE,
                              swizzle, CU_TENSOR_MAP_L2_PROMOTION_L2_128B,
                              CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
    if (r != CUDA_SUCCESS)
        return Result::fail(std::string(what) + ": cuTensorMapEncodeTiled failed (CUresult " + std::to_string(int(r)) + ")");
    return Result::success();
}

// The map the streaming kernels and the probe read through: the whole RGBA8 source image (one
// UINT32 element per pixel) in boxes of box_w x box_h pixels, validated first; a refusal names
// `what` and the rule that failed.
inline Result encode_rgba8_source_map(CUtensorMap* map, const DeviceImage& src, int box_w, int box_h,
                                      const char* what) {
    TmaBoxDesc d;
    d.global_address = reinterpret_cast<std::uintptr_t>(src.data);
    d.global_dim[0] = std::uint64_t(src.width);
    d.global_dim[1] = std::uint64_t(src.height);
    d.global_stride = src.pitch;
    d.box_dim[0] = std::uint32_t(box_w);
    d.box_dim[1] = std::uint32_t(box_h);
    d.element_bytes = 4;
    if (std::string why = validate_tma_box(d); !why.empty())
        return Result::fail(std::string(what) + ": " + why);
    return encode_tensor_map(map, d, PixelFormat::RGBA8, src.data, what);
}

// Plans the source ring (and, with tma_store, the destination box) and fills TileGeom.
struct TmaSetup {
    TmaTilePlan plan;
    TileGeom geom{};
    CUtensorMap src_map{};
    CUtensorMap dst_map{};
};
// When the ring does not fit in shared memory (large radii, deep pipelines), tile_h is halved
// (down to 8 rows) before giving up, so a policy tuned for small filters still runs large ones.
inline Result prepare_tma(const LaunchArgs& a, const char* mechanism, int tile_w, int tile_h, int stages, bool tma_store,
                          std::size_t strip_bytes, const HopperDevice& dev, TmaSetup* s) {
    const int radius = filter_radius(a.params);
    TmaPlanRequest req;
    req.width = a.src.width;
    req.height = a.src.height;
    req.pitch = a.src.pitch;
    req.format = a.src.format;
    req.address = reinterpret_cast<std::uintptr_t>(a.src.data);
    req.radius = radius;
    req.tile_w = tile_w;
    req.tile_h = tile_h;
    req.stages = stages;
    req.shared_limit = dev.smem_optin - tl::cuda::dev::epilogue_smem_bytes(a.ops);
    const std::size_t bpp_out = bytes_per_pixel(a.dst.format);
    for (;;) {
        // The TMA-store staging tile (tile_w x tile_h outputs) sits behind the ring.
        req.extra_shared = strip_bytes + (tma_store ? std::size_t(tile_w) * std::size_t(req.tile_h) * bpp_out : 0);
        s->plan = plan_tma_tiles(req);
        if (s->plan.ok || s->plan.shared_bytes <= req.shared_limit || req.tile_h <= 8) break;
        req.tile_h = std::max(8, req.tile_h / 2);
    }
    if (!s->plan.ok) return Result::fail(std::string(mechanism) + ": " + s->plan.reason);
    tile_h = req.tile_h;
    if (Result r = encode_tensor_map(&s->src_map, s->plan.box, a.src.format, a.src.data, mechanism); !r) return r;
    const std::size_t bpp = bytes_per_pixel(a.dst.format);
    if (tma_store) {
        TmaBoxDesc d = s->plan.box;
        d.global_address = reinterpret_cast<std::uintptr_t>(a.dst.data);
        d.global_stride = a.dst.pitch;
        d.box_dim[0] = static_cast<std::uint32_t>(tile_w * s->plan.layout.elements_per_pixel);
        d.box_dim[1] = static_cast<std::uint32_t>(tile_h);
        if (std::string why = validate_tma_box(d); !why.empty())
            return Result::fail(std::string(mechanism) + " store: " + why);
        if (Result r = encode_tensor_map(&s->dst_map, d, a.dst.format, a.dst.data, mechanism); !r) return r;
    }
    TileGeom& g = s->geom;
    g.width = a.src.width;
    g.height = a.src.height;
    g.tile_w = tile_w;
    g.tile_h = tile_h;
    g.radius = radius;
    g.halo_left = s->plan.halo_left_px;
    g.box_stride = s->plan.box_stride_px;
    g.tiles_x = s->plan.tiles_x;
    g.tiles_y = s->plan.tiles_y;
    g.stages = stages;
    g.stage_bytes = s->plan.stage_bytes;
    g.box_bytes = s->plan.box_bytes;
    g.border = a.border;
    g.dst = a.dst.data;
    g.dst_pitch = a.dst.pitch;
    g.vec_store = reinterpret_cast<std::uintptr_t>(a.dst.data) % 16 == 0 && a.dst.pitch % 16 == 0 && bpp > 0;
    g.tma_store = tma_store;
    // TMA stores were seen (H100, test_tma_mechanisms) to write whole 16-byte chunks: a row whose
    // byte length is not a multiple of 16 got up to 12 bytes past its end overwritten. Tiles
    // that reach the right edge of such an image are stored with ordinary stores instead.
    g.dst_rows_aligned = (std::size_t(a.dst.width) * bpp) % 16 == 0;
    return Result::success();
}

// A policy's tile narrowed to what one TMA box row can hold for this radius and format, and
// rounded to `multiple` pixels (4 per work item, 8 per separable run); 0 when nothing fits.
inline int fit_tile_w(int requested, PixelFormat f, int radius, int multiple) {
    int w = requested < multiple ? multiple : (requested + multiple - 1) / multiple * multiple;
    const int cap = max_tma_tile_w(f, radius) / multiple * multiple;
    return w > cap ? cap : w;
}

inline Result tma_launch_error(const char* kernel) {
    if (cudaError_t e = cudaGetLastError(); e != cudaSuccess)
        return Result::fail(std::string(kernel) + ": " + cudaGetErrorName(e) + " (" + cudaGetErrorString(e) + ")");
    return Result::success();
}

// ---- device ----------------------------------------------------------------------------------
namespace dev_tma {

using tl::cuda::dev::operator+;

__device__ __forceinline__ std::uint32_t smem_u32(const void* p) {
    return static_cast<std::uint32_t>(__cvta_generic_to_shared(p));
}

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
__device__ __forceinline__ void mbar_init(std::uint64_t* bar, std::uint32_t count) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(smem_u32(bar)), "r"(count) : "memory");
}
// Makes the initialised barriers visible to the async proxy (TMA) and to the other CTAs of a cluster.
__device__ __forceinline__ void fence_barrier_init() {
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
}
__device__ __forceinline__ void mbar_arrive_expect_tx(std::uint64_t* bar, std::uint32_t bytes) {
    asm volatile("mbarrier.arrive.expect_tx.release.cta.shared::cta.b64 _, [%0], %1;" ::"r"(smem_u32(bar)), "r"(bytes)
                 : "memory");
}
// On a barrier's shared-window address (smem_u32); a caller that keeps it converts it once: from a
// generic pointer each call converts the address again (S2R of the CTA's cluster id, LEA).
__device__ __forceinline__ void mbar_arrive_at(std::uint32_t bar) {
    asm volatile("mbarrier.arrive.release.cta.shared::cta.b64 _, [%0];" ::"r"(bar) : "memory");
}
__device__ __forceinline__ void mbar_wait_at(std::uint32_t bar, std::uint32_t parity) {
    std::uint32_t done = 0;
    do {
        asm volatile(
            "{\n\t.reg .pred p;\n\t"
            "mbarrier.try_wait.parity.acquire.cta.shared::cta.b64 p, [%1], %2;\n\t"
            "selp.u32 %0, 1, 0, p;\n\t}"
            : "=r"(done)
            : "r"(bar), "r"(parity)
            : "memory");
    } while (!done);
}
__device__ __forceinline__ void mbar_arrive(std::uint64_t* bar) { mbar_arrive_at(smem_u32(bar)); }
__device__ __forceinline__ void mbar_wait(std::uint64_t* bar, std::uint32_t parity) { mbar_wait_at(smem_u32(bar), parity); }
// A consumer's place in a ring of `stages` full barriers that complete in order (the streaming
// kernels): through(full, s) waits for every stage up to s (capped at last), keeping the next
// stage's slot and phase as counters (a division per wait costs more than the wait).
struct RingWaiter {
    int stages, last;
    int waited = 0, slot = 0;
    std::uint32_t phase = 0;
    // Before any wait: stages 0 .. s - 1 are never waited for by this thread (it reads none of their
    // rows; s < stages, so their slots' first phases are the ones skipped).
    __device__ __forceinline__ void start_at(int s) { waited = slot = s; }
    __device__ __forceinline__ void through(std::uint64_t* full, int s) {
        s = min(s, last);
        for (; waited <= s; ++waited) {
            mbar_wait(&full[slot], phase);
            if (++slot == stages) {
                slot = 0;
                phase ^= 1u;
            }
        }
    }
};
// Orders this thread's generic-proxy shared-memory accesses before later async-proxy (TMA) ones.
__device__ __forceinline__ void fence_proxy_async_smem() {
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
}
// One 2D box global -> shared; completion is counted in bytes on `bar`.
__device__ __forceinline__ void tma_load_2d(void* dst, const CUtensorMap* map, int c0, int c1, std::uint64_t* bar) {
    asm volatile(
        "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], [%4];" ::"r"(
            smem_u32(dst)),
        "l"(reinterpret_cast<std::uint64_t>(map)), "r"(c0), "r"(c1), "r"(smem_u32(bar))
        : "memory");
}
// One 2D box shared -> global; the parts outside the tensor are not written.
__device__ __forceinline__ void tma_store_2d(const CUtensorMap* map, int c0, int c1, const void* src) {
    asm volatile("cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group [%0, {%1, %2}], [%3];" ::"l"(
                     reinterpret_cast<std::uint64_t>(map)),
                 "r"(c0), "r"(c1), "r"(smem_u32(src))
                 : "memory");
}
__device__ __forceinline__ void bulk_commit() { asm volatile("cp.async.bulk.commit_group;" ::: "memory"); }
// Waits until the committed stores have finished reading shared memory (the buffer may be reused).
__device__ __forceinline__ void bulk_wait_read() { asm volatile("cp.async.bulk.wait_group.read 0;" ::: "memory"); }
__device__ __forceinline__ void bulk_wait_all() { asm volatile("cp.async.bulk.wait_group 0;" ::: "memory"); }
__device__ __forceinline__ void prefetch_map(const CUtensorMap* map) {
    asm volatile("prefetch.tensormap [%0];" ::"l"(reinterpret_cast<std::uint64_t>(map)) : "memory");
}
// Named barriers for warp-specialised kernels: `threads` (a multiple of 32) take part, counting
// both the threads that wait (named_sync) and those that only signal (named_arrive).
__device__ __forceinline__ void named_sync(int id, int threads) {
    asm volatile("bar.sync %0, %1;" ::"r"(id), "r"(threads) : "memory");
}
__device__ __forceinline__ void named_arrive(int id, int threads) {
    asm volatile("bar.arrive %0, %1;" ::"r"(id), "r"(threads) : "memory");
}
#endif

// Rounds a pointer into dynamic shared memory up to 128 bytes. Pointer arithmetic on the shared
// pointer itself (not an integer round trip) keeps the compiler aware that it is shared memory,
// so the reads become LDS rather than generic LD.
__device__ __forceinline__ unsigned char* align128(unsigned char* p) {
    return p + ((128u - (smem_u32(p) & 127u)) & 127u);
}

// Reads a shared tile as the filter's window: win(dx, dy) around one output pixel.
template <class Pixel>
struct SmemWindow {
    const typename Pixel::Storage* c;
    int stride;
    __device__ __forceinline__ float4 operator()(int dx, int dy) const { return Pixel::to_float(c[dy * stride + dx]); }
};

// Whether the halo of the tile at (x0, y0) reaches outside the image.
__device__ __forceinline__ bool tile_touches_edge(const TileGeom& g, int x0, int y0) {
    return x0 - g.radius < 0 || y0 - g.radius < 0 || x0 + g.tile_w + g.radius > g.width ||
           y0 + g.tile_h + g.radius > g.height;
}

// TMA filled the out-of-image cells with zeros; for Clamp and Mirror re-write them from the
// in-image cell fold_coord names. The folded cell is always inside the image, so no thread
// writes a cell another thread reads, and (see the planner notes) it is inside the box for every
// cell an output reads. `rows` limits the fix-up to the box rows [row_begin, row_end).
template <class Pixel>
__device__ __forceinline__ void fix_border(typename Pixel::Storage* tile, const TileGeom& g, int x0, int y0, int tid,
                                           int nthreads, int row_begin, int row_end) {
    const int bw = g.halo_left + g.tile_w + g.radius;  // columns an output can read
    const int bh = g.tile_h + 2 * g.radius;
    const int bx0 = x0 - g.halo_left, by0 = y0 - g.radius;
    const int n = bw * (row_end - row_begin);
    for (int i = tid; i < n; i += nthreads) {
        const int by = row_begin + i / bw, bx = i % bw;
        const int gx = bx0 + bx, gy = by0 + by;
        if (gx >= 0 && gx < g.width && gy >= 0 && gy < g.height) continue;
        const int sx = fold_coord(gx, g.width, g.border) - bx0;
        const int sy = fold_coord(gy, g.height, g.border) - by0;
        if (sx < 0 || sx >= bw || sy < 0 || sy >= bh) continue;  // only cells no stored output reads
        tile[by * g.box_stride + bx] = tile[sy * g.box_stride + sx];
    }
    (void)bh;
}

// Stores 4 horizontally adjacent output pixels starting at (x, y).
template <class Pixel>
__device__ __forceinline__ void store4(const TileGeom& g, int x, int y, const typename Pixel::Storage (&v)[4]) {
    if (y >= g.height) return;
    auto* row = tl::cuda::dev::row_ptr<Pixel>(g.dst, g.dst_pitch, y);
    if (g.vec_store && x + 3 < g.width) {
        if constexpr (sizeof(typename Pixel::Storage) == 4) {
            *reinterpret_cast<uint4*>(row + x) = make_uint4(v[0], v[1], v[2], v[3]);
        } else {
#pragma unroll
            for (int i = 0; i < 4; ++i) row[x + i] = v[i];
        }
        return;
    }
#pragma unroll
    for (int i = 0; i < 4; ++i)
        if (x + i < g.width) row[x + i] = v[i];
}

// Computes the tile whose shared copy (tile + halo) is `tile`; each work item is 4 adjacent
// outputs so RGBA8 leaves as one 16-byte store. With `staging` the results go to shared memory
// (row pitch tile_w) for a TMA store instead of to global memory.
template <class Filter, class Pixel>
__device__ __forceinline__ void compute_tile(const Filter& f, const typename Pixel::Storage* tile, const TileGeom& g,
                                             int x0, int y0, int tid, int nthreads,
                                             typename Pixel::Storage* staging) {
    using Storage = typename Pixel::Storage;
    const int groups = g.tile_w / 4;
    const int items = groups * g.tile_h;
    const int rows_left = g.height - y0;
    for (int item = tid; item < items; item += nthreads) {
        const int ly = item / groups;
        const int lx = (item - ly * groups) * 4;
        if (!staging && (ly >= rows_left || x0 + lx >= g.width)) continue;
        const Storage* c = tile + (ly + g.radius) * g.box_stride + lx + g.halo_left;
        Storage out[4];
#pragma unroll
        for (int i = 0; i < 4; ++i) out[i] = Pixel::from_float(f(SmemWindow<Pixel>{c + i, g.box_stride}));
        tl::cuda::dev::finish4(f, out);
        if (staging) {
            Storage* s = staging + ly * g.tile_w + lx;
            if constexpr (sizeof(Storage) == 4) {
                *reinterpret_cast<uint4*>(s) = make_uint4(out[0], out[1], out[2], out[3]);
            } else {
#pragma unroll
                for (int i = 0; i < 4; ++i) s[i] = out[i];
            }
        } else {
            store4<Pixel>(g, x0 + lx, y0 + ly, out);
        }
    }
}


// ---- fixed-radius filters: a register window sliding down the rows ---------------------------
// Filters whose radius is a compile-time constant (Sobel, Laplacian, Sharpen, Emboss) read their
// window from registers: a work item is 4 adjacent outputs x kRowsPerItem rows; each shared row
// segment of 4 + 2R pixels is loaded and converted once and reused by the 2R + 1 output rows
// that need it (the plain window reads and converts every pixel (2R + 1)^2 / 4 times more).
template <class Filter>
concept FixedRadius = requires { std::integral_constant<int, Filter::radius>{}; };

inline constexpr int kRowsPerItem = 4;

template <class Pixel, int KR>
struct RingWindow {
    static constexpr int kW = 4 + 2 * KR;
    const float4 (&ring)[2 * KR + 1][kW];
    int step;  // output row within the item (compile-time after unrolling)
    int i;     // output column within the item
    __device__ __forceinline__ float4 operator()(int dx, int dy) const {
        return ring[(step + dy + KR) % (2 * KR + 1)][i + dx + KR];
    }
};

// Left halo (box columns before the tile) for a compile-time radius: the same rounding as
// tma_halo_left() in the planner, 16 bytes = 4 RGBA8 pixels or 1 RGBA32F pixel.
template <class Pixel, int KR>
inline constexpr int kHaloLeft = sizeof(typename Pixel::Storage) == 4 ? (KR + 3) / 4 * 4 : KR;

// Converts the 4 + 2R pixels around 4 outputs of one box row; `src` points at the box column of
// the first output minus the left halo (16-byte aligned), so RGBA8 rows come in as 16-byte loads.
template <class Pixel, int KR, class Filter>
__device__ __forceinline__ void load_row(float4 (&dst)[4 + 2 * KR], const typename Pixel::Storage* src) {
    constexpr int kHl = kHaloLeft<Pixel, KR>;
    if constexpr (sizeof(typename Pixel::Storage) == 4) {
        constexpr int kVec = (kHl + 4 + KR + 3) / 4;
        std::uint32_t px[4 * kVec];
#pragma unroll
        for (int v = 0; v < kVec; ++v) {
            const uint4 q = reinterpret_cast<const uint4*>(src)[v];
            px[4 * v] = q.x; px[4 * v + 1] = q.y; px[4 * v + 2] = q.z; px[4 * v + 3] = q.w;
        }
        // window_unpack: alpha as raw bits (the outputs take it from the centre unchanged), R, G, B
        // in storage units for homogeneous filters.
#pragma unroll
        for (int k = 0; k < 4 + 2 * KR; ++k) dst[k] = tl::cuda::dev::window_unpack<Filter>(px[kHl - KR + k]);
    } else {
#pragma unroll
        for (int k = 0; k < 4 + 2 * KR; ++k) dst[k] = Pixel::to_float(src[kHl - KR + k]);
    }
}

// Where the time goes (ncu on an H100, 4K RGBA8 clamp, tma, alpha as bits but before the
// storage-unit change): DRAM throughput 25 % (sobel) to 41 % (laplacian) of peak, issue slots busy
// 68-78 % of active cycles, "not selected" the largest stall: instruction-issue bound, not memory
// bound. Thread instructions per output pixel: sobel 97, box3 86, sharpen 83, emboss 68,
// laplacian 66; the copy kernel's active cycles allow about 40 at that issue rate (47 at 1.2x the
// copy). Occupancy 4-5 warps per scheduler (registers, the shared ring). Fewer instructions per
// pixel is the lever.
// The RGBA8 integer (SWAR) form of the radius-1 filters (filters.cuh, namespace swar) on the same
// work items as compute_tile_fixed: 4 adjacent outputs x kRowsPerItem rows, a ring of 3 unpacked
// box rows (6 columns x 2 lane words) sliding down; each box row is read (three 16-byte LDS) and
// unpacked (two PRMT per pixel) once for the 3 output rows that use it, and the filter shares its
// column sums between the 3 outputs that read each column. Alpha comes from the centre pixel's
// own word, kept raw.
__device__ __forceinline__ void load_row_swar(const std::uint32_t* src, tl::cuda::dev::swar::Row& lanes,
                                              std::uint32_t (&raw)[4]) {
    constexpr int kHl = kHaloLeft<tl::cuda::dev::PixelRGBA8, 1>;  // 4: the outputs' 16-byte chunk
    // One 16-byte load for the 4 centre pixels and two 4-byte loads for the pixels either side:
    // 6 shared wavefronts per warp and row instead of the 12 that three 16-byte loads cost.
    const uint4 q = *reinterpret_cast<const uint4*>(src + kHl);
    raw[0] = q.x;
    raw[1] = q.y;
    raw[2] = q.z;
    raw[3] = q.w;
    tl::cuda::dev::unpack_row6(src[kHl - 1], raw, src[kHl + 4], lanes);
}

template <class Filter>
__device__ __forceinline__ void compute_tile_swar(const Filter& f, const std::uint32_t* tile, const TileGeom& g, int x0,
                                                  int y0, int tid, int nthreads, std::uint32_t* staging) {
    using Pixel = tl::cuda::dev::PixelRGBA8;
    const int groups = g.tile_w / 4;
    const int runs = (g.tile_h + kRowsPerItem - 1) / kRowsPerItem;
    const int rows_left = g.height - y0;
    for (int item = tid; item < groups * runs; item += nthreads) {
        const int ry = item / groups;
        const int lx = (item - ry * groups) * 4;
        const int ly0 = ry * kRowsPerItem;
        if (!staging && (ly0 >= rows_left || x0 + lx >= g.width)) continue;
        const std::uint32_t* col = tile + ly0 * g.box_stride + lx;
        tl::cuda::dev::swar::Row ring[3];
        std::uint32_t raw[3][4];
        load_row_swar(col, ring[0], raw[0]);
        load_row_swar(col + g.box_stride, ring[1], raw[1]);
#pragma unroll
        for (int step = 0; step < kRowsPerItem; ++step) {
            const int ly = ly0 + step;
            if (ly >= g.tile_h) break;
            load_row_swar(col + (step + 2) * g.box_stride, ring[(step + 2) % 3], raw[(step + 2) % 3]);
            std::uint32_t out[4];
            f.swar4(ring[step % 3], ring[(step + 1) % 3], ring[(step + 2) % 3], raw[(step + 1) % 3], out);
            tl::cuda::dev::finish4(f, out);
            if (staging) {
                *reinterpret_cast<uint4*>(staging + ly * g.tile_w + lx) = make_uint4(out[0], out[1], out[2], out[3]);
            } else {
                if (ly >= rows_left) break;
                store4<Pixel>(g, x0 + lx, y0 + ly, out);
            }
        }
    }
}

// The RGBA8 3x3 work items of a tile (4 adjacent outputs x kRowsPerItem rows) that this thread
// takes: fn(lx, ly0, col) with col the item's first box row (its top-left output's window corner).
// Items wholly below the image or right of it are skipped unless the outputs go to `staging`.
template <class Fn>
__device__ __forceinline__ void for_each_item4(const std::uint32_t* tile, const TileGeom& g, int x0, int y0, int tid,
                                               int nthreads, bool staged, Fn&& fn) {
    const int groups = g.tile_w / 4;
    const int runs = (g.tile_h + kRowsPerItem - 1) / kRowsPerItem;
    for (int item = tid; item < groups * runs; item += nthreads) {
        const int ry = item / groups;
        const int lx = (item - ry * groups) * 4;
        const int ly0 = ry * kRowsPerItem;
        if (!staged && (ly0 >= g.height - y0 || x0 + lx >= g.width)) continue;
        fn(lx, ly0, tile + ly0 * g.box_stride + lx);
    }
}

// Output row ly of an item, 4 finished RGBA8 pixels: into `staging` (row pitch tile_w) or to the
// image. False once the row lies below the image (the item's later rows do too).
__device__ __forceinline__ bool put_item_row4(const TileGeom& g, std::uint32_t* staging, int x0, int y0, int lx, int ly,
                                              const std::uint32_t (&out)[4]) {
    if (staging) {
        *reinterpret_cast<uint4*>(staging + ly * g.tile_w + lx) = make_uint4(out[0], out[1], out[2], out[3]);
        return true;
    }
    if (y0 + ly >= g.height) return false;
    store4<tl::cuda::dev::PixelRGBA8>(g, x0 + lx, y0 + ly, out);
    return true;
}

// The user 3x3 (kR = 1) or 5x5 (kR = 2) kernel on RGBA8 in its float form over raw bytes
// (UserKernel3Filter::planar_item, UserKernel5Filter::planar_item), on the same work items: channel
// by channel, each box row read again per channel and its bytes taken as denormal floats (one PRMT
// each); the outputs' words fill in one byte per channel. The all-channel float window
// (compute_tile_fixed below) held 3 rows x 6 pixels x 3 channels as floats.
template <class Filter, int kR>
__device__ __forceinline__ void compute_tile_user_planar(const Filter& f, const std::uint32_t* tile,
                                                         const TileGeom& g, int x0, int y0, int tid,
                                                         int nthreads, std::uint32_t* staging) {
    constexpr int kHl = kHaloLeft<tl::cuda::dev::PixelRGBA8, kR>;  // 4: the outputs' 16-byte chunk
    static_assert(kHl % 2 == 0, "8-byte loads of the two pixels either side (5x5)");
    for_each_item4(tile, g, x0, y0, tid, nthreads, staging != nullptr, [&](int lx, int ly0, const std::uint32_t* col) {
        const int rows = min(kRowsPerItem, g.tile_h - ly0);  // output rows of this item in the tile
        std::uint32_t out[kRowsPerItem][4];
        // Box row i of the item: pixels x - kR .. x + 3 + kR.
        auto row = [&](int i, std::uint32_t(&px)[4 + 2 * kR]) {
            const std::uint32_t* src = col + i * g.box_stride;
            if constexpr (kR == 1) {
                const uint4 q = *reinterpret_cast<const uint4*>(src + kHl);
                px[0] = src[kHl - 1];
                px[1] = q.x;
                px[2] = q.y;
                px[3] = q.z;
                px[4] = q.w;
                px[5] = src[kHl + 4];
            } else {
                // asm volatile: loaded again for each channel. Plain loads were merged across the
                // three channels, so all 8 rows' pixels stayed live (ptxas: 128 registers, a spill).
                const std::uint32_t a = smem_u32(src + kHl - 2);
                asm volatile("ld.shared.v2.u32 {%0, %1}, [%2];" : "=r"(px[0]), "=r"(px[1]) : "r"(a));
                asm volatile("ld.shared.v4.u32 {%0, %1, %2, %3}, [%4];"
                             : "=r"(px[2]), "=r"(px[3]), "=r"(px[4]), "=r"(px[5])
                             : "r"(a + 8));
                asm volatile("ld.shared.v2.u32 {%0, %1}, [%2];" : "=r"(px[6]), "=r"(px[7]) : "r"(a + 24));
            }
        };
        auto centre = [&](int step, std::uint32_t(&c)[4]) {
            const uint4 q = *reinterpret_cast<const uint4*>(col + (step + kR) * g.box_stride + kHl);
            c[0] = q.x;
            c[1] = q.y;
            c[2] = q.z;
            c[3] = q.w;
        };
        f.template planar_item<kRowsPerItem>(rows, row, centre, out);
#pragma unroll
        for (int step = 0; step < kRowsPerItem; ++step) {
            if (step >= rows) break;
            tl::cuda::dev::finish4(f, out[step]);
            if (!put_item_row4(g, staging, x0, y0, lx, ly0 + step, out[step])) break;
        }
    });
}

template <class Filter, class Pixel>
__device__ __forceinline__ void compute_tile_fixed(const Filter& f, const typename Pixel::Storage* tile, const TileGeom& g,
                                                   int x0, int y0, int tid, int nthreads,
                                                   typename Pixel::Storage* staging) {
    using Storage = typename Pixel::Storage;
    if constexpr (tl::cuda::dev::swar3x3_v<Filter, Pixel>) {
        compute_tile_swar<Filter>(f, tile, g, x0, y0, tid, nthreads, staging);
        return;
    }
    constexpr int KR = Filter::radius;
    constexpr int kW = 4 + 2 * KR;
    const int groups = g.tile_w / 4;
    const int runs = (g.tile_h + kRowsPerItem - 1) / kRowsPerItem;
    const int rows_left = g.height - y0;
    for (int item = tid; item < groups * runs; item += nthreads) {
        const int ry = item / groups;
        const int lx = (item - ry * groups) * 4;
        const int ly0 = ry * kRowsPerItem;
        if (!staging && (ly0 >= rows_left || x0 + lx >= g.width)) continue;
        // Box rows ly0 .. ly0 + kRowsPerItem + 2KR - 1 feed output rows ly0 .. ly0 + kRowsPerItem - 1;
        // box column lx is output column lx - halo_left.
        const Storage* col = tile + ly0 * g.box_stride + lx;
        float4 ring[2 * KR + 1][kW];
#pragma unroll
        for (int k = 0; k < 2 * KR; ++k) load_row<Pixel, KR, Filter>(ring[k], col + k * g.box_stride);
#pragma unroll
        for (int step = 0; step < kRowsPerItem; ++step) {
            const int ly = ly0 + step;
            if (ly >= g.tile_h) break;
            load_row<Pixel, KR, Filter>(ring[(step + 2 * KR) % (2 * KR + 1)], col + (step + 2 * KR) * g.box_stride);
            Storage out[4];
#pragma unroll
            for (int i = 0; i < 4; ++i) {
                if constexpr (sizeof(Storage) == 4)
                    out[i] = tl::cuda::dev::quantize_alpha_bits<Filter>(f(RingWindow<Pixel, KR>{ring, step, i}));
                else
                    out[i] = Pixel::from_float(f(RingWindow<Pixel, KR>{ring, step, i}));
            }
            tl::cuda::dev::finish4(f, out);
            if (staging) {
                Storage* s = staging + ly * g.tile_w + lx;
                if constexpr (sizeof(Storage) == 4) {
                    *reinterpret_cast<uint4*>(s) = make_uint4(out[0], out[1], out[2], out[3]);
                } else {
#pragma unroll
                    for (int i = 0; i < 4; ++i) s[i] = out[i];
                }
            } else {
                if (ly >= rows_left) break;
                store4<Pixel>(g, x0 + lx, y0 + ly, out);
            }
        }
    }
}

// Picks the compute path for a filter type: separable, fixed-radius register window, or plain.
// kUserPlanar: the user 3x3 kernel on RGBA8 in its float form over raw bytes (tma); false keeps
// the register ring of compute_tile_fixed (tma_ws, cluster). H100 4K clamp, ring -> this form:
// tma 38.6 -> 35.3 us (non-dyadic weights 39.2 -> 35.0), tma_ws 42.8 -> 44.5 (42.9 -> 45.9),
// cluster 67.9 -> 69.6. The user 5x5 kernel (UserKernel5Filter) takes its float form on all three.
template <class Filter, class Pixel, bool kUserPlanar = true, class Sync>
__device__ __forceinline__ void compute_any(const Filter& f, const typename Pixel::Storage* tile, const TileGeom& g,
                                            int x0, int y0, int tid, int nthreads,
                                            typename Pixel::Storage* staging, float4* vbuf, Sync sync);

// ---- separable Box / Gaussian ------------------------------------------------------------------
// The 2D functor costs (2R+1)^2 taps per pixel, compute-bound from R of a few pixels. These two
// filters run as two 1D passes over the shared tile instead, one strip of kStripRows output
// rows at a time through a float4 buffer `vbuf` of (kStripRows, tile_w + 2R):
//   vertical:   vbuf[j][c] = sum_k w[k] * box[sy + j + k][c]     item = one column, kRun rows
//   horizontal: out[j][x]  = sum_k w[k] * vbuf[j][x + k]         item = one row, kRun outputs
// Box uses running sums along each run (two taps per output instead of 2R+1).
template <class Filter> struct IsSeparable { static constexpr bool value = false; };
template <> struct IsSeparable<tl::cuda::dev::BoxFilter> { static constexpr bool value = true; };
template <> struct IsSeparable<tl::cuda::dev::GaussianFilter> { static constexpr bool value = true; };

inline constexpr int kStripRows = 16;
inline constexpr int kRun = 8;

// float4 elements between strip rows: tile_w + 2R rounded up to odd, so the 8 threads of a
// quarter-warp reading one column of 8 different rows (16-byte loads) hit 8 distinct bank groups.
__host__ __device__ inline int strip_stride(int tile_w, int radius) { return (tile_w + 2 * radius) | 1; }

// Bytes of the float4 strip buffer for a tile of this width and radius.
inline std::size_t separable_strip_bytes(int tile_w, int radius) {
    return std::size_t(kStripRows) * std::size_t(strip_stride(tile_w, radius)) * 16;
}

__device__ __forceinline__ float4 f4_add(float4 a, float4 b) { return make_float4(a.x + b.x, a.y + b.y, a.z + b.z, 0.f); }
__device__ __forceinline__ float4 f4_sub(float4 a, float4 b) { return make_float4(a.x - b.x, a.y - b.y, a.z - b.z, 0.f); }
__device__ __forceinline__ void f4_fma(float4& acc, float w, float4 p) {
    acc.x = fmaf(w, p.x, acc.x); acc.y = fmaf(w, p.y, acc.y); acc.z = fmaf(w, p.z, acc.z);
}

template <class Pixel>
__device__ __forceinline__ void vertical_run(const tl::cuda::dev::BoxFilter&, const typename Pixel::Storage* col,
                                             int stride, int rows, int R, float4* out, int out_stride) {
    float4 acc = make_float4(0.f, 0.f, 0.f, 0.f);
    for (int k = 0; k < 2 * R; ++k) acc = f4_add(acc, Pixel::to_float(col[k * stride]));
    for (int j = 0; j < rows; ++j) {
        acc = f4_add(acc, Pixel::to_float(col[(j + 2 * R) * stride]));
        out[j * out_stride] = acc;
        acc = f4_sub(acc, Pixel::to_float(col[j * stride]));
    }
}
template <class Pixel>
__device__ __forceinline__ void vertical_run(const tl::cuda::dev::GaussianFilter& g, const typename Pixel::Storage* col,
                                             int stride, int rows, int R, float4* out, int out_stride) {
    // Groups of 4 output rows share a 4-deep window of converted pixels sliding down the taps:
    // (4 + 2R) loads and conversions per 4 outputs instead of 4 (2R + 1); per output the taps are
    // summed in the same order as one row at a time.
    int j = 0;
    for (; j + 4 <= rows; j += 4) {
        float4 win[4], acc[4];
#pragma unroll
        for (int i = 0; i < 4; ++i) {
            win[i] = Pixel::to_float(col[(j + i) * stride]);
            acc[i] = make_float4(0.f, 0.f, 0.f, 0.f);
        }
        for (int k = 0; k <= 2 * R; ++k) {
            const float wk = g.weights[k];
#pragma unroll
            for (int i = 0; i < 4; ++i) f4_fma(acc[i], wk, win[i]);
            if (k < 2 * R) {
                win[0] = win[1];
                win[1] = win[2];
                win[2] = win[3];
                win[3] = Pixel::to_float(col[(j + k + 4) * stride]);
            }
        }
#pragma unroll
        for (int i = 0; i < 4; ++i) out[(j + i) * out_stride] = acc[i];
    }
    for (; j < rows; ++j) {
        float4 acc = make_float4(0.f, 0.f, 0.f, 0.f);
        for (int k = 0; k <= 2 * R; ++k) f4_fma(acc, g.weights[k], Pixel::to_float(col[(j + k) * stride]));
        out[j * out_stride] = acc;
    }
}
__device__ __forceinline__ void horizontal_run(const tl::cuda::dev::BoxFilter& b, const float4* row, int R,
                                               float4 (&out)[kRun]) {
    float4 acc = make_float4(0.f, 0.f, 0.f, 0.f);
    for (int k = 0; k < 2 * R; ++k) acc = f4_add(acc, row[k]);
    const float n = float(2 * b.radius + 1);
    const float scale = 1.0f / (n * n);
#pragma unroll
    for (int i = 0; i < kRun; ++i) {
        acc = f4_add(acc, row[i + 2 * R]);
        out[i] = make_float4(scale * acc.x, scale * acc.y, scale * acc.z, 0.f);
        acc = f4_sub(acc, row[i]);
    }
}
__device__ __forceinline__ void horizontal_run(const tl::cuda::dev::GaussianFilter& g, const float4* row, int R,
                                               float4 (&out)[kRun]) {
    // A kRun-wide window of the strip slides along the taps: kRun + 2R strip loads per run
    // instead of kRun (2R + 1); per output the same summation order.
    float4 win[kRun];
#pragma unroll
    for (int i = 0; i < kRun; ++i) {
        win[i] = row[i];
        out[i] = make_float4(0.f, 0.f, 0.f, 0.f);
    }
    for (int k = 0; k <= 2 * R; ++k) {
        const float wk = g.weights[k];
#pragma unroll
        for (int i = 0; i < kRun; ++i) f4_fma(out[i], wk, win[i]);
        if (k < 2 * R) {
#pragma unroll
            for (int i = 0; i + 1 < kRun; ++i) win[i] = win[i + 1];
            win[kRun - 1] = row[k + kRun];
        }
    }
}

// Separable compute of one tile; same contract as compute_tile plus `vbuf`. Ends with a barrier
// of `nthreads` threads (sync) so the caller may reuse the stage.
template <class Filter, class Pixel, class Sync>
__device__ __forceinline__ void compute_tile_separable(const Filter& f, const typename Pixel::Storage* tile,
                                                       const TileGeom& g, int x0, int y0, int tid, int nthreads,
                                                       typename Pixel::Storage* staging, float4* vbuf, Sync sync) {
    using Storage = typename Pixel::Storage;
    const int R = g.radius;
    const int span = g.tile_w + 2 * R;
    const int vstride = strip_stride(g.tile_w, R);
    const int runs_x = g.tile_w / kRun;  // tile_w is a multiple of kRun on this path
    // Short vertical runs for small radii keep every thread busy; long ones for large radii make
    // the running sum pay its 2R-tap start-up less often.
    const int vrun = R <= 4 ? 4 : kStripRows;
    for (int sy = 0; sy < g.tile_h; sy += kStripRows) {
        const int rows = min(kStripRows, g.tile_h - sy);
        if (y0 + sy >= g.height && !staging) break;  // uniform: the rest of the tile is below the image
        const int vruns = (rows + vrun - 1) / vrun;
        for (int item = tid; item < span * vruns; item += nthreads) {
            const int vr = item / span, c = item - vr * span;
            const int j0 = vr * vrun;
            vertical_run<Pixel>(f, tile + (sy + j0) * g.box_stride + c + g.halo_left - R, g.box_stride,
                                min(vrun, rows - j0), R, vbuf + j0 * vstride + c, vstride);
        }
        sync();
        // Consecutive threads take consecutive rows of one run (bank-conflict free, see strip_stride).
        for (int item = tid; item < rows * runs_x; item += nthreads) {
            const int run = item / rows, j = item - run * rows;
            const int lx = run * kRun;
            const int y = y0 + sy + j;
            if (!staging && (y >= g.height || x0 + lx >= g.width)) continue;
            float4 acc[kRun];
            horizontal_run(f, vbuf + j * vstride + lx, R, acc);
            const Storage* centre = tile + (sy + j + R) * g.box_stride + lx + g.halo_left;
#pragma unroll
            for (int h = 0; h < kRun; h += 4) {
                Storage out[4];
#pragma unroll
                for (int i = 0; i < 4; ++i)
                    out[i] = Pixel::from_float(make_float4(acc[h + i].x, acc[h + i].y, acc[h + i].z,
                                                           Pixel::to_float(centre[h + i]).w));
                tl::cuda::dev::finish4(f, out);
                if (staging) {
                    Storage* s = staging + (sy + j) * g.tile_w + lx + h;
                    if constexpr (sizeof(Storage) == 4) {
                        *reinterpret_cast<uint4*>(s) = make_uint4(out[0], out[1], out[2], out[3]);
                    } else {
#pragma unroll
                        for (int i = 0; i < 4; ++i) s[i] = out[i];
                    }
                } else {
                    store4<Pixel>(g, x0 + lx + h, y, out);
                }
            }
        }
        sync();
    }
}

template <class Filter, class Pixel, bool kUserPlanar, class Sync>
__device__ __forceinline__ void compute_any(const Filter& f, const typename Pixel::Storage* tile, const TileGeom& g,
                                            int x0, int y0, int tid, int nthreads,
                                            typename Pixel::Storage* staging, float4* vbuf, Sync sync) {
    // Gaussian RGBA8 as band-matrix products on tensor cores (band_mma.cuh) where radius and tile fit.
    if constexpr (band_mma::kApplies<Filter, Pixel>)
        if (band_mma::fits(g.radius, g.tile_w)) return band_mma::gaussian_tile(f, tile, g, x0, y0, tid, nthreads, staging, sync);
    if constexpr (IsSeparable<tl::cuda::dev::base_filter_t<Filter>>::value)
        compute_tile_separable<Filter, Pixel>(f, tile, g, x0, y0, tid, nthreads, staging, vbuf, sync);
    else if constexpr (kUserPlanar &&
                       std::is_same_v<tl::cuda::dev::base_filter_t<Filter>, tl::cuda::dev::UserKernel3Filter> &&
                       std::is_same_v<Pixel, tl::cuda::dev::PixelRGBA8>) {
        // The user 3x3 kernel's float form over raw bytes; weights it cannot hold (a zero scale,
        // weights that are not finite) per pixel. Not the register ring of compute_tile_fixed: with
        // both, the kernel took 118 registers (tma), with this form alone 80, with the ring 98.
        if (f.planar.usable)  // uniform: a kernel parameter
            compute_tile_user_planar<Filter, 1>(f, tile, g, x0, y0, tid, nthreads, staging);
        else
            compute_tile<Filter, Pixel>(f, tile, g, x0, y0, tid, nthreads, staging);
    } else if constexpr (std::is_same_v<tl::cuda::dev::base_filter_t<Filter>,
                                        tl::cuda::dev::UserKernel5Filter> &&
                         std::is_same_v<Pixel, tl::cuda::dev::PixelRGBA8>) {
        // The user 5x5 kernel's float form on every TMA tile mechanism (kUserPlanar or not): its
        // generic window, 25 taps of four channels converted per tap, took 141-187 us at 4K.
        if (f.planar.usable)  // uniform: a kernel parameter
            compute_tile_user_planar<Filter, 2>(f, tile, g, x0, y0, tid, nthreads, staging);
        else
            compute_tile<Filter, Pixel>(f, tile, g, x0, y0, tid, nthreads, staging);
    } else if constexpr (FixedRadius<Filter>)
        compute_tile_fixed<Filter, Pixel>(f, tile, g, x0, y0, tid, nthreads, staging);
    else
        compute_tile<Filter, Pixel>(f, tile, g, x0, y0, tid, nthreads, staging);
}

} // namespace dev_tma
} // namespace tl::cuda::detail
