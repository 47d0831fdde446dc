// Mechanism "tma", Box filter on RGBA8: each CTA owns a vertical strip of the image and streams
// down it (radius > 8: every other segment up, see streams_up) through a ring of TMA row blocks
// (cp.async.bulk.tensor.2d, UTMALDG), keeping the vertical running sums in integer registers; only
// one row enters and one leaves per output row, whatever the radius, and the image's rows are read
// once per strip instead of once per tile.
//
// Per CTA (strip x0 .. x0 + kStripW, output rows ys .. ye of one vertical segment):
//   ring     K stages x (kStageRows, kBoxW) uint32: image rows ys - R .. ye + R - 1 (radius 9-15
//            with the block-end refill: from c rows above, box_ring_row_shift), one TMA box
//            per stage; kBoxW = 2 kHalo + kStripW rounded up to an odd multiple of 4 px, kHalo = R
//            rounded up to 8 px (a 16-byte multiple, as every TMA box x start must be aligned; the
//            warp-specialised kernels' ring: R rounded up to 4 px, see kRingHalo)
//   per block of kBlockRows output rows:
//     vertical    thread c owns column x0 - R + c (kStripW + 2R of them); per output row y it adds
//                 the entering row y + R and subtracts the row y - R - 1 (none for the segment's
//                 first output: the warm-up holds its window's other rows) in one 3-input add, as
//                 16-bit lanes (R, B) and (G) in two registers (65 x 255 fits in 16 bits)
//     colsum      (kBlockRows, kCsStride) uint2 in shared memory
//     horizontal  thread = one output row x kHRun outputs: a running sum over the column sums,
//                 for R <= 7 in the same 16-bit lanes (15 x 15 x 255 fits), else in 32-bit per
//                 channel (65 x 65 x 255 needs 21 bits), then the exact rounded mean with one
//                 multiply-high per channel; alpha from the centre pixel
//     store       8-row blocks: the block's outputs into a 128-byte-swizzled shared tile, then the producer
//                 stores it with TMA (UTMASTG, 32 x 8 px boxes); 16-row blocks: from registers,
//                 lane pairs trading 16-byte chunks so that each store writes whole 32-byte sectors
//   radius 8-16 (2-16 where the GPU's DRAM outpaces its SMs, see launch_box_stream; 16-row blocks,
//   the 16-pixel halo class): the passes run side by side in warps of their own (kWarpSpecialized), the
//   horizontal items in four teams of 4 rows, each block's column sums handed to each team and
//   back by named barriers instead of the two __syncthreads (radius 2-7: team 0's rows double-
//   buffered, see kWsDoubleTeam0)
//   the producer thread (thread 0 in the 16-pixel class, else the first with no horizontal item: see
//   kProducer) refills ring stages no later output row
//   reads (the ring holds the 2R + kBlockRows + 1 rows one block reads, plus `stages` - 1 stages in
//   flight), after the block's first barrier; at the start it issues only the stages of the warm-up
//   and the first block (2R + kBlockRows rows), the rest once the warm-up's have arrived
// Borders: rows and columns outside the image are read from the row / column the border rule
// names (fold_coord) inside the ring, which always holds them: output row y reads rows within
// [y - R - 1, y + R] clipped to the image. TMA's zero fill is used as is for Border::Zero.
//
// Expected before writing it: ~40-50 thread instructions per pixel, memory-bound near 1.3x the
// copy. Measured (H100, 4K RGBA8, stages 2; copy kernel 25.7 us), tile path -> this kernel:
//   clamp  r=4 75.4 -> 43.9 us (1.71x copy), r=16 103.6 -> 45.9 (1.78x), r=32 271.5 -> 66.2 (2.58x;
//          cluster's 194.9 was the best before); mirror r=16 46.1, zero r=16 45.8.
// Not memory-bound: where the time goes at r=16 (ncu): 52 thread instructions per pixel (vertical
// 17 = 9 per column-row x 1.25 columns per output + 4 in the one block per ring turn whose entering
// rows wrap + per-block set-up; horizontal 29 = ~14 per output + 6 start-up + 6 per 4 outputs;
// warm-up 4), issued on 37 % of cycles with 3.5 warps per scheduler (3 CTAs of 5 warps, shared
// memory bound); stalls per issued instruction: shared-load results 2.7, fixed-latency 1.7,
// barriers 1.7, TMA waits 1.0. DRAM reads 42 MB (1.27x the image: strip and segment halos
// re-read) and the SMs are active 85 % of the time (the first window's loads, the short last
// segment). Steps that moved it (r=16): 2 -> 3 CTAs per SM with 16-row blocks 62 -> 49 us;
// compile-time strides (62 -> 47 instructions per pixel) alone moved nothing at 2 CTAs per SM.
// At r=4 (ncu, 7 CTAs per SM): 62 thread instructions per pixel, issued on 50 % of cycles; per
// 8-row block and warp ~220 instructions of set-up (stage wait, start-up sum, addresses) against
// ~110 of outputs. Packed horizontal sums and a compile-time radius cut the instructions by 20 %
// but moved the time by 2 % only (39.7 -> 38.9 us): the SMs' active cycles differ by up to 40 %
// (ncu l1tex__cycles_active min 52 K, max 74 K of 77 K elapsed), and the last CTAs set the time.
// Capping the CTAs per SM at 4 (longer segments, the same count on every SM) gave 36.2 us.
// Session 9 (r=16, H100 4K, A/B in one run each): the radius compiled in 42.5 -> 40.0 us (13.74 ->
// 12.45 M warp instructions); the vertical pass's loads ahead of its stores 40.0 -> 37.6 (1.47x;
// short-scoreboard stalls halved); the wrap split as a constant 12.62 -> 12.37 M instructions, time
// unchanged. ncu's per-instruction counts after (12.6 M): horizontal 51 % (299 instructions per
// 16-output item: 33-sum start-up ~70, then per output 1 LDS, 6 lane ops, 3 IMAD.HI, 3 PRMT),
// vertical 34 % (9 per column-row, as few as this lane form allows), per-block set-up 8 %; stall
// samples: the first window's TMA wait 11 %, the two barriers 21 %. Tried and dropped:
//   - leaving rows, warm-up and centre alpha re-read from L2 with plain loads, the ring holding the
//     entering rows only (42 KB: 4-5 CTAs per SM instead of 3): 57.4 us, 55.5 with the next
//     block's leaving rows prefetched (ncu 19.7 M instructions; the loads' addressing and latency)
//   - 32 outputs per horizontal item (half the start-up per output, 2 of 5 warps busy): 46.5 us;
//     8 per item (256 threads, all busy): 42.3 us. The horizontal pass's latency sets the time.
//   - at most 2 CTAs per SM (fewer, longer segments): 41.0 us
//   - later CTAs on each SM starting 0.5-3 us later (__nanosleep) so the first ones compute while
//     the rest of the first windows load: 38.2-40.0 against 38.4-38.7; 2-5 stages issued first:
//     no change
//   - the dynamic shared memory declared 128-byte aligned (no run-time rounding, 12.37 -> 12.20 M
//     instructions): 37.7 -> 38.3 us, 8K 121.8 -> 123.9
//   - one dependent add per output and accumulator (B's lane extracted beside the chain, not LEA.HI
//     then the bias), and G summed per start-up group: 37.9 -> 38.1 us, 8K 122.0 -> 124.8
//   - 12-row blocks through 15 stages of 4 rows (168-pixel ring rows so that every stage starts on
//     128 bytes; 55 KB, 4 CTAs per SM): 37.6 -> 44.5 us, 8K 122.6 -> 147.4 (three stage waits and
//     a third more barriers per output row)
// Session 10 (H100, A/B in one run each): radius > 8 streams its even segments upwards, so that
// segment pairs start (and end) at a common edge and read its rows once from DRAM (see streams_up):
// ncu DRAM reads 42.0 -> 34.0 MB at 4K; r=16 37.5-38.0 -> 36.2-37.5 us (11 runs, median 36.8,
// 1.44x), r=32 58.0-59.0 -> 52.5-53.6, 1080p r=16 19.3 -> 17.9; 8K r=16 unchanged (121.5-122.0 ->
// 121.3-122.5; its segments are 720 rows). Per-CTA clocks (%globaltimer, 4K r=16) then: the first
// windows in at 4.4 us (median; last 6.4), CTAs ending between 22.6 and 32.8 us; on each SM the CTA
// started first runs fastest (blocks per us by launch wave 0.49 / 0.44 / 0.40), and the last one
// ends ~4 us after the other two, alone on its SM (8K: 101, 106, 117 us). Tried and dropped:
//   - the two CTAs of a pair sharing one segment from both ends, claiming blocks from a per-pair
//     count until they meet (an early-started CTA paired with a late one; half as many segments):
//     each pair ended together, but the pairs did not (26.5-37.0 us, the image's top and bottom
//     segments last): 40.6-40.8 us at 4K, 8K 123.4, r=32 61.3-61.6.
//   - the first-started segments longer (session 8's taper, start of segment s of n at
//     U s ((1 + b) n - b s) / n^2), now that the clocks showed the launch order's effect: r=16 at
//     b = 0, 0.05, 0.1, 0.15, 0.2, -0.1: 36.9, 37.2-37.3, 36.7-37.0, 36.7, 37.5-37.6, 39.3-39.6 us
//     (r=4 and r=32 slower at every b != 0). Clocks at b = 0.2 (launch waves 11-12 / 10-11 / 9
//     blocks instead of 11 / 10-11 / 10): the last wave's blocks took 2.65 us instead of 2.43 (it
//     runs on the issue slots the earlier CTAs leave), the spread of ends within an SM fell 3.6 ->
//     2.1 us, but the last SM ended later (32.7-33.1 against 31.8 us).
//   - pacing: a CTA whose share of its blocks ran ahead of the grid's (one atomic count of blocks
//     started, per launch) slept before its block's last barrier, for 0.5-3 us per block of lead
//     past a margin of 0-1 block: r=16 39.8-47.8 us against 36.6-37.0, r=4 36.2-52.9 against 32.4,
//     8K r=16 136.4-154.3 against 123.2. A sleeping CTA cost more than the evener ends gained.
// Session 11 (H100, A/B in one run each; docs/performance-notes.md for the clocks): each strip's
// last segment launches first (box_stream_cta), rows count from the first output's window (three
// stages, not four, before the first block at r=16), the producer moved off warp 0 outside the
// radius-16 class: r=16 36.0-36.4 -> 34.3-34.9 us (1.34-1.37x), r=32 53.0 -> 50.8-51.2, r=4 32.4 ->
// 31.1-31.4.
// Tried and dropped:
//   - three segments per CTA on named barriers (one CTA per SM), passing each block's last barrier
//     together: 41.2-41.6 us (39.3-39.8 without the lockstep) against 36.1-36.6
//   - converging pairs (2m down, 2m + 1 up) claiming the 2d blocks between them from a per-pair
//     counter: d = 1-3 39.8-41.5 against 38.5-39.2 at d = 0 (every CTA ran slower)
//   - border rows copied inside the ring so that every block takes the fast path: 38.3-38.5; the
//     fold path unrolled and hoisted: 43.1-43.4 (96 registers)
//   - segments tapered by launch order (1-3 blocks): 35.4-36.2 against 34.5
//   - no fence in a refill that issues nothing: 34.5-34.9 against 34.3-34.6
// Session 12: streaming stores where the radius is compiled in (r=16 34.5-34.6 -> 34.2-34.4 us, r=4
// 31.2-31.6 -> 30.7-30.9). Tried and dropped (performance notes): every CTA slot filled with the longest
// segments launched first (8K r=16 118.7 -> 113, but 4K r=16 34.5 -> 36.0-37.7, partly because
// the segment table cost the kernel 5 registers), and one segment more on some strips to fill
// every slot in session 11's order (r=16 34.9-35.3).
// Session 13: radius 16 warp-specialised (kWarpSpecialized: 288 threads, five column warps and four
// one-warp teams of 4 output rows, handed over per team by named barriers, so that a block's
// vertical pass overlaps the previous block's horizontal one). H100, A/B in one run each against
// session 12's binary: 8K r=16 114.8-115.6 -> 108.6-109.3 us (1.25 -> 1.18x), 4K r=16 33.9-34.4 ->
// 33.7-34.1 (1.32-1.33x: within noise), 1080p 16.7 -> 16.5; two teams of 8 rows took 112.2-112.6
// at 8K and the same at 4K. The column sums read in 16-byte pairs (56 LDS.128, no LDS.64) moved
// 8K 109.3 -> 108.9 and 4K nothing. The 4K time is no longer the steady state: per-CTA clocks (a
// diagnostic build) have the three launch ranks of an SM at the same rate (0.34-0.36 blocks per us
// in that build), but SMs holding the same 31 blocks ending up to 5 us apart, a different set
// each launch. Radius 9-15 compiled in on the same form (36.0-36.3 -> 33.5-34.4 us), radius 8
// compiled in (33.6 -> 32.8), and the ring window counted right (launch_shape: radii whose 2R is no
// multiple of the block had one stage less in flight; r=2..7 35.3-35.9 -> 30.9-31.9). Tried and
// dropped: segments launched in order 0, 1, ... (r=9-16 +0.4-0.9 us) or in reverse (+1.5-2),
// and a deeper prefetch from the same ring (see the refill at the block's start).
// Session 14 (H100, A/B against session 13's binary, whose r=9-16 took 33.0-34.0 us): segments cut
// in rows rather than whole blocks for radius > 8 (every CTA 10 blocks and a partial one): r=9-16
// 35.7-36.8 us; 8-row stages for the 16- and 24/32-pixel classes: r=16 41.2-41.7 (36.5-37.1 with
// 3 stages). Both dropped (performance notes, session 14). On an H200 this kernel is issue-bound: r=16 31.6
// us against a 20.0 us copy (1.58x), r=4 1.36x.
#include "tma_box_stream.hpp"
#include "tma_common.cuh"
#include "cta_clocks.cuh"

#include <algorithm>
#include <cstdint>
#include <string>
#include <type_traits>

namespace tl::cuda::detail {

using namespace dev_tma;

namespace {

constexpr int kMaxRadius = 32;
constexpr int kStripW = 128;      // output columns per CTA (a multiple of Shape::kHRun)
constexpr int kMaxThreads = ((kStripW + 2 * kMaxRadius) + 31) / 32 * 32;
constexpr int kMaxStages = 16;

// Largest radius whose whole box sums, rounding bias included, fit 16-bit lanes:
// 15^2 x 255 + 112 < 2^16 (R = 8: 17^2 x 255 = 73695 does not).
constexpr int kMaxPackedRadius = 7;

// Smallest radius launch_tma sends here; the tile path keeps radius 1 (its compile-time 3x3
// register window): H100, 4K RGBA8 clamp, stages 2, tile path 32.5 us, this kernel 43.2 us.
constexpr int kMinDispatchRadius = 2;

// Pixels per ring row (one TMA box row) for a halo of `halo` pixels each side of the strip: an odd
// number of 16-byte units, so that the horizontal pass reads the centre pixels of consecutive rows
// with one 16-byte load each, conflict-free only then (8-way otherwise).
constexpr int ring_box_w(int halo) { return ((2 * halo + kStripW) / 4 | 1) * 4; }

// Compile-time shapes per radius class (R rounded up to kHalo): ring rows and column-sum rows
// have constant strides, so every shared-memory access of the unrolled loops is base + immediate.
template <int kHalo>
struct Shape {
    static_assert(kHalo % 4 == 0 && kHalo <= kMaxRadius);
    // Output rows per vertical / horizontal block, rows per TMA stage, outputs per horizontal
    // running sum (one thread). Radius <= 8 takes 8-row blocks: its ring and column sums shrink
    // to 4 CTAs per SM. H100 4K clamp, stages 2: r=4 44.8 -> 40.0 us; with 8-row blocks r=16
    // went 46.8 -> 47.9 and r=32 65.7 -> 86.2 (the per-block start-up and barriers count more
    // there), so they keep 16.
    static constexpr int kBlockRows = kHalo <= 8 ? 8 : 16;
    static constexpr int kStageRows = kBlockRows;
    static constexpr int kHRun = kBlockRows;
    static constexpr int kStagesPerBlock = kBlockRows / kStageRows;
    static_assert(kStripW % kHRun == 0 && kStripW / kHRun * kBlockRows <= kMaxThreads, "one horizontal item per thread");
    static_assert(kBlockRows % kStageRows == 0, "blocks start on stage boundaries");
    static constexpr int kBoxW = ring_box_w(kHalo);
    // Odd, so 16 consecutive rows of 8-byte column sums fall in 16 distinct bank pairs.
    static constexpr int kCsStride = (kStripW + 2 * kHalo) | 1;
    static_assert(kBoxW <= 256, "one TMA box row");
    // Radius <= 8: each block's outputs are written to shared memory and leave as TMA stores of
    // 32 x kBlockRows boxes (128-byte swizzled, so that the 8 rows a quarter-warp writes fall in
    // distinct banks). Stored from registers, a warp's 16-byte stores span 8 rows x 4 runs of
    // 32 bytes: every 32-byte sector was written in two halves by two instructions, and ncu
    // counted twice the ideal L2 write sectors (2.07 M vs 1.04 M at 4K) with L2 76 % busy.
    static constexpr bool kTmaOut = kHalo <= 8;
    static_assert(!kTmaOut || kBlockRows == 8, "one swizzle period of rows per block");
    static constexpr int kOutBytes = kTmaOut ? kBlockRows * kStripW * 4 : 0;
};

// The Box alone at radius 2-16 in the 16-pixel class (compiled in) runs warp-specialised: its five
// column warps run the vertical pass and kWsTeams teams of the other four warps the horizontal one,
// each team on 16 / kWsTeams of the block's 16 output rows, so that the first rows' column sums are
// summed across while the later ones are still being written, and the next block's vertical pass starts
// as soon as the first team is done. Named barriers (not __syncthreads) hand each team's rows over and
// back.
template <int kHalo, int kR>
constexpr bool kWarpSpecialized = kHalo == 16 && kR >= 2;
constexpr int kWsTeams = 4;
constexpr int kWsColumnThreads = kStripW + 2 * 16;                        // one per column at R = 16: 160
constexpr int kWsTeamThreads = 128 / kWsTeams;                            // its rows x 8 runs of 16 outputs
constexpr int kWsThreads = kWsColumnThreads + kWsTeams * kWsTeamThreads;  // 288
constexpr int kWsBarThreads = kWsColumnThreads + kWsTeamThreads;          // the column warps and one team
static_assert(kWsTeamThreads % 32 == 0);
// Column sums (uint2) with column c at c + 2 (c / 16), rows kWsCsStride apart: a team's items read
// them two at a time (16-byte loads: a pair never straddles a skew step), and the 8 lanes of a
// quarter-warp (4 rows x 2 runs 16 columns apart) then fall in distinct 16-byte bank groups,
// 2 row + run mod 8 with the stride 4 mod 16 and the skew.
constexpr int kWsCsStride = 180;
static_assert(kWsColumnThreads + 2 * ((kWsColumnThreads - 1) / 16) <= kWsCsStride && kWsCsStride % 16 == 4);
static_assert(kWsTeams == 4, "the stride and skew above are for teams of 4 rows");
// Named barriers: team h's rows of the column sums are full / free again.
__host__ __device__ constexpr int bar_full(int h) { return 1 + h; }
__host__ __device__ constexpr int bar_free(int h) { return 1 + kWsTeams + h; }
constexpr int kWsTeamRows = 16 / kWsTeams;
// Radius 2-7 (warp-specialised where the GPU's DRAM outpaces its SMs, the H200): team 0's rows of
// the column sums are double-buffered (odd blocks write them to rows 16 .. 19), so that the column
// warps start a block once team 0 is done with the block before the previous one, not with the
// previous one. ncu (H200, 4K r=4) had put 18 % of the stall samples on the column warps' wait for
// team 0 at each block's start and 14 % on the teams' waits for their rows. Odd blocks hand team
// 0's rows over on barriers of their own, so that no barrier ever has two arrivals of one side
// outstanding. H200, A/B in one run (three pairs, copy kernel 19.8-20.2 us): 4K r=2-7 27.2-28.3 ->
// 25.9-27.2 us, 8K within +-1.5 (r=2-4 -0.4..+0.6, r=5-7 +0.2..+1.5). Radius 8 went 28.0-28.7 ->
// 27.0-27.5 at 4K but 91.8-92.6 -> 93.0-93.9 at 8K, and runs this form on every GPU (the H100's
// unmeasured), so it keeps one buffer; above it the extra 5.6 KB would cost a CTA per SM (74 KB of
// ring and column sums at radius 9-16). Session 24, radius 8 again with its window in registers
// and 148-pixel ring rows (H200, A/B in one run, three triples): 4K 26.0-26.4 -> 26.4-26.9 us, 8K
// 89.3-89.6 -> 90.6-91.2; still one buffer.
template <int kHalo, int kR>
constexpr bool kWsDoubleTeam0 = kWarpSpecialized<kHalo, kR> && kR <= 7;
__host__ __device__ constexpr int bar_full0_odd() { return 1 + 2 * kWsTeams; }
__host__ __device__ constexpr int bar_free0_odd() { return 2 + 2 * kWsTeams; }
static_assert(bar_free0_odd() < 16, "16 named barriers");
// The ring's halo and row width: those of the radius class (Shape), but the warp-specialised
// kernels (16-pixel class, chosen for its 16-row blocks) read the halo their radius needs, R
// rounded up to 4 pixels (16 bytes, as a TMA box's x start must be): ring rows of 140 pixels at
// radius 2-4, 148 at 5-8, 156 at 9-12 and 164 at 13-16 (always an odd number of 16-byte units;
// Shape's rule). Each stage then brings fewer bytes from L2 and takes less shared memory.
// Session 23 gave radius 2-7 the 8-pixel halo: H200, A/B in one run (four pairs, copy kernel
// 20.0-20.2 us): 4K 26.2-27.1 us (mean 26.6) -> 26.0-27.0 (mean 26.3; three pairs faster by
// 0.3-0.6 at every radius, the fourth slower by 0.0-0.5); 8K (three pairs) and 1080p unchanged.
// Session 24 the rest: H100, A/B in one run (two pairs at 4K, one at 8K; copy kernel 25.6-25.7 /
// 91.8-91.9 us): 4K r=8 31.3-31.5 -> 30.7-30.8, r=9-11 31.7-32.6 -> 31.7-32.4, r=12-16 within
// +-0.3; 8K r=8 105.3 -> 103.2, r=10 106.1 -> 105.7, r=12 107.8 -> 106.8, r=16 109.2 -> 108.5.
// H200 (three pairs at 4K, copy kernel 19.9-20.4): within the noise at every radius (r=8
// 26.2-26.4 -> 26.0-26.4, r=2-4 at 140 pixels unchanged), 8K too (r=8 90.0-90.1 -> 89.2-90.2).
// Tried with it and dropped: the freed shared memory spent on a fifth stage (`--stages 3`; session
// 23, radius 2-7: 4K 26.4-27.2 against 25.9-26.5 at four; session 24, where radius 2-4 and 8 keep
// 3 CTAs per SM with it: r=2-4 0.5-0.9 us slower, r=8 0.2-0.5, 8K r=2-4 3.3-4.4), and the column-sum
// stride cut to 164 (the 142 columns radius 7 needs; the column threads past them then skipped
// their stores): 30.1-31.6 us.
template <int kHalo, int kR>
constexpr int kRingHalo = kWarpSpecialized<kHalo, kR> ? (kR + 3) / 4 * 4 : kHalo;
// The warp-specialised kernels whose column warps keep the window's pixels in registers (kHist in
// box_stream_segment): radius 2-11; radius 9-11 then run held to 3 CTAs per SM (`_ws3`).
template <int kHalo, int kR>
constexpr bool kWsHist = kWarpSpecialized<kHalo, kR> && kR <= 11;
// The warp-specialised kernels of radius 9-15 with the block-end refill count their loaded
// rows from kRowShift rows above the first output's window (box_ring_row_shift, tile_planner.hpp),
// so that each block's entering rows fill exactly one ring stage, as at radius 8 and 16.
template <int kHalo, int kR>
constexpr int kRowShift = kWarpSpecialized<kHalo, kR> ? box_ring_row_shift(kR) : 0;
// The kernels that come in both refill positions (kEndRefill in box_stream_segment): the
// warp-specialised ones whose team 0 is single-buffered (radius 8-16).
template <int kHalo, int kR>
constexpr bool kWsEndRefill = kWarpSpecialized<kHalo, kR> && !kWsDoubleTeam0<kHalo, kR>;
// The rows a kernel counts from above its first window (its kC), for the kernel itself and for the
// launcher's ring window alike: kRowShift with the block-end refill, none with the block-start one.
template <int kHalo, int kR>
constexpr int ring_row_shift(bool end_refill) {
    return end_refill && kWsEndRefill<kHalo, kR> ? kRowShift<kHalo, kR> : 0;
}
template <int kHalo, int kR>
constexpr int kRingBoxW = ring_box_w(kRingHalo<kHalo, kR>);
static_assert(kRingBoxW<16, 4> == 140 && kRingBoxW<16, 8> == 148 && kRingBoxW<16, 12> == 156 &&
              kRingBoxW<16, 16> == Shape<16>::kBoxW);

struct StreamGeom {
    int width, height, radius;
    int strips;               // strips across
    StreamSegments segments;  // each strip's vertical segments (plan_stream_segments)
    int ring_stages;          // K (a multiple of kStagesPerBlock: the ring holds whole blocks)
    std::uint32_t stage_bytes;
    std::uint32_t inv_n;      // floor(2^32 / n) + 1, n = (2R + 1)^2
    std::uint32_t half_n;     // (n - 1) / 2
    Border border;
    void* dst;
    std::size_t dst_pitch;
    bool vec_store;           // dst base and pitch allow 16-byte stores
    bool tma_out;             // output blocks leave through shared memory and TMA stores (Shape::kTmaOut)
};

// Channel lanes of one RGBA8 pixel: (R, B) as two 16-bit lanes, and G alone.
__device__ __forceinline__ std::uint32_t lanes_rb(std::uint32_t p) { return p & 0x00ff00ffu; }
__device__ __forceinline__ std::uint32_t lane_g(std::uint32_t p) { return __byte_perm(p, 0u, 0x4441u); }
// G times 256 (its byte moved up one place, one PRMT as lane_g): the column sums of the radius 2-7
// kernels, whose mean places each channel's quotient in its byte (box_stream_segment, kG8).
__device__ __forceinline__ std::uint32_t lane_g8(std::uint32_t p) { return __byte_perm(p, 0u, 0x4414u); }

} // namespace

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
// Whether segment `seg` of a strip streams upwards: the even segments that have a next one and a
// whole number of blocks (every segment but a strip's last). Segments 2m and 2m + 1 then start at
// their common edge and read its 2R + 1 rows at the same moment, and 2m + 1 and 2m + 2 end at theirs
// together: each edge's rows come from DRAM once and from L2 for the other CTA. All downwards, one
// CTA read them at the start and the other at the end, from DRAM both times (the image had passed
// through L2 in between).
__device__ __forceinline__ bool streams_up(const StreamGeom& g, int seg, SegmentRows rows, int block_rows) {
    return seg % 2 == 0 && seg + 1 < g.segments.per_strip && (rows.end - rows.begin) % block_rows == 0;
}

// One CTA's segment, streamed downwards (kUp false: output rows ys, ys + 1, ...) or upwards (ye - 1,
// ye - 2, ...). Rows are counted in processing order: loaded row i is image row load_row0 + kDir i,
// output p of the segment image row ys + p or ye - 1 - p. Upwards, each TMA stage (image rows in
// ascending order) sits at the mirrored slot of the ring, K - 1 - slot, so that ring row r in
// processing order is memory row ring_rows - 1 - r: the ring's rows are kRowStep = -kBoxW apart and
// every offset inside a block is still an immediate.
template <class Filter, int kHalo, int kR, bool kUp, bool kEndRefill>
__device__ __forceinline__ void box_stream_segment(const CUtensorMap& src_map, const CUtensorMap& dst_map,
                                                   const Filter& filter, const StreamGeom& g, unsigned char* base,
                                                   std::uint64_t* full, SegmentRows seg_rows) {
    constexpr int kBoxW = kRingBoxW<kHalo, kR>;
    constexpr int kRH = kRingHalo<kHalo, kR>;  // the ring's halo (pixels left of the strip)
    constexpr bool kWs = kWarpSpecialized<kHalo, kR>;
    constexpr bool kDouble0 = kWsDoubleTeam0<kHalo, kR>;
    constexpr int kCs = kWs ? kWsCsStride : Shape<kHalo>::kCsStride;
    // Column-sum index of column c (skewed in the warp-specialised form, see kWsCsStride).
    constexpr auto cs_index = [](int c) { return kWs ? c + 2 * (c >> 4) : c; };
    constexpr int kBlockRows = Shape<kHalo>::kBlockRows, kStageRows = Shape<kHalo>::kStageRows;
    constexpr int kHRun = Shape<kHalo>::kHRun;
    constexpr int kDir = kUp ? -1 : 1;
    constexpr int kRowStep = kDir * kBoxW;
    // Radius 2-7 compiled in: G's column sums are kept times 256, so that the mean of the packed
    // horizontal sums places each channel's quotient in its byte with one instruction fewer.
    constexpr bool kG8 = kR >= 2 && kR <= kMaxPackedRadius;
    auto g_lane = [](std::uint32_t p) { return kG8 ? lane_g8(p) : lane_g(p); };
    const auto* ring = reinterpret_cast<const std::uint32_t*>(base);
    auto* colsum = reinterpret_cast<uint2*>(base + std::size_t(g.ring_stages) * g.stage_bytes);
    constexpr bool kTmaOut = Shape<kHalo>::kTmaOut;
    const bool tma_out = kTmaOut && g.tma_out;  // this launch stores its output blocks with TMA
    // The output block (tma_out): kStripW / 32 boxes of 1 KB, 1024-byte aligned.
    unsigned char* out_tile = reinterpret_cast<unsigned char*>(
        (reinterpret_cast<std::uintptr_t>(colsum + kBlockRows * kCs) + 1023) & ~std::uintptr_t(1023));

    const int tid = static_cast<int>(threadIdx.x);
    const int R = kR > 0 ? kR : g.radius;
    const int K = g.ring_stages;
    const int ring_rows = K * kStageRows;  // a multiple of kBlockRows
    const int strip = static_cast<int>(blockIdx.x) % g.strips;
    const int x0 = strip * kStripW;
    const int ys = seg_rows.begin, ye = seg_rows.end;
    const int blocks = (ye - ys + kBlockRows - 1) / kBlockRows;
    // Loaded row i (in processing order) is image row load_row0 + kDir i; TMA zero-fills rows outside
    // the image. Output p (image row y) takes its window y - kDir R .. y + kDir R, loaded rows
    // p .. p + 2R, from output p - 1's by adding loaded row p + 2R and taking off p - 1. Output 0's
    // window is the warm-up (rows 0 .. 2R - 1) plus row 2R: nothing leaves, so row -1 is never
    // loaded and the first block reads 2R + B rows, whole stages where 2R is a multiple of B (B = 16
    // at radius 16: three stages before anything is computed, not four).
    // Loaded rows 0 .. kC - 1: above the window, never read.
    constexpr int kC = ring_row_shift<kHalo, kR>(kEndRefill);
    const int load_row0 = kUp ? ye - 1 + R + kC : ys - R - kC;
    auto image_row = [&](int i) { return load_row0 + kDir * i; };
    // Whether loaded rows i0 .. i1 all lie inside the image (no border rule to apply).
    auto rows_inside = [&](int i0, int i1) {
        const int a = image_row(kUp ? i1 : i0), b = image_row(kUp ? i0 : i1);
        return a >= 0 && b < g.height;
    };
    const int nload = kC + blocks * kBlockRows + 2 * R;
    const int nstages = (nload + kStageRows - 1) / kStageRows;
    // Ring row r (processing order; r < ring_rows).
    const std::uint32_t* ring_r0 = kUp ? ring + (ring_rows - 1) * kBoxW : ring;
    auto ring_row = [&](int r) { return ring_r0 + r * kRowStep; };

    auto issue = [&](int s) {
        const int slot = s % K;
        mbar_arrive_expect_tx(&full[slot], g.stage_bytes);
        // Upwards the stage holds image rows image_row(s kStageRows + kStageRows - 1) on, ascending.
        tma_load_2d(base + std::size_t(kUp ? K - 1 - slot : slot) * g.stage_bytes, &src_map, x0 - kRH,
                    image_row(s * kStageRows + (kUp ? kStageRows - 1 : 0)), &full[slot]);
    };
    // The producer: the thread that issues the TMA loads (and the stores where R <= 8). Outside the
    // radius-16 class it is the first thread without a horizontal item (warp 4 or 5 idles through
    // the horizontal pass), so that the refill after the block's first barrier overlaps the other
    // warps' horizontal items. ncu, 4K r=16 with thread 0 producing: 20 % of the stall samples at
    // the two barriers, 14 % at the first. H100, A/B in one run (four alternating pairs): r=32
    // 52.4-52.7 -> 50.8-51.2 us, r=4 31.6 -> 31.1-31.4, 8K r=4 106.1 -> 103.7; but r=16 34.4-34.9
    // -> 34.8-35.6 and 8K r=16 118.5 -> 119.5, so radius 9-16 keeps thread 0. Why r=16 loses is not
    // understood (a guess: the schedulers favour warp 0, so its loads go out sooner).
    constexpr int kProducer = kHalo == 16 ? 0 : kBlockRows * (kStripW / kHRun);
    static_assert(kProducer < kStripW + 2, "the CTA has kStripW + 2R >= kStripW + 2 threads");
    // The producer, once no thread reads loaded rows below `free_rows` any more: stage s overwrites
    // stage s - K, so every stage whose predecessor in its slot lies wholly below goes out (after
    // the fence that orders the slot's generic reads before TMA's writes).
    int issued = 0;  // the producer's count of stages issued
    auto refill = [&](int free_rows) {
        fence_proxy_async_smem();
        // box_ring_may_issue (tile_planner.hpp, which the ring model in the unit tests uses) written
        // out: called through the function, the kernels compiled to different PTX.
        while (issued < nstages && (issued - K + 1) * kStageRows <= free_rows) issue(issued++);
    };

    // At first only the stages of the warm-up and the first block: every CTA starts at once and
    // waits for them; the rest of the ring goes out once the warm-up rows are in. The producer
    // issues them before the barrier that publishes the initialised mbarriers to the other threads.
    if (tid == kProducer) {
        prefetch_map(&src_map);
        for (int s = 0; s < K; ++s) mbar_init(&full[s], 1);
        fence_barrier_init();
        for (; issued < min(min(K, nstages), (kC + 2 * R + kBlockRows - 1) / kStageRows + 1); ++issued) issue(issued);
    }
    __syncthreads();
    // Stages every thread has waited for (the same in every thread).
    RingWaiter ring_wait{K, nstages - 1};
    auto wait_through = [&](int s) { ring_wait.through(full, s); };

    // This thread's column: virtual column x0 - R + tid, read from the loaded column the border
    // names (clamped into the box: columns no stored output reads may fold anywhere).
    const int ncols = kStripW + 2 * R;
    // Warp-specialised, R < 16: the column threads past the strip's kStripW + 2R columns run the
    // vertical pass too, on columns no output reads (their column sums are never read), so that
    // no warp diverges at the named barriers of the hand-overs (bar.sync / bar.arrive are the
    // warp-aligned forms: a warp split between two of them hung the kernel).
    const bool has_col = kWs ? tid < kWsColumnThreads : tid < ncols;
    const int vc = x0 - R + tid;
    int lc = (g.border == Border::Zero ? vc : fold_coord(vc, g.width, g.border)) - (x0 - kRH);
    lc = min(max(lc, 0), kBoxW - 1);
    // Image row of row v under Clamp or Mirror, for the blocks that reach outside the image (the
    // first and last of a column of segments). One reflection covers every image at least R + 1
    // rows tall; fold_coord (a division) only for shorter ones. ncu (H100, r=16): this path with
    // fold_coord and a modulo into the ring per row ran ~330 instructions per row and 4.6 of the
    // kernel's 57 instructions per pixel.
    auto fold_row = [&](int v) {
        int r = v;
        if (r < 0) r = g.border == Border::Mirror ? -r - 1 : 0;
        if (r >= g.height) r = g.border == Border::Mirror ? 2 * g.height - 1 - r : g.height - 1;
        return (r < 0 || r >= g.height) ? fold_coord(v, g.height, g.border) : r;
    };
    // Ring row of the folded row v for block rows based at loaded row `first` (ring row `first_ring`):
    // an output of the block reads loaded rows first .. first + span only, so the offset is
    // clamped there (rows no stored output reads may fold anywhere) and wraps at most once.
    auto ring_row_folded = [&](int v, int first, int first_ring, int lo, int span) {
        const int o = min(max(kDir * (fold_row(v) - load_row0) - first, lo), span);
        const int r = first_ring + o;
        return ring_row(r >= ring_rows ? r - ring_rows : r);
    };

    // Vertical running sums: (R, B) in the 16-bit lanes of one register, G in another.
    std::uint32_t s_rb = 0, s_g = 0;
    // kHist: the column thread keeps the last 2R + 1 pixels of its column that entered (loaded rows
    // Bk - 1 .. Bk + 2R - 1 at the start of block k; at first 0 and the warm-up rows) in registers,
    // so that a leaving pixel is never read back from the ring: output row p takes off loaded row
    // p - 1, which entered (folded at the image's edges as it is now) at output p - 1 - 2R or in
    // the warm-up. 16 shared-memory loads per column and block fewer (one per row), and none of
    // the leaving rows' wrap tests; the warm-up loop, whose trip count 2R is then a constant, is
    // unrolled (no stack frame). Warp-specialised radius 2-11: 2R + 1 <= 23 registers. ptxas:
    // 71-72 registers (65-69 before), no spill, radius 9-11 bounded to 3 CTAs per SM (`_ws3`; 95-96
    // registers unbounded); radius 12 spilled at that bound and 13-16 took 81-96 registers, so they
    // keep reading the ring.
    // H200, A/B in one run (four pairs at 4K, two at 8K, radius 2-7, copy kernel 20.0-20.2 /
    // 68.4-68.7 us): 4K 25.9-26.7 us -> 25.1-25.9 (1.29-1.33x -> 1.24-1.28x; every pair faster at
    // every radius), 8K r=2 / 4 / 7 85.9-86.0 / 87.0-87.3 / 90.0-90.1 -> 82.2-82.6 / 83.4-83.8 /
    // 87.3-88.7. Radius 8-11 (three pairs at 4K, two at 8K; copy kernel 20.0-20.4 / 67.9-68.2):
    // 4K r=8 27.9-28.4 -> 26.4-26.6 (1.39-1.41x -> 1.31-1.32x), r=9 29.5-29.6 -> 27.6-27.9, r=10
    // 29.8 -> 28.4-28.7, r=11 30.0-30.3 -> 28.9-29.1; 8K r=8 91.9-93.0 -> 90.3-90.7, r=10
    // 96.8-97.7 -> 96.4. H100 (two pairs at 4K, one at 8K; copy kernel 25.5-25.7 / 91.9 us): 4K
    // r=8 32.4-33.2 -> 30.9-31.2 (1.27-1.29x -> 1.20-1.22x), r=9 33.1-33.4 -> 31.7-31.9, r=10
    // 33.1-33.4 -> 31.9-32.4, r=11 33.2-33.5 -> 31.9-32.4; 8K unchanged (r=8 104.7 / 104.6).
    constexpr bool kHist = kWsHist<kHalo, kR>;
    // kEndRefill (warp-specialised without kDouble0, radius 8-16; the launcher takes these kernels on
    // a GPU whose DRAM outpaces its SMs, the H200): the producer refills the ring at the end of each
    // block's vertical pass, where the column warps then wait for team 0 to free its rows, instead
    // of after that wait at the next block's start. The same stages go out, without waiting for
    // team 0's horizontal pass. H200, A/B in one run (four pairs, one binary,
    // copy kernel 20.2-20.5 us): 4K r=9 27.6-28.1 -> 27.4-27.9 us, r=10 28.2-28.6 -> 27.7-28.1, r=12
    // 29.1-29.3 -> 28.9, r=14 29.7-30.0 -> 29.2-29.5, r=16 29.6-29.9 -> 29.2-29.6; 8K (two pairs,
    // copy 68.6-68.9) r=9 92.7 -> 91.3-91.5, r=12 98.2-98.4 -> 94.7-95.3, r=16 100.7-101.6 ->
    // 97.7-98.0. On the H100 (one run, copy kernel 25.7-26.0 / 92.0 us) it lost: 4K r=8 31.0 ->
    // 31.3-31.4, r=12 32.0-32.2 -> 32.4-32.6 (r=9 32.7-32.8 -> 32.2-32.4), 8K r=8 104.5 -> 110.5, r=12
    // 106.4 -> 111.2, r=16 107.9 -> 110.8. Refilling at each team hand-over inside the pass instead
    // (lane 0 of column warp 0 issuing while its warp waits, three more fences per block) lost on
    // the H200: 4K r=10 28.4-28.9 -> 29.0-29.6, 8K r=12 101.9-102.1 -> 104.7-105.4.
    // As a run-time choice in one kernel it cost registers: ptxas spilled radius 8 (40 bytes) and
    // 11 (8 bytes); so each position is a kernel of its own.
    static_assert(!kEndRefill || kWsEndRefill<kHalo, kR>,
                  "the block-end refill is for radius 8-16's kernels");
    constexpr int kHistN = kHist ? 2 * kR + 1 : 1;
    std::uint32_t hist[kHistN];
    if constexpr (kHist) hist[0] = 0u;  // the segment's first output: nothing leaves
    // Warm-up: loaded rows kC .. kC + 2R - 1 (ring rows as loaded); the first block adds row kC + 2R.
    // With shifted rows the teams wait for no stage below their first centre row's ((kC + R) / S):
    // the block-end refill may reissue those slots before the last team starts its first block
    // (the ring model in the unit tests, BoxStreamRing, holds the kernel to that).
    const bool team_thread = kWs && tid >= kWsColumnThreads;
    if (kC > 0 && team_thread) ring_wait.start_at((kC + R) / kStageRows);
    else wait_through((kC + 2 * R - 1) / kStageRows);
    if (tid == kProducer)
        for (; issued < min(K, nstages); ++issued) issue(issued);  // slots not used yet
    if (has_col) {
        const bool inside = g.border == Border::Zero || rows_inside(kC, kC + 2 * R - 1);
        for (int i = 0; i < 2 * R; ++i) {
            const std::uint32_t p = inside ? ring_r0[(kC + i) * kRowStep + lc]
                                           : ring_row_folded(image_row(kC + i), kC, kC, 0, 2 * R - 1)[lc];
            s_rb += lanes_rb(p);
            s_g += g_lane(p);
            if constexpr (kHist) hist[i + 1] = p;
        }
    }

    // Horizontal item of this thread: output row hj of the block, outputs hx .. hx + kHRun - 1.
    // Warp-specialised: the threads after the column threads, team h on rows 4h .. 4h + 3 (in a
    // team, lane pairs on consecutive rows of one run, as the paired stores below need).
    constexpr int kTeamRows = kBlockRows / kWsTeams;
    const int tt = tid - kWsColumnThreads;  // the thread's index in the teams (warp-specialised)
    const int team = kWs ? tt / kWsTeamThreads : 0;
    const bool has_item = kWs ? tt >= 0 : tid < kBlockRows * (kStripW / kHRun);
    const int hj = kWs ? team * kTeamRows + tt % kTeamRows : tid % kBlockRows;
    const int hx = kWs ? (tt % kWsTeamThreads) / kTeamRows * kHRun : (tid / kBlockRows) * kHRun;

    // Ring rows of this block's first leaving row (Bk - 1), first entering row (Bk + 2R) and of this
    // thread's centre row (Bk + hj + R), advanced by B per block.
    auto wrap = [&](int r) { return r >= ring_rows ? r - ring_rows : r; };
    // The blocks, for a thread of role kRole: 0 both passes (every thread), 1 the vertical pass only
    // (the column threads of the warp-specialised form), 2 the horizontal only (its teams). One
    // loop per role, so that neither carries the other's registers through the other's code.
    auto run_blocks = [&](auto role) {
        constexpr int kRole = decltype(role)::value;
        int leave0 = kC > 0 ? kC - 1 : ring_rows - 1;
        int enter0 = (kC + 2 * R) % ring_rows;
        int centre0 = (kC + hj + R) % ring_rows;
        for (int k = 0; k < blocks; ++k, leave0 = wrap(leave0 + kBlockRows),
                 enter0 = wrap(enter0 + kBlockRows), centre0 = wrap(centre0 + kBlockRows)) {
            const int yk =
                kUp ? ye - 1 - k * kBlockRows : ys + k * kBlockRows;  // image row of its first output
            if constexpr (kRole == 1) {
                // Team 0 is done with the previous block, and every column thread with its vertical
                // pass: the stages wholly below row Bk - 1 go out again. The other teams may still read
                // the previous block's centre rows, from B (k - 1) + R + 4 >= Bk - 10 on (R >= 2): in
                // stage k - 1 at most, which stays. (Freeing stage k - 1 too where R >= 12, with row
                // Bk - 1 carried in a register: 4K r=16 33.8-34.1 -> 34.2-34.8 us, 8K 108.8 -> 116.5.)
                // kDouble0: team 0 done with block k - 2 (its rows of block k are the other buffer's);
                // the refill frees the same stages (no reader of block k - 1 reads below it).
                // With kEndRefill the same stages went out already at the end of block k - 1's
                // vertical pass (below).
                if (kDouble0 ? k > 1 : k > 0) {
                    named_sync(kDouble0 && (k & 1) ? bar_free0_odd() : bar_free(0), kWsBarThreads);
                    if (tid == kProducer && !kEndRefill) refill(kC + box_ring_free_rows_at_block_start(k, kBlockRows));
                }
            }
            // Loaded rows Bk - 1 .. Bk + 2R + B - 1 (B = kBlockRows): the leaving and entering rows.
            if constexpr (kRole != 2) wait_through((kC + k * kBlockRows + 2 * R + kBlockRows - 1) / kStageRows);
            if (kRole != 2 && has_col) {
                // Team 0's rows of an odd block (kDouble0): rows kBlockRows .. kBlockRows + kTeamRows - 1
                // (`out` moves back by odd_shift at the hand-over to team 1).
                const int odd_shift = kDouble0 && (k & 1) ? kBlockRows * kCs : 0;
                uint2* out = colsum + cs_index(tid) + odd_shift;
                const bool inside =
                    g.border == Border::Zero ||
                    rows_inside(kC + max(k * kBlockRows - 1, 0), kC + k * kBlockRows + 2 * R + kBlockRows - 1);
                // Leaving rows are loaded rows Bk - 1 + j: they wrap inside the block that starts a ring
                // turn (row Bk - 1 is the ring's last), after j = 0; the first block has no row -1.
                // Entering rows Bk + 2R + j wrap inside one block per ring turn where 2R is no
                // multiple of B.
                const std::uint32_t* lp = ring_row(leave0) + lc;
                const int e0 = enter0;
                const std::uint32_t* ep = ring_row(e0) + lc;
                auto step = [&](int j, std::uint32_t e, std::uint32_t l) {
                    s_rb = s_rb + lanes_rb(e) - lanes_rb(l);  // exact: every lane's result is in 0..65535
                    s_g = s_g + g_lane(e) - g_lane(l);
                    out[j * kCs] = make_uint2(s_rb, s_g);
                };
                // Warp-specialised, before output row j (j a multiple of kTeamRows past 0): the rows
                // before go to their team, and the next team's rows are written once that team is done
                // with the previous block's.
                auto handover = [&](int j) {
                    if constexpr (kWs) {
                        if (j > 0 && j % kTeamRows == 0) {
                            if (kDouble0 && j == kTeamRows) out -= odd_shift;
                            named_arrive(kDouble0 && j == kTeamRows && (k & 1) ? bar_full0_odd()
                                                                               : bar_full(j / kTeamRows - 1),
                                         kWsBarThreads);
                            if (k > 0) named_sync(bar_free(j / kTeamRows), kWsBarThreads);
                        }
                    }
                };
                auto steps = [&](const std::uint32_t(&e)[kBlockRows], const std::uint32_t(&l)[kBlockRows]) {
#pragma unroll
                    for (int j = 0; j < kBlockRows; ++j) {
                        handover(j);
                        step(j, e[j], l[j]);
                    }
                };
                // The block's entering and leaving pixels are all loaded before the first column sum is
                // stored: interleaved with the stores, ptxas kept every load behind the store before it
                // (both shared memory, possibly aliased), and each row waited for its loads' latency.
                std::uint32_t ev[kBlockRows], lv[kBlockRows];
                [[maybe_unused]] const bool leave_wraps = leave0 == ring_rows - 1;
                // For the blocks that fold rows (ring_row_folded): the block reads loaded rows first ..
                // first + span, from ring row leave0; the first block has no row kC - 1 (lo).
                [[maybe_unused]] const int first = kC + k * kBlockRows - 1, span = 2 * R + kBlockRows,
                                           lo = k == 0 ? 1 : 0;
                if constexpr (kHist) {
                    // Entering rows only (they wrap inside one block per ring turn where 2R is no
                    // multiple of B, from j = B - 2R mod B on); the leaving ones from hist and ev.
                    // (Never wrapping where kC + 2R is a multiple of B: the block's entering rows are one stage.)
                    if (inside && ((kC + 2 * kR) % kBlockRows == 0 || e0 + kBlockRows <= ring_rows)) {
#pragma unroll
                        for (int j = 0; j < kBlockRows; ++j) ev[j] = ep[j * kRowStep];
                    } else if (inside) {
                        const std::uint32_t* ew = ep - ring_rows * kRowStep;
#pragma unroll
                        for (int j = 0; j < kBlockRows; ++j)
                            ev[j] = (j < kBlockRows - (kC + 2 * kR) % kBlockRows ? ep : ew)[j * kRowStep];
                    } else {
#pragma unroll
                        for (int j = 0; j < kBlockRows; ++j)
                            ev[j] = ring_row_folded(yk + kDir * (j + R), first, leave0, lo, span)[lc];
                    }
#pragma unroll
                    for (int j = 0; j < kBlockRows; ++j) lv[j] = j <= 2 * kR ? hist[j] : ev[j - 2 * kR - 1];
                    steps(ev, lv);
                    // Rows Bk + 15 .. Bk + 15 + 2R: those of hist from 16 on (radius 8 and up), then
                    // the block's entering ones. In place: slot m reads slot m + 16, not yet moved.
#pragma unroll
                    for (int m = 0; m < kHistN; ++m)
                        hist[m] = m + kBlockRows < kHistN ? hist[m + kBlockRows] : ev[kBlockRows - kHistN + m];
                } else if (kC > 0 && inside) {
                    // Rows counted from kC rows up: the entering rows are one stage (kC + 2R is a multiple
                    // of B) and never wrap inside a block; the leaving rows kC + Bk - 1 + j wrap where
                    // the ring turns, at j = B + 1 - kC, so rows j >= B + 1 - kC come from lw, the
                    // wrapped base in such a block. The base is chosen once per block: picked per row
                    // (a select each), ptxas took 95 registers for radius 12-14.
                    const std::uint32_t* lw = leave0 + kBlockRows > ring_rows ? lp - ring_rows * kRowStep : lp;
#pragma unroll
                    for (int j = 0; j < kBlockRows; ++j) {
                        ev[j] = ep[j * kRowStep];
                        lv[j] = (j >= kBlockRows + 1 - kC ? lw : lp)[j * kRowStep];
                    }
                    if (k == 0) lv[0] = 0;  // the segment's first output: nothing leaves (row kC - 1 is never loaded)
                    steps(ev, lv);
                } else if (kC == 0 && inside && !leave_wraps && e0 + kBlockRows <= ring_rows) {
#pragma unroll
                    for (int j = 0; j < kBlockRows; ++j) {
                        ev[j] = ep[j * kRowStep];
                        lv[j] = lp[j * kRowStep];
                    }
                    steps(ev, lv);
                } else if (kC == 0 && kR > 0 && inside && leave_wraps) {
                    // The radius compiled in: the leaving rows' wrap as a branch of its own (H100 4K r=16
                    // 34.6-35.4 -> 34.3-34.9 us over four alternating pairs, r=4 and 8K unchanged; in the
                    // runtime-radius kernels it made ptxas spill 28 bytes and r=32 took 61 us).
                    const std::uint32_t* lw = ring_r0 + lc;  // leaving rows Bk .. : the ring's first rows
#pragma unroll
                    for (int j = 0; j < kBlockRows; ++j) {
                        ev[j] = ep[j * kRowStep];  // entering rows never wrap in this block (see below)
                        lv[j] = j == 0 ? (k == 0 ? 0u : lp[0]) : lw[(j - 1) * kRowStep];
                    }
                    steps(ev, lv);
                } else if (kC == 0 && inside) {
                    // Rows from the ring's start on. ring_rows is a multiple of B and e0 = 2R (mod B), so
                    // entering rows that wrap start B - 2R mod B rows before the ring's end (a compile-
                    // time split where R is); leaving rows wrap after the first. Never both in one block
                    // (the ring holds at least 2R + B + 1 rows).
                    const std::uint32_t* ew = ep - ring_rows * kRowStep;
                    const std::uint32_t* lw = lp - ring_rows * kRowStep;
                    const int jw = leave_wraps ? kBlockRows : kBlockRows - (2 * R) % kBlockRows;
                    const int jl = leave_wraps ? 1 : kBlockRows;
#pragma unroll
                    for (int j = 0; j < kBlockRows; ++j) {
                        ev[j] = (j < jw ? ep : ew)[j * kRowStep];
                        lv[j] = (j < jl ? lp : lw)[j * kRowStep];
                    }
                    if (k == 0) lv[0] = 0;  // the segment's first output: nothing leaves
                    steps(ev, lv);
                } else if constexpr (kWs) {
                    // A block whose rows reach past the image's top or bottom edge (radius 12-16 here;
                    // radius 2-11 fold in the kHist branch above). Each of its 16 entering and 16
                    // leaving rows is in the same ring row in every column, so lane j of each column
                    // warp folds entering row j and lane 16 + j leaving row j, once, and the rows'
                    // offsets reach the other lanes by shuffles. Folded by every lane for every row
                    // (two ring_row_folded per row, the loads behind the stores), this one block took
                    // ~6 us instead of ~1.5 (per-block clocks, H200 4K r=12: the last block of a top
                    // or bottom segment), so those segments ran ~5 us longer than their blocks
                    // (session 26's short ends). After: the last block 2.0 us. H200, A/B in one run
                    // (four pairs, copy kernel 19.9-20.3 us): 4K r=12 28.2-28.3 -> 27.9-28.2 us,
                    // r=14 28.7 -> 28.5-28.8, r=16 28.6-28.9 -> 28.3-28.7; r=8 and 9 (code unchanged)
                    // within 0.2 but one outlier. The old fold unrolled in every lane, its loads
                    // before the stores, was 0-1.8 us slower (the instructions were the cost).
                    const int lane = tid & 31, j = lane & (kBlockRows - 1);
                    const int v = lane < kBlockRows ? yk + kDir * (j + R) : yk + kDir * (j - R - 1);
                    const int off = static_cast<int>(ring_row_folded(v, first, leave0, lo, span) - ring);
#pragma unroll
                    for (int i = 0; i < kBlockRows; ++i) {
                        ev[i] = ring[__shfl_sync(0xffffffffu, off, i) + lc];
                        lv[i] = ring[__shfl_sync(0xffffffffu, off, kBlockRows + i) + lc];
                    }
                    if (k == 0) lv[0] = 0u;  // the segment's first output: nothing leaves
                    steps(ev, lv);
                } else {
                    for (int j = 0; j < kBlockRows; ++j) {
                        handover(j);
                        const int y = yk + kDir * j;
                        // Loaded rows Bk - 1 .. Bk + 2R + B - 1 (from ring row leave0); the first block
                        // has no row -1 (its first output subtracts nothing).
                        step(j, ring_row_folded(y + kDir * R, first, leave0, lo, span)[lc],
                             k == 0 && j == 0
                                 ? 0u
                                 : ring_row_folded(y - kDir * (R + 1), first, leave0, lo, span)[lc]);
                    }
                }
            }
            if constexpr (kRole == 1) {
                named_arrive(bar_full(kWsTeams - 1), kWsBarThreads);
                if constexpr (kEndRefill) {
                    // Every team is done with block k - 1 (its free barrier was passed at row 4 h of
                    // this block), the column threads with this block's leaving rows, and this block's
                    // teams read no row below Bk + R: the stages wholly below row Bk + min(R, B - 1)
                    // go out now, the ones the next block's start freed before (the next block reads
                    // from B (k + 1) - 1 on).
                    if (tid == kProducer) refill(kC + box_ring_free_rows_at_block_end(k, R, kBlockRows));
                }
                continue;  // on to the next block
            }
            if constexpr (kRole == 2) {
                // The centre rows (their alpha): loaded rows Bk + R .. Bk + R + B - 1; then this team's
                // column sums. The ring wait goes first, where the team would otherwise wait for its
                // column sums anyway: after the barrier, its try-wait sat before the item's first
                // loads. (The stage is in flight by then: the column threads wait for a later one,
                // Bk + 2R + B - 1, before they hand these rows over.) H200, A/B in one run (three
                // pairs, copy kernel 19.9-20.2 us): 4K r=2-9 and 12-15 0.2-0.35 us faster (r=9
                // 25.8-26.0 -> 25.4-25.8, r=13 27.6-27.8 -> 27.3-27.5, r=15 28.1-28.4 -> 27.8-28.0),
                // r=10 and 11 within the noise; 8K r=4 84.1-84.4 -> 82.8-83.1, r=8 87.4-87.6 -> 86.0-86.1,
                // r=14 95.3-95.8 -> 94.2; H100 (the block-start kernels, three pairs): r=8 and 10-15
                // 0.2-0.3 us faster, r=9 within the noise. Radius 16 keeps the old order: with the wait
                // first, ptxas gave its block-end kernel 95 registers (two CTAs per SM, 4K 28.2-28.9 ->
                // 30.0-30.1) and, held to three CTAs per SM, 8 bytes of spill (28.6-28.7).
                if constexpr (kR == 16) {
                    named_sync(kDouble0 && team == 0 && (k & 1) ? bar_full0_odd() : bar_full(team),
                               kWsBarThreads);
                    wait_through((kC + k * kBlockRows + R + kBlockRows - 1) / kStageRows);
                } else {
                    wait_through((kC + k * kBlockRows + R + kBlockRows - 1) / kStageRows);
                    named_sync(kDouble0 && team == 0 && (k & 1) ? bar_full0_odd() : bar_full(team),
                               kWsBarThreads);
                }
            } else {
                // The previous block's TMA stores have read the output block before anyone rewrites it.
                if (tma_out && tid == kProducer) bulk_wait_read();
                __syncthreads();  // column sums of the block are in shared memory
                // The horizontal pass reads no row below Bk (its centre rows start R rows below), so the
                // stage that ends with the block's first leaving row is free now, and its refill goes out
                // half a block earlier than after the block's last barrier (the next block reads rows from
                // B (k + 1) - 1 on, in the stage after it). H100, when rows were counted from the leaving row
                // of output 0 (the stage then freed was the block's first, for R >= kStageRows - 1 only):
                // r=32 54.1 -> 53.0-53.3 us at 4K, 181.9 -> 176.3 at 8K; r=16 unchanged.
                if (tid == kProducer) refill(kC + k * kBlockRows);
            }

            const int y = yk + kDir * hj;
            // Radius 9's teams test the row only in the segment's last block (every other block lies
            // wholly inside the segment): with the row test in every block, ptxas (72 registers, the
            // 3-CTA bound of `_ws3`) spilled a loop invariant of the test (8 bytes) and reloaded it
            // with an LDL at the start of each block's item. H200, A/B in one run (four pairs, copy
            // kernel 20.3-20.5 us): 4K r=9 28.4-28.7 -> 27.6-28.0 us (1.42-1.44x -> 1.37-1.39x), 8K
            // 96.9-97.1 -> 92.8-93.4. The other radii do not spill either way; with this form their
            // SASS changed and they measured 0.2-0.9 us slower or unchanged (4K r=10 27.9-28.1 ->
            // 28.2-28.7, 8K r=10 94.3-94.6 -> 94.8-95.7, 8K r=12 97.1-97.5 -> 97.7-98.8), so they
            // keep the test in every block.
            constexpr bool kRowTestLastBlockOnly = kRole == 2 && kR == 9;
            const bool active = kRowTestLastBlockOnly ? k + 1 < blocks || (kUp ? y >= ys : y < ye)
                                                      : has_item && (kUp ? y >= ys : y < ye);
            // The item's outputs, finished, for the stores below (unless the output block leaves by TMA).
            std::uint32_t outv[kHRun];
            if (active) {
                // Column-sum index c is column x0 - R + c: output x0 + hx reads indices hx .. hx + 2R.
                const uint2* row = colsum + hj * kCs + cs_index(hx) +
                                   (kDouble0 && team == 0 && (k & 1) ? kBlockRows * kCs : 0);
                [[maybe_unused]] const uint2* enter = row + 2 * R;
                // Column sum hx + t (hx is a multiple of 16: the skew adds up). Warp-specialised: read
                // in 16-byte pairs (t rounded down to even), each pair once.
                auto cs = [&](int t) -> uint2 {
                    if constexpr (kWs) {
                        const uint4 p = *reinterpret_cast<const uint4*>(row + cs_index(t & ~1));
                        return (t & 1) ? make_uint2(p.z, p.w) : make_uint2(p.x, p.y);
                    } else {
                        return row[t];
                    }
                };
                // Column sum hx + 2R + i. The other kernels keep their `enter[i]`: written as cs(2R + i),
                // the runtime-radius kernels of the 8-pixel class compiled to different SASS.
                auto cs_enter = [&](int i) -> uint2 {
                    if constexpr (kWs)
                        return cs(2 * R + i);
                    else
                        return enter[i];
                };
                // The centre pixels' alpha: loaded row kDir (y - load_row0), loaded column x - x0 + kRH.
                const auto* centre = reinterpret_cast<const uint4*>(ring_row(centre0) + kRH + hx);
                // floor((sum + (n-1)/2) / n), the reference's floor((2 sum + n) / 2n) for odd n, exact:
                // x * (inv_n * n - 2^32) < 2^19 * 2^13 = 2^32 for every x and n here.
                auto pack = [&](std::uint32_t sr, std::uint32_t sg, std::uint32_t sb, std::uint32_t alpha) {
                    const std::uint32_t rg =
                        __byte_perm(__umulhi(sr, g.inv_n), __umulhi(sg, g.inv_n), 0x3340u);  // R, G, 0, 0
                    const std::uint32_t ba =
                        __byte_perm(__umulhi(sb, g.inv_n), alpha, 0x3370u);  // B, A, 0, 0
                    return __byte_perm(rg, ba, 0x5410u);
                };
                // Outputs q*4 .. q*4 + 3 of the item, finished: into the output block, or kept for the
                // stores from registers below.
                auto keep4 = [&](int q, std::uint32_t(&o)[4]) {
                    tl::cuda::dev::finish4(filter, o);
                    if constexpr (kTmaOut) {
                        if (tma_out) {
                            // Box px / 32, row t (the box's rows ascend in the image), 16-byte chunk
                            // (px / 4) mod 8 XOR t (SWIZZLE_128B).
                            const int px = hx + 4 * q;
                            const int t = kUp ? kBlockRows - 1 - hj : hj;
                            *reinterpret_cast<uint4*>(out_tile + (px >> 5) * 1024 + t * 128 +
                                                      ((((px >> 2) & 7) ^ t) << 4)) =
                                make_uint4(o[0], o[1], o[2], o[3]);
                            return;
                        }
                    }
#pragma unroll
                    for (int i4 = 0; i4 < 4; ++i4) outv[4 * q + i4] = o[i4];
                };
                // The item's kHRun outputs: `step(e, l)` moves the window right by one (column sum e
                // enters, l leaves), `mean(alpha)` gives the output pixel of the current window.
                auto outputs = [&](auto&& step, auto&& mean) {
#pragma unroll
                    for (int q = 0; q < kHRun / 4; ++q) {
                        const uint4 c4 = centre[q];
                        const std::uint32_t alpha[4] = {c4.x, c4.y, c4.z, c4.w};
                        std::uint32_t o[4];
#pragma unroll
                        for (int i4 = 0; i4 < 4; ++i4) {
                            const int i = 4 * q + i4;
                            // Column sum hx + i + 2R enters, hx + i - 1 leaves.
                            if (i > 0) step(cs_enter(i), cs(i - 1));
                            o[i4] = mean(alpha[i4]);
                        }
                        keep4(q, o);
                    }
                };
                if (R <= kMaxPackedRadius) {
                    // Whole box sums fit the 16-bit lanes: the window moves with one 3-input add per
                    // register, (R, B) in one and G in the other. Each lane's result lies in 0..65535
                    // after every step, so the borrows between lanes inside the add cancel exactly.
                    // + (n-1)/2 in each lane (times 256 in G's, see kG8).
                    std::uint32_t arb = g.half_n * 0x10001u, ag = kG8 ? g.half_n << 8 : g.half_n;
#pragma unroll
                    for (int t = 0; t <= 2 * R; ++t) {
                        const uint2 v = cs(t);
                        arb += v.x;
                        ag += v.y;
                    }
                    outputs(
                        [&](uint2 e, uint2 l) {
                            arb = arb + e.x - l.x;
                            ag = ag + e.y - l.y;
                        },
                        [&](std::uint32_t alpha) {
                            if constexpr (kG8) {
                                // Each quotient lands in its byte: umulhi(256 sG, inv_n) is 256
                                // floor(sG / n) plus less than 256, and umulhi of the whole (R, B)
                                // register is 65536 floor(sB / n) plus less than 65536 (sB's
                                // remainder gives at most (n - 1) 65536 / n, the R lane sR / n and
                                // the multiplier's excess under 1, and sR + n < 65536 for every
                                // radius here). 7 instructions per output (a mask, three
                                // multiply-highs, three merges) instead of 8 (two unpacks, three
                                // multiply-highs, three byte permutes); ptxas gave the 8-row r=4
                                // kernel 64 registers instead of 75, and r=3 lost a 4-byte spill.
                                // A/B in one run each (three pairs, 4K / 8K RGBA8 clamp, r=2-7):
                                // H100 30.6-32.3 -> 30.5-31.7 us, 8K r=5-7 103.2-105.1 ->
                                // 102.7-103.8, r=2-4 unchanged; H200 within its noise (first
                                // session 27.1-28.2 -> 26.9-27.7, a second one 27.3-27.9 ->
                                // 26.9-28.3, run means 27.7 and 27.6; 8K unchanged, 86.0-90.1).
                                const std::uint32_t qr = __umulhi(arb & 0xffffu, g.inv_n);
                                const std::uint32_t qg = __umulhi(ag, g.inv_n);
                                const std::uint32_t qb = __umulhi(arb, g.inv_n);
                                const std::uint32_t rg = (qg & 0xff00u) | qr;
                                const std::uint32_t ba = (qb & 0x00ff0000u) | (alpha & 0xff00ffffu);
                                return __byte_perm(rg, ba, 0x7610u);
                            } else {
                                return pack(arb & 0xffffu, ag, arb >> 16, alpha);
                            }
                        });
                } else {
                    std::uint32_t ar = g.half_n, ag = g.half_n, ab = g.half_n;  // + (n-1)/2: round to nearest
                    // Start-up sum of the first output's 2R + 1 column sums, kGroup at a time: that many
                    // (R, B) column sums (at most (2 kHalo + 1) x 255 per lane each) still fit the 16-bit
                    // lanes together, so a group costs one add per column sum and one unpack.
                    // Whole groups unrolled without predicates, then the rest: ncu (H100, r=16) counted
                    // 12 of 57 instructions per pixel in this sum when every tap carried its own bound test.
                    // The group is sized by the compiled radius where there is one (a column sum is at most
                    // (2R + 1) x 255), not by the class's 16: radius 9 sums its 19 taps in groups of 13 + 6
                    // instead of 7 + 7 + 5, radius 12 in 10 + 10 + 5 instead of 7 + 7 + 7 + 4. H200, A/B
                    // in one run (three pairs, copy kernel 20.0-20.3 us): 4K r=9 26.1-26.7 -> 25.9-26.0 us,
                    // r=11 27.0-27.3 -> 26.8-27.0, the other radii within the noise; 8K r=9 90.3 -> 87.7.
                    // The start-up is the dearest part of the teams' item: taking half its taps (timing
                    // only, docs/performance-notes.md, session 31) made radius 16 1.6 us faster, and 8
                    // more 16-byte loads in it 1.7 us slower. Pair sums from the column warps (each two
                    // neighbouring column sums added by a shuffle and stored, half the start-up's loads)
                    // made radius 8-15 3.7-4.6 us slower (H200 4K, session 33): the column warps'
                    // shuffles, adds and stores cost more than the teams saved.
                    constexpr int kGroup = 65535 / ((2 * (kR > 0 ? kR : kHalo) + 1) * 255);
                    const int taps = 2 * R + 1;
                    int t = 0;
                    for (; t + kGroup <= taps; t += kGroup) {
                        std::uint32_t prb = 0;
#pragma unroll
                        for (int u = 0; u < kGroup; ++u) {
                            const uint2 v = cs(t + u);
                            prb += v.x;
                            ag += v.y;
                        }
                        ar += prb & 0xffffu;
                        ab += prb >> 16;
                    }
                    std::uint32_t prb = 0;
                    for (; t < taps; ++t) {
                        const uint2 v = cs(t);
                        prb += v.x;
                        ag += v.y;
                    }
                    ar += prb & 0xffffu;
                    ab += prb >> 16;
                    outputs(
                        [&](uint2 e, uint2 l) {
                            // The (R, B) difference is taken with 0x8000 added to each lane, so neither
                            // lane borrows from the other, and the bias is taken off again per channel.
                            const std::uint32_t d = e.x + 0x80008000u - l.x;
                            ar += (d & 0xffffu) - 0x8000u;
                            ab += (d >> 16) - 0x8000u;
                            ag += e.y - l.y;
                        },
                        [&](std::uint32_t alpha) { return pack(ar, ag, ab, alpha); });
                }
            }
            if (!tma_out) {
                // Stores from registers. A warp's items are 16 or 8 rows x 2 or 4 runs of kHRun outputs;
                // one 16-byte store per lane would write each 32-byte sector of a row in two halves by
                // two instructions (ncu: twice the ideal L2 write sectors). So lanes pair up (lane ^ 1:
                // the next row, the same run) and trade chunks, each pair writing whole sectors: per two
                // chunks k, k + 1 of a run, first the even lane's row, then the odd lane's.
                auto* drow = tl::cuda::dev::row_ptr<tl::cuda::dev::PixelRGBA8>(g.dst, g.dst_pitch, y);
                const int x = x0 + hx;
                const bool whole = active && g.vec_store && x + kHRun <= g.width;
                const bool odd = (tid & 1) != 0;
                // Every lane of the warp takes part in the shuffles (not behind `whole &&`).
                const bool partner_whole = __shfl_xor_sync(0xffffffffu, int(whole), 1) != 0;
                const bool paired = whole && partner_whole;
                auto* prow = tl::cuda::dev::row_ptr<tl::cuda::dev::PixelRGBA8>(g.dst, g.dst_pitch,
                                                                               odd ? y - kDir : y + kDir);
#pragma unroll
                for (int k = 0; k < kHRun / 4; k += 2) {
                    const uint4 c0 =
                        make_uint4(outv[4 * k], outv[4 * k + 1], outv[4 * k + 2], outv[4 * k + 3]);
                    const uint4 c1 =
                        make_uint4(outv[4 * k + 4], outv[4 * k + 5], outv[4 * k + 6], outv[4 * k + 7]);
                    // Even lanes send chunk k + 1 and receive the odd lane's chunk k.
                    const uint4 send = odd ? c0 : c1;
                    const uint4 recv = make_uint4(
                        __shfl_xor_sync(0xffffffffu, send.x, 1), __shfl_xor_sync(0xffffffffu, send.y, 1),
                        __shfl_xor_sync(0xffffffffu, send.z, 1), __shfl_xor_sync(0xffffffffu, send.w, 1));
                    if (paired) {
                        const int xo = x + 4 * k + (odd ? 4 : 0);
                        // Streaming stores (st.global.cs, evict-first: the output is not read again)
                        // where the radius is compiled in. H100, A/B in one run (four pairs): 4K r=16
                        // 34.5-34.6 -> 34.2-34.4 us, r=4 31.2-31.6 -> 30.7-30.9 (its kernel holds this
                        // path for destinations TMA cannot store to), 8K r=16 117.8 -> 116.1, r=4
                        // 103.8 -> 101.3. The runtime-radius kernels keep plain stores: with __stcs
                        // ptxas gave them 80 registers and 20 bytes of spill (r=32 51 -> 54.5 us), and
                        // any other form of these two lines changed their SASS and cost r=32 2.5 us.
                        if constexpr (kR > 0) {
                            __stcs(reinterpret_cast<uint4*>((odd ? prow : drow) + xo),
                                   odd ? recv : c0);  // the even lane's row
                            __stcs(reinterpret_cast<uint4*>((odd ? drow : prow) + xo),
                                   odd ? c1 : recv);  // the odd lane's row
                        } else {
                            *reinterpret_cast<uint4*>((odd ? prow : drow) + xo) =
                                odd ? recv : c0;  // the even lane's row
                            *reinterpret_cast<uint4*>((odd ? drow : prow) + xo) =
                                odd ? c1 : recv;  // the odd lane's row
                        }
                    } else if (active) {
#pragma unroll
                        for (int h = 0; h < 2; ++h) {
                            const uint4 c = h ? c1 : c0;
                            const int xc = x + 4 * (k + h);
                            if (g.vec_store && xc + 3 < g.width) {
                                *reinterpret_cast<uint4*>(drow + xc) = c;
                            } else {
                                const std::uint32_t v[4] = {c.x, c.y, c.z, c.w};
#pragma unroll
                                for (int i4 = 0; i4 < 4; ++i4)
                                    if (xc + i4 < g.width) drow[xc + i4] = v[i4];
                            }
                        }
                    }
                }
            }
            if constexpr (kRole == 2) {
                // The team's column sums and centre rows are free again (for a next block only: every
                // arrival has its wait).
                // (kDouble0: team 0's arrival after block k is waited for at block k + 2.)
                if (kDouble0 && team == 0) {
                    if (k + 2 < blocks) named_arrive((k & 1) ? bar_free0_odd() : bar_free(0), kWsBarThreads);
                } else if (k + 1 < blocks) {
                    named_arrive(bar_free(team), kWsBarThreads);
                }
                continue;
            }
            // This thread's writes of the output block, before the TMA store (async proxy) reads them.
            if (tma_out) fence_proxy_async_smem();
            __syncthreads();  // column sums and the block's ring rows are free again
            if (tid == kProducer) {
                if constexpr (kTmaOut) {
                    if (tma_out) {  // rows past the image are not written (the segment ends on a block)
#pragma unroll
                        for (int b = 0; b < kStripW / 32; ++b)
                            tma_store_2d(&dst_map, x0 + 32 * b, kUp ? yk - (kBlockRows - 1) : yk,
                                         out_tile + b * 1024);
                        bulk_commit();
                    }
                }
                refill((k + 1) * kBlockRows - 1);  // the next block reads loaded rows from B (k + 1) - 1 on
            }
        }
    };
    if constexpr (kWs) {
        if (tid < kWsColumnThreads)
            run_blocks(std::integral_constant<int, 1>{});
        else
            run_blocks(std::integral_constant<int, 2>{});
    } else {
        run_blocks(std::integral_constant<int, 0>{});
    }
    if (tma_out && tid == kProducer) bulk_wait_all();
}
#endif

// One CTA: its segment, streamed in the direction streams_up names. Radius <= 8 streams downwards
// only: its segments re-read 2R + 1 of ~170 rows, and with both directions compiled in, r=4 took
// 32.4 -> 32.9 us (H100 4K) and 107.9 -> 110.9 (8K).
template <class Filter, int kHalo, int kR, bool kEndRefill = false>
__device__ __forceinline__ void box_stream_cta(const CUtensorMap& src_map, const CUtensorMap& dst_map,
                                               const Filter& filter, const StreamGeom& g) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    extern __shared__ unsigned char smem_raw[];
    __shared__ alignas(8) std::uint64_t full[kMaxStages];
    tl::cuda::dev::stage_epilogue(filter);  // published by the segment's first barrier
    // Launch order: each strip's last segment first, then segments 0, 1, ... The CTAs launched last
    // on an SM run slowest (its warp schedulers favour the older warps; per-CTA clocks, 4K r=16:
    // 0.47, 0.44 and 0.40 blocks per us by launch rank, and on every SM the CTA launched last ended
    // last), and the last segment, which reaches the image's bottom edge (its last blocks read the
    // border rows one at a time), was the slowest of all when it came last: H100 4K r=16
    // 36.0-36.4 -> 35.4-35.8 us, r=32 53.0-53.2 -> 52.1-52.4, r=4 32.4-32.6 -> 32.4-32.9, 8K r=16
    // 120.9 -> 120.4 (A/B in one run; tilelab check passed on it).
    const int order = static_cast<int>(blockIdx.x) / g.strips;
    const int seg = order == 0 ? g.segments.per_strip - 1 : order - 1;
    const SegmentRows rows = g.segments.rows(seg, g.height);
    TL_CTA_CLOCKS_BEGIN(static_cast<int>(blockIdx.x) % g.strips, seg, g.segments.per_strip);
    if constexpr (kHalo > 8) {
        if (streams_up(g, seg, rows, Shape<kHalo>::kBlockRows)) {
            box_stream_segment<Filter, kHalo, kR, true, kEndRefill>(src_map, dst_map, filter, g, align128(smem_raw), full, rows);
            return;
        }
    }
    box_stream_segment<Filter, kHalo, kR, false, kEndRefill>(src_map, dst_map, filter, g, align128(smem_raw), full, rows);
#else
    (void)src_map; (void)dst_map; (void)filter; (void)g;
#endif
}

// Named stencil_tma_kernel_* so that the SASS test (tests/gpu/test_sass.cpp) holds them to the tma
// mechanism's instruction, UTMALDG, like the tile kernel.
// kR > 0: the radius as a compile-time constant (g.radius == kR), so the horizontal start-up sum
// is unrolled and every column-sum offset is an immediate; 0: the radius from g.
template <class Filter, int kHalo, int kR>
__global__ void __launch_bounds__(kMaxThreads)
    stencil_tma_kernel_box_stream(const __grid_constant__ CUtensorMap src_map, const __grid_constant__ CUtensorMap dst_map,
                                  const __grid_constant__ Filter filter, const StreamGeom g) {
    box_stream_cta<Filter, kHalo, kR>(src_map, dst_map, filter, g);
    TL_CTA_CLOCKS_END();
}
// The warp-specialised form (kWarpSpecialized): 288 threads, three CTAs per SM as before. No
// minimum CTA count in the bounds: ptxas takes 67-72 registers unasked (3 x 288 threads fit), but with
// (288, 3) it went to 72 and spilled 8 bytes.
// kEndRefill: the ring refilled at the end of each block's vertical pass (radius 8-16, see
// box_stream_segment).
template <class Filter, int kHalo, int kR, bool kEndRefill>
__global__ void __launch_bounds__(kWsThreads)
    stencil_tma_kernel_box_stream_ws(const __grid_constant__ CUtensorMap src_map,
                                     const __grid_constant__ CUtensorMap dst_map,
                                     const __grid_constant__ Filter filter, const StreamGeom g) {
    box_stream_cta<Filter, kHalo, kR, kEndRefill>(src_map, dst_map, filter, g);
    TL_CTA_CLOCKS_END();
}
// The same held to 3 CTAs per SM, for radius 9-11 with the leaving pixels in registers (kHist):
// unbounded, ptxas gave them 95-96 registers (2 CTAs per SM); bounded, 72 and no spill. (Sessions
// 19-22 held radius 3 so, whose double-buffered form took 56 registers and spilled 32 bytes
// unbounded; with kHist it takes 72 unbounded and spills nothing.)
template <class Filter, int kHalo, int kR, bool kEndRefill>
__global__ void __launch_bounds__(kWsThreads, 3)
    stencil_tma_kernel_box_stream_ws3(const __grid_constant__ CUtensorMap src_map,
                                      const __grid_constant__ CUtensorMap dst_map,
                                      const __grid_constant__ Filter filter, const StreamGeom g) {
    box_stream_cta<Filter, kHalo, kR, kEndRefill>(src_map, dst_map, filter, g);
    TL_CTA_CLOCKS_END();
}
// Whether Filter is a fused chain computed as arithmetic (Fused<F, false>, see filters.cuh).
template <class Filter>
constexpr bool arithmetic_chain() {
    if constexpr (tl::cuda::dev::is_fused_v<Filter>) return !Filter::byte_table;
    else return false;
}
// The arithmetic chain's form (Fused<F, false>), held to the CTAs per SM it had with one stream
// direction: with both compiled in, ptxas gave it 115-119 registers (79-96 before), a CTA per SM
// fewer. Bounded: 80 registers at radius <= 8, 96 with a 20-byte spill above.
template <class Filter, int kHalo, int kR>
__global__ void __launch_bounds__(kMaxThreads, kHalo <= 8 ? 4 : 3)
    stencil_tma_kernel_box_stream_chain(const __grid_constant__ CUtensorMap src_map,
                                        const __grid_constant__ CUtensorMap dst_map, const __grid_constant__ Filter filter,
                                        const StreamGeom g) {
    box_stream_cta<Filter, kHalo, kR>(src_map, dst_map, filter, g);
    TL_CTA_CLOCKS_END();
}

namespace {

// kR: the unfused Box's radius as a compile-time constant (0: from g); a fused chain keeps the
// runtime radius (one kernel per chain form, not per radius).
template <int kHalo, int kR = 0>
std::optional<Result> launch_shape(const LaunchArgs& a, const HopperDevice& dev, StreamGeom g, bool end_refill) {
    constexpr int kBlockRows = Shape<kHalo>::kBlockRows, kStageRows = Shape<kHalo>::kStageRows;
    constexpr int kStagesPerBlock = Shape<kHalo>::kStagesPerBlock;
    const int R = g.radius;
    // The output's tensor map for the TMA stores (Shape::kTmaOut). They need a 16-byte aligned base
    // and pitch, and rows whose length is a multiple of 16 bytes (others were seen overwritten past
    // their end: tma_common.cuh, prepare_tma); where the destination does not allow them, the
    // kernel stores from registers instead.
    CUtensorMap out_map{};
    g.tma_out = Shape<kHalo>::kTmaOut && g.vec_store && (std::size_t(a.dst.width) * 4) % 16 == 0;
    if (g.tma_out) {
        TmaBoxDesc o;
        o.global_address = reinterpret_cast<std::uintptr_t>(a.dst.data);
        o.global_dim[0] = std::uint64_t(a.dst.width);
        o.global_dim[1] = std::uint64_t(a.dst.height);
        o.global_stride = a.dst.pitch;
        o.box_dim[0] = 32;
        o.box_dim[1] = std::uint32_t(kBlockRows);
        o.element_bytes = 4;
        g.tma_out = validate_tma_box(o).empty() &&
                    encode_tensor_map(&out_map, o, PixelFormat::RGBA8, a.dst.data, "tma box stream store",
                                      CU_TENSOR_MAP_SWIZZLE_128B);
    }
    // The ring: the stages one block reads plus `stages` - 1 in flight, rounded up to whole blocks;
    // shallower (down to the window) when shared memory is short. Block k reads loaded rows
    // Bk - 1 .. Bk + 2R + B - 1: the last row of stage Bk / S - 1 and every stage up to the one
    // holding row Bk + 2R + B - 1 (S = kStageRows, B a multiple of S). Until session 13 the window
    // was counted as (B + 2R) / S + 1, one stage short wherever 2R is no multiple of S, which left
    // those radii one stage less in flight than asked for (none at `stages` 2 for radius 2, 3, 5,
    // 6, 7 and 9-15). H100 4K, stages 2, before -> after: docs/performance-notes.md (session 13).
    const std::size_t limit = dev.smem_optin - tl::cuda::dev::epilogue_smem_bytes(a.ops);
    auto even = [](int k) { return (k + kStagesPerBlock - 1) / kStagesPerBlock * kStagesPerBlock; };
    // With the TMA-stored output block: its bytes and up to 1 KB to align it.
    const std::size_t out_bytes = g.tma_out ? std::size_t(Shape<kHalo>::kOutBytes) + 1024 : 0;
    // A fused chain of per-channel ops runs as one byte table per channel (Fused<F, true>, see
    // filters.cuh), other chains as arithmetic.
    return dev::with_epilogue<dev::PixelRGBA8, true>(dev::BoxFilter{R}, a.ops, [&](const auto& f) -> std::optional<Result> {
        using F = std::decay_t<decltype(f)>;
        constexpr int kKernelR = std::is_same_v<F, dev::BoxFilter> ? kR : 0;
        // The warp-specialised kernel: the Box alone (a fused chain keeps the runtime radius).
        constexpr bool kWs = kWarpSpecialized<kHalo, kKernelR>;
        constexpr int kRingW = kRingBoxW<kHalo, kKernelR>;  // pixels per ring row (the TMA box width)
        g.stage_bytes = std::uint32_t(kRingW) * 4u * std::uint32_t(kStageRows);  // a multiple of 128
        // The warp-specialised kernels of radius 8-16 come in two refill positions (kEndRefill).
        constexpr bool kHasEndRefill = kWsEndRefill<kHalo, kKernelR>;
        auto pick = [](auto end_refill) {
            if constexpr (arithmetic_chain<F>()) return stencil_tma_kernel_box_stream_chain<F, kHalo, kKernelR>;
            else if constexpr (kWsHist<kHalo, kKernelR> && kKernelR >= 9)
                return stencil_tma_kernel_box_stream_ws3<F, kHalo, kKernelR, decltype(end_refill)::value>;
            else if constexpr (kWs)
                return stencil_tma_kernel_box_stream_ws<F, kHalo, kKernelR,
                                                        decltype(end_refill)::value && kHasEndRefill>;
            else return stencil_tma_kernel_box_stream<F, kHalo, kKernelR>;
        };
        const auto kernel = kHasEndRefill && end_refill ? pick(std::true_type{}) : pick(std::false_type{});
        constexpr std::size_t colsum_bytes =
            std::size_t(kBlockRows + (kWsDoubleTeam0<kHalo, kKernelR> ? kWsTeamRows : 0)) *
            std::size_t(kWs ? kWsCsStride : Shape<kHalo>::kCsStride) * 8;
        auto smem_for = [&](int k) {
            return std::size_t(k) * g.stage_bytes + colsum_bytes + out_bytes + kTmaSharedAlign;
        };
        // With loaded rows counted from kRowShift rows up (the block-end refill's kernels of radius
        // 9-15), block k reads from row c + Bk - 1 (in stage k) through c + Bk + 2R + B - 1
        // (stage k + (c + 2R) / S): one stage fewer, so the ring is one stage shallower for the same
        // stages in flight (4 instead of 5: 63-65 KB of shared memory instead of 73-76). H200, A/B in
        // one run (six pairs, copy kernel 19.9-20.1 us): 4K r=9 26.8-27.2 -> 26.1-26.5 us, r=10
        // 26.9-27.5 -> 26.5-26.8, r=11 27.3-27.8 -> 26.8-27.1, r=15 28.6-29.0 -> 28.4-28.6; 8K r=9
        // 91.1 -> 90.0-90.7, r=11 92.7-93.1 -> 92.0-92.2, r=15 98.4-98.6 -> 97.7-97.9. Radius 12-14,
        // once their registers allowed it (six pairs, copy kernel 20.0-20.4 us): 4K r=12 28.0-28.2 ->
        // 27.2-27.5, r=13 28.2-28.3 -> 27.6-27.7, r=14 28.5-28.8 -> 28.1-28.3; 8K r=12 93.8 ->
        // 92.6-92.8, r=14 96.4-96.5 -> 95.0-95.1. With the ring kept at 5 stages (one more in
        // flight) r=9-11 gained about half as much. Radius 8 and 16 (c = 0)
        // read one stage per block already; before, radius 9 took 1.6 us more than radius 8 and
        // radius 15 0.3-0.6 more than radius 16.
        const int win =
            box_ring_window(R, ring_row_shift<kHalo, kKernelR>(end_refill), kBlockRows, kStageRows);
        int K = even(win - 1 + a.policy.stages);
        // One block's stages at a time, down to the window (2 at a time, from when blocks had two
        // stages, could step below the window once kStagesPerBlock was 1; shared memory never ran
        // short there on an H100 or H200).
        while (K > even(win) && smem_for(K) > limit) K -= kStagesPerBlock;
        if (smem_for(K) > limit || K > kMaxStages) return std::nullopt;
        g.ring_stages = K;

        CUtensorMap map{};
        if (Result r =
                encode_rgba8_source_map(&map, a.src, kRingW, kStageRows, "tma box stream");
            !r)
            return r;

        const int threads = kWs ? kWsThreads : (kStripW + 2 * R + 31) / 32 * 32;
        const int smem = static_cast<int>(smem_for(K));
        if (cudaError_t e = cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, smem); e != cudaSuccess)
            return Result::fail(std::string("stencil_tma_kernel_box_stream: cannot reserve shared memory: ") +
                                cudaGetErrorName(e));
        int per_sm = 0;
        cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, threads, static_cast<std::size_t>(smem));
        if (per_sm < 1) return std::nullopt;
        // Radius <= 8: at most 4 CTAs per SM, so segments are longer and every SM holds the same
        // number of CTAs or one fewer. H100 box r=4, all 7 slots -> 4: 4K 38.5 -> 36.2 us, 1080p
        // 16.7 -> 15.0, 8K 130.2 -> 122.7 (3: 35.9, 15.7, 129.4; 5: 37.8, 14.9, 125.9).
        if (kHalo <= 8) per_sm = std::min(per_sm, 4);
        // One CTA per (strip, segment), all resident at once: the strips are cut into as many
        // segments as leave every CTA a slot (each segment re-reads 2R + 1 rows above it). Never
        // a tail (the even cut, at radius 12-16 with short ends, below): the Gaussian stream's
        // tail of short segments (plan_stream_segments) was
        // measured here too (H100, forced from 12 / 30 / 48 blocks per segment on): 8K r=4
        // 110.7 -> 116.6-117.2 us, r=16 135.4 -> 134.8-136.2, r=32 201.8 -> 194.5; 4K within
        // 0.5 us either way.
        // Radius 12-16 (warp-specialised, the window re-read from the ring): the top and bottom
        // segments fold the border rows as they read them, and their CTAs ran ~10 % longer than
        // the others (per-CTA clocks, H200 4K: r=12 26.2 us against 23.6, r=16 27.3 against
        // 24.7; radius 8-11 showed no such difference), so they are one block shorter than the
        // even cut's shortest (plan_stream_segments_short_ends; 4K: 9 blocks against 10-11).
        // H200, A/B in one run (three pairs, copy kernel 20.1-20.4 us): 4K r=12 30.8-31.2 ->
        // 29.4-29.9 us, r=14 31.7-31.9 -> 30.3-30.6, r=16 32.2-32.4 -> 30.8-31.1; 8K r=16
        // 104.4-104.8 -> 103.2-103.7, r=12 unchanged. Session 30 found that cost in one block (the
        // fold block, see the kWs fold branch) and took most of it off; the even cut then measured
        // the same as the short ends (H200, six pairs in one run: 4K r=12-16 within 0.2 us either
        // way, means 0.0-0.2 lower with the even cut; 8K r=12 / 16 94.3 / 96.3-96.4 against 94.2 /
        // 96.1-96.7), so the short ends stay.
        const StreamSegments plan =
            kWs && !kWsHist<kHalo, kKernelR>
                ? plan_stream_segments_short_ends(g.height, kBlockRows, g.strips, per_sm * dev.sm_count)
                : plan_stream_segments(g.height, kBlockRows, g.strips, per_sm * dev.sm_count, kStreamNoTail);
        g.segments = plan;
        const int grid = g.strips * plan.per_strip;
        TL_CTA_CLOCKS_BEFORE(a.stream);
        kernel<<<grid, threads, static_cast<std::size_t>(smem), a.stream>>>(map, out_map, f, g);
        TL_CTA_CLOCKS_AFTER("box stream", R, grid, g.strips, a.stream);
        return tma_launch_error("stencil_tma_kernel_box_stream");
    });
}

std::optional<Result> launch_box_stream(const LaunchArgs& a, const HopperDevice& dev, int min_radius,
                                        BoxStreamForm form, BoxStreamRefill refill) {
    if (a.params.kind != FilterKind::Box || a.src.format != PixelFormat::RGBA8 || a.dst.format != PixelFormat::RGBA8)
        return std::nullopt;
    const int R = a.params.radius;
    if (R < min_radius || R > kMaxRadius) return std::nullopt;
    // A TMA store of the output was asked for: the tile path takes the request (this kernel picks
    // its own stores: TMA up to radius 8, from registers beyond).
    if (a.policy.tma_store) return std::nullopt;

    StreamGeom g{};
    g.width = a.src.width;
    g.height = a.src.height;
    g.radius = R;
    g.strips = (g.width + kStripW - 1) / kStripW;
    const std::uint32_t n = std::uint32_t((2 * R + 1) * (2 * R + 1));
    g.inv_n = std::uint32_t((std::uint64_t(1) << 32) / n + 1);
    g.half_n = (n - 1) / 2;
    g.border = a.border;
    g.dst = a.dst.data;
    g.dst_pitch = a.dst.pitch;
    g.vec_store = reinterpret_cast<std::uintptr_t>(a.dst.data) % 16 == 0 && a.dst.pitch % 16 == 0;
    // Radii 2..16 compile their radius in, for the unrolled start-up sum and immediate offsets:
    // H100, 4K RGBA8 clamp, r=4, packed sums with the radius at run time 40.0 us, compiled in 39.0
    // (12.9 M warp instructions, was 16.2 M before the packed sums); r=8 33.6 -> 32.8, and 9-15
    // (with the warp-specialised form) 35.2-36.3 -> 33.5-34.4. The Box at radius 17-32 keeps the
    // runtime radius (a fused chain always does: one kernel per chain form).
    //
    // The Box alone at radius 8, and at radius 2-7 on a GPU whose DRAM is fast for its SMs (the
    // H200), runs the warp-specialised form of the 16-pixel class; a fused chain keeps the 8-pixel
    // class. A/B in one run each (4K / 8K RGBA8 clamp, stages 2, two runs), 8-pixel class ->
    // warp-specialised: H200 (copy kernel 19.9-20.2 / 67.7-68.1 us) r=2 27.7 -> 27.7-27.8 / 95.2-96.0
    // -> 86.9-87.3, r=4 27.3 -> 27.6-27.7 / 93.3-93.8 -> 87.0-88.1, r=5 29.1 -> 27.6-27.7 / 98.0-98.6
    // -> 88.0-88.3, r=7 30.0-30.1 -> 27.6-27.8 / 102.0-102.3 -> 88.8-89.2, r=8 31.4 -> 28.2-28.3 /
    // 107.4-108.0 -> 92.3-92.4; H100 (copy kernel 25.5-25.8 / 91.8-92.1) r=2 31.0-31.1 -> 32.7-32.8
    // / 102.2-102.3 -> 106.1-106.6, r=4 30.6-30.9 -> 32.5-32.6 / 101.5-101.7 -> 106.2-106.5, r=7
    // 32.0-32.2 -> 32.8 / 104.9-105.1 -> 105.4-106.0, r=8 32.7-32.8 -> 32.6 / 108.6-108.7 -> 105.6-105.9.
    // ncu (H200 4K r=4): the 8-pixel class is held to 4 CTAs of 5 warps per SM by its 75 registers
    // and its shared memory (4.4 warps per scheduler, issue slots busy 53 %); the warp-specialised
    // form runs 3 CTAs of 9 warps (6.2 per scheduler) and 11.0 M warp instructions instead of 12.0 M.
    const bool ws_any = a.ops == nullptr && form != BoxStreamForm::EightRowBlocks;
    const bool dram_fast = dram_bytes_per_sm_cycle() >= kIssueBoundDramBytesPerSmCycle;
    const bool ws_small = ws_any && (form == BoxStreamForm::WarpSpecialised || dram_fast);
    // Where the warp-specialised kernels refill their ring (kEndRefill in box_stream_segment): at the end
    // of each block's vertical pass on a GPU whose DRAM outpaces its SMs, else at the next block's
    // start; tests name either.
    const bool end_refill =
        refill == BoxStreamRefill::AtBlockEnd || (refill == BoxStreamRefill::AsLaunched && dram_fast);
    switch (R) {
    case 2: return ws_small ? launch_shape<16, 2>(a, dev, g, end_refill) : launch_shape<8, 2>(a, dev, g, end_refill);
    case 3: return ws_small ? launch_shape<16, 3>(a, dev, g, end_refill) : launch_shape<8, 3>(a, dev, g, end_refill);
    case 4: return ws_small ? launch_shape<16, 4>(a, dev, g, end_refill) : launch_shape<8, 4>(a, dev, g, end_refill);
    case 5: return ws_small ? launch_shape<16, 5>(a, dev, g, end_refill) : launch_shape<8, 5>(a, dev, g, end_refill);
    case 6: return ws_small ? launch_shape<16, 6>(a, dev, g, end_refill) : launch_shape<8, 6>(a, dev, g, end_refill);
    case 7: return ws_small ? launch_shape<16, 7>(a, dev, g, end_refill) : launch_shape<8, 7>(a, dev, g, end_refill);
    case 8:
        return ws_any ? launch_shape<16, 8>(a, dev, g, end_refill) : launch_shape<8>(a, dev, g, end_refill);
    case 9:
        return launch_shape<16, 9>(a, dev, g, end_refill);
    case 10:
        return launch_shape<16, 10>(a, dev, g, end_refill);
    case 11:
        return launch_shape<16, 11>(a, dev, g, end_refill);
    case 12:
        return launch_shape<16, 12>(a, dev, g, end_refill);
    case 13:
        return launch_shape<16, 13>(a, dev, g, end_refill);
    case 14:
        return launch_shape<16, 14>(a, dev, g, end_refill);
    case 15:
        return launch_shape<16, 15>(a, dev, g, end_refill);
    case 16: return launch_shape<16, 16>(a, dev, g, end_refill);
    default: break;
    }
    // Radius 1 (launch_tma_box_stream_any_radius only) at run time in the 8-pixel class; 2-16 are
    // all compiled in above.
    if (R <= 8) return launch_shape<8>(a, dev, g, end_refill);
    if (R <= 24) return launch_shape<24>(a, dev, g, end_refill);
    return launch_shape<32>(a, dev, g, end_refill);
}

} // namespace

std::optional<Result> launch_tma_box_stream(const LaunchArgs& a, const HopperDevice& dev) {
    return launch_box_stream(a, dev, kMinDispatchRadius, BoxStreamForm::AsLaunched, BoxStreamRefill::AsLaunched);
}

std::optional<Result> launch_tma_box_stream_any_radius(const LaunchArgs& a, BoxStreamForm form,
                                                       BoxStreamRefill refill) {
    HopperDevice dev;
    if (Result r = query_hopper("tma box stream", &dev); !r) return r;
    return launch_box_stream(a, dev, 1, form, refill);
}

} // namespace tl::cuda::detail
