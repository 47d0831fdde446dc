// Mechanism "tma", Box filter on RGBA8: each CTA owns a vertical strip of the image and streams
// down it through a ring of TMA row blocks (cp.async.bulk.tensor.2d, UTMALDG), keeping the
// vertical running sums in integer registers; only one row enters and one leaves per output row,
// whatever the radius, and the image's rows are read once per strip instead of once per tile.
//
// Per CTA (strip x0 .. x0 + kStripW, rows ys .. ye of one vertical segment):
//   ring     K stages x (kBlockRows, box_w) uint32: image rows ys - R .. ye + R, one TMA box each;
//            box_w = halo_left + kStripW + R rounded up to an odd multiple of 4 px (halo_left = R
//            rounded up to 16 bytes, as every TMA box x start must be 16-byte aligned)
//   per block of kBlockRows output rows:
//     vertical    thread c owns column x0 - R + c (kStripW + 2R of them): per output row it adds the
//                 entering row y + R and, after storing the column sum, subtracts the leaving row
//                 y - R, as 16-bit lanes (R, B) and (G) in two registers: 65 x 255 fits in 16 bits
//     colsum      (kBlockRows, kStripW + 2R) uint2 in shared memory
//     horizontal  thread = one output row x kHRun outputs: a running sum over the column sums in
//                 32-bit per channel (65 x 65 x 255 needs 21 bits), then the exact rounded mean
//                 with one multiply-high per channel; alpha from the centre pixel
//   thread 0 refills ring stages no later output row reads (the ring holds the 2R + kBlockRows
//   rows one block reads, plus `stages` blocks in flight)
// Borders: rows and columns outside the image are read from the row / column the border rule
// names (fold_coord) inside the ring, which always holds them: an output row y reads rows within
// [y - R, y + R] clipped to the image. TMA's zero fill is used as is for Border::Zero.
#include "tma_box_stream.hpp"
#include "tma_common.cuh"

#include <algorithm>
#include <cstdint>
#include <string>

namespace tl::cuda::detail {

using namespace dev_tma;

namespace {

constexpr int kMaxRadius = 32;
constexpr int kStripW = 128;      // output columns per CTA (a multiple of kHRun)
constexpr int kBlockRows = 32;    // rows per TMA stage = output rows per vertical/horizontal block
constexpr int kHRun = 32;          // outputs per horizontal running sum (one thread)
constexpr int kMaxThreads = ((kStripW + 2 * kMaxRadius) + 31) / 32 * 32;
constexpr int kMaxStages = (2 * kMaxRadius + kBlockRows - 1) / kBlockRows + 4;
static_assert(kStripW % kHRun == 0 && kStripW / kHRun * kBlockRows <= kMaxThreads, "one horizontal item per thread");

// Smallest radius launch_tma sends here; the tile path keeps radius 1 (its compile-time 3x3
// register window). H100, 4K RGBA8 clamp, stages 2, tile path -> this kernel (first version):
// r=1 32.6 -> 59.5 us, r=4 75.4 -> 60.3, r=16 103.6 -> 62.0, r=32 271.5 -> 115.6 (cluster 194.9).
constexpr int kMinDispatchRadius = 2;

struct StreamGeom {
    int width, height, radius;
    int halo_left;            // box columns left of the strip
    int box_w;                // pixels per ring row (the TMA box's inner dimension)
    int strips, seg_h;        // strips across, output rows per vertical segment (a multiple of kBlockRows)
    int ring_stages;          // K
    std::uint32_t stage_bytes;
    int cs_stride;            // uint2 per column-sum row: kStripW + 2R rounded up to odd (bank spread)
    std::uint32_t inv_n;      // floor(2^32 / n) + 1, n = (2R + 1)^2
    std::uint32_t half_n;     // (n - 1) / 2
    int rb_group;             // column sums whose packed (R, B) lanes may be added before 16 bits overflow
    Border border;
    void* dst;
    std::size_t dst_pitch;
    bool vec_store;           // dst base and pitch allow 16-byte stores
};

// Channel lanes of one RGBA8 pixel: (R, B) as two 16-bit lanes, and G alone.
__device__ __forceinline__ std::uint32_t lanes_rb(std::uint32_t p) { return p & 0x00ff00ffu; }
__device__ __forceinline__ std::uint32_t lane_g(std::uint32_t p) { return __byte_perm(p, 0u, 0x4441u); }

} // namespace

// Named stencil_tma_kernel_* so that the SASS test (tests/gpu/test_sass.cpp) holds it to the tma
// mechanism's instruction, UTMALDG, like the tile kernel.
template <class Filter>
__global__ void __launch_bounds__(kMaxThreads)
    stencil_tma_kernel_box_stream(const __grid_constant__ CUtensorMap src_map, const __grid_constant__ Filter filter,
                                  const StreamGeom g) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    extern __shared__ unsigned char smem_raw[];
    __shared__ alignas(8) std::uint64_t full[kMaxStages];
    unsigned char* base = align128(smem_raw);
    const auto* ring = reinterpret_cast<const std::uint32_t*>(base);
    auto* colsum = reinterpret_cast<uint2*>(base + std::size_t(g.ring_stages) * g.stage_bytes);

    const int tid = static_cast<int>(threadIdx.x);
    const int R = g.radius;
    const int K = g.ring_stages;
    const int ring_rows = K * kBlockRows;
    const int bw = g.box_w;
    const int strip = static_cast<int>(blockIdx.x) % g.strips;
    const int seg = static_cast<int>(blockIdx.x) / g.strips;
    const int x0 = strip * kStripW;
    const int ys = seg * g.seg_h;
    const int ye = min(g.height, ys + g.seg_h);
    const int blocks = (ye - ys + kBlockRows - 1) / kBlockRows;
    // Loaded row i (0-based, in ring order) is image row load_row0 + i; TMA zero-fills rows
    // outside the image. Rows ys - R .. ys + blocks * kBlockRows + R - 1 are loaded.
    const int load_row0 = ys - R;
    const int nload = blocks * kBlockRows + 2 * R;
    const int nstages = (nload + kBlockRows - 1) / kBlockRows;

    auto issue = [&](int s) {
        const int slot = s % K;
        mbar_arrive_expect_tx(&full[slot], g.stage_bytes);
        tma_load_2d(base + std::size_t(slot) * g.stage_bytes, &src_map, x0 - g.halo_left, load_row0 + s * kBlockRows,
                    &full[slot]);
    };

    tl::cuda::dev::stage_epilogue(filter);  // published by the barrier below
    if (tid == 0) {
        prefetch_map(&src_map);
        for (int s = 0; s < K; ++s) mbar_init(&full[s], 1);
        fence_barrier_init();
    }
    __syncthreads();
    int issued = 0;  // thread 0's count of stages issued
    if (tid == 0)
        for (; issued < min(K, nstages); ++issued) issue(issued);
    int waited = 0;  // stages every thread has waited for (the same count in every thread)
    auto wait_through = [&](int s) {
        s = min(s, nstages - 1);
        for (; waited <= s; ++waited) mbar_wait(&full[waited % K], static_cast<std::uint32_t>((waited / K) & 1));
    };

    // This thread's column: virtual column x0 - R + tid, read from the loaded column the border
    // names (clamped into the box: columns no stored output reads may fold anywhere).
    const int ncols = kStripW + 2 * R;
    const bool has_col = tid < ncols;
    const int vc = x0 - R + tid;
    int lc = (g.border == Border::Zero ? vc : fold_coord(vc, g.width, g.border)) - (x0 - g.halo_left);
    lc = min(max(lc, 0), bw - 1);
    // Ring row of image row v under the border rule, for blocks that reach outside the image
    // (the first and last of a column of segments); clamped like the columns.
    auto ring_row_folded = [&](int v) {
        const int r = g.border == Border::Zero ? v : fold_coord(v, g.height, g.border);
        const int li = min(max(r - load_row0, 0), nload - 1);
        return ring + std::size_t(li % ring_rows) * std::size_t(bw);
    };

    // Vertical running sums: (R, B) in the 16-bit lanes of one register, G in another.
    std::uint32_t s_rb = 0, s_g = 0;
    // Warm-up: rows ys - R .. ys + R - 1 enter (loaded rows 0 .. 2R - 1, ring rows as loaded).
    wait_through((2 * R - 1) / kBlockRows);
    if (has_col) {
        const bool inside = g.border == Border::Zero || (ys - R >= 0 && ys + R <= g.height);
        for (int i = 0; i < 2 * R; ++i) {
            const std::uint32_t p = inside ? ring[std::size_t(i) * bw + lc] : ring_row_folded(load_row0 + i)[lc];
            s_rb += lanes_rb(p);
            s_g += lane_g(p);
        }
    }

    // Horizontal item of this thread: output row hj of the block, outputs hx .. hx + kHRun - 1.
    const bool has_item = tid < kBlockRows * (kStripW / kHRun);
    const int hj = tid % kBlockRows;
    const int hx = (tid / kBlockRows) * kHRun;

    for (int k = 0; k < blocks; ++k) {
        const int yk = ys + k * kBlockRows;
        // Loaded rows 32k .. 32k + 2R + 31 (entering rows of this block and the rows leaving it).
        wait_through((k * kBlockRows + 2 * R + kBlockRows - 1) / kBlockRows);
        if (has_col) {
            uint2* out = colsum + tid;
            const bool inside = g.border == Border::Zero || (yk - R >= 0 && yk + kBlockRows + R <= g.height);
            if (inside) {
                // Leaving rows are loaded rows 32k + j: ring rows (32k mod ring) + j, never wrapping
                // inside a block. Entering rows 32k + 2R + j wrap once at j = jw.
                const std::uint32_t* lp = ring + std::size_t((k * kBlockRows) % ring_rows) * bw + lc;
                const int e0 = (k * kBlockRows + 2 * R) % ring_rows;
                const std::uint32_t* ep = ring + std::size_t(e0) * bw + lc;
                const int jw = ring_rows - e0;
#pragma unroll 8
                for (int j = 0; j < kBlockRows; ++j) {
                    const std::uint32_t e = ep[0];
                    const std::uint32_t l = lp[0];
                    s_rb += lanes_rb(e);
                    s_g += lane_g(e);
                    out[j * g.cs_stride] = make_uint2(s_rb, s_g);
                    s_rb -= lanes_rb(l);
                    s_g -= lane_g(l);
                    lp += bw;
                    ep += (j + 1 == jw) ? bw - ring_rows * bw : bw;
                }
            } else {
                for (int j = 0; j < kBlockRows; ++j) {
                    const int y = yk + j;
                    const std::uint32_t e = ring_row_folded(y + R)[lc];
                    const std::uint32_t l = ring_row_folded(y - R)[lc];
                    s_rb += lanes_rb(e);
                    s_g += lane_g(e);
                    out[j * g.cs_stride] = make_uint2(s_rb, s_g);
                    s_rb -= lanes_rb(l);
                    s_g -= lane_g(l);
                }
            }
        }
        __syncthreads();  // column sums of the block are in shared memory

        const int y = yk + hj;
        if (has_item && y < ye) {
            // Column-sum index c is column x0 - R + c: output x0 + hx reads indices hx .. hx + 2R.
            const uint2* row = colsum + hj * g.cs_stride + hx;
            std::uint32_t ar = g.half_n, ag = g.half_n, ab = g.half_n;  // + (n-1)/2: round to nearest
            for (int t0 = 0; t0 <= 2 * R; t0 += g.rb_group) {
                std::uint32_t prb = 0;
                const int t1 = min(t0 + g.rb_group, 2 * R + 1);
                for (int t = t0; t < t1; ++t) {
                    const uint2 v = row[t];
                    prb += v.x;
                    ag += v.y;
                }
                ar += prb & 0xffffu;
                ab += prb >> 16;
            }
            // The centre pixels' alpha: loaded row y - load_row0, loaded column x - x0 + halo_left.
            const auto* centre = reinterpret_cast<const uint4*>(
                ring + std::size_t((y - load_row0) % ring_rows) * bw + g.halo_left + hx);
            auto* drow = tl::cuda::dev::row_ptr<tl::cuda::dev::PixelRGBA8>(g.dst, g.dst_pitch, y);
#pragma unroll
            for (int q = 0; q < kHRun / 4; ++q) {
                const uint4 c4 = centre[q];
                const std::uint32_t alpha[4] = {c4.x, c4.y, c4.z, c4.w};
                std::uint32_t o[4];
#pragma unroll
                for (int i4 = 0; i4 < 4; ++i4) {
                    const int i = 4 * q + i4;
                    if (i > 0) {
                        // Window moves right by one: column sum hx + i + 2R enters, hx + i - 1 leaves.
                        // The (R, B) difference is taken with 0x8000 added to each lane, so neither
                        // lane borrows from the other, and the bias is taken off again per channel.
                        const uint2 e = row[i + 2 * R];
                        const uint2 l = row[i - 1];
                        const std::uint32_t d = e.x + 0x80008000u - l.x;
                        ar += (d & 0xffffu) - 0x8000u;
                        ab += (d >> 16) - 0x8000u;
                        ag += e.y - l.y;
                    }
                    // floor((sum + (n-1)/2) / n), the reference's floor((2 sum + n) / 2n) for odd n,
                    // exact: x * (inv_n * n - 2^32) < 2^19 * 2^13 = 2^32 for every x and n here.
                    const std::uint32_t qr = __umulhi(ar, g.inv_n);
                    const std::uint32_t qg = __umulhi(ag, g.inv_n);
                    const std::uint32_t qb = __umulhi(ab, g.inv_n);
                    const std::uint32_t rg = __byte_perm(qr, qg, 0x3340u);            // R, G, 0, 0
                    const std::uint32_t ba = __byte_perm(qb, alpha[i4], 0x3370u);     // B, A, 0, 0
                    o[i4] = __byte_perm(rg, ba, 0x5410u);
                }
                tl::cuda::dev::finish4(filter, o);
                const int x = x0 + hx + 4 * q;
                if (g.vec_store && x + 3 < g.width) {
                    *reinterpret_cast<uint4*>(drow + x) = make_uint4(o[0], o[1], o[2], o[3]);
                } else {
#pragma unroll
                    for (int i4 = 0; i4 < 4; ++i4)
                        if (x + i4 < g.width) drow[x + i4] = o[i4];
                }
            }
        }
        __syncthreads();  // column sums and the block's ring rows are free again
        if (tid == 0) {
            // The next block reads loaded rows from 32 (k + 1) on: stage s overwrites stage s - K,
            // free once all of its rows lie below that.
            fence_proxy_async_smem();
            while (issued < nstages && issued - K + 1 <= k + 1) issue(issued++);
        }
    }
#else
    (void)src_map; (void)filter; (void)g;
#endif
}

namespace {

std::optional<Result> launch_box_stream(const LaunchArgs& a, const HopperDevice& dev, int min_radius) {
    if (a.params.kind != FilterKind::Box || a.src.format != PixelFormat::RGBA8 || a.dst.format != PixelFormat::RGBA8)
        return std::nullopt;
    const int R = a.params.radius;
    if (R < min_radius || R > kMaxRadius) return std::nullopt;
    // A TMA store of the output was asked for: the tile path has one, this kernel stores directly.
    if (a.policy.tma_store) return std::nullopt;

    StreamGeom g{};
    g.width = a.src.width;
    g.height = a.src.height;
    g.radius = R;
    g.halo_left = tma_halo_left(PixelFormat::RGBA8, R);
    g.box_w = (g.halo_left + kStripW + R + 3) / 4 * 4;
    // An odd number of 16-byte units per ring row: the horizontal pass reads the centre pixels of
    // 32 consecutive rows with one 16-byte load each, conflict-free only then (8-way otherwise).
    if ((g.box_w / 4) % 2 == 0) g.box_w += 4;
    g.strips = (g.width + kStripW - 1) / kStripW;
    g.cs_stride = (kStripW + 2 * R) | 1;
    const std::uint32_t n = std::uint32_t((2 * R + 1) * (2 * R + 1));
    g.inv_n = std::uint32_t((std::uint64_t(1) << 32) / n + 1);
    g.half_n = (n - 1) / 2;
    // Column sums are at most (2R + 1) * 255 per lane; this many fit a 16-bit lane together.
    g.rb_group = std::max(1, 65535 / ((2 * R + 1) * 255));
    g.border = a.border;
    g.dst = a.dst.data;
    g.dst_pitch = a.dst.pitch;
    g.vec_store = reinterpret_cast<std::uintptr_t>(a.dst.data) % 16 == 0 && a.dst.pitch % 16 == 0;
    g.stage_bytes = std::uint32_t(g.box_w) * 4u * std::uint32_t(kBlockRows);  // a multiple of 128

    // The ring: the stages one block reads (its 2R + 32 rows, 32-row aligned) plus `stages` in
    // flight; shallower (down to none in flight) when shared memory is short.
    const int window = (2 * R + kBlockRows - 1) / kBlockRows + 1;
    const std::size_t colsum_bytes = std::size_t(kBlockRows) * std::size_t(g.cs_stride) * sizeof(std::uint32_t) * 2;
    const std::size_t limit = dev.smem_optin - tl::cuda::dev::epilogue_smem_bytes(a.ops);
    int K = window - 1 + a.policy.stages;
    auto smem_for = [&](int k) { return std::size_t(k) * g.stage_bytes + colsum_bytes + kTmaSharedAlign; };
    while (K > window && smem_for(K) > limit) --K;
    if (smem_for(K) > limit || K > kMaxStages) return std::nullopt;
    g.ring_stages = K;

    TmaBoxDesc d;
    d.global_address = reinterpret_cast<std::uintptr_t>(a.src.data);
    d.global_dim[0] = std::uint64_t(a.src.width);
    d.global_dim[1] = std::uint64_t(a.src.height);
    d.global_stride = a.src.pitch;
    d.box_dim[0] = std::uint32_t(g.box_w);
    d.box_dim[1] = std::uint32_t(kBlockRows);
    d.element_bytes = 4;
    if (std::string why = validate_tma_box(d); !why.empty()) return Result::fail("tma box stream: " + why);
    CUtensorMap map{};
    if (Result r = encode_tensor_map(&map, d, PixelFormat::RGBA8, a.src.data, "tma box stream"); !r) return r;

    const int threads = (kStripW + 2 * R + 31) / 32 * 32;
    const int smem = static_cast<int>(smem_for(K));
    return dev::with_epilogue<dev::PixelRGBA8>(dev::BoxFilter{R}, a.ops, [&](const auto& f) -> std::optional<Result> {
        auto kernel = stencil_tma_kernel_box_stream<std::decay_t<decltype(f)>>;
        if (cudaError_t e = cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, smem); e != cudaSuccess)
            return Result::fail(std::string("stencil_tma_kernel_box_stream: cannot reserve shared memory: ") +
                                cudaGetErrorName(e));
        int per_sm = 0;
        cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, threads, static_cast<std::size_t>(smem));
        if (per_sm < 1) return std::nullopt;
        // One CTA per (strip, segment), all resident at once: the strips are cut into as many
        // segments as leave every CTA a slot (each segment re-reads 2R rows above it).
        const int slots = per_sm * dev.sm_count;
        const int max_segs = (g.height + kBlockRows - 1) / kBlockRows;
        const int segs = std::clamp(slots / g.strips, 1, max_segs);
        g.seg_h = ((g.height + segs - 1) / segs + kBlockRows - 1) / kBlockRows * kBlockRows;
        const int grid = g.strips * ((g.height + g.seg_h - 1) / g.seg_h);
        kernel<<<grid, threads, static_cast<std::size_t>(smem), a.stream>>>(map, f, g);
        return tma_launch_error("stencil_tma_kernel_box_stream");
    });
}

} // namespace

std::optional<Result> launch_tma_box_stream(const LaunchArgs& a, const HopperDevice& dev) {
    return launch_box_stream(a, dev, kMinDispatchRadius);
}

std::optional<Result> launch_tma_box_stream_any_radius(const LaunchArgs& a) {
    HopperDevice dev;
    if (Result r = query_hopper("tma box stream", &dev); !r) return r;
    return launch_box_stream(a, dev, 1);
}

} // namespace tl::cuda::detail
