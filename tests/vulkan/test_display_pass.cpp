// Display pass on lavapipe: known images drawn offscreen and read back pixel by pixel
// (original, filtered, split, diff heat-map, zoom, background), with validation on.
#include "vk/context.hpp"
#include "vk/display_pass.hpp"
#include "vk/targets.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <memory>

namespace {

using tl::vk::ViewMode;

constexpr int kW = 7, kH = 5;
constexpr VkDeviceSize kPitch = 64;  // padded rows: the shader must use the pitch, not the width

struct Fixture {
    tl::vk::Context ctx{[] {
        tl::vk::ContextOptions o;
        o.validation = true;
        o.quiet = true;
        return o;
    }()};
    VkRenderPass rp = tl::vk::create_color_render_pass(ctx.device(), tl::vk::OffscreenTarget::kFormat,
                                                       VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL);
    std::unique_ptr<tl::vk::DisplayPass> pass = std::make_unique<tl::vk::DisplayPass>(ctx, rp);
    tl::vk::Buffer source{ctx, kPitch * kH, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT,
                          VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT};
    tl::vk::Buffer filtered{ctx, kPitch * kH, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT,
                            VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT};

    Fixture() {
        std::memset(source.mapped(), 0xEE, kPitch * kH);  // padding bytes must never show
        std::memset(filtered.mapped(), 0xEE, kPitch * kH);
        for (int y = 0; y < kH; ++y)
            for (int x = 0; x < kW; ++x) {
                const auto s = src_px(x, y), f = flt_px(x, y);
                std::memcpy(static_cast<std::uint8_t*>(source.mapped()) + y * kPitch + x * 4, s.data(), 4);
                std::memcpy(static_cast<std::uint8_t*>(filtered.mapped()) + y * kPitch + x * 4, f.data(), 4);
            }
        pass->set_images(source.handle(), filtered.handle(), kW, kH, kPitch);
    }
    ~Fixture() {
        pass.reset();
        vkDestroyRenderPass(ctx.device(), rp, nullptr);
    }

    static std::array<std::uint8_t, 4> src_px(int x, int y) {
        return {static_cast<std::uint8_t>(30 * x + 5), static_cast<std::uint8_t>(40 * y + 7),
                static_cast<std::uint8_t>((x * 13 + y * 29) % 256), 255};
    }
    // Filtered = source with a known difference in red only: x * 8 levels.
    static std::array<std::uint8_t, 4> flt_px(int x, int y) {
        auto p = src_px(x, y);
        p[0] = static_cast<std::uint8_t>(p[0] + 8 * x);
        return p;
    }

    tl::Image draw(const tl::vk::DisplayView& view, VkExtent2D extent) {
        tl::vk::OffscreenTarget target(ctx, rp, extent);
        ctx.one_shot([&](VkCommandBuffer cmd) {
            VkClearValue clear{};
            VkRenderPassBeginInfo bi{VK_STRUCTURE_TYPE_RENDER_PASS_BEGIN_INFO};
            bi.renderPass = rp;
            bi.framebuffer = target.framebuffer();
            bi.renderArea = {{0, 0}, extent};
            bi.clearValueCount = 1;
            bi.pClearValues = &clear;
            vkCmdBeginRenderPass(cmd, &bi, VK_SUBPASS_CONTENTS_INLINE);
            pass->record(cmd, view);
            vkCmdEndRenderPass(cmd);
        });
        return target.read_back();
    }
};

tl::vk::DisplayView full_view(ViewMode mode) {
    tl::vk::DisplayView v;
    v.rect = {{0, 0}, {kW, kH}};
    v.mode = mode;
    v.zoom = 1.0f;
    return v;
}

void expect_px(const tl::Image& img, int x, int y, std::array<std::uint8_t, 4> want, int tolerance = 0) {
    const std::uint8_t* got = img.rgba8(x, y);
    for (int c = 0; c < 3; ++c)
        EXPECT_LE(std::abs(int(got[c]) - int(want[static_cast<std::size_t>(c)])), tolerance)
            << "pixel (" << x << "," << y << ") channel " << c << ": got " << int(got[c]) << ", want "
            << int(want[static_cast<std::size_t>(c)]);
}

TEST(DisplayPass, OriginalShowsSourceExactly) {
    Fixture f;
    const auto img = f.draw(full_view(ViewMode::Original), {kW, kH});
    for (int y = 0; y < kH; ++y)
        for (int x = 0; x < kW; ++x) expect_px(img, x, y, Fixture::src_px(x, y));
    EXPECT_EQ(f.ctx.validation_messages(), 0u);
}

TEST(DisplayPass, FilteredShowsFilteredExactly) {
    Fixture f;
    const auto img = f.draw(full_view(ViewMode::Filtered), {kW, kH});
    for (int y = 0; y < kH; ++y)
        for (int x = 0; x < kW; ++x) expect_px(img, x, y, Fixture::flt_px(x, y));
    EXPECT_EQ(f.ctx.validation_messages(), 0u);
}

TEST(DisplayPass, DiffIsTheHeatMapOfTheScaledDifference) {
    Fixture f;
    auto view = full_view(ViewMode::Diff);
    view.gain = 4.0f;
    const auto img = f.draw(view, {kW, kH});
    for (int y = 0; y < kH; ++y)
        for (int x = 0; x < kW; ++x) {
            const auto c = tl::vk::heat_color(static_cast<float>(8 * x) / 255.0f * view.gain);
            std::array<std::uint8_t, 4> want{};
            for (int i = 0; i < 3; ++i) want[static_cast<std::size_t>(i)] = tl::quantize_unorm8(c[static_cast<std::size_t>(i)]);
            expect_px(img, x, y, want, 1);
        }
    // Zero difference is black; the largest one here (48 levels x4 = 0.75) is in the yellow band.
    expect_px(img, 0, 0, {0, 0, 0, 255});
    EXPECT_EQ(f.ctx.validation_messages(), 0u);
}

TEST(DisplayPass, SplitShowsSourceLeftFilteredRightAndADivider) {
    Fixture f;
    auto view = full_view(ViewMode::Split);
    view.split_x = 3.0f;  // the divider covers pixel centres within 1.5 px: columns 2 and 3
    const auto img = f.draw(view, {kW, kH});
    for (int y = 0; y < kH; ++y) {
        expect_px(img, 0, y, Fixture::src_px(0, y));
        expect_px(img, 1, y, Fixture::src_px(1, y));
        expect_px(img, 2, y, {255, 255, 255, 255});
        expect_px(img, 3, y, {255, 255, 255, 255});
        for (int x = 4; x < kW; ++x) expect_px(img, x, y, Fixture::flt_px(x, y));
    }
    EXPECT_EQ(f.ctx.validation_messages(), 0u);
}

TEST(DisplayPass, ZoomPanAndBackgroundOutsideTheImage) {
    Fixture f;
    auto view = full_view(ViewMode::Original);
    view.rect = {{4, 2}, {20, 16}};  // drawn into a sub-rectangle of a larger target
    view.zoom = 2.0f;
    view.image_at_origin[0] = 1.0f;  // panned: image column 1 at the rectangle's left edge
    view.image_at_origin[1] = 0.0f;
    view.pixel_grid = true;          // only drawn from 12x zoom; must not change this picture
    const auto img = f.draw(view, {32, 24});
    for (int y = 0; y < kH; ++y)
        for (int x = 1; x < kW; ++x)
            for (int d = 0; d < 4; ++d)
                expect_px(img, 4 + 2 * (x - 1) + (d & 1), 2 + 2 * y + (d >> 1), Fixture::src_px(x, y));
    // Right of the image inside the rectangle: the dark checker background (two greys).
    const std::uint8_t bg = img.rgba8(4 + 2 * (kW - 1) + 1, 3)[0];
    EXPECT_TRUE(bg == 27 || bg == 34) << int(bg);
    // Outside the rectangle: untouched (cleared to zero).
    expect_px(img, 0, 0, {0, 0, 0, 255});
    expect_px(img, 31, 23, {0, 0, 0, 255});
    EXPECT_EQ(f.ctx.validation_messages(), 0u);
}

TEST(DisplayPass, HeatColorEndsAtBlackAndWhite) {
    const auto lo = tl::vk::heat_color(0.0f), hi = tl::vk::heat_color(1.0f), over = tl::vk::heat_color(7.0f);
    for (int c = 0; c < 3; ++c) {
        EXPECT_FLOAT_EQ(lo[static_cast<std::size_t>(c)], 0.0f);
        EXPECT_FLOAT_EQ(hi[static_cast<std::size_t>(c)], 1.0f);
        EXPECT_FLOAT_EQ(over[static_cast<std::size_t>(c)], 1.0f);
    }
}

} // namespace
