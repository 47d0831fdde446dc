// Vulkan compute filters (plain and tiled) and the per-pixel op chain against the CPU reference,
// on lavapipe with validation on.
//
// Coverage (random-noise input, fixed seeds; destination poisoned with 0xDEADBEEF by run() or here):
//  RGBA8, within 1 LSB of tl::reference_filter:
//   - every filter setting (box r=1,5,32; gaussian sigma 0.5,2,10; sobel; laplacian; sharpen 1.5;
//     emboss; user 3x3; user 5x5) x border (clamp, zero, mirror) x variant (plain, tiled)
//     x sizes 1x1, 17x9, 128x128, 1000x3;
//   - 1920x1080 for every filter setting with border mirror and both variants, except the plain
//     variant of box r=32 and gaussian sigma=10 ((2r+1)^2 taps per pixel: minutes on lavapipe);
//     those two run plain at 256x256 instead.
//  RGBA32F, within 1e-4 relative (of max(1, |reference|)): every filter setting x border x variant
//   at 17x9 and 128x128.
//  Pitch larger than a row (+48 bytes), through record() directly: every filter kind, both
//   variants, both formats, 61x37; padding bytes must stay poisoned.
//  Several record() calls in one command buffer (weights and intermediate reused between passes).
//  Per-pixel op chains (every op kind, two LUTs, in place src == dst) vs tl::reference_pixel_ops
//   on both formats at 1x1, 17x9, 333x127.
//  Refusals: invalid parameters, bad pitch, too long op chain become readable errors.
// Every test ends by asserting that the validation layers reported nothing.
#include "vk/compute_filters.hpp"

#include "reference.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <vector>

namespace {

using tl::Border;
using tl::FilterKind;
using tl::FilterParams;
using tl::Image;
using tl::PixelFormat;
using tl::vk::ComputeFilters;
using tl::vk::ComputeVariant;

constexpr Border kBorders[] = {Border::Clamp, Border::Zero, Border::Mirror};
constexpr ComputeVariant kVariants[] = {ComputeVariant::Plain, ComputeVariant::Tiled};

struct Size {
    int w, h;
};
constexpr Size kSmallSizes[] = {{1, 1}, {17, 9}, {128, 128}, {1000, 3}};

Image noise(int w, int h, PixelFormat f, unsigned seed) {
    Image img(w, h, f);
    std::mt19937 rng(seed);
    if (f == PixelFormat::RGBA8) {
        std::uniform_int_distribution<int> d(0, 255);
        for (auto& b : img.bytes) b = static_cast<std::uint8_t>(d(rng));
    } else {
        std::uniform_real_distribution<float> d(0.0f, 1.0f);
        auto* p = reinterpret_cast<float*>(img.bytes.data());
        for (std::size_t i = 0; i < img.bytes.size() / 4; ++i) p[i] = d(rng);
    }
    return img;
}

FilterParams box(int r) {
    FilterParams p;
    p.kind = FilterKind::Box;
    p.radius = r;
    return p;
}
FilterParams gaussian(float sigma) {
    FilterParams p;
    p.kind = FilterKind::Gaussian;
    p.sigma = sigma;
    return p;
}
FilterParams simple(FilterKind k) {
    FilterParams p;
    p.kind = k;
    p.amount = 1.5f;  // Sharpen
    return p;
}
FilterParams user(int size) {
    FilterParams p;
    p.kind = FilterKind::UserKernel;
    p.user_size = size;
    std::mt19937 rng(1234u + static_cast<unsigned>(size));
    std::uniform_real_distribution<float> d(-1.0f, 1.0f);
    for (int i = 0; i < size * size; ++i) p.user[static_cast<std::size_t>(i)] = d(rng);
    p.user_scale = 0.75f;
    p.user_bias = 0.25f;
    return p;
}

std::string describe(const FilterParams& p) {
    std::string s(tl::to_string(p.kind));
    if (p.kind == FilterKind::Box) s += " r=" + std::to_string(p.radius);
    if (p.kind == FilterKind::Gaussian) s += " sigma=" + std::to_string(p.sigma);
    if (p.kind == FilterKind::UserKernel) s += " " + std::to_string(p.user_size) + "x" + std::to_string(p.user_size);
    return s;
}

// Largest difference, in LSB (RGBA8) or relative to max(1, |reference|) (RGBA32F), with where.
struct Diff {
    double worst = 0.0;
    int x = -1, y = -1, channel = -1;
    double got = 0.0, want = 0.0;
};
Diff difference(const Image& got, const Image& want) {
    Diff d;
    for (int y = 0; y < want.height; ++y)
        for (int x = 0; x < want.width; ++x)
            for (int c = 0; c < 4; ++c) {
                double g, w, e;
                if (want.format == PixelFormat::RGBA8) {
                    g = got.rgba8(x, y)[c];
                    w = want.rgba8(x, y)[c];
                    e = std::abs(g - w);
                } else {
                    g = got.rgba32f(x, y)[c];
                    w = want.rgba32f(x, y)[c];
                    e = std::abs(g - w) / std::max(1.0, std::abs(w));
                    if (!std::isfinite(g)) e = INFINITY;
                }
                if (e > d.worst) d = {e, x, y, c, g, w};
            }
    return d;
}

double tolerance(PixelFormat f) { return f == PixelFormat::RGBA8 ? 1.0 : 1e-4; }

Image reference(const FilterParams& p, Border b, const Image& src) {
    Image want(src.width, src.height, src.format);
    tl::reference_filter(p, b, src.view(), want.view());
    return want;
}

// One context + one ComputeFilters per test process (ctest runs each test on its own).
class ComputeFiltersTest : public ::testing::Test {
protected:
    void SetUp() override {
        tl::vk::ContextOptions options;
        options.validation = true;
        options.quiet = true;
        for (const char* e : ComputeFilters::required_device_extensions()) options.optional_device_extensions.emplace_back(e);
        ctx_ = std::make_unique<tl::vk::Context>(options);
        filters_ = std::make_unique<ComputeFilters>(*ctx_);
        ASSERT_EQ(filters_->can_run(box(1), PixelFormat::RGBA8), "");
    }
    void TearDown() override {
        filters_.reset();
        EXPECT_EQ(ctx_->validation_messages(), 0u) << "validation layers reported problems (printed above)";
        ctx_.reset();
    }

    // Runs one configuration and checks it against the reference; returns false on a mismatch.
    bool check(const FilterParams& p, Border b, ComputeVariant v, const Image& src) {
        const Image got = filters_->run(p, b, v, src);
        const Image want = reference(p, b, src);
        const Diff d = difference(got, want);
        EXPECT_LE(d.worst, tolerance(src.format))
            << describe(p) << ", border " << tl::to_string(b) << ", " << tl::vk::to_string(v) << ", "
            << tl::to_string(src.format) << " " << src.width << "x" << src.height << ": worst at (" << d.x << ", "
            << d.y << ") channel " << d.channel << ": got " << d.got << ", want " << d.want;
        return d.worst <= tolerance(src.format);
    }

    // Every border x variant x small size in RGBA8, then 1920x1080 (mirror) for the variants given.
    void check_rgba8_matrix(const FilterParams& p, bool plain_full_hd) {
        unsigned seed = 1;
        for (const Size s : kSmallSizes) {
            const Image src = noise(s.w, s.h, PixelFormat::RGBA8, seed++);
            for (const Border b : kBorders)
                for (const ComputeVariant v : kVariants)
                    if (!check(p, b, v, src)) return;
        }
        const Image hd = noise(1920, 1080, PixelFormat::RGBA8, 99);
        if (plain_full_hd) {
            check(p, Border::Mirror, ComputeVariant::Plain, hd);
        } else {
            check(p, Border::Mirror, ComputeVariant::Plain, noise(256, 256, PixelFormat::RGBA8, 98));
        }
        check(p, Border::Mirror, ComputeVariant::Tiled, hd);
    }

    std::unique_ptr<tl::vk::Context> ctx_;
    std::unique_ptr<ComputeFilters> filters_;
};

TEST_F(ComputeFiltersTest, BoxRadius1) { check_rgba8_matrix(box(1), true); }
TEST_F(ComputeFiltersTest, BoxRadius5) { check_rgba8_matrix(box(5), true); }
TEST_F(ComputeFiltersTest, BoxRadius32) { check_rgba8_matrix(box(32), false); }
TEST_F(ComputeFiltersTest, GaussianSigmaHalf) { check_rgba8_matrix(gaussian(0.5f), true); }
TEST_F(ComputeFiltersTest, GaussianSigma2) { check_rgba8_matrix(gaussian(2.0f), true); }
TEST_F(ComputeFiltersTest, GaussianSigma10) { check_rgba8_matrix(gaussian(10.0f), false); }
TEST_F(ComputeFiltersTest, Sobel) { check_rgba8_matrix(simple(FilterKind::Sobel), true); }
TEST_F(ComputeFiltersTest, Laplacian) { check_rgba8_matrix(simple(FilterKind::Laplacian), true); }
TEST_F(ComputeFiltersTest, Sharpen) { check_rgba8_matrix(simple(FilterKind::Sharpen), true); }
TEST_F(ComputeFiltersTest, Emboss) { check_rgba8_matrix(simple(FilterKind::Emboss), true); }
TEST_F(ComputeFiltersTest, User3x3) { check_rgba8_matrix(user(3), true); }
TEST_F(ComputeFiltersTest, User5x5) { check_rgba8_matrix(user(5), true); }

const FilterParams kAllSettings[] = {box(1),
                                     box(5),
                                     box(32),
                                     gaussian(0.5f),
                                     gaussian(2.0f),
                                     gaussian(10.0f),
                                     simple(FilterKind::Sobel),
                                     simple(FilterKind::Laplacian),
                                     simple(FilterKind::Sharpen),
                                     simple(FilterKind::Emboss),
                                     user(3),
                                     user(5)};

TEST_F(ComputeFiltersTest, Rgba32fEveryFilterBorderVariant) {
    const Image small = noise(17, 9, PixelFormat::RGBA32F, 7);
    const Image square = noise(128, 128, PixelFormat::RGBA32F, 8);
    for (const auto& p : kAllSettings)
        for (const Border b : kBorders)
            for (const ComputeVariant v : kVariants) {
                if (!check(p, b, v, small)) return;
                if (!check(p, b, v, square)) return;
            }
}

// Records into caller-owned buffers whose pitch is larger than a row; the padding must stay poisoned.
TEST_F(ComputeFiltersTest, PitchLargerThanRowLeavesPaddingAlone) {
    constexpr int w = 61, h = 37;
    constexpr std::uint32_t kPoison = 0xDEADBEEFu;
    const auto host = VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
    for (const PixelFormat f : {PixelFormat::RGBA8, PixelFormat::RGBA32F}) {
        const Image src = noise(w, h, f, 21);
        const VkDeviceSize row = src.pitch();
        const VkDeviceSize pitch = (row + 15) / 16 * 16 + 48;
        tl::vk::Buffer in(*ctx_, pitch * h, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT, host);
        tl::vk::Buffer out(*ctx_, pitch * h, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT, host);
        auto* in_bytes = static_cast<std::uint8_t*>(in.mapped());
        std::memset(in_bytes, 0x7f, pitch * h);
        for (int y = 0; y < h; ++y) std::memcpy(in_bytes + pitch * y, src.bytes.data() + row * y, row);
        for (const auto& p : kAllSettings)
            for (const ComputeVariant v : kVariants) {
                auto* words = static_cast<std::uint32_t*>(out.mapped());
                std::fill(words, words + pitch * h / 4, kPoison);
                ctx_->one_shot([&](VkCommandBuffer cmd) {
                    filters_->record(cmd, p, Border::Mirror, v, in.handle(), out.handle(), w, h, pitch, f);
                    VkMemoryBarrier mb{VK_STRUCTURE_TYPE_MEMORY_BARRIER};
                    mb.srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT;
                    mb.dstAccessMask = VK_ACCESS_HOST_READ_BIT;
                    vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_PIPELINE_STAGE_HOST_BIT, 0, 1,
                                         &mb, 0, nullptr, 0, nullptr);
                });
                Image got(w, h, f);
                bool padding_intact = true;
                for (int y = 0; y < h; ++y) {
                    const auto* out_row = static_cast<const std::uint8_t*>(out.mapped()) + pitch * y;
                    std::memcpy(got.bytes.data() + row * y, out_row, row);
                    for (VkDeviceSize i = row; i < pitch; i += 4) {
                        std::uint32_t word;
                        std::memcpy(&word, out_row + i, 4);
                        padding_intact = padding_intact && word == kPoison;
                    }
                }
                EXPECT_TRUE(padding_intact) << describe(p) << " " << tl::vk::to_string(v) << " wrote into the row padding";
                const Diff d = difference(got, reference(p, Border::Mirror, src));
                EXPECT_LE(d.worst, tolerance(f)) << describe(p) << " " << tl::vk::to_string(v) << " "
                                                 << tl::to_string(f) << " pitch " << pitch << ": worst at (" << d.x
                                                 << ", " << d.y << ") got " << d.got << ", want " << d.want;
            }
    }
}

// Three filters chained in one command buffer with caller barriers between them: the weight buffer
// and the intermediate are rewritten between passes and must not be seen half-updated.
TEST_F(ComputeFiltersTest, SeveralRecordsInOneCommandBuffer) {
    constexpr int w = 97, h = 45;
    const Image src = noise(w, h, PixelFormat::RGBA32F, 31);
    const VkDeviceSize pitch = src.pitch();  // 97 * 16: already a multiple of 16
    const auto host = VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
    tl::vk::Buffer a(*ctx_, pitch * h, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT, host);
    tl::vk::Buffer b(*ctx_, pitch * h, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT, host);
    std::memcpy(a.mapped(), src.bytes.data(), src.bytes.size());
    const FilterParams chain[] = {gaussian(3.0f), user(5), gaussian(1.0f), box(4), user(3)};
    const ComputeVariant variants[] = {ComputeVariant::Tiled, ComputeVariant::Plain, ComputeVariant::Tiled,
                                       ComputeVariant::Tiled, ComputeVariant::Tiled};
    ctx_->one_shot([&](VkCommandBuffer cmd) {
        VkBuffer from = a.handle(), to = b.handle();
        for (std::size_t i = 0; i < std::size(chain); ++i) {
            filters_->record(cmd, chain[i], Border::Clamp, variants[i], from, to, w, h, pitch, PixelFormat::RGBA32F);
            VkMemoryBarrier mb{VK_STRUCTURE_TYPE_MEMORY_BARRIER};
            mb.srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_SHADER_READ_BIT;
            mb.dstAccessMask = VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_HOST_READ_BIT;
            vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
                                 VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_HOST_BIT, 0, 1, &mb, 0,
                                 nullptr, 0, nullptr);
            std::swap(from, to);
        }
    });
    Image want = src;
    for (const auto& p : chain) want = reference(p, Border::Clamp, want);
    Image got(w, h, PixelFormat::RGBA32F);
    // Five passes: the result is in `b` after an odd number of swaps.
    std::memcpy(got.bytes.data(), b.mapped(), got.bytes.size());
    const Diff d = difference(got, want);
    EXPECT_LE(d.worst, 1e-4) << "worst at (" << d.x << ", " << d.y << ") got " << d.got << ", want " << d.want;
}

std::vector<std::vector<tl::PixelOp>> op_chains() {
    using tl::PixelOp;
    using tl::PixelOpKind;
    auto op = [](PixelOpKind k) { return tl::default_pixel_op(k); };
    std::mt19937 rng(5);
    std::uniform_int_distribution<int> d(0, 255);
    PixelOp random_lut = op(PixelOpKind::Lut);
    for (auto& table : random_lut.lut)
        for (auto& e : table) e = static_cast<std::uint8_t>(d(rng));
    PixelOp reverse_lut = op(PixelOpKind::Lut);
    for (std::size_t c = 0; c < 3; ++c)
        for (int i = 0; i < 256; ++i) reverse_lut.lut[c][static_cast<std::size_t>(i)] = static_cast<std::uint8_t>(255 - i / (c + 1));

    PixelOp bc = op(PixelOpKind::BrightnessContrast);
    bc.a = 0.1f;
    bc.b = 1.3f;
    PixelOp gamma = op(PixelOpKind::Gamma);
    gamma.a = 2.2f;
    PixelOp sat = op(PixelOpKind::Saturation);
    sat.a = 1.7f;
    PixelOp matrix = op(PixelOpKind::ColorMatrix);
    matrix.matrix = {0.9f, 0.2f, -0.1f, 0.05f, 0.8f, 0.3f, -0.2f, 0.4f, 1.1f};
    PixelOp levels = op(PixelOpKind::Levels);
    levels.a = 0.1f;
    levels.b = 0.85f;
    levels.c = 0.8f;
    PixelOp threshold = op(PixelOpKind::Threshold);
    threshold.a = 0.4321f;
    // A LUT only where its input is exact (first, or after another LUT / invert): an index one off
    // picks an unrelated random entry, which is not a rounding difference.
    return {
        {random_lut, bc, gamma, sat, matrix, levels, op(PixelOpKind::Invert)},
        {op(PixelOpKind::Grayscale), threshold},
        {op(PixelOpKind::Invert), reverse_lut, random_lut},
        {},
    };
}

TEST_F(ComputeFiltersTest, PixelOpChainsMatchReference) {
    const Size sizes[] = {{1, 1}, {17, 9}, {333, 127}};
    const auto chains = op_chains();
    unsigned seed = 40;
    for (const PixelFormat f : {PixelFormat::RGBA8, PixelFormat::RGBA32F})
        for (const Size s : sizes) {
            const Image src = noise(s.w, s.h, f, seed++);
            for (std::size_t c = 0; c < chains.size(); ++c) {
                const Image got = filters_->run_pixel_ops(chains[c], src);
                Image want(s.w, s.h, f);
                tl::reference_pixel_ops(chains[c], src.view(), want.view());
                const Diff d = difference(got, want);
                EXPECT_LE(d.worst, tolerance(f)) << "chain " << c << " " << tl::to_string(f) << " " << s.w << "x" << s.h
                                                 << ": worst at (" << d.x << ", " << d.y << ") channel " << d.channel
                                                 << " got " << d.got << ", want " << d.want;
            }
        }
}

// In place (src == dst) through record_pixel_ops, with a row pitch larger than a row.
TEST_F(ComputeFiltersTest, PixelOpsInPlace) {
    constexpr int w = 50, h = 20;
    const Image src = noise(w, h, PixelFormat::RGBA8, 77);
    const VkDeviceSize pitch = 256;
    tl::vk::Buffer buf(*ctx_, pitch * h, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT,
                       VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT);
    auto* bytes = static_cast<std::uint8_t*>(buf.mapped());
    for (int y = 0; y < h; ++y) std::memcpy(bytes + pitch * y, src.bytes.data() + src.pitch() * y, src.pitch());
    const auto chain = op_chains()[0];
    ctx_->one_shot([&](VkCommandBuffer cmd) {
        filters_->record_pixel_ops(cmd, chain, buf.handle(), buf.handle(), w, h, pitch, PixelFormat::RGBA8);
        VkMemoryBarrier mb{VK_STRUCTURE_TYPE_MEMORY_BARRIER};
        mb.srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT;
        mb.dstAccessMask = VK_ACCESS_HOST_READ_BIT;
        vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_PIPELINE_STAGE_HOST_BIT, 0, 1, &mb, 0, nullptr,
                             0, nullptr);
    });
    Image got(w, h, PixelFormat::RGBA8);
    for (int y = 0; y < h; ++y) std::memcpy(got.bytes.data() + got.pitch() * y, bytes + pitch * y, got.pitch());
    Image want(w, h, PixelFormat::RGBA8);
    tl::reference_pixel_ops(chain, src.view(), want.view());
    const Diff d = difference(got, want);
    EXPECT_LE(d.worst, 1.0) << "worst at (" << d.x << ", " << d.y << ") got " << d.got << ", want " << d.want;
}

TEST_F(ComputeFiltersTest, RefusalsAreReadable) {
    EXPECT_NE(filters_->can_run(box(33), PixelFormat::RGBA8).find("1..32"), std::string::npos);
    EXPECT_NE(filters_->can_run(gaussian(11.0f), PixelFormat::RGBA32F).find("sigma"), std::string::npos);
    EXPECT_EQ(filters_->can_run(user(5), PixelFormat::RGBA32F), "");
    EXPECT_NE(filters_->check_image(10, 10, 40, PixelFormat::RGBA8).find("multiple of 16"), std::string::npos);
    EXPECT_NE(filters_->check_image(10, 10, 32, PixelFormat::RGBA8).find("smaller than a row"), std::string::npos);
    EXPECT_NE(filters_->check_image(0, 10, 64, PixelFormat::RGBA8).find("empty"), std::string::npos);
    EXPECT_EQ(filters_->check_image(10, 10, 48, PixelFormat::RGBA8), "");

    // The separable tiled Box/Gaussian need a width x height x 16-byte intermediate: refused (with
    // the way out) where that exceeds the device's storage-buffer range; the plain variant is not.
    const VkDeviceSize range = ctx_->properties().limits.maxStorageBufferRange;
    const int tall = static_cast<int>(std::min<VkDeviceSize>(range / (4096 * 16) + 1, 65535));
    const bool too_big = VkDeviceSize{4096} * static_cast<VkDeviceSize>(tall) * 16 > range &&
                         VkDeviceSize{4096} * 4 * static_cast<VkDeviceSize>(tall) <= range;
    if (too_big) {
        EXPECT_NE(filters_->can_record(box(3), ComputeVariant::Tiled, 4096, tall, 4096 * 4, PixelFormat::RGBA8)
                      .find("vulkan-plain"),
                  std::string::npos);
        EXPECT_EQ(filters_->can_record(box(3), ComputeVariant::Plain, 4096, tall, 4096 * 4, PixelFormat::RGBA8), "");
        EXPECT_EQ(filters_->can_record(user(3), ComputeVariant::Tiled, 4096, tall, 4096 * 4, PixelFormat::RGBA8), "");
    }
    EXPECT_NE(filters_->can_record(box(40), ComputeVariant::Plain, 8, 8, 32, PixelFormat::RGBA8), "");
    EXPECT_NE(filters_->can_record(box(4), ComputeVariant::Plain, 8, 8, 20, PixelFormat::RGBA8), "");

    const std::vector<tl::PixelOp> too_long(ComputeFilters::kMaxPixelOps + 1, tl::default_pixel_op(tl::PixelOpKind::Invert));
    EXPECT_NE(filters_->can_run_pixel_ops(too_long, PixelFormat::RGBA8).find("at most"), std::string::npos);
    tl::PixelOp bad = tl::default_pixel_op(tl::PixelOpKind::Gamma);
    bad.a = 0.0f;
    EXPECT_NE(filters_->can_run_pixel_ops(std::span(&bad, 1), PixelFormat::RGBA8).find("gamma"), std::string::npos);

    const Image img = noise(8, 8, PixelFormat::RGBA8, 3);
    EXPECT_THROW(filters_->run(box(0), Border::Clamp, ComputeVariant::Plain, img), tl::vk::Error);
    EXPECT_THROW(filters_->run_pixel_ops(too_long, img), tl::vk::Error);
    EXPECT_THROW(filters_->run(box(1), Border::Clamp, ComputeVariant::Plain, Image()), tl::vk::Error);
}

TEST(ComputeVariantNames, RoundTrip) {
    for (const ComputeVariant v : tl::vk::compute_variants()) {
        EXPECT_EQ(tl::vk::parse_compute_variant(tl::vk::to_string(v)), v);
        EXPECT_FALSE(tl::vk::compute_variant_explanation(v).empty());
    }
    EXPECT_EQ(tl::vk::to_string(ComputeVariant::Plain), "vulkan-plain");
    EXPECT_EQ(tl::vk::to_string(ComputeVariant::Tiled), "vulkan-tiled");
    EXPECT_FALSE(tl::vk::parse_compute_variant("vulkan-fast").has_value());
}

// Without VK_KHR_push_descriptor the filters refuse with the reason instead of failing later.
TEST(ComputeFiltersWithoutPushDescriptor, RefusesWithReason) {
    tl::vk::ContextOptions options;
    options.validation = true;
    options.quiet = true;
    tl::vk::Context ctx(options);
    if (ctx.has_extension(VK_KHR_PUSH_DESCRIPTOR_EXTENSION_NAME)) GTEST_SKIP() << "context enabled it anyway";
    {
        ComputeFilters filters(ctx);
        const std::string why = filters.can_run(box(1), PixelFormat::RGBA8);
        EXPECT_NE(why.find("VK_KHR_push_descriptor"), std::string::npos) << why;
        EXPECT_THROW(filters.run(box(1), Border::Clamp, ComputeVariant::Plain, noise(4, 4, PixelFormat::RGBA8, 1)),
                     tl::vk::Error);
    }
    EXPECT_EQ(ctx.validation_messages(), 0u);
}

} // namespace
