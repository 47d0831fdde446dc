// The per-pixel mechanism table and the checks launch_pixel_ops makes before it touches the GPU
// (runs on any machine: every refusal here happens before the device is queried).
#include "pixel_api.hpp"

#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

namespace {

using tl::PixelFormat;
using tl::cuda::PixelMechanism;

TEST(PixelTable, FourMechanismsWithUniqueNamesThatParseBack) {
    const auto infos = tl::cuda::pixel_mechanism_infos();
    ASSERT_EQ(infos.size(), 4u);
    std::set<std::string> names;
    for (const auto& info : infos) {
        EXPECT_TRUE(names.insert(std::string(info.name)).second) << "duplicate name " << info.name;
        const auto parsed = tl::cuda::parse_pixel_mechanism(info.name);
        ASSERT_TRUE(parsed.has_value()) << info.name;
        EXPECT_EQ(*parsed, info.mechanism);
        EXPECT_EQ(tl::cuda::to_string(info.mechanism), info.name);
        EXPECT_EQ(&tl::cuda::pixel_mechanism_info(info.mechanism), &info);
        EXPECT_FALSE(info.label.empty());
        EXPECT_GT(info.explanation.size(), 100u) << info.name << ": the explain panel needs a paragraph";
    }
    EXPECT_FALSE(tl::cuda::parse_pixel_mechanism("fast").has_value());
    EXPECT_FALSE(tl::cuda::parse_pixel_mechanism("").has_value());
}

TEST(PixelTable, InstructionsAndCapabilities) {
    const auto& plain = tl::cuda::pixel_mechanism_info(PixelMechanism::Plain);
    const auto& vector = tl::cuda::pixel_mechanism_info(PixelMechanism::Vector);
    const auto& ldgsts = tl::cuda::pixel_mechanism_info(PixelMechanism::Ldgsts);
    const auto& bulk = tl::cuda::pixel_mechanism_info(PixelMechanism::Bulk);
    EXPECT_EQ(plain.name, "plain");
    EXPECT_EQ(vector.name, "vector");
    EXPECT_EQ(ldgsts.name, "ldgsts");
    EXPECT_EQ(bulk.name, "bulk");
    EXPECT_EQ(plain.instruction, "");
    EXPECT_EQ(vector.instruction, "");
    EXPECT_EQ(ldgsts.instruction, "LDGSTS");
    EXPECT_EQ(bulk.instruction, "UBLKCP");
    EXPECT_EQ(ldgsts.min_cc_major, 8);
    EXPECT_EQ(bulk.min_cc_major, 9);
    EXPECT_EQ(bulk.min_cc_minor, 0);
}

#ifdef TILELAB_HAVE_CUDA
// Refusals that do not depend on a GPU: the ops and the images are checked first.
TEST(PixelLaunchChecks, RefusesBadRequestsBeforeTouchingTheDevice) {
    alignas(16) static std::uint32_t fake[64];  // never dereferenced: every request below is refused first
    const tl::cuda::DeviceImage img{fake, 64, 16, 4, PixelFormat::RGBA8};
    const tl::cuda::PixelPolicy p;
    const std::vector<tl::PixelOp> invert{tl::default_pixel_op(tl::PixelOpKind::Invert)};
    auto expect = [&](std::span<const tl::PixelOp> ops, tl::cuda::DeviceImage src, tl::cuda::DeviceImage dst,
                      PixelMechanism m, const std::string& what) {
        const auto r = tl::cuda::launch_pixel_ops(ops, m, p, src, dst, nullptr);
        EXPECT_FALSE(r.ok) << "expected a refusal about '" << what << "'";
        EXPECT_NE(r.reason.find(what), std::string::npos) << r.reason;
    };
    auto null_dst = img;
    null_dst.data = nullptr;
    expect(invert, img, null_dst, PixelMechanism::Plain, "dst image has no device pointer");
    auto empty = img;
    empty.height = 0;
    expect(invert, empty, empty, PixelMechanism::Vector, "image is empty (16x0)");
    tl::PixelOp gamma = tl::default_pixel_op(tl::PixelOpKind::Gamma);
    gamma.a = 9.0f;
    expect(std::vector<tl::PixelOp>{gamma}, img, img, PixelMechanism::Plain, "op 1 (gamma): gamma 9 is out of range");
    expect(std::vector<tl::PixelOp>(17, invert[0]), img, img, PixelMechanism::Plain, "at most 16");
    auto short_pitch = img;
    short_pitch.pitch = 32;
    expect(invert, short_pitch, short_pitch, PixelMechanism::Plain, "shorter than a row");
    auto odd = img;
    odd.pitch = 72;  // 16 pixels = 64 bytes; 72 is not packed and not a multiple of 16
    expect(invert, odd, odd, PixelMechanism::Ldgsts, "pitch 72 bytes is not a multiple of 16");
}
#else
TEST(PixelLaunchChecks, WithoutCudaEverythingSaysSo) {
    const auto r = tl::cuda::can_run_pixel(PixelMechanism::Plain, {}, PixelFormat::RGBA8);
    EXPECT_FALSE(r.ok);
    EXPECT_EQ(r.reason, "CUDA unavailable: tilelab was built without the CUDA toolkit");
}
#endif

} // namespace
