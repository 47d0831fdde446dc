// Unit tests of the TMA tile planner: each TMA rule broken alone gives its own reason, and good
// plans for odd and large images over radii 1..32 satisfy every rule.
#include "tile_planner.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

namespace {

using tl::PixelFormat;
using namespace tl::cuda;

TmaBoxDesc good_box() {
    TmaBoxDesc d;
    d.global_address = 0x7f0000000000;
    d.global_dim[0] = 3840;
    d.global_dim[1] = 2160;
    d.global_stride = 3840 * 4;
    d.box_dim[0] = 132;
    d.box_dim[1] = 34;
    d.element_bytes = 4;
    d.shared_offset = 256;
    return d;
}

bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

TEST(TmaBox, GoodDescriptorPasses) { EXPECT_EQ(validate_tma_box(good_box()), ""); }

TEST(TmaBox, EachRuleNamesItself) {
    struct Case {
        const char* what;
        void (*breaks)(TmaBoxDesc&);
        const char* expect;
    };
    const Case cases[] = {
        {"address", [](TmaBoxDesc& d) { d.global_address += 4; }, "global address must be 16-byte aligned"},
        {"stride multiple", [](TmaBoxDesc& d) { d.global_stride += 4; }, "not a multiple of 16"},
        {"stride limit",
         [](TmaBoxDesc& d) {
             d.global_stride = std::uint64_t(1) << 40;
         },
         "not below 2^40"},
        {"stride < row", [](TmaBoxDesc& d) { d.global_stride = 3840 * 4 - 16; }, "smaller than one row"},
        {"global dim 0", [](TmaBoxDesc& d) { d.global_dim[0] = 0; }, "global dimension 0"},
        {"global dim 1", [](TmaBoxDesc& d) { d.global_dim[1] = (std::uint64_t(1) << 32) + 1; }, "global dimension 1"},
        {"box dim 0", [](TmaBoxDesc& d) { d.box_dim[0] = 260; }, "box dimension 0 is 260"},
        {"box dim 1", [](TmaBoxDesc& d) { d.box_dim[1] = 257; }, "box dimension 1 is 257"},
        {"inner bytes", [](TmaBoxDesc& d) { d.box_dim[0] = 130; }, "inner box row is 520 bytes"},
        {"shared align", [](TmaBoxDesc& d) { d.shared_offset = 64; }, "128-byte aligned"},
        {"element size", [](TmaBoxDesc& d) { d.element_bytes = 3; }, "element size 3"},
    };
    for (const Case& c : cases) {
        TmaBoxDesc d = good_box();
        c.breaks(d);
        const std::string why = validate_tma_box(d);
        EXPECT_TRUE(contains(why, c.expect)) << c.what << ": got \"" << why << "\"";
    }
}

TmaPlanRequest request(int w, int h, PixelFormat f, int radius, int tile_w, int tile_h, int stages) {
    TmaPlanRequest r;
    r.width = w;
    r.height = h;
    r.format = f;
    r.pitch = (std::size_t(w) * (f == PixelFormat::RGBA8 ? 4 : 16) + 15) / 16 * 16;
    r.address = 0x7f0000000000;
    r.radius = radius;
    r.tile_w = tile_w;
    r.tile_h = tile_h;
    r.stages = stages;
    r.shared_limit = 227 * 1024;
    return r;
}

// Every rule the planner promises, re-checked from the plan's own numbers.
void expect_valid_plan(const TmaPlanRequest& r, const TmaTilePlan& p) {
    ASSERT_TRUE(p.ok) << r.width << "x" << r.height << " R=" << r.radius << ": " << p.reason;
    const int epp = r.format == PixelFormat::RGBA8 ? 1 : 4;
    const int px_bytes = 4 * epp;
    // Box x starts (tile_x * tile_w - halo_left) stay on 16-byte boundaries.
    EXPECT_GE(p.halo_left_px, r.radius);
    EXPECT_LT(p.halo_left_px, r.radius + 16 / px_bytes + (px_bytes == 16 ? 1 : 0));
    EXPECT_EQ(p.halo_left_px * px_bytes % 16, 0);
    EXPECT_EQ(r.tile_w * px_bytes % 16, 0);
    EXPECT_GE(p.box_w_px, p.halo_left_px + r.tile_w + r.radius);
    EXPECT_LT(p.box_w_px, p.halo_left_px + r.tile_w + r.radius + 4);
    EXPECT_EQ(p.box_h, r.tile_h + 2 * r.radius);
    EXPECT_LE(p.box.box_dim[0], 256u);
    EXPECT_LE(p.box.box_dim[1], 256u);
    EXPECT_EQ(p.box.box_dim[0] * 4 % 16, 0u);
    EXPECT_EQ(p.box.box_dim[0], std::uint32_t(p.box_w_px * epp));
    EXPECT_EQ(p.stage_bytes % 128, 0u);
    EXPECT_GE(p.stage_bytes, p.box_bytes);
    EXPECT_EQ(p.box_bytes, p.box.box_dim[0] * p.box.box_dim[1] * 4u);
    EXPECT_LE(p.shared_bytes, r.shared_limit);
    EXPECT_EQ(p.tiles_x * r.tile_w >= r.width, true);
    EXPECT_LT((p.tiles_x - 1) * r.tile_w, r.width);
    EXPECT_GE(p.tiles_y * r.tile_h, r.height);
    EXPECT_LT((p.tiles_y - 1) * r.tile_h, r.height);
    EXPECT_EQ(validate_tma_box(p.box), "");
}

TEST(TmaPlanner, GoodPlansForOddAndLargeImages) {
    const int sizes[][2] = {{1, 1}, {17, 9}, {4097, 3}, {3840, 2160}};
    for (auto [w, h] : sizes)
        for (int radius = 1; radius <= 32; ++radius) {
            // RGBA8: a wide tile narrowed to what one box row holds for this radius.
            const int tw = std::min(128, max_tma_tile_w(PixelFormat::RGBA8, radius));
            const TmaPlanRequest r8 = request(w, h, PixelFormat::RGBA8, radius, tw, 32, 3);
            expect_valid_plan(r8, plan_tma_tiles(r8));
            const int twf = max_tma_tile_w(PixelFormat::RGBA32F, radius);
            if (twf >= 4) {
                const TmaPlanRequest rf = request(w, h, PixelFormat::RGBA32F, radius, std::min(twf, 32), 16, 2);
                expect_valid_plan(rf, plan_tma_tiles(rf));
            }
        }
}

TEST(TmaPlanner, MaxTileWidthFollowsTheBoxLimit) {
    EXPECT_EQ(max_tma_tile_w(PixelFormat::RGBA8, 1), 248);  // 4 + 248 + 1 <= 256
    EXPECT_EQ(max_tma_tile_w(PixelFormat::RGBA8, 32), 192);
    EXPECT_EQ(max_tma_tile_w(PixelFormat::RGBA32F, 1), 60);
    EXPECT_EQ(max_tma_tile_w(PixelFormat::RGBA32F, 30), 4);
    EXPECT_EQ(max_tma_tile_w(PixelFormat::RGBA32F, 31), 0);
}

TEST(TmaPlanner, HaloAndBoxArePaddedToSixteenBytes) {
    const TmaTilePlan p = plan_tma_tiles(request(100, 100, PixelFormat::RGBA8, 1, 20, 8, 1));
    ASSERT_TRUE(p.ok) << p.reason;
    EXPECT_EQ(p.halo_left_px, 4);  // R = 1 rounded up to 16 bytes
    EXPECT_EQ(p.box_w_px, 28);     // 4 + 20 + 1 = 25 pixels -> 28 (112 bytes)
    const TmaTilePlan f = plan_tma_tiles(request(100, 100, PixelFormat::RGBA32F, 3, 9, 8, 1));
    ASSERT_TRUE(f.ok) << f.reason;
    EXPECT_EQ(f.halo_left_px, 3);  // a float4 pixel is 16 bytes already
    EXPECT_EQ(f.box_w_px, 15);
}

TEST(TmaPlanner, ClusterRowsPadTo128Bytes) {
    TmaPlanRequest r = request(3840, 2160, PixelFormat::RGBA8, 3, 64, 16, 1);
    r.box_row_align_bytes = 128;
    const TmaTilePlan p = plan_tma_tiles(r);
    ASSERT_TRUE(p.ok) << p.reason;
    EXPECT_EQ(p.box_w_px, 96);  // 4 + 64 + 3 = 71 pixels -> 96 (384 bytes)
    EXPECT_EQ(p.box_w_px * 4 % 128, 0);
}

TEST(TmaPlanner, EachRequestRuleNamesItself) {
    struct Case {
        const char* what;
        void (*breaks)(TmaPlanRequest&);
        const char* expect;
    };
    const Case cases[] = {
        {"empty image", [](TmaPlanRequest& r) { r.width = 0; }, "is empty"},
        {"empty tile", [](TmaPlanRequest& r) { r.tile_h = 0; }, "tile 128x0 is empty"},
        {"tile step", [](TmaPlanRequest& r) { r.tile_w = 126; }, "not a multiple of 16 bytes"},
        {"row align", [](TmaPlanRequest& r) { r.box_row_align_bytes = 24; }, "box row alignment 24"},
        {"stages", [](TmaPlanRequest& r) { r.stages = 5; }, "stages 5 is outside 1..4"},
        {"negative radius", [](TmaPlanRequest& r) { r.radius = -1; }, "negative"},
        {"box width", [](TmaPlanRequest& r) { r.radius = 65; }, "exceeds the TMA box limit of 256 pixels"},
        {"box height", [](TmaPlanRequest& r) { r.tile_h = 250; }, "rows exceeds the TMA box limit of 256 rows"},
        {"float box width", [](TmaPlanRequest& r) { r.format = tl::PixelFormat::RGBA32F; r.pitch = 3840 * 16; },
         "box limit of 64 pixels for rgba32f"},
        {"address", [](TmaPlanRequest& r) { r.address += 8; }, "global address must be 16-byte aligned"},
        {"pitch", [](TmaPlanRequest& r) { r.pitch += 4; }, "not a multiple of 16"},
        {"pitch too small", [](TmaPlanRequest& r) { r.pitch = 3840 * 4 - 16; }, "smaller than one row"},
        {"shared limit", [](TmaPlanRequest& r) { r.shared_limit = 48 * 1024; r.stages = 4; }, "bytes of shared memory"},
    };
    for (const Case& c : cases) {
        TmaPlanRequest r = request(3840, 2160, PixelFormat::RGBA8, 4, 128, 32, 2);
        ASSERT_TRUE(plan_tma_tiles(r).ok);
        c.breaks(r);
        const TmaTilePlan p = plan_tma_tiles(r);
        EXPECT_FALSE(p.ok) << c.what;
        EXPECT_TRUE(contains(p.reason, c.expect)) << c.what << ": got \"" << p.reason << "\"";
    }
}

// The column-streaming kernels' segments (plan_stream_segments): every image row belongs to exactly
// one segment of each strip, segments start on a step boundary, no segment is empty, and the
// layouts the H100 measurements chose come out: an even cut at 1080p and 4K, a tail at 8K.
TEST(StreamSegments, CoverEveryRowOnceWithNoEmptySegment) {
    struct Case { int height, unit, strips, slots; };
    const Case cases[] = {{1, 8, 1, 660},      {7, 8, 3, 660},     {1080, 8, 30, 660}, {2160, 8, 60, 660},
                          {4320, 8, 120, 660}, {4320, 8, 60, 660}, {16384, 8, 2, 4},   {2160, 16, 30, 396},
                          {9, 8, 1000, 10},    {4097, 8, 1, 1}};
    for (const Case& c : cases) {
        const std::string what = std::to_string(c.height) + " rows, unit " + std::to_string(c.unit) + ", " +
                                 std::to_string(c.strips) + " strips, " + std::to_string(c.slots) + " slots";
        const tl::cuda::StreamSegments p = tl::cuda::plan_stream_segments(c.height, c.unit, c.strips, c.slots);
        ASSERT_GT(p.per_strip, 0) << what;
        int next = 0;
        for (int seg = 0; seg < p.per_strip; ++seg) {
            const tl::cuda::SegmentRows r = p.rows(seg, c.height);  // the kernels' rule
            const int ys = r.begin, ye = r.end;
            ASSERT_EQ(ys, next) << what << ", segment " << seg;
            ASSERT_GT(ye, ys) << what << ", segment " << seg << " is empty";
            ASSERT_EQ(ys % c.unit, 0) << what << ", segment " << seg;
            next = ye;
        }
        EXPECT_EQ(next, c.height) << what;
        // The even cut: one wave (strips x segments within the slots, or one segment per strip),
        // and no segment more than one step longer than another.
        const tl::cuda::StreamSegments even = tl::cuda::plan_stream_segments(c.height, c.unit, c.strips, c.slots,
                                                                             tl::cuda::kStreamNoTail);
        EXPECT_TRUE(even.per_strip == 1 || c.strips * even.per_strip <= c.slots) << what;
        int shortest = 1 << 30, longest = 0;
        for (int seg = 0; seg < even.per_strip; ++seg) {
            const tl::cuda::SegmentRows r = even.rows(seg, c.height);
            const int steps = (r.end - r.begin + c.unit - 1) / c.unit;
            shortest = std::min(shortest, steps);
            longest = std::max(longest, steps);
        }
        EXPECT_EQ(even.rows(even.per_strip - 1, c.height).end, c.height) << what;
        EXPECT_LE(longest - shortest, 1) << what;
    }
    // 4K (60 strips of 64 columns, 660 slots): 270 steps in 11 segments, 6 of 25 steps and 5 of
    // 24, one wave.
    const auto k4 = tl::cuda::plan_stream_segments(2160, 8, 60, 660);
    EXPECT_EQ(k4.per_strip, 11);
    EXPECT_EQ(k4.segs1, 6);
    EXPECT_EQ(k4.seg_h, 25 * 8);
    EXPECT_EQ(k4.seg2_h, 24 * 8);
    EXPECT_EQ(k4.split_row, 6 * 25 * 8);
    // 8K (120 strips): 5 long segments of 97 steps, then 4 short ones of 14 steps.
    const auto k8 = tl::cuda::plan_stream_segments(4320, 8, 120, 660);
    EXPECT_EQ(k8.segs1, 5);
    EXPECT_EQ(k8.seg_h, 97 * 8);
    EXPECT_EQ(k8.per_strip, 9);
    EXPECT_EQ(k8.seg2_h, 14 * 8);
    // The Box stream keeps the even cut everywhere (kStreamNoTail): 8K r=4, 60 strips of 128
    // columns, 4 CTAs per SM.
    const auto box8 = tl::cuda::plan_stream_segments(4320, 8, 60, 528, tl::cuda::kStreamNoTail);
    EXPECT_EQ(box8.per_strip, 8);
    EXPECT_EQ(box8.segs1, 4);  // 540 steps: 4 segments of 68, 4 of 67
    EXPECT_EQ(box8.seg_h, 68 * 8);
    EXPECT_EQ(box8.seg2_h, 67 * 8);
}

// The Gaussian stream's grid (plan_stream_grid, StreamGrid::cta and rows, the kernel's mapping):
// the CTAs cover every row of every strip exactly once with no empty segment; where they all fit
// the slots they do, segment 0 and the last launch first, and the edge strips take their extra
// segments only from slots the even cut leaves free.
TEST(StreamGrid, EveryStripRowOnceAndEdgeStripsCutFiner) {
    struct Case { int height, unit, strips, slots; };
    const Case cases[] = {{2160, 8, 30, 396}, {2160, 8, 60, 924}, {2160, 8, 60, 792}, {1080, 8, 15, 396},
                          {4320, 8, 60, 396}, {1200, 8, 8, 396},  {257, 8, 3, 396},   {9, 8, 2, 100},
                          {1, 8, 1, 10},      {600, 8, 2, 40},    {600, 8, 1, 40},    {2161, 8, 30, 396}};
    for (const Case& c : cases) {
        const std::string what = std::to_string(c.height) + " rows, " + std::to_string(c.strips) + " strips, " +
                                 std::to_string(c.slots) + " slots";
        const tl::cuda::StreamGrid g = tl::cuda::plan_stream_grid(c.height, c.unit, c.strips, c.slots);
        ASSERT_EQ(g.strips, c.strips) << what;
        if (g.edges_first) {
            EXPECT_LE(g.ctas(), c.slots) << what;
        }
        if (g.edge_extra > 0) {
            EXPECT_GE(c.strips, 2) << what;
            EXPECT_LE(g.edge_extra, g.segments.per_strip / 4) << what;
            EXPECT_EQ(g.edge_segments.per_strip, g.segments.per_strip + g.edge_extra) << what;
        }
        // Rows covered per strip, in segment order.
        std::vector<std::vector<tl::cuda::SegmentRows>> by_strip(std::size_t(c.strips));
        for (int i = 0; i < g.ctas(); ++i) {
            const tl::cuda::StreamCta cta = g.cta(i);
            ASSERT_GE(cta.strip, 0) << what;
            ASSERT_LT(cta.strip, c.strips) << what;
            const tl::cuda::SegmentRows r = g.rows(cta, c.height);
            ASSERT_GT(r.end, r.begin) << what << ", CTA " << i << " has no rows";
            by_strip[std::size_t(cta.strip)].push_back(r);
            // Edges first: each strip's first CTA runs segment 0, its second the last segment.
            const int per = cta.edge_cut ? g.edge_segments.per_strip : g.segments.per_strip;
            if (g.edges_first && i < c.strips) {
                EXPECT_EQ(cta.seg, 0) << what << ", CTA " << i;
            } else if (g.edges_first && i < 2 * c.strips) {
                EXPECT_EQ(cta.seg, per - 1) << what << ", CTA " << i;
            }
        }
        for (int s = 0; s < c.strips; ++s) {
            auto rows = by_strip[std::size_t(s)];
            std::sort(rows.begin(), rows.end(), [](const auto& a, const auto& b) { return a.begin < b.begin; });
            int next = 0;
            for (const auto& r : rows) {
                ASSERT_EQ(r.begin, next) << what << ", strip " << s;
                next = r.end;
            }
            EXPECT_EQ(next, c.height) << what << ", strip " << s;
            const bool edge = g.edge_extra > 0 && (s == 0 || s == c.strips - 1);
            EXPECT_EQ(int(rows.size()), g.segments.per_strip + (edge ? g.edge_extra : 0)) << what << ", strip " << s;
        }
    }
    // 4K Gaussian sigma 3 on 132 SMs x 3: 30 strips of 13 segments leave 6 of 396 slots, so the
    // two edge strips take 16 segments each and the grid fills every slot.
    const auto k4 = tl::cuda::plan_stream_grid(2160, 8, 30, 396);
    EXPECT_TRUE(k4.edges_first);
    EXPECT_EQ(k4.segments.per_strip, 13);
    EXPECT_EQ(k4.edge_extra, 3);
    EXPECT_EQ(k4.ctas(), 396);
    EXPECT_EQ(k4.cta(390).strip, 0);
    EXPECT_EQ(k4.cta(391).strip, 29);
    // 8K: the plan has a tail (more CTAs than slots), no edge strips' extras and the plan's order.
    const auto k8 = tl::cuda::plan_stream_grid(4320, 8, 60, 396);
    EXPECT_FALSE(k8.edges_first);
    EXPECT_EQ(k8.edge_extra, 0);
}

// The Box stream's cut at radius 12-16 (plan_stream_segments_short_ends): every row once, in
// order, no empty segment, the same number of segments as the even cut; the top and bottom
// segments one unit shorter than the even cut's shortest, no other longer than its longest + 1.
TEST(StreamSegments, ShortEndsCoverEveryRowOnce) {
    struct Case { int height, unit, strips, slots; };
    const Case cases[] = {{2160, 16, 30, 396}, {4320, 16, 60, 396}, {1080, 16, 15, 396}, {2161, 16, 30, 396},
                          {100, 16, 1, 3},     {1, 8, 1, 660},      {4097, 8, 1, 1},    {300, 16, 2, 40}};
    for (const Case& c : cases) {
        const std::string what = std::to_string(c.height) + " rows, unit " + std::to_string(c.unit) + ", " +
                                 std::to_string(c.strips) + " strips, " + std::to_string(c.slots) + " slots";
        const auto even = tl::cuda::plan_stream_segments(c.height, c.unit, c.strips, c.slots, tl::cuda::kStreamNoTail);
        const auto p = tl::cuda::plan_stream_segments_short_ends(c.height, c.unit, c.strips, c.slots);
        ASSERT_EQ(p.per_strip, even.per_strip) << what;
        int next = 0, even_short = 1 << 30, even_long = 0;
        for (int seg = 0; seg < even.per_strip; ++seg) {
            const auto r = even.rows(seg, c.height);
            even_short = std::min(even_short, (r.end - r.begin + c.unit - 1) / c.unit);
            even_long = std::max(even_long, (r.end - r.begin + c.unit - 1) / c.unit);
        }
        for (int seg = 0; seg < p.per_strip; ++seg) {
            const tl::cuda::SegmentRows r = p.rows(seg, c.height);
            ASSERT_EQ(r.begin, next) << what << ", segment " << seg;
            ASSERT_GT(r.end, r.begin) << what << ", segment " << seg << " is empty";
            ASSERT_EQ(r.begin % c.unit, 0) << what << ", segment " << seg;
            const int units = (r.end - r.begin + c.unit - 1) / c.unit;
            if (p.top_h > 0 && (seg == 0 || seg == p.per_strip - 1))
                EXPECT_EQ(units, even_short - 1) << what << ", segment " << seg;
            else
                EXPECT_LE(units, even_long + 1) << what << ", segment " << seg;
            next = r.end;
        }
        EXPECT_EQ(next, c.height) << what;
    }
    // 4K, 30 strips of 128 columns, 396 slots: 135 blocks of 16 rows in 13 segments (even: 5 of
    // 11, 8 of 10); here 9 at the top and bottom, 7 of 11 and 4 of 10 between.
    const auto k4 = tl::cuda::plan_stream_segments_short_ends(2160, 16, 30, 396);
    EXPECT_EQ(k4.per_strip, 13);
    EXPECT_EQ(k4.top_h, 9 * 16);
    EXPECT_EQ(k4.segs1, 7);
    EXPECT_EQ(k4.seg_h, 11 * 16);
    EXPECT_EQ(k4.seg2_h, 10 * 16);
    EXPECT_EQ(k4.rows(12, 2160).begin, 2160 - 9 * 16);
    // Under 4 units a segment (1080p: 68 blocks in 26 segments) or under 3 segments: the even cut.
    EXPECT_EQ(tl::cuda::plan_stream_segments_short_ends(1080, 16, 15, 396).top_h, 0);
    EXPECT_EQ(tl::cuda::plan_stream_segments_short_ends(4320, 16, 60, 120).top_h, 0);
}

// The rows the warp-specialised Box stream counts from above its first window (radius 9-15: c + 2R
// a multiple of 16) and the stages one block reads: unshifted, its first leaving row Bk - 1 is the
// last row of the stage before (3 stages at radius 8, 4 at 9-16), shifted 3 at radius 9-15.
TEST(BoxStreamRing, RowShiftAlignsTheEnteringRowsToAStage) {
    for (int R = 2; R <= 32; ++R) {
        const int c = box_ring_row_shift(R);
        if (R >= 9 && R <= 15) {
            EXPECT_GT(c, 0) << "R " << R;
            EXPECT_LT(c, 16) << "R " << R;
            EXPECT_EQ((c + 2 * R) % 16, 0) << "R " << R;
            EXPECT_EQ(box_ring_window(R, c, 16, 16), 3) << "R " << R;
        } else {
            EXPECT_EQ(c, 0) << "R " << R;
        }
    }
    EXPECT_EQ(box_ring_window(8, 0, 16, 16), 3);
    EXPECT_EQ(box_ring_window(9, 0, 16, 16), 4);
    EXPECT_EQ(box_ring_window(16, 0, 16, 16), 4);
    EXPECT_EQ(box_ring_window(4, 0, 8, 8), 3);  // the 8-row blocks: (2R + B - 1) / S + 2
}

// A model of the warp-specialised Box stream's ring (tma_box_stream.cu), block by block, with the
// refill rules the kernel calls (box_ring_free_rows_at_block_start / _end) and its issue condition
// (box_ring_may_issue): no refill overwrites a stage whose rows a thread still reads, no stage is
// issued into a slot before every thread has waited for the slot's previous stage (its mbarrier
// phase would be taken for the earlier one), and every stage a block waits for has been issued
// (else the kernel hangs). Readers, in loaded rows counted in processing order, block k of B rows:
// the column warps read the block's leaving rows Bk - 1 .. (from the ring, or from registers at
// radius <= 11: the rule is the same) and its entering rows Bk + 2R .., waiting first through the
// stage of row Bk + 2R + B - 1; team h reads the centre rows Bk + R + 4h .. + 3, waiting through the
// stage of row Bk + R + B - 1. The column warps start block k once team 0 is done with block k - 1
// and write team h's rows once team h is; at radius 2-7 team 0 lags a block more (its rows are
// double-buffered) and only the block-start refill runs. The block-end refill's kernels of radius
// 9-15 count every row c = box_ring_row_shift(R) further on, and their teams wait for no
// stage below their first centre row's.
TEST(BoxStreamRing, RefillsNeverOverwriteRowsStillReadAndIssueEveryAwaitedStage) {
    const int B = 16, S = 16;  // rows per block and per stage (the 16-pixel class)
    for (int R = 2; R <= 16; ++R) {
        const bool double0 = R <= 7;
        for (int stages = 1; stages <= 4; ++stages) {
            for (bool end_refill : {false, true}) {
                if (end_refill && double0) continue;
                // loaded rows counted from c rows above the window (the block-end refill's kernels)
                const int c = end_refill ? box_ring_row_shift(R) : 0;
                const int K = box_ring_window(R, c, B, S) - 1 + stages;  // the launcher's (launch_shape)
                for (int blocks : {1, 2, 3, 7, 40}) {
                    const std::string what = "R " + std::to_string(R) + ", c " + std::to_string(c) + ", K " + std::to_string(K) + ", " +
                                             std::to_string(blocks) + " blocks, refill at the block's " +
                                             (end_refill ? "end" : "start");
                    const int nstages = (c + blocks * B + 2 * R + S - 1) / S;
                    auto centre_stage = [&](int k) { return (c + k * B + R + B - 1) / S; };
                    auto entering_stage = [&](int k) { return (c + k * B + 2 * R + B - 1) / S; };
                    // Before block 0 the producer issues the warm-up's and the first block's stages,
                    // then, once the column warps have waited for the warm-up rows, the rest of the
                    // ring: every slot is filled and nothing overwritten yet.
                    int issued = std::min(K, nstages);
                    int column_waited = (c + 2 * R - 1) / S;
                    int teams_waited = -1;  // the least of the four teams'
                    const int first_team_stage = c > 0 ? (c + R) / S : 0;  // of the first centre row
                    // The producer's refill: `lowest_read` is the lowest row some thread still reads.
                    auto refill = [&](int free_rows, int lowest_read, int k) {
                        while (issued < nstages && box_ring_may_issue(issued, free_rows, K, S)) {
                            EXPECT_LT((issued - K + 1) * S - 1, lowest_read)
                                << what << ", block " << k << ": stage " << issued << " overwrites a row still read";
                            // The teams never wait for the stages below their first centre row's
                            // (with shifted rows they start their ring waits there).
                            EXPECT_GE(std::min(column_waited, std::max(teams_waited, first_team_stage - 1)), issued - K)
                                << what << ", block " << k << ": stage " << issued
                                << " issued before every thread waited for its slot's last one";
                            ++issued;
                        }
                    };
                    for (int k = 0; k < blocks; ++k) {
                        // Team 0 is done with block k - 1 (double0: with block k - 2); teams 1-3 may
                        // not have waited for block k - 1's stage yet, only for block k - 2's.
                        teams_waited = k >= 2 ? centre_stage(k - 2) : -1;
                        if (k > 0 && !end_refill) {
                            int lowest = c + k * B - 1;                                     // this block's leaving rows
                            lowest = std::min(lowest, c + (k - 1) * B + R + (double0 ? 0 : 4));  // block k - 1's teams
                            refill(c + box_ring_free_rows_at_block_start(k, B), lowest, k);
                        }
                        ASSERT_LT(entering_stage(k), issued) << what << ": block " << k << " waits for a stage never issued";
                        column_waited = std::max(column_waited, entering_stage(k));
                        ASSERT_LT(centre_stage(k), issued) << what << ", block " << k;
                        if (end_refill) {
                            // Every team is done with block k - 1 (its free barrier passed at row 4h of
                            // block k); block k's teams have not necessarily waited for their stage.
                            teams_waited = k >= 1 ? centre_stage(k - 1) : -1;
                            const int lowest = std::min(c + (k + 1) * B - 1, c + k * B + R);
                            refill(c + box_ring_free_rows_at_block_end(k, R, B), lowest, k);
                        }
                        if (HasFailure()) return;
                    }
                }
            }
        }
    }
}

} // namespace
