// The correctness matrix (same code as `tilelab check`) as gtests: one test per mechanism on the
// edge-straddling sizes with both formats, the 4K RGBA8 case for every mechanism, the user 3x3
// kernel's weight forms, the Gaussian stream's wide radii and its 8K segment plan.
#include "commands/check_core.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <sstream>
#include <string>
#include <utility>

namespace {

using tl::cmd::CheckRow;
using tl::cmd::CheckStatus;

std::string describe(const CheckRow& r) {
    std::ostringstream s;
    s << r.filter << (r.ops.empty() ? "" : " + " + r.ops) << " / " << tl::cuda::mechanism_info(r.mechanism).name << " / " << tl::to_string(r.border) << " / "
      << r.width << "x" << r.height << " / " << tl::to_string(r.format) << ": max diff " << r.max_diff << ", "
      << r.detail;
    return s.str();
}

void run_matrix(const tl::cmd::CheckConfig& cfg) {
    if (auto st = tl::cuda::cuda_status(); !st) GTEST_SKIP() << st.reason;
    int rows = 0, unavailable = 0;
    const auto summary = tl::cmd::run_check_matrix(cfg, [&](const CheckRow& r) {
        ++rows;
        if (r.status == CheckStatus::Fail) ADD_FAILURE() << describe(r);
        if (r.status == CheckStatus::Unavailable) ++unavailable;
    });
    ASSERT_TRUE(summary.fatal.empty()) << summary.fatal;
    EXPECT_GT(rows, 0);
    if (unavailable == rows) GTEST_SKIP() << "mechanism unavailable on this GPU";
}

class CheckMatrix : public ::testing::TestWithParam<tl::cuda::Mechanism> {};

TEST_P(CheckMatrix, SmallSizesBothFormatsMatchReference) {
    auto cfg = tl::cmd::default_check_config();
    cfg.sizes = {{1, 1}, {15, 16}, {17, 9}, {127, 128}, {129, 65}, {4097, 3}, {3, 300}};
    cfg.mechanisms = {GetParam()};
    run_matrix(cfg);
}

TEST_P(CheckMatrix, PipelineDepthsMatchReference) {
    auto cfg = tl::cmd::default_check_config();
    cfg.sizes = {{129, 65}, {300, 257}};
    cfg.mechanisms = {GetParam()};
    cfg.formats = {tl::PixelFormat::RGBA8};
    cfg.borders = {tl::Border::Mirror};
    for (int stages = 1; stages <= 4; ++stages) {
        cfg.policy.stages = stages;
        SCOPED_TRACE("stages " + std::to_string(stages));
        run_matrix(cfg);
    }
}

// Mechanisms that read the block shape (MechanismInfo::knobs) stay correct for shapes other than
// the default 32x8: narrow, wide, tall and a partial warp.
TEST_P(CheckMatrix, BlockShapesMatchReference) {
    if (!tl::cuda::mechanism_info(GetParam()).knobs.block) GTEST_SKIP() << "this mechanism does not read the block shape";
    auto cfg = tl::cmd::default_check_config();
    cfg.sizes = {{17, 9}, {129, 65}};
    cfg.mechanisms = {GetParam()};
    cfg.formats = {tl::PixelFormat::RGBA8};
    cfg.borders = {tl::Border::Clamp, tl::Border::Mirror};
    for (const auto& [bx, by] : {std::pair{16, 16}, std::pair{64, 2}, std::pair{256, 1}, std::pair{8, 4}, std::pair{1, 200}}) {
        cfg.policy.block_x = bx;
        cfg.policy.block_y = by;
        SCOPED_TRACE("block " + std::to_string(bx) + "x" + std::to_string(by));
        run_matrix(cfg);
    }
}

INSTANTIATE_TEST_SUITE_P(AllMechanisms, CheckMatrix,
                         ::testing::Values(tl::cuda::Mechanism::Global, tl::cuda::Mechanism::Texture,
                                           tl::cuda::Mechanism::Smem, tl::cuda::Mechanism::Ldgsts,
                                           tl::cuda::Mechanism::Tma, tl::cuda::Mechanism::TmaWs,
                                           tl::cuda::Mechanism::Cluster, tl::cuda::Mechanism::Registers),
                         [](const auto& test_info) { return std::string(tl::cuda::mechanism_info(test_info.param).name); });

TEST(CheckMatrix4K, EveryMechanismMatchesReferenceAt4K) {
    auto cfg = tl::cmd::default_check_config();
    cfg.sizes = {{3840, 2160}};
    cfg.formats = {tl::PixelFormat::RGBA8};
    run_matrix(cfg);
}

// The user 3x3 kernel's weight forms on every mechanism. registers runs four: on a GPU with its
// one-address kernels (the H200's), the 16-bit fixed-point form where it is exact (the integer sets with
// dyadic scales, the zero-scale set) or within its error bound (the tiny, large and asymmetric sets); the
// integer form for integer weights whose scale is not dyadic (the ninths and thirds); the per-channel float
// form over raw bytes where the fixed-point bound is too loose (the sharpening set, 0.09 LSB); and the
// all-channel float window where no form holds (a zero scale with a bias too large for 32 bits in fixed
// point). Weights spanning orders of magnitude scale the float form's exponent both ways, and asymmetric ones
// catch a mirrored tap. The same three for the user 5x5 kernel, whose float form the tile mechanisms run
// (smem, ldgsts, tma, tma_ws, cluster) and whose window they fall back to for a zero scale.
TEST(CheckMatrixUserKernel, EveryWeightFormMatchesReference) {
    auto cfg = tl::cmd::default_check_config();
    cfg.sizes = {{17, 9}, {129, 65}, {40, 70}};
    cfg.cases.clear();
    auto add = [&](const char* label, std::array<float, 9> w, float scale, float bias) {
        tl::FilterParams p{.kind = tl::FilterKind::UserKernel};
        p.user_size = 3;
        std::copy(w.begin(), w.end(), p.user.begin());
        p.user_scale = scale;
        p.user_bias = bias;
        cfg.cases.push_back({label, p});
    };
    add("user tiny weights", {1e-4f, 3e-4f, 1e-4f, 3e-4f, 7.7e-4f, 3e-4f, 1e-4f, 3e-4f, 1e-4f}, 420.0f, -0.05f);
    add("user large weights", {100.3f, -50.7f, 0.0f, 33.3f, -80.1f, 2.5f, 0.0f, 0.1f, -4.4f}, 1.0f / 400.0f, 0.5f);
    add("user zero scale", {0.3f, 0.1f, 0.3f, 0.1f, 0.7f, 0.1f, 0.3f, 0.1f, 0.3f}, 0.0f, 0.3f);
    add("user asymmetric", {0.3f, -0.2f, 0.1f, 0.7f, 0.05f, -0.4f, 0.9f, 0.33f, -0.6f}, 1.0f, 0.3f);
    add("user sharpening thirds",
        {-1.0f / 3, -1.0f / 3, -1.0f / 3, -1.0f / 3, 11.0f / 3, -1.0f / 3, -1.0f / 3, -1.0f / 3, -1.0f / 3},
        1.0f, 0.0f);
    add("user zero scale, huge bias", {0.3f, 0.1f, 0.3f, 0.1f, 0.7f, 0.1f, 0.3f, 0.1f, 0.3f}, 0.0f, -2e7f);
    // Integer weights whose results leave [0, 255] far on both sides (the integer form's clamp),
    // the second beyond 16 signed bits.
    add("user integer, clamped", {-1, -1, -1, -1, 8, -1, -1, -1, -1}, 4.0f, 0.2f);
    add("user integer, beyond 16 bits", {1, 2, 1, 2, 4, 2, 1, 2, 1}, 10.0f, -3.0f);
    add("user integer, ninths", {1, 2, 1, 2, 3, 0, 1, 0, -1}, 1.0f / 9.0f, 0.05f);
    add("user integer, thirds, clamped", {-1, -1, -1, -1, 9, -1, -1, -1, -1}, 1.0f / 3.0f, 0.1f);
    auto add5 = [&](const char* label, auto weight, float scale, float bias) {
        tl::FilterParams p{.kind = tl::FilterKind::UserKernel};
        p.user_size = 5;
        for (int i = 0; i < 25; ++i) p.user[std::size_t(i)] = weight(i);
        p.user_scale = scale;
        p.user_bias = bias;
        cfg.cases.push_back({label, p});
    };
    add5(
        "user 5x5 tiny weights", [](int i) { return float(1 + i % 3) * 1e-4f; }, 100.0f, 0.0f);
    add5(
        "user 5x5 large weights", [](int i) { return float((i * 7) % 11 - 5) * 20.3f; }, 1.0f / 4000.0f,
        0.5f);
    add5(
        "user 5x5 zero scale", [](int i) { return float(i % 4) * 0.1f; }, 0.0f, 0.3f);
    run_matrix(cfg);
}

// Sharpen's RGBA8 finishes on every mechanism: the dyadic integer one (1.5), the float one with
// its FADD folded into the FFMA (0.3, 4.9 and 0.001: registers on GPUs with the one-address kernels,
// swar_math::sharpen_float_fold) and the two-step float one where the fold is not taken (1.0625).
TEST(CheckMatrixSharpen, EveryFinishMatchesReference) {
    auto cfg = tl::cmd::default_check_config();
    cfg.sizes = {{17, 9}, {129, 65}, {40, 70}};
    cfg.cases.clear();
    for (float amount : {1.5f, 0.3f, 4.9f, 0.001f, 1.0625f}) {
        tl::FilterParams p{.kind = tl::FilterKind::Sharpen};
        p.amount = amount;
        cfg.cases.push_back({"sharpen a=" + std::to_string(amount), p});
    }
    run_matrix(cfg);
}

// The Gaussian stream's wide shapes (KH 16-column k-blocks, W 8-row blocks: (3, 5) for radius
// 13..16, (4, 7) for 17..24, (5, 9) for 25..30; the taps past a smaller radius's band zero), which
// the default cases reach only at sigma 10: radius 13, 16, 17, 21, 24, 26 and 30 (each shape's
// first and last) on tma, every border, with and without the fused chains, on sizes narrower and
// shorter than the radius, a size whose strips end mid-warp and one whose ring turns many times;
// then every ring depth (stages 1..4) at radius 13, 17 and 26.
TEST(CheckMatrixGaussianStream, WideRadiiMatchReference) {
    auto cfg = tl::cmd::default_check_config();
    cfg.sizes = {{17, 9}, {129, 65}, {203, 131}, {4097, 3}, {70, 600}};
    cfg.formats = {tl::PixelFormat::RGBA8};
    cfg.mechanisms = {tl::cuda::Mechanism::Tma};
    cfg.cases.clear();
    for (float sigma : {4.2f, 5.3f, 5.6f, 6.9f, 8.0f, 8.6f, 9.9f})
        cfg.cases.push_back(tl::cmd::gaussian_case(sigma));
    run_matrix(cfg);
    cfg.sizes = {{203, 131}, {70, 600}};
    cfg.cases = {cfg.cases[0], cfg.cases[2], cfg.cases[5]};  // radius 13, 17, 26: one per shape
    cfg.fused_chains.clear();
    for (int stages = 1; stages <= 4; ++stages) {
        cfg.policy.stages = stages;
        SCOPED_TRACE("stages " + std::to_string(stages));
        run_matrix(cfg);
    }
}

// 8K: the Gaussian stream's segment plan there is a resident wave of long segments and a tail of
// short ones (tile_planner's plan_stream_segments); 4K and the small sizes only cut evenly. The
// Gaussian cases of the two-block and four-block windows (sigma 0.5 and 3) on tma, clamp and
// mirror, with and without the fused chain (the 8K reference takes seconds per row on the CPU).
TEST(CheckMatrix8K, TmaGaussianStreamTailSegmentsMatchReference) {
    auto cfg = tl::cmd::default_check_config();
    cfg.sizes = {{7680, 4320}};
    cfg.formats = {tl::PixelFormat::RGBA8};
    cfg.mechanisms = {tl::cuda::Mechanism::Tma};
    cfg.borders = {tl::Border::Clamp, tl::Border::Mirror};
    std::erase_if(cfg.cases, [](const tl::cmd::CheckCase& c) {
        return c.params.kind != tl::FilterKind::Gaussian || (c.params.sigma != 0.5f && c.params.sigma != 3.0f);
    });
    ASSERT_EQ(cfg.cases.size(), 2u);
    run_matrix(cfg);
}

} // namespace
