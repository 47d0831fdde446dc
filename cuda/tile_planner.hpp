// TMA tile planner: turns an image + filter radius + tile policy into tensor-map box geometry and
// shared-memory layout, checking every TMA rule on the host and naming the one a request breaks.
// Host-only C++ (no CUDA headers) so it is unit-tested on machines without a GPU.
#pragma once

#include "filter_spec.hpp"

#include <cstddef>
#include <cstdint>
#include <string>

namespace tl::cuda {

// Element representation chosen for the tensor maps (documented once, used by every TMA kernel):
//  - RGBA8:   one UINT32 element per pixel (R in the lowest byte). A 256-element box row is 256
//             pixels; the inner box is padded to a multiple of 4 pixels (16 bytes).
//  - RGBA32F: FLOAT32 elements, 4 per pixel, the inner dimension is 4 * width elements. A box
//             row of 256 elements is 64 pixels, which caps tile_w + 2R at 64 for RGBA32F.
// Both are rank-2 maps {inner elements, rows} with the row pitch as the one global stride.
struct TmaElementLayout {
    int element_bytes = 4;       // 4 (UINT32 or FLOAT32)
    int elements_per_pixel = 1;  // 1 for RGBA8, 4 for RGBA32F
};
TmaElementLayout tma_element_layout(PixelFormat f);

// Hardware limits of cp.async.bulk.tensor (PTX ISA "Tensor access modes" / CUDA driver API
// cuTensorMapEncodeTiled), named so the unit tests and the planner share one source.
inline constexpr std::uint32_t kTmaMaxBoxDim = 256;             // every boxDim[i] <= 256
inline constexpr std::uint32_t kTmaInnerBoxBytesMultiple = 16;   // boxDim[0] * elementSize % 16 == 0
inline constexpr std::uint64_t kTmaStrideMultiple = 16;          // globalStrides[i] % 16 == 0
inline constexpr std::uint64_t kTmaMaxStride = std::uint64_t(1) << 40;  // globalStrides[i] < 2^40
inline constexpr std::uint64_t kTmaMaxGlobalDim = std::uint64_t(1) << 32;  // globalDim[i] <= 2^32
inline constexpr std::uintptr_t kTmaGlobalAlign = 16;           // globalAddress % 16 == 0
inline constexpr std::uint32_t kTmaSharedAlign = 128;            // shared destination, no swizzle
// Box start coordinates. The PTX ISA and the CUDA guide allow any signed start (negative ones
// included; whatever lies outside the tensor is zero-filled). DESIGN.md relays a report that an x
// start that is not a multiple of 16 bytes raised an illegal instruction on an H200. Verified on
// an H100 (tests/gpu/test_tma_box_start.cpp, 2026-11-22): an RGBA8 box (UINT32 elements)
// starting at x = -3 stopped the kernel with cudaErrorIllegalInstruction (715), which is sticky:
// the whole CUDA context is lost. Triton's TMA verifier documents the same hardware rule (the
// innermost coordinate times the element size must be a multiple of 16 bytes). So the rule holds:
// the box x start, in bytes, must be a multiple of 16. Negative starts that are multiples of
// 16 bytes (x = -4, -8 for RGBA8) are fine and zero-filled. The planner therefore:
//  - pads the left halo to halo_left_px = R rounded up to 16 bytes (4 RGBA8 pixels, 1 RGBA32F
//    pixel), so a tile's box starts at tile_x * tile_w - halo_left_px;
//  - requires tile_w * pixel bytes to be a multiple of 16, so every tile_x * tile_w is aligned.
inline constexpr std::uint32_t kTmaBoxStartAlignBytes = 16;
// TMA stores (cp.async.bulk.tensor shared -> global) clip rows outside the tensor, but were seen
// (H100, tests/gpu/test_tma_mechanisms.cpp, pitch-padding check) to write the whole 16-byte chunk
// holding a row's last pixel: for RGBA8 rows whose byte length is not a multiple of 16, up to 12
// bytes past the row end. The tma mechanism therefore stores right-edge tiles of such images with
// ordinary stores (TileGeom::dst_rows_aligned in stencil/tma_common.cuh).

// A raw description of one tensor map + box, as it will be handed to cuTensorMapEncodeTiled.
struct TmaBoxDesc {
    std::uintptr_t global_address = 0;
    std::uint64_t global_dim[2] = {0, 0};   // elements {inner, rows}
    std::uint64_t global_stride = 0;        // bytes between rows
    std::uint32_t box_dim[2] = {0, 0};      // elements {inner, rows}
    int element_bytes = 4;
    std::uint32_t shared_offset = 0;        // byte offset of the destination in shared memory
};

// Empty when the descriptor satisfies every TMA rule; otherwise one sentence naming the rule.
std::string validate_tma_box(const TmaBoxDesc& d);

struct TmaPlanRequest {
    int width = 0;
    int height = 0;
    std::size_t pitch = 0;              // bytes
    PixelFormat format = PixelFormat::RGBA8;
    std::uintptr_t address = 0;         // device address of the image (alignment is checked)
    int radius = 0;                     // stencil halo in pixels
    int tile_w = 0;                     // output pixels per tile
    int tile_h = 0;
    int stages = 1;                     // shared-memory ring depth (1..4)
    std::size_t extra_shared = 0;       // bytes the kernel needs besides the ring (output staging, barriers)
    int box_row_align_bytes = 16;       // box rows rounded up to this (cluster: 128, so row regions are TMA targets)
    std::size_t shared_limit = 0;       // bytes of dynamic shared memory one block may use on this device (0: not checked)
};

struct TmaTilePlan {
    bool ok = false;
    std::string reason;                 // empty when ok; names the rule that failed
    TmaElementLayout layout;
    TmaBoxDesc box;                     // the source tensor map (shared_offset = first stage)
    int halo_left_px = 0;               // box columns left of the tile: R rounded up to 16 bytes
    int box_w_px = 0;                   // pixels per box row, halo_left + tile_w + R rounded up to 16 bytes
    int box_h = 0;                      // rows per box, tile_h + 2R
    int box_stride_px = 0;              // pixels between rows in shared memory (= box_w_px)
    std::uint32_t stage_bytes = 0;      // bytes of one stage, a multiple of 128
    std::uint32_t box_bytes = 0;        // bytes TMA writes per stage (the mbarrier tx count)
    std::size_t shared_bytes = 0;       // ring + extra + 128 bytes of slack to align the base
    int tiles_x = 0;
    int tiles_y = 0;
};

// Plans the tile ring; on failure ok == false and reason says which rule (or input) failed.
TmaTilePlan plan_tma_tiles(const TmaPlanRequest& r);

// Left halo in pixels: the radius rounded up so the box x start stays 16-byte aligned.
int tma_halo_left(PixelFormat f, int radius);

// Largest tile width (in pixels, a multiple of 4) that keeps halo_left + tile_w + R within one box row for
// this format, or 0 when the radius alone fills the box. Launchers use it to narrow a policy's
// tile for large radii instead of refusing.
int max_tma_tile_w(PixelFormat f, int radius);

// The refusal when no tile fits beside the halos: "radius R leaves no room for a tile in one TMA
// box row (N pixels for FORMAT)"; said by can_run before launch and by the launchers.
std::string tma_no_room_reason(PixelFormat f, int radius);

// How the column-streaming kernels cut each strip into vertical segments, one CTA per (strip,
// segment). Where top_h > 0, segment 0 is rows 0 .. top_h - 1 and the others follow it. Then
// `segs1` segments of seg_h rows each end at split_row; the rows below it are cut into segments
// of seg2_h rows (the last one shorter where it reaches the image's end). All rows counts are
// multiples of `unit_rows` (the kernel's step) except where the image ends.
struct SegmentRows {
    int begin, end;  // output rows [begin, end)
};
struct StreamSegments {
    int seg_h = 0, segs1 = 0, split_row = 0, seg2_h = 0;
    int per_strip = 0;  // segments per strip: the grid is strips x per_strip CTAs
    int top_h = 0;      // rows of a first segment cut apart from the rest (0: none)
    // The rows of segment `seg` (0 .. per_strip - 1) in an image `height` rows tall: the one rule
    // the stream kernels (constexpr, so device code calls it too) and the tests use.
    constexpr SegmentRows rows(int seg, int height) const {
        if (top_h > 0) {
            if (seg == 0) return {0, top_h < height ? top_h : height};
            --seg;
        }
        if (seg < segs1) {
            const int b = top_h + seg * seg_h;
            return {b, b + seg_h < split_row ? b + seg_h : split_row};
        }
        const int b = split_row + (seg - segs1) * seg2_h;
        return {b, b + seg2_h < height ? b + seg2_h : height};
    }
};
// Even cut: as many segments per strip as leave every CTA a resident slot (slots = CTAs per SM x
// SMs), each paying its warm-up once, none more than one step longer than another (the kernel's
// time follows its longest segment: cuts tapered either way measured slower, see docs/performance-notes.md).
// Where those segments would run for at least kStreamTailSteps steps, a tail: the resident wave
// takes 90 % of each strip in long segments and the rest follows as 4 short segments per strip,
// which the GPU starts on the slots that free up first, so the SMs end closer together (the even
// cut leaves some SMs idle from the start where strips x segments falls short of the slots, and
// the last CTA sets the time).
inline constexpr int kStreamTailSteps = 48;
inline constexpr int kStreamNoTail = 1 << 30;  // tail_min_units that keeps the even cut
StreamSegments plan_stream_segments(int height, int unit_rows, int strips, int slots,
                                    int tail_min_units = kStreamTailSteps);
// The Gaussian stream's grid: which strip and segment each CTA runs. CTAs 0 .. strips x
// segments.per_strip - 1 take strip cta % strips and launch order cta / strips; where
// edge_extra > 0, the strips at the image's left and right edges are cut by edge_segments
// (segments.per_strip + edge_extra segments) and the 2 x edge_extra CTAs after the others take
// their further orders, left and right strip in turn. With edges_first, order 0 is segment 0,
// order 1 the last segment and order o > 1 segment o - 1 (the segments that reach the image's
// top and bottom edges start first); otherwise order o is segment o.
struct StreamCta {
    int strip, seg;
    bool edge_cut;  // cut by edge_segments
};
struct StreamGrid {
    int strips = 1;
    StreamSegments segments;
    StreamSegments edge_segments;
    int edge_extra = 0;
    bool edges_first = false;
    constexpr int ctas() const { return strips * segments.per_strip + 2 * edge_extra; }
    constexpr StreamCta cta(int i) const {
        const int regular = strips * segments.per_strip;
        const int strip = i < regular ? i % strips : ((i - regular) & 1 ? strips - 1 : 0);
        const int order = i < regular ? i / strips : segments.per_strip + ((i - regular) >> 1);
        const bool edge_cut = edge_extra > 0 && (strip == 0 || strip == strips - 1);
        const int per_strip = edge_cut ? edge_segments.per_strip : segments.per_strip;
        int seg = order;
        if (edges_first && order >= 1) seg = order == 1 ? per_strip - 1 : order - 1;
        return {strip, seg, edge_cut};
    }
    // The output rows of CTA c's segment (a copy of its cut: no reference into a kernel parameter).
    constexpr SegmentRows rows(StreamCta c, int height) const {
        const StreamSegments cut = c.edge_cut ? edge_segments : segments;
        return cut.rows(c.seg, height);
    }
};
// plan_stream_segments' cut of `strips` strips for `slots` resident CTAs, launched edges first
// where every segment is resident at once; there, where slots are left over, the two edge strips
// take up to a quarter more segments each, as many as the free slots allow (for kernels whose
// edge strips run slower: the Gaussian stream folds their columns in every warp).
StreamGrid plan_stream_grid(int height, int unit_rows, int strips, int slots);

// The even cut (no tail) with the image's top and bottom segments one unit shorter than the even
// cut's shortest, their units spread over the others (none of which grows past the even cut's
// longest by more than one unit): for kernels whose segments at the image's top and bottom edges
// run slower, folding the border rows (the Box stream at radius 12-16). The even cut itself where
// a strip has fewer than 3 segments or they are under 4 units.
StreamSegments plan_stream_segments_short_ends(int height, int unit_rows, int strips, int slots);

// The Box stream's ring (tma_box_stream.cu), in loaded rows counted in processing order: stage s
// (rows s x stage_rows ..) overwrites stage s - ring_stages in its slot, so a refill at free_rows
// issues it where that stage lies wholly below free_rows; each refill point passes a free_rows
// below which no thread reads a whole stage any more. Constexpr, so that the kernel and the ring
// model in the unit tests (BoxStreamRing) use the same rules.
constexpr bool box_ring_may_issue(int stage, int free_rows, int ring_stages, int stage_rows) {
    return (stage - ring_stages + 1) * stage_rows <= free_rows;
}
// The warp-specialised kernels' refills, for block k of `block_rows` rows (one stage each):
// - at the block's start, once team 0 is done with block k - 1 (teams 1-3 may still read its centre
//   rows, from B (k - 1) + R + 4 on, or at radius 2-7 team 0 too, from B (k - 1) + R on: in the
//   stage that holds row Bk - 1, which stays): the column warps read from the block's first
//   leaving row, Bk - 1, on;
// - at the end of the block's vertical pass (radius 8-16 on a GPU whose DRAM outpaces its SMs),
//   once every team is done with block k - 1: the next block reads from B (k + 1) - 1 on, this
//   block's teams from its first centre row, Bk + R.
constexpr int box_ring_free_rows_at_block_start(int k, int block_rows) { return k * block_rows - 1; }
constexpr int box_ring_free_rows_at_block_end(int k, int radius, int block_rows) {
    return k * block_rows + (radius < block_rows - 1 ? radius : block_rows - 1);
}
// The warp-specialised kernels of radius 9-15 with the block-end refill count their loaded
// rows from this many rows above the first output's window (the rows above are loaded with the first
// stage, never read), so that c + 2R is a multiple of 16: each block's entering rows are then
// exactly one ring stage, as at radius 8 and 16, and a block reads one stage fewer. Every row
// above (the refill points, the stages awaited) is then c rows further on. (Radius 12-14 took 95
// registers, or spilled held to three CTAs per SM, while the kernel picked each leaving row's
// ring turn by a select per row; with the block's leaving-row base chosen once, 71.)
constexpr int box_ring_row_shift(int radius) {
    return radius >= 9 && radius <= 15 ? (16 - (2 * radius) % 16) % 16 : 0;
}
// The stages one block reads (launch_shape's window; the ring holds it plus `stages` - 1 more):
// from the stage of its first leaving row, c + Bk - 1, through the stage of its last entering row,
// c + Bk + 2R + B - 1 (B a multiple of the stage rows S).
constexpr int box_ring_window(int radius, int shift, int block_rows, int stage_rows) {
    return (shift + 2 * radius + block_rows - 1) / stage_rows - (shift > 0 ? (shift - 1) / stage_rows : -1) + 1;
}

} // namespace tl::cuda
