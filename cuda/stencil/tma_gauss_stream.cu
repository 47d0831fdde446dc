// Mechanism "tma", Gaussian on RGBA8 (radius 1..30, every sigma): each CTA owns a 64-column strip of
// the image (128 at radius 9..12: kWarpsFor) and streams down one vertical segment of
// it through a ring of TMA row blocks (cp.async.bulk.tensor.2d, UTMALDG); its four (eight) warps
// each run the tensor-core band products of band_mma.cuh (HMMA) on one 16-column sub-strip,
// keeping the sliding window of horizontal results in registers from one 8-row step to the next.
//
// Why: the tile path (band_mma::tile_with on 64x32 tiles) pays per tile for the W - 1 horizontal
// blocks before a strip's first output, the fragment set-up, the warp/strip split's divisions,
// the tile index math and fix_border's pass over the halo. ncu (H100, 4K, sigma 3): 23.2 M warp
// instructions, 38 % of them that per-tile work, and 52 us against the copy's 25.7. Here they are
// paid once per segment (~150-200 rows) or not at all (borders are folded as rows and columns are
// read, only in the CTAs that reach an image edge).
//
// Per CTA (strip x0 .. x0 + kStripW - 1, output rows ys .. ye of a segment; loaded row i = image row
// ys - R + i; block b = loaded rows 8b .. 8b + 7, one TMA box of kRows x box_w pixels, box
// column 0 = image column x0 - HL, HL = R rounded up to 16 bytes):
//   ring     K = W + stages blocks; step s (output rows ys + 8s .. + 7) reads blocks s .. s + W - 1
//   step s   warp w: horizontal block s + W - 1 enters its window (KH m16n8k16 per channel; W = 4:
//            the last one m16n8k8), vertical product over the window (W m16n8k8 per channel;
//            W = 4: W / 2 m16n8k16, two blocks each, on fixed register slots), 16 x 8 outputs stored
//            with the centre pixel's alpha; each warp then arrives on empty[block s]
//   thread 0 at the start of step s waits for empty[block s - 1] and refills that slot with block
//            s - 1 + K (TMA zero-fills rows and columns outside the image)
// Shapes (KH, W): radius 1..4 (2, 2), 5..8 (2, 3), 9..12 (3, 4); radius 13..16 (3, 5), 17..24 (4, 7)
// and 25..30 (5, 9), the wide ones with the taps past a smaller radius's band zero (session 34: H200
// 4K sigma 10 1071 us on the tile path -> 69-70 us; sigma 5 41, sigma 7 52; the times follow the
// HMMA per step, 24 / 33 / 42, see docs/performance-notes.md).
// Segments: see launch_shape (the even cut, the edge strips cut finer where slots are free).
// Borders: Zero is TMA's zero fill as is. Clamp and mirror fold a row outside the image to the
// loaded row it names (always within the blocks the ring still holds: at most 2R - 1 rows away)
// and, in the strips at the left and right image edges, each column the same way.
#include "tma_gauss_stream.hpp"

#include "band_mma.cuh"
#include "tma_common.cuh"
#include "cta_clocks.cuh"

#include <algorithm>
#include <cstdint>
#include <string>
#include <type_traits>

namespace tl::cuda::detail {

using namespace dev_tma;

namespace {

// Warps per CTA (one 16-column sub-strip each): 4, or 8 (a 128-column strip) at W = 4 (radius
// 9..12). H200, A/B in one run (three pairs, copy kernel 19.9-20.2 us): 4K sigma 3 35.7-36.2 ->
// 35.3 us, 8K 118.2-118.4 -> 115.5-115.7; the other shapes keep 4 warps. The 8-warp CTAs hold 3
// per SM (24 warps against 20, at most 80 registers) and read 176-pixel ring rows for 128 columns
// instead of 112 for 64. Fused chains at W = 4 take 8 warps too: a strip's segments, and so the
// order in which an image row's vertical products are summed (the window's fixed slots start at
// each segment's first block), must be the Gaussian alone's, or a chain amplifies a last-bit
// difference (Fused.BitIdenticalToTwoPassAt4K). The arithmetic chains spill there (120 bytes;
// ncu, H200, one 4K launch: 86.7 us with 4 warps and 96 registers -> 91.4); the byte-table ones
// do not (bench: 4K sigma 3 + chain3 37.6 -> 36.3 us).
// The wide shapes (W > 4, radius 13..30) keep 4 warps: their window alone is 6 W registers.
template <int W>
constexpr int kWarpsFor = W == 4 ? 8 : 4;
constexpr int kRows = band_mma::kStepRows;           // rows per TMA block = rows per step
// Ring blocks: the window W + stages (<= 4); each shape's mbarrier arrays hold as many.
template <int W>
constexpr int kMaxStagesFor = W + 4;
constexpr int kMaxBoxW = 176;                        // pixels per ring row (launch_tma_gauss_stream)
struct FoldTest {};  // load_chunks: test per chunk whether the strip reaches past an image edge

struct GaussStreamGeom {
    int width, height, radius;
    int halo_left;            // HL: box columns left of the strip
    int box_w;                // pixels per ring row (the TMA box width)
    StreamGrid grid;          // strips, their segments and the CTAs' launch order (plan_stream_grid)
    int ring_stages;          // K
    std::uint32_t stage_bytes;
    Border border;
    void* dst;
    std::size_t dst_pitch;
};

} // namespace

// Named stencil_tma_kernel_* so that the SASS tests hold it to the tma mechanism's UTMALDG (and,
// being a Gaussian RGBA8 kernel, to HMMA).
// W = 4 (8 warps): at most 85 registers, 3 CTAs per SM (ptxas takes 80). Other W: no bound (0).
template <class Filter, int KH, int W>
__global__ void __launch_bounds__(32 * kWarpsFor<W>, W == 4 ? 3 : 0)
    stencil_tma_kernel_gauss_stream(const __grid_constant__ CUtensorMap src_map,
                                    const __grid_constant__ Filter filter, const GaussStreamGeom g) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    // 128-byte aligned as declared, so the ring's address is a constant (align128 at run time was
    // recomputed in every step where registers ran short).
    extern __shared__ __align__(128) unsigned char smem_raw[];
    __shared__ alignas(8) std::uint64_t full[kMaxStagesFor<W>];
    __shared__ alignas(8) std::uint64_t empty[kMaxStagesFor<W>];
    // Edge strips under clamp or mirror: the box column each box column reads (fold_cols).
    __shared__ alignas(16) int colmap[kMaxBoxW];
    unsigned char* base = smem_raw;
    const auto* ring = reinterpret_cast<const std::uint32_t*>(base);

    constexpr int kWarps = kWarpsFor<W>, kThreads = 32 * kWarps, kStripW = kWarps * band_mma::kStripW;
    const int tid = static_cast<int>(threadIdx.x);
    const int lane = tid & 31, warp = tid >> 5;
    const int gq = lane >> 2, t = lane & 3;
    const int R = g.radius, K = g.ring_stages, BW = g.box_w, HL = g.halo_left;
    // W = 4 (radius 9..12, HL = 12): the outputs read box columns HL - R .. HL + 15 + R <= 39 of a
    // strip, so the third horizontal k-block is an m16n8k8 one (band_mma's kTail8).
    constexpr bool kTail8 = W == 4;
    const int ring_rows = K * kRows;
    // Launch order where every segment is resident at once (g.grid.edges_first): each strip's first
    // and last segment, which reach the image's edges (their border rows folded), then segments 1, 2,
    // ...: the CTAs launched last on an SM run slowest (the box stream's per-CTA clocks). H100 4K
    // (A/B in one run, three alternating triples): sigma 3 37.5-37.9 -> 36.8-37.3 us, 1.5 32.4-32.8
    // -> 32.0-32.2, 0.5 unchanged (32.9-33.2); the last segment alone first: 37.2-37.6 / 32.1-32.3.
    // With a tail (8K) the launch order is the plan's: the short segments must come last.
    const StreamCta cta = g.grid.cta(static_cast<int>(blockIdx.x));
    const int x0 = cta.strip * kStripW;
    const SegmentRows seg_rows = g.grid.rows(cta, g.height);
    TL_CTA_CLOCKS_BEGIN(cta.strip, cta.seg, cta.edge_cut ? g.grid.edge_segments.per_strip : g.grid.segments.per_strip);
    const int ys = seg_rows.begin, ye = seg_rows.end;
    const int steps = (ye - ys + kRows - 1) / kRows;
    const int nblocks = steps + W - 1;
    const int load_row0 = ys - R;
    const int bx = x0 - HL;  // image column of box column 0 (a multiple of 4 pixels: 16 bytes)

    // Thread 0 issues blocks in order; issue_slot is block `issued`'s slot (no modulo per block).
    int issue_slot = 0;
    auto issue = [&](int b) {
        mbar_arrive_expect_tx(&full[issue_slot], g.stage_bytes);
        tma_load_2d(base + std::size_t(issue_slot) * g.stage_bytes, &src_map, bx, load_row0 + b * kRows,
                    &full[issue_slot]);
        if (++issue_slot == K) issue_slot = 0;
    };

    tl::cuda::dev::stage_epilogue(filter);  // published by the barrier below
    if (tid == 0) {
        prefetch_map(&src_map);
        for (int s = 0; s < K; ++s) {
            mbar_init(&full[s], 1);
            mbar_init(&empty[s], kWarps);
        }
        fence_barrier_init();
    }
    int issued = 0;  // thread 0's count of blocks issued
    // At first only the window's W blocks: every CTA starts at once and waits for its window, so
    // the blocks behind it would only delay the windows; they go out once the window is in. Thread 0
    // issues them before the barrier that publishes the initialised mbarriers to the other threads.
    if (tid == 0)
        for (; issued < min(W, nblocks); ++issued) issue(issued);
    const bool fold_cols = g.border != Border::Zero && (bx < 0 || bx + BW > g.width);
    if (fold_cols) {
        // Sources are kept to the box's in-image columns: columns no stored output reads may fold
        // anywhere, but never onto a column that is itself folded.
        const int lo = max(0, -bx), hi = min(BW, g.width - bx) - 1;
        for (int c = tid; c < BW; c += kThreads) {
            const int x = bx + c;
            colmap[c] = min(max(fold_coord(x, g.width, g.border) - bx, lo), hi);
        }
    }
    __syncthreads();

    // The barriers' shared addresses, converted once (mbar_wait_at). With the ring's constant base
    // (smem_raw): H200, A/B in one run (four pairs at 4K, two at 8K): sigma 0.5 28.9-29.0 ->
    // 28.3-28.4 us, 8K 94.8-94.9 -> 92.0-92.1; sigma 3 34.1-34.3 -> 33.9-34.1, 8K 109.1-109.6 ->
    // 108.4-108.9; sigma 1.5 unchanged.
    const std::uint32_t full0 = smem_u32(full), empty0 = smem_u32(empty);

    const bool fold_rows = g.border != Border::Zero && (load_row0 < 0 || load_row0 + nblocks * kRows > g.height);
    // Ring row of loaded row i (slot `slot` holds its block) under the border rule: rows outside
    // the image read the loaded row fold_coord names. For every row a stored output reads, that
    // row lies within the blocks the ring holds while block i / kRows enters (blocks
    // i / kRows - W + 1 .. i / kRows, and before the first step all of 0 .. W - 1); the rows of a
    // block below the last output may fold anywhere, so the folded row is clamped to those blocks.
    // `slot_off`: the byte offset in the ring of the slot holding block i / kRows.
    auto ring_row = [&](int i, std::uint32_t slot_off) -> const std::uint32_t* {
        if (fold_rows) {
            const int y = load_row0 + i;
            if (y < 0 || y >= g.height) {
                int r = y < 0 ? (g.border == Border::Mirror ? -y - 1 : 0)
                              : (g.border == Border::Mirror ? 2 * g.height - 1 - y : g.height - 1);
                if (r < 0 || r >= g.height) r = fold_coord(y, g.height, g.border);  // images under R rows
                const int b = i / kRows;
                const int lo = max(0, kRows * (b - W + 1)), hi = max(kRows * b, kRows * (W - 1)) + kRows - 1;
                return ring + (min(max(r - load_row0, lo), hi) % ring_rows) * BW;
            }
        }
        return reinterpret_cast<const std::uint32_t*>(base + slot_off) + (i & (kRows - 1)) * BW;
    };
    // The lane's KH chunks of one box row: pixels lx + 16 j + 4t .. + 3, 16-byte loads (clamped
    // to the row: columns past it meet zero weights only); where a chunk reaches past the image's
    // left or right edge, its four source columns from colmap (one 16-byte load) and four 4-byte
    // loads (fold_coord per pixel, as before, held registers for the whole kernel: (2, 2) 89 -> 66,
    // (2, 3) 96 -> 68; H100 4K sigma 1.5 34.3 -> 32.9 us, sigma 3 unchanged at 95 registers).
    // Every CTA runs at once and the last to finish sets the kernel's time, so the edge
    // strips' chunks that lie inside keep the 16-byte load (folding all of an edge strip's chunks
    // per pixel cost ~150 instructions per warp and step, against ~260 for the whole step
    // elsewhere). Measured: sigma 3 41.2 -> 40.2-40.8 us; ncu's busiest SM 68.9 K -> 68.0 K active
    // cycles, the mean 61 K.
    // The chunks lie inside the row: lx + 16 j + 4t + 3 <= 48 + 16 (KH - 1) + 15 < BW for the
    // shapes launch_tma_gauss_stream picks (KH = 3 only with 112-pixel rows, KH = 5 with 144: the
    // box is widened to the chunks where the radius alone would not need them).
    // `fold`: std::true_type where this CTA's strip reaches past an image edge, std::false_type
    // where it does not (W = 4: the two run a copy of the steps each, the second without the
    // per-chunk test: H100 SASS of the (3, 4) kernel had 7 instructions per chunk with the test
    // and its branch; with the copies 17.69 -> 16.48 M warp instructions, 95 -> 88 registers,
    // 4K sigma 3 39.9 -> 38.8 us), FoldTest to test fold_cols per chunk (W != 4; W < 4: a second copy of
    // their unrolled steps took them from 66 to 70 and 68 to 80 registers, a CTA per SM fewer).
    const int lx = warp * band_mma::kStripW;
    auto load_chunks = [&](const std::uint32_t* row, uint4 (&chunk)[KH], auto fold) {
        const auto* q = reinterpret_cast<const uint4*>(row + lx + 4 * t);
#pragma unroll
        for (int j = 0; j < KH; ++j) {
            if constexpr (kTail8) {
                if (j == KH - 1) {
                    // Pixels 16 j + 2t, + 1 of the strip's box columns (8 bytes).
                    const int c = lx + 16 * j + 2 * t;
                    const bool inside = (bx + c >= 0 && bx + c + 1 < g.width) || !decltype(fold)::value;
                    if (inside) {
                        const uint2 v = *reinterpret_cast<const uint2*>(row + c);
                        chunk[j] = make_uint4(v.x, v.y, 0u, 0u);
                    } else {
                        const int2 m = *reinterpret_cast<const int2*>(colmap + c);
                        chunk[j] = make_uint4(row[m.x], row[m.y], 0u, 0u);
                    }
                    continue;
                }
            }
            const int c = lx + 16 * j + 4 * t;
            bool inside = bx + c >= 0 && bx + c + 3 < g.width;
            if constexpr (std::is_same_v<decltype(fold), FoldTest>)
                inside = inside || !fold_cols;
            else
                inside = inside || !decltype(fold)::value;
            if (inside) {
                chunk[j] = q[4 * j];
            } else {
                const int4 m = *reinterpret_cast<const int4*>(colmap + c);
                chunk[j] = make_uint4(row[m.x], row[m.y], row[m.z], row[m.w]);
            }
        }
    };

    band_mma::Fragments<KH, W> fr;
    band_mma::make_fragments<KH, W, kTail8>(filter.weights, R, HL, lane, fr);

    auto run = [&](auto fold) {
        // Window: blocks 0 .. W - 2 before the first step (W - 1 holds every row a top-edge fold names).
        for (int b = 0; b < W; ++b) mbar_wait_at(full0 + 8u * std::uint32_t(b), 0u);  // nblocks >= W
        if (tid == 0)
            for (; issued < min(K, nblocks); ++issued) issue(issued);  // slots not used yet: no empty wait
        std::uint32_t win[W][3][2];
#pragma unroll
        for (int q = 0; q < W - 1; ++q) {
            uint4 chunk[KH];
            load_chunks(ring_row(q * kRows + gq, q * g.stage_bytes), chunk, fold);
            band_mma::horizontal_from_chunks<KH, W, kTail8>(chunk, fr, win[q]);
        }
        // The step's ring positions as byte offsets and barrier addresses, advanced by one slot per
        // step (no slot index arithmetic in the steps): the entering block's slot (K > W), the
        // step's first block's (its centre rows, its release), its empty barrier, and the full
        // barrier and parity of block s + W - 1 (blocks 0 .. W - 1 were waited for above), which
        // each step waits for once (no RingWaiter loop); the output address moves down 8 rows per
        // step. Before, each step derived them from slot indices and the row number (ncu, H200 4K
        // sigma 3: ~85 of the step's ~185 SASS instructions were such bookkeeping). H200, A/B in one
        // run (four pairs at 4K, two at 8K): sigma 3 33.7-33.9 -> 29.9-30.0 us (1.49-1.50x the
        // copy), 8K 108.0-108.7 -> 92.8-93.2; sigma 1.5 29.6 -> 27.6-27.8, 8K 94.4-95.4 ->
        // 87.6-88.2; sigma 0.5 28.2-28.3 -> 26.8-27.0, 8K 91.7-92.2 -> 86.7-86.9; 1080p sigma 3
        // 15.1 -> 14.0.
        const std::uint32_t ring_bytes = std::uint32_t(K) * g.stage_bytes;
        std::uint32_t enter_off = std::uint32_t(W - 1) * g.stage_bytes;
        std::uint32_t first_off = 0;
        std::uint32_t first_empty = empty0;
        std::uint32_t wait_full = full0 + 8u * std::uint32_t(W % K);
        std::uint32_t wait_phase = 0;
        int refill_slot = 0;             // thread 0: slot of block s - 1, refilled at step s
        std::uint32_t refill_phase = 0;  // thread 0: parity of that slot's empty barrier
        // The lane's outputs: segment rows 8 s + 2t (+ 1), strip columns lc0 (+ 8); the centre of
        // output row ly is loaded row ly + R (ring bytes from the step's first block: centre_lane).
        const int lc0 = lx + gq;
        const std::uint32_t row_bytes = std::uint32_t(BW) * 4u;
        const std::uint32_t centre_lane = std::uint32_t(2 * t + R) * row_bytes + std::uint32_t(lc0 + HL) * 4u;
        const std::size_t pitch = g.dst_pitch;
        char* out_row = static_cast<char*>(g.dst) + std::size_t(ys + 2 * t) * pitch + std::size_t(x0 + lc0) * 4u;
        // Steps whose 16 x 8 outputs lie inside the segment and the image.
        const int whole_steps = x0 + lx + band_mma::kStripW <= g.width ? (ye - ys) / kRows : 0;
        // Unrolled W times, so that every window slot is a constant: the entering block takes the
        // oldest block's slot, (u + W - 1) % W. W = 4 (radius 9..12): the vertical products' weight
        // pairs follow the blocks instead of the blocks moving (vertical_step_fixed); the rotating
        // form it replaces moved 18 registers per step (ncu, H200 4K sigma 3: 185 SASS instructions
        // per warp and step). H200, A/B in one run (four pairs at 4K, two at 8K): sigma 3 34.2-34.5
        // -> 33.8-33.9 us, 8K 111.7-112.6 -> 108.7-108.9. ptxas (8 warps, the 3-CTA bound): 80
        // registers, the Gaussian alone and byte-table chains with a 12-byte spill, arithmetic
        // chains 120 bytes (kWarpsFor). Every W = 4 kernel takes this form, so that a fused chain
        // sums in the same order as the Gaussian alone and Fused.BitIdenticalToTwoPassAt4K holds.
        // (An earlier unrolled form, ~4 x 1000 SASS instructions and 127 registers, had cost
        // 40.6-42.2 -> 45.5 us on the H100; W = 2, 3 rotated instead of unrolled: sigma 0.5 went
        // 33.8 -> 37.2 us and sigma 1.5 35.0 -> 38.4.)
        constexpr int kUnroll = W;
        [[maybe_unused]] std::uint32_t wpair[4][2] = {};
        if constexpr (W == 4) band_mma::rotating_weight_pairs(fr.bv, wpair);
#pragma unroll 1
        for (int s0 = 0; s0 < steps; s0 += kUnroll) {
#pragma unroll
            for (int u = 0; u < kUnroll; ++u) {  // u: the slot of step s's oldest block
                const int s = s0 + u;
                if (s >= steps) break;  // uniform per CTA
                if (tid == 0 && s >= 1) {
                    if (issued < nblocks) {
                        mbar_wait_at(empty0 + 8u * static_cast<std::uint32_t>(refill_slot), refill_phase);
                        fence_proxy_async_smem();  // generic reads of the slot before TMA overwrites it
                        issue(issued++);
                    }
                    if (++refill_slot == K) {
                        refill_slot = 0;
                        refill_phase ^= 1u;
                    }
                }
                __syncwarp();
                // Block s + W - 1 enters the window.
                if (s >= 1) {  // (s + W - 1 < nblocks: s < steps)
                    mbar_wait_at(wait_full, wait_phase);
                    wait_full += 8u;
                    if (wait_full == full0 + 8u * std::uint32_t(K)) {
                        wait_full = full0;
                        wait_phase ^= 1u;
                    }
                }
                {
                    uint4 chunk[KH];
                    load_chunks(ring_row((s + W - 1) * kRows + gq, enter_off), chunk, fold);
                    band_mma::horizontal_from_chunks<KH, W, kTail8>(chunk, fr, win[(u + W - 1) % W]);
                }
                enter_off += g.stage_bytes;
                if (enter_off == ring_bytes) enter_off = 0;
                float d[3][4];
                if constexpr (W == 4)
                    band_mma::vertical_step_fixed(win, wpair[u % 4], wpair[(u + 2) % 4], d);
                else
                    band_mma::vertical_step<W>(win, fr.bv, u, d);
                // The centre rows (inside blocks s .. s + W - 1, wrapping round the ring).
                std::uint32_t c0 = first_off + centre_lane;
                if (c0 >= ring_bytes) c0 -= ring_bytes;
                std::uint32_t c1 = c0 + row_bytes;
                if (c1 >= ring_bytes) c1 -= ring_bytes;
                const auto* centre0 = reinterpret_cast<const std::uint32_t*>(base + c0);
                const auto* centre1 = reinterpret_cast<const std::uint32_t*>(base + c1);
                const std::uint32_t centre[4] = {centre0[0], centre1[0], centre0[8], centre1[8]};
                std::uint32_t out[4];
                band_mma::pack_outputs<W>(d, centre, out);
                tl::cuda::dev::finish4(filter, out);
                band_mma::store_outputs_at(out_row, pitch, out, s < whole_steps, ys + kRows * s + 2 * t, ye,
                                           x0 + lc0, g.width);
                out_row += kRows * pitch;
                // Block s is read for the last time (its centre rows and fold sources are done).
                __syncwarp();
                if (lane == 0) mbar_arrive_at(first_empty);
                first_empty += 8u;
                if (first_empty == empty0 + 8u * std::uint32_t(K)) first_empty = empty0;
                first_off += g.stage_bytes;
                if (first_off == ring_bytes) first_off = 0;
            }
        }
    };
    if constexpr (W == 4) {
        if (fold_cols)
            run(std::true_type{});
        else
            run(std::false_type{});
    } else {
        run(FoldTest{});
    }
    TL_CTA_CLOCKS_END();
#else
    (void)src_map; (void)filter; (void)g;
#endif
}

namespace {

template <int KH, int W>
Result launch_shape(const LaunchArgs& a, const HopperDevice& dev, GaussStreamGeom g,
                    const dev::GaussianFilter& gf) {
    // A fused chain of per-channel ops runs as one byte table per channel (Fused<F, true>, see
    // filters.cuh), other chains as arithmetic.
    return dev::with_epilogue<dev::PixelRGBA8, true>(gf, a.ops, [&](const auto& f) -> Result {
        using F = std::decay_t<decltype(f)>;
        constexpr int NW = kWarpsFor<W>, kThreads = 32 * NW, kStripW = NW * band_mma::kStripW;
        auto kernel = stencil_tma_kernel_gauss_stream<F, KH, W>;
        // The box row holds HL + kStripW + R pixels (and at least the last warp's KH chunks),
        // widened to 16 mod 32 pixels (80, 112, 144 or 176): a row is then 64 bytes past a multiple
        // of 128, so the 16-byte loads of the two rows that one quarter-warp reads in a horizontal
        // block fall in different banks.
        GaussStreamGeom gg = g;
        gg.ring_stages = W + std::clamp(a.policy.stages, 1, 4);  // kMaxStagesFor<W> at most
        const int need = std::max(gg.halo_left + kStripW + gg.radius, kStripW - band_mma::kStripW + 16 * KH);
        gg.box_w = need <= 80 ? 80 : need <= 112 ? 112 : need <= 144 ? 144 : kMaxBoxW;
        const int strips = (gg.width + kStripW - 1) / kStripW;
        gg.stage_bytes = std::uint32_t(gg.box_w) * 4u * std::uint32_t(kRows);  // a multiple of 128
        CUtensorMap map{};
        if (Result r = encode_rgba8_source_map(&map, a.src, gg.box_w, kRows, "tma gauss stream"); !r)
            return r;
        const int smem = static_cast<int>(std::size_t(gg.ring_stages) * gg.stage_bytes + kTmaSharedAlign);
        if (cudaError_t e = cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, smem); e != cudaSuccess)
            return Result::fail(std::string("stencil_tma_kernel_gauss_stream: cannot reserve shared memory: ") +
                                cudaGetErrorName(e));
        int per_sm = 0;
        cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, kThreads, static_cast<std::size_t>(smem));
        if (per_sm < 1)
            return Result::fail("tma: " + std::to_string(smem) + " bytes of shared memory per block do not fit on an SM");
        // One CTA per (strip, segment): the strips are cut into as many segments as leave every
        // CTA a slot (each segment re-reads 2R rows and recomputes W - 1 horizontal blocks above
        // its first output row), and where those would be long, a tail of short segments follows
        // (plan_stream_segments). H100, 8K (copy kernel 92.0 us), even cut -> tail: sigma 0.5
        // 118.5 -> 109.6 us, 1.5 119.0 -> 107.7, 3 139.5 -> 123.8 (1.52 -> 1.35x; the even cut
        // left 60 of 660 slots empty). At 4K and 1080p (segments of 25 and 7 steps) a tail cost
        // up to 4 us at 4K (sigma 0.5 33.8 -> 34.5 with 4 tail segments, 39.2 with 2) and 0.6 at
        // 1080p, so they keep the even cut.
        // The strips at the image's left and right edges fold columns in every warp (run(true)),
        // and their CTAs ran slowest: per-CTA clocks (cta_clocks.cuh), H200 4K sigma 3: 24.5 us
        // against 23.0 for the other strips, the kernel's last CTA (27.2 us) an edge strip's.
        // Where the even cut leaves slots free (4K and 1080p: 6 of 396 at sigma 3), each edge
        // strip takes up to a quarter more segments, in as many of them as there are. H200, A/B
        // in one run (three pairs, copy kernel 20.1-20.4 us): 4K sigma 3 30.5-30.9 -> 29.1-29.6
        // us (1.53-1.55x -> 1.46-1.47x; the clocks: the edge strips' CTAs 22.0 us, the last
        // 25.8), sigma 1.5 27.5-27.6 -> 27.2-27.3, sigma 0.5 unchanged; 1080p sigma 3 14.5 ->
        // 14.2. (Folding only in the warps that reach past the edge, instead, cost ptxas 24-28
        // more bytes of spill in the loop: sigma 3 30.5-30.7 -> 32.1-32.4 us.) plan_stream_grid
        // makes the cut and the launch order; the kernel maps its CTA with StreamGrid::cta.
        gg.grid = plan_stream_grid(gg.height, kRows, strips, per_sm * dev.sm_count);
        const int grid = gg.grid.ctas();
        TL_CTA_CLOCKS_BEFORE(a.stream);
        kernel<<<grid, kThreads, static_cast<std::size_t>(smem), a.stream>>>(map, f, gg);
        TL_CTA_CLOCKS_AFTER("gauss stream", gg.radius, grid, strips, a.stream);
        return tma_launch_error("stencil_tma_kernel_gauss_stream");
    });
}

} // namespace

std::optional<Result> launch_tma_gauss_stream(const LaunchArgs& a, const HopperDevice& dev) {
    if (a.params.kind != FilterKind::Gaussian || a.src.format != PixelFormat::RGBA8 || a.dst.format != PixelFormat::RGBA8)
        return std::nullopt;
    // A TMA store of the output was asked for: the tile path has one, this kernel stores directly.
    if (a.policy.tma_store) return std::nullopt;
    const dev::GaussianFilter gf = dev::make_gaussian_filter(a.params.sigma);
    const int R = gf.radius;
    if (R < 1 || R > band_mma::kMaxStreamRadius) return std::nullopt;

    GaussStreamGeom g{};
    g.width = a.src.width;
    g.height = a.src.height;
    g.radius = R;
    g.halo_left = band_mma::halo_left_rgba8(R);
    g.border = a.border;
    g.dst = a.dst.data;
    g.dst_pitch = a.dst.pitch;
    const int window = band_mma::vertical_blocks(R);
    const int kh = band_mma::horizontal_kblocks(R);
    // (KH, W): R <= 4: (2, 2); R = 5..8: (2, 3); R = 9..12: (3, 4), as band_mma::gaussian_tile;
    // above (sigma over 4, to 10) three wide shapes, each for the radii whose band it holds (the
    // weights past a smaller radius's band are zero): R = 13..16 (3, 5), 17..24 (4, 7), 25..30
    // (5, 9).
    if (window <= 2) return launch_shape<2, 2>(a, dev, g, gf);
    if (window == 3 && kh == 2) return launch_shape<2, 3>(a, dev, g, gf);
    if (window <= 4) return launch_shape<3, 4>(a, dev, g, gf);
    if (window <= 5 && kh <= 3) return launch_shape<3, 5>(a, dev, g, gf);
    if (window <= 7 && kh <= 4) return launch_shape<4, 7>(a, dev, g, gf);
    return launch_shape<5, 9>(a, dev, g, gf);
}

} // namespace tl::cuda::detail
