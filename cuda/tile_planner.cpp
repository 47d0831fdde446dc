// TMA tile planner: box geometry, shared-memory ring layout and every TMA rule checked on the host.
#include "tile_planner.hpp"

#include <algorithm>
#include <string>

namespace tl::cuda {

namespace {

std::uint64_t round_up(std::uint64_t v, std::uint64_t m) { return (v + m - 1) / m * m; }

std::string num(std::uint64_t v) { return std::to_string(v); }

// A strip's steps (units of unit_rows rows, the last one possibly partial), at least one.
int stream_units(int height, int unit_rows) { return std::max(1, (height + unit_rows - 1) / unit_rows); }

} // namespace

TmaElementLayout tma_element_layout(PixelFormat f) {
    if (f == PixelFormat::RGBA32F) return {4, 4};
    return {4, 1};
}

int tma_halo_left(PixelFormat f, int radius) {
    const TmaElementLayout l = tma_element_layout(f);
    const int px_per_16 = std::max(1, int(kTmaBoxStartAlignBytes) / (l.element_bytes * l.elements_per_pixel));
    return (radius + px_per_16 - 1) / px_per_16 * px_per_16;
}

std::string tma_no_room_reason(PixelFormat f, int radius) {
    return "radius " + std::to_string(radius) + " leaves no room for a tile in one TMA box row (" +
           std::to_string(kTmaMaxBoxDim / std::uint32_t(tma_element_layout(f).elements_per_pixel)) + " pixels for " +
           std::string(to_string(f)) + ")";
}

int max_tma_tile_w(PixelFormat f, int radius) {
    const int max_box_px = static_cast<int>(kTmaMaxBoxDim) / tma_element_layout(f).elements_per_pixel;
    const int w = (max_box_px - tma_halo_left(f, radius) - radius) / 4 * 4;  // the box is padded to 4 pixels anyway
    return w > 0 ? w : 0;
}

std::string validate_tma_box(const TmaBoxDesc& d) {
    if (d.element_bytes != 1 && d.element_bytes != 2 && d.element_bytes != 4 && d.element_bytes != 8)
        return "TMA element size " + num(std::uint64_t(d.element_bytes)) + " bytes is not 1, 2, 4 or 8";
    if (d.global_address % kTmaGlobalAlign != 0)
        return "TMA global address must be 16-byte aligned (address % 16 = " + num(d.global_address % kTmaGlobalAlign) + ")";
    for (int i = 0; i < 2; ++i) {
        if (d.global_dim[i] == 0 || d.global_dim[i] > kTmaMaxGlobalDim)
            return "TMA global dimension " + num(std::uint64_t(i)) + " is " + num(d.global_dim[i]) + "; it must be in 1..2^32";
    }
    if (d.global_stride % kTmaStrideMultiple != 0)
        return "TMA global stride (row pitch) " + num(d.global_stride) + " bytes is not a multiple of 16";
    if (d.global_stride >= kTmaMaxStride)
        return "TMA global stride (row pitch) " + num(d.global_stride) + " bytes is not below 2^40";
    if (d.global_stride < d.global_dim[0] * std::uint64_t(d.element_bytes))
        return "TMA global stride (row pitch) " + num(d.global_stride) + " bytes is smaller than one row of " +
               num(d.global_dim[0] * std::uint64_t(d.element_bytes)) + " bytes";
    for (int i = 0; i < 2; ++i) {
        if (d.box_dim[i] == 0 || d.box_dim[i] > kTmaMaxBoxDim)
            return "TMA box dimension " + num(std::uint64_t(i)) + " is " + num(d.box_dim[i]) + " elements; it must be in 1..256";
    }
    const std::uint64_t inner_bytes = std::uint64_t(d.box_dim[0]) * std::uint64_t(d.element_bytes);
    if (inner_bytes % kTmaInnerBoxBytesMultiple != 0)
        return "TMA inner box row is " + num(inner_bytes) + " bytes; it must be a multiple of 16";
    if (d.shared_offset % kTmaSharedAlign != 0)
        return "TMA shared-memory destination must be 128-byte aligned (offset % 128 = " +
               num(d.shared_offset % kTmaSharedAlign) + ")";
    return {};
}

TmaTilePlan plan_tma_tiles(const TmaPlanRequest& r) {
    TmaTilePlan p;
    auto fail = [&p](std::string why) {
        p.ok = false;
        p.reason = std::move(why);
        return p;
    };
    if (r.width < 1 || r.height < 1)
        return fail("image size " + std::to_string(r.width) + "x" + std::to_string(r.height) + " is empty");
    if (r.radius < 0) return fail("filter radius " + std::to_string(r.radius) + " is negative");
    if (r.tile_w < 1 || r.tile_h < 1)
        return fail("tile " + std::to_string(r.tile_w) + "x" + std::to_string(r.tile_h) + " is empty");
    if (r.stages < 1 || r.stages > 4)
        return fail("pipeline stages " + std::to_string(r.stages) + " is outside 1..4");

    p.layout = tma_element_layout(r.format);
    const int epp = p.layout.elements_per_pixel;
    const int eb = p.layout.element_bytes;
    const int px_bytes = epp * eb;
    // Pad the box row to a whole 16 bytes: TMA refuses other inner box sizes; the extra columns
    // are loaded (or zero-filled) and never read.
    const int px_per_16 = 16 / px_bytes > 0 ? 16 / px_bytes : 1;
    // Every box must start on a 16-byte boundary (see kTmaBoxStartAlignBytes): tiles step by a
    // whole number of 16 bytes and the left halo is widened to 16 bytes.
    if ((std::uint64_t(r.tile_w) * std::uint64_t(px_bytes)) % kTmaBoxStartAlignBytes != 0)
        return fail("tile width " + std::to_string(r.tile_w) + " pixels is not a multiple of 16 bytes (" +
                    std::to_string(px_per_16) + " pixels), so some TMA boxes would start off a 16-byte boundary");
    p.halo_left_px = tma_halo_left(r.format, r.radius);
    if (r.box_row_align_bytes < 16 || r.box_row_align_bytes % 16 != 0)
        return fail("box row alignment " + std::to_string(r.box_row_align_bytes) + " bytes is not a multiple of 16");
    const int row_align_px = std::max(px_per_16, r.box_row_align_bytes / px_bytes);
    p.box_w_px = static_cast<int>(
        round_up(std::uint64_t(p.halo_left_px + r.tile_w + r.radius), std::uint64_t(row_align_px)));
    p.box_h = r.tile_h + 2 * r.radius;
    p.box_stride_px = p.box_w_px;

    p.box.global_address = r.address;
    p.box.global_dim[0] = std::uint64_t(r.width) * std::uint64_t(epp);
    p.box.global_dim[1] = std::uint64_t(r.height);
    p.box.global_stride = r.pitch;
    p.box.box_dim[0] = static_cast<std::uint32_t>(p.box_w_px * epp);
    p.box.box_dim[1] = static_cast<std::uint32_t>(p.box_h);
    p.box.element_bytes = eb;
    p.box.shared_offset = 0;
    if (p.box.box_dim[0] > kTmaMaxBoxDim)
        return fail("tile width " + std::to_string(r.tile_w) + " + halo " + std::to_string(p.halo_left_px) + " + " +
                    std::to_string(r.radius) + " = " + std::to_string(p.box_w_px) + " pixels exceeds the TMA box limit of " +
                    std::to_string(kTmaMaxBoxDim / std::uint32_t(epp)) + " pixels for " + std::string(to_string(r.format)));
    if (p.box.box_dim[1] > kTmaMaxBoxDim)
        return fail("tile height " + std::to_string(r.tile_h) + " + 2 x radius " + std::to_string(r.radius) + " = " +
                    std::to_string(p.box_h) + " rows exceeds the TMA box limit of 256 rows");
    if (std::string why = validate_tma_box(p.box); !why.empty()) return fail(why);

    p.box_bytes = p.box.box_dim[0] * p.box.box_dim[1] * std::uint32_t(eb);
    p.stage_bytes = static_cast<std::uint32_t>(round_up(p.box_bytes, kTmaSharedAlign));
    // Every stage starts at base + s * stage_bytes, a multiple of 128, so each stage passes the
    // shared-destination rule when the base does (the kernel aligns the base itself, hence +128).
    for (int s = 0; s < r.stages; ++s) {
        TmaBoxDesc stage = p.box;
        stage.shared_offset = std::uint32_t(s) * p.stage_bytes;
        if (std::string why = validate_tma_box(stage); !why.empty()) return fail(why);
    }
    p.shared_bytes = std::size_t(p.stage_bytes) * std::size_t(r.stages) + r.extra_shared + kTmaSharedAlign;
    if (r.shared_limit != 0 && p.shared_bytes > r.shared_limit)
        return fail("tiles need " + std::to_string(p.shared_bytes) + " bytes of shared memory (" + std::to_string(r.stages) +
                    " stages of " + std::to_string(p.stage_bytes) + " + " + std::to_string(r.extra_shared) +
                    "); this device allows " + std::to_string(r.shared_limit) + " per block");
    p.tiles_x = (r.width + r.tile_w - 1) / r.tile_w;
    p.tiles_y = (r.height + r.tile_h - 1) / r.tile_h;
    p.ok = true;
    return p;
}

StreamSegments plan_stream_segments(int height, int unit_rows, int strips, int slots, int tail_min_units) {
    StreamSegments p;
    const int units = stream_units(height, unit_rows);
    const int segs = std::clamp(slots / std::max(strips, 1), 1, units);
    // The even cut: segs segments of units / segs steps, the first units % segs of them one step
    // longer, so no segment is shorter than another by more than one step.
    const int q = units / segs, longer = units % segs;
    const int per_seg = q + (longer != 0 ? 1 : 0);  // steps of the longest segments
    p.seg_h = per_seg * unit_rows;
    p.segs1 = longer == 0 ? segs : longer;
    p.split_row = longer == 0 ? height : longer * p.seg_h;
    p.seg2_h = q * unit_rows;
    p.per_strip = segs;
    if (per_seg >= tail_min_units) {
        constexpr int kTailSegments = 4;
        p.segs1 = segs;
        const int big = std::max(1, units * 9 / (10 * segs));  // steps per resident segment
        const int tail_units = units - big * segs;
        const int tail_seg = (tail_units + kTailSegments - 1) / kTailSegments;
        p.seg_h = big * unit_rows;
        p.split_row = p.segs1 * p.seg_h;
        p.seg2_h = tail_seg * unit_rows;
        p.per_strip = p.segs1 + (tail_units + tail_seg - 1) / tail_seg;
    }
    return p;
}

StreamGrid plan_stream_grid(int height, int unit_rows, int strips, int slots) {
    StreamGrid g;
    g.strips = std::max(strips, 1);
    g.segments = plan_stream_segments(height, unit_rows, g.strips, slots);
    const int per = g.segments.per_strip, regular = g.strips * per;
    g.edges_first = regular <= slots && per >= 2;
    if (g.edges_first && g.strips >= 2) {
        const int e = std::min((slots - regular) / 2, per / 4);
        const StreamSegments edge = plan_stream_segments(height, unit_rows, 1, per + e, kStreamNoTail);
        if (e >= 1 && edge.per_strip == per + e) {
            g.edge_extra = e;
            g.edge_segments = edge;
        }
    }
    return g;
}

StreamSegments plan_stream_segments_short_ends(int height, int unit_rows, int strips, int slots) {
    const StreamSegments even = plan_stream_segments(height, unit_rows, strips, slots, kStreamNoTail);
    const int units = stream_units(height, unit_rows);
    const int segs = even.per_strip, q = units / segs;
    if (segs < 3 || q < 4) return even;
    // Top and bottom q - 1 units each; the segs - 2 between them share the rest, `longer` of them
    // one unit more. Each middle segment gets at least q units, so the bottom one, what is left
    // below them, is the last segment's q - 1 (fewer rows only where the image ends in a part unit).
    const int ends = q - 1, middle = segs - 2;
    const int mid_units = units - 2 * ends;
    const int mq = mid_units / middle, longer = mid_units % middle;
    StreamSegments p;
    p.top_h = ends * unit_rows;
    p.seg_h = (mq + 1) * unit_rows;
    p.segs1 = longer;
    p.split_row = p.top_h + longer * p.seg_h;
    p.seg2_h = mq * unit_rows;
    p.per_strip = segs;
    return p;
}

} // namespace tl::cuda
