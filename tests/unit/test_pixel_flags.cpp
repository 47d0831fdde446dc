// The per-pixel command-line choices (app/commands/pixel_ops_flags.hpp): --pixel-mechanism with
// --stages, the mechanism x stages sweep of check/bench, the standard op cases; and `tilelab
// apply --op ... --pixel-mechanism cpu` end to end against tl::reference_pixel_ops.
#include "commands/pixel_ops_flags.hpp"

#include "image/image_io.hpp"
#include "reference.hpp"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <random>
#include <set>

#include <sys/wait.h>

namespace {

using tl::PixelOpKind;
using tl::cuda::PixelMechanism;

TEST(PixelFlags, CpuIsTheReference) {
    std::string error;
    auto run = tl::cmd::parse_pixel_run("cpu", 2, error);
    ASSERT_TRUE(run) << error;
    EXPECT_FALSE(run->mechanism);
    EXPECT_EQ(run->label, "cpu");
}

TEST(PixelFlags, EveryTableMechanismParsesWithItsStages) {
    for (const auto& info : tl::cuda::pixel_mechanism_infos()) {
        for (int st = 1; st <= 4; ++st) {
            std::string error;
            auto run = tl::cmd::parse_pixel_run(std::string(info.name), st, error);
            ASSERT_TRUE(run) << info.name << ": " << error;
            ASSERT_TRUE(run->mechanism);
            EXPECT_EQ(*run->mechanism, info.mechanism);
            EXPECT_EQ(run->policy.stages, st);
            const std::string expect = std::string(info.name) +
                                       (tl::cmd::pixel_pipelined(info.mechanism) ? " s" + std::to_string(st) : "");
            EXPECT_EQ(run->label, expect);
        }
    }
}

TEST(PixelFlags, UnknownMechanismNamesTheChoices) {
    std::string error;
    EXPECT_FALSE(tl::cmd::parse_pixel_run("fast", 2, error));
    EXPECT_NE(error.find("'fast'"), std::string::npos) << error;
    EXPECT_NE(error.find("cpu"), std::string::npos) << error;
    for (const auto& info : tl::cuda::pixel_mechanism_infos())
        EXPECT_NE(error.find(std::string(info.name)), std::string::npos) << error;
}

TEST(PixelFlags, StagesOutsideOneToFourAreRefused) {
    for (int st : {0, 5, -1}) {
        std::string error;
        EXPECT_FALSE(tl::cmd::parse_pixel_run("ldgsts", st, error)) << st;
        EXPECT_NE(error.find("valid 1..4"), std::string::npos) << error;
    }
    std::string error;
    EXPECT_FALSE(tl::cmd::parse_pixel_run("cpu", 9, error));  // same rule whatever runs the chain
}

TEST(PixelFlags, SweepHasOneRowPerMechanismAndStage) {
    const auto sweep = tl::cmd::pixel_mechanism_sweep();
    std::size_t expect = 0;
    for (const auto& info : tl::cuda::pixel_mechanism_infos())
        expect += (tl::cmd::pixel_pipelined(info.mechanism) ? 4 : 1) * (info.mechanism == PixelMechanism::Bulk ? 2 : 1);
    ASSERT_EQ(sweep.size(), expect);
    std::set<std::string> labels;
    std::set<int> ldgsts_stages;
    int bulk_stores = 0;
    for (const auto& r : sweep) {
        ASSERT_TRUE(r.mechanism);
        labels.insert(r.label);
        if (*r.mechanism == PixelMechanism::Ldgsts) ldgsts_stages.insert(r.policy.stages);
        if (r.policy.bulk_store) {
            EXPECT_EQ(*r.mechanism, PixelMechanism::Bulk) << "only bulk reads bulk_store";
            ++bulk_stores;
        }
    }
    EXPECT_EQ(bulk_stores, 4);
    EXPECT_EQ(labels.size(), sweep.size()) << "labels must tell rows apart";
    EXPECT_EQ(ldgsts_stages, (std::set<int>{1, 2, 3, 4}));
    EXPECT_TRUE(labels.count("plain"));
    EXPECT_TRUE(labels.count("bulk s4"));
    EXPECT_TRUE(labels.count("bulk-st s1"));
}

tl::Image random_image(int w, int h, unsigned seed) {
    tl::Image img(w, h, tl::PixelFormat::RGBA8);
    std::mt19937 rng(seed);
    for (auto& b : img.bytes) b = static_cast<std::uint8_t>(rng() >> 24);
    return img;
}

bool same_pixels(const tl::Image& a, const tl::Image& b) { return a.bytes == b.bytes; }

TEST(PixelCases, EveryOpAloneIsValidAndChangesPixels) {
    const auto cases = tl::cmd::pixel_single_op_cases();
    ASSERT_EQ(cases.size(), tl::pixel_op_infos().size());
    const tl::Image src = random_image(33, 7, 5);
    std::set<PixelOpKind> kinds;
    for (const auto& c : cases) {
        ASSERT_EQ(c.ops.size(), 1u) << c.label;
        kinds.insert(c.ops[0].kind);
        EXPECT_EQ(c.label, tl::to_string(c.ops[0].kind));
        EXPECT_EQ(tl::validate(c.ops[0]), "") << c.label;
        tl::Image out(src.width, src.height, src.format);
        tl::reference_pixel_ops(c.ops, src.view(), out.view());
        EXPECT_FALSE(same_pixels(src, out)) << c.label << " is the identity: a check row with it proves nothing";
    }
    EXPECT_EQ(kinds.size(), cases.size());
}

TEST(PixelCases, ChainsOfOneThreeEightFitTheLaunchLimits) {
    const auto chains = tl::cmd::pixel_chain_cases();
    ASSERT_EQ(chains.size(), 3u);
    const std::size_t lengths[] = {1, 3, 8};
    for (std::size_t i = 0; i < chains.size(); ++i) {
        const auto& c = chains[i];
        EXPECT_EQ(c.ops.size(), lengths[i]) << c.label;
        EXPECT_EQ(c.label, "chain" + std::to_string(lengths[i]));
        EXPECT_LE(static_cast<int>(c.ops.size()), tl::cuda::kMaxPixelOps);
        int luts = 0;
        bool power_seen = false;
        for (const auto& op : c.ops) {
            EXPECT_EQ(tl::validate(op), "") << c.label;
            luts += op.kind == PixelOpKind::Lut;
            // A last-place powf difference before a LUT or threshold could become many LSB.
            if (op.kind == PixelOpKind::Lut || op.kind == PixelOpKind::Threshold) {
                EXPECT_FALSE(power_seen) << c.label << ": LUT/threshold after a power";
            }
            power_seen = power_seen || op.kind == PixelOpKind::Gamma || op.kind == PixelOpKind::Levels;
        }
        EXPECT_LE(luts, tl::cuda::kMaxPixelLuts) << c.label;
    }
}

// `tilelab apply` end to end on the CPU path (the binary is built beside these tests).
class ApplyPixel : public ::testing::Test {
protected:
    void SetUp() override {
        if (!std::filesystem::exists(TILELAB_BINARY)) GTEST_SKIP() << "tilelab not built: " << TILELAB_BINARY;
        dir_ = std::filesystem::temp_directory_path() /
               ("tilelab_pixel_flags_" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()) + "_" +
                ::testing::UnitTest::GetInstance()->current_test_info()->name());
        std::filesystem::create_directories(dir_);
        src_ = random_image(19, 5, 9);
        for (int y = 0; y < src_.height; ++y)
            for (int x = 0; x < src_.width; ++x) src_.rgba8(x, y)[3] = 255;  // PNG round trip keeps opaque pixels exact
        ASSERT_EQ(tl::save_png(in(), src_), "");
    }
    void TearDown() override {
        std::error_code ec;
        if (!dir_.empty()) std::filesystem::remove_all(dir_, ec);
    }
    std::filesystem::path in() const { return dir_ / "in.png"; }
    std::filesystem::path out() const { return dir_ / "out.png"; }
    int apply(const std::string& args) const {
        const std::string cmd = std::string("\"") + TILELAB_BINARY + "\" apply " + args + " > \"" +
                                (dir_ / "log.txt").string() + "\" 2>&1";
        const int rc = std::system(cmd.c_str());
        return WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
    }
    std::filesystem::path dir_;
    tl::Image src_;
};

TEST_F(ApplyPixel, OpsAloneOnTheCpuMatchTheReference) {
    ASSERT_EQ(apply("--op invert --op gamma:2.2 --op levels:0.1:0.9:1.2 --pixel-mechanism cpu \"" + in().string() +
                    "\" \"" + out().string() + "\""),
              0);
    auto got = tl::load_image(out());
    ASSERT_TRUE(got.image) << got.error;
    std::vector<tl::PixelOp> ops{tl::default_pixel_op(PixelOpKind::Invert), tl::default_pixel_op(PixelOpKind::Gamma),
                                 tl::default_pixel_op(PixelOpKind::Levels)};
    ops[1].a = 2.2f;
    ops[2].a = 0.1f;
    ops[2].b = 0.9f;
    ops[2].c = 1.2f;
    tl::Image ref(src_.width, src_.height, src_.format);
    tl::reference_pixel_ops(ops, src_.view(), ref.view());
    const tl::Image got8 = tl::convert(*got.image, tl::PixelFormat::RGBA8);
    EXPECT_EQ(tl::compare_images(got8.view(), ref.view(), 0.0).pixels_over, 0);
}

TEST_F(ApplyPixel, FilterNoneIsOpsAlone) {
    ASSERT_EQ(apply("--filter none --op invert \"" + in().string() + "\" \"" + out().string() + "\""), 0);
    auto got = tl::load_image(out());
    ASSERT_TRUE(got.image) << got.error;
    const tl::Image got8 = tl::convert(*got.image, tl::PixelFormat::RGBA8);
    EXPECT_EQ(got8.rgba8(3, 2)[0], 255 - src_.rgba8(3, 2)[0]);
}

TEST_F(ApplyPixel, BadFlagsAndValuesExit2WithoutOutput) {
    const std::string files = " \"" + in().string() + "\" \"" + out().string() + "\"";
    EXPECT_EQ(apply(files), 2) << "neither --filter nor --op";
    EXPECT_EQ(apply("--filter none" + files), 2) << "no filter and no op";
    EXPECT_EQ(apply("--op invert --pixel-mechanism fast" + files), 2);
    EXPECT_EQ(apply("--op invert --pixel-mechanism ldgsts --stages 7" + files), 2);
    EXPECT_EQ(apply("--op gamma:0" + files), 2) << "gamma out of range";
    EXPECT_EQ(apply("--op sparkle" + files), 2);
    EXPECT_EQ(apply("--filter box --pixel-mechanism plain" + files), 2) << "a pixel mechanism with no op";
    EXPECT_EQ(apply("--filter box --radius 40" + files), 2) << "box radius out of range";
    EXPECT_EQ(apply("--filter sobel --mechanism warp9" + files), 2) << "unknown mechanism";
    EXPECT_FALSE(std::filesystem::exists(out()));
    // A runtime failure, not a bad value: exit 1.
    EXPECT_EQ(apply("--op invert \"" + (dir_ / "missing.png").string() + "\" \"" + out().string() + "\""), 1)
        << "an image that does not exist";
    EXPECT_FALSE(std::filesystem::exists(out()));
}

} // namespace
