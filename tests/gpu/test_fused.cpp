// launch_fused (the stencil and the per-pixel chain in one kernel) against the two-pass path it
// replaces, launch() then launch_pixel_ops(): bit for bit, every filter case x mechanism x border,
// sizes that straddle tiles up to 4K, chains that use every op kind (LUTs, threshold and powers
// included, which turn any difference into a large one); plus its refusals.
#if __has_include(<cuda_runtime.h>)
#include "commands/check_core.hpp"
#include "commands/device_buffer.hpp"
#include "pixel_api.hpp"
#include "stencil_api.hpp"

#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

namespace {

using namespace tl;
using tl::cmd::DeviceBuffer;
using tl::cuda::DeviceImage;
using tl::cuda::Mechanism;

PixelOp op(PixelOpKind k, float a = 0.0f, float b = 1.0f, float c = 1.0f) {
    PixelOp o;
    o.kind = k;
    o.a = a;
    o.b = b;
    o.c = c;
    return o;
}

PixelOp lut(std::uint32_t seed) {
    PixelOp o;
    o.kind = PixelOpKind::Lut;
    o.lut.resize(3);
    std::uint32_t s = seed;
    for (auto& table : o.lut)
        for (auto& v : table) {
            s = s * 1664525u + 1013904223u;
            v = static_cast<std::uint8_t>(s >> 24);
        }
    return o;
}

struct Chain {
    const char* label;
    std::vector<PixelOp> ops;
};

// Every op kind appears in one of these.
std::vector<Chain> chains() {
    PixelOp mix = op(PixelOpKind::ColorMatrix);
    mix.matrix = {1.2f, -0.3f, 0.1f, -0.2f, 1.1f, 0.1f, 0.05f, -0.4f, 1.35f};
    return {
        {"grade", {lut(7), op(PixelOpKind::BrightnessContrast, -0.05f, 1.3f), op(PixelOpKind::Gamma, 1.6f), mix,
                   op(PixelOpKind::Saturation, 1.5f), op(PixelOpKind::Levels, 0.05f, 0.95f, 1.2f),
                   op(PixelOpKind::Invert)}},
        {"threshold", {op(PixelOpKind::Grayscale), op(PixelOpKind::Threshold, 0.4f)}},
        {"empty", {}},
        // Per-channel ops only: the fused kernels fold the chain into one byte table per channel
        // (filters.cuh, Fused::byte_table), built from the device chain; it must still equal the
        // two passes bit for bit, powers and LUT included.
        {"per-channel", {lut(11), op(PixelOpKind::BrightnessContrast, 0.1f, 1.4f), op(PixelOpKind::Gamma, 2.2f),
                         op(PixelOpKind::Levels, 0.1f, 0.9f, 0.8f), op(PixelOpKind::Invert)}},
    };
}

class Fused : public ::testing::Test {
protected:
    void SetUp() override {
        if (auto st = tl::cuda::cuda_status(); !st) GTEST_SKIP() << st.reason;
        ASSERT_EQ(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking), cudaSuccess);
    }
    void TearDown() override {
        if (stream_) cudaStreamDestroy(stream_);
    }

    // Compares fused against two-pass for every case x mechanism x border at w x h; `chain_list`
    // indexes chains(). Each output buffer is poisoned differently first, so an unwritten pixel
    // cannot agree by accident.
    void compare(int w, int h, const std::vector<std::size_t>& chain_list) {
        const std::size_t row = std::size_t(w) * 4;
        const std::size_t src_pitch = tl::cmd::round_up(row, 256) + 256;
        const std::size_t dst_pitch = tl::cmd::round_up(row, 16) + 64;
        DeviceBuffer src, a, b;
        ASSERT_EQ(src.allocate(src_pitch * std::size_t(h)), "");
        ASSERT_EQ(a.allocate(dst_pitch * std::size_t(h)), "");
        ASSERT_EQ(b.allocate(dst_pitch * std::size_t(h)), "");
        std::vector<std::uint8_t> host(src_pitch * std::size_t(h));
        std::uint32_t s = 99u + std::uint32_t(w) * 7u + std::uint32_t(h);
        for (auto& v : host) {
            s = s * 1664525u + 1013904223u;
            v = static_cast<std::uint8_t>(s >> 24);
        }
        ASSERT_EQ(cudaMemcpy(src.get(), host.data(), host.size(), cudaMemcpyHostToDevice), cudaSuccess);
        const DeviceImage dsrc{src.get(), src_pitch, w, h, PixelFormat::RGBA8};
        const DeviceImage da{a.get(), dst_pitch, w, h, PixelFormat::RGBA8};
        const DeviceImage db{b.get(), dst_pitch, w, h, PixelFormat::RGBA8};
        std::vector<std::uint8_t> got_a(a.size()), got_b(b.size());
        const auto all_chains = chains();
        const tl::cuda::Policy policy;
        int compared = 0;
        for (const auto& cs : tl::cmd::check_cases()) {
            for (const auto& info : tl::cuda::mechanism_infos()) {
                const Mechanism m = info.mechanism;
                if (!tl::cuda::can_run(m, cs.params, PixelFormat::RGBA8, policy)) continue;
                for (Border border : {Border::Clamp, Border::Zero, Border::Mirror}) {
                    for (std::size_t ci : chain_list) {
                        const Chain& chain = all_chains[ci];
                        const std::string what = cs.label + " + " + chain.label + " / " + std::string(info.name) +
                                                 " / " + std::string(to_string(border)) + " / " + std::to_string(w) +
                                                 "x" + std::to_string(h);
                        cudaMemsetAsync(a.get(), 0xA5, a.size(), stream_);
                        cudaMemsetAsync(b.get(), 0x5A, b.size(), stream_);
                        auto r1 = tl::cuda::launch_fused(cs.params, border, m, policy, chain.ops, dsrc, da, stream_);
                        ASSERT_TRUE(r1) << what << ": " << r1.reason;
                        auto r2 = tl::cuda::launch(cs.params, border, m, policy, dsrc, db, stream_);
                        ASSERT_TRUE(r2) << what << ": " << r2.reason;
                        auto r3 = tl::cuda::launch_pixel_ops(chain.ops, tl::cuda::PixelMechanism::Plain, {}, db, db,
                                                             stream_);
                        ASSERT_TRUE(r3) << what << ": " << r3.reason;
                        ASSERT_EQ(cudaStreamSynchronize(stream_), cudaSuccess) << what;
                        ASSERT_EQ(cudaMemcpy(got_a.data(), a.get(), got_a.size(), cudaMemcpyDeviceToHost), cudaSuccess);
                        ASSERT_EQ(cudaMemcpy(got_b.data(), b.get(), got_b.size(), cudaMemcpyDeviceToHost), cudaSuccess);
                        for (int y = 0; y < h; ++y) {
                            const std::uint8_t* pa = got_a.data() + std::size_t(y) * dst_pitch;
                            const std::uint8_t* pb = got_b.data() + std::size_t(y) * dst_pitch;
                            if (std::memcmp(pa, pb, row) != 0) {
                                std::size_t i = 0;
                                while (pa[i] == pb[i]) ++i;
                                ADD_FAILURE() << what << ": first difference at pixel (" << i / 4 << "," << y
                                              << ") channel " << i % 4 << ": fused " << int(pa[i]) << ", two-pass "
                                              << int(pb[i]);
                                break;
                            }
                            // The fused kernel must not write the pitch padding either.
                            for (std::size_t x = row; x < dst_pitch; ++x)
                                if (pa[x] != 0xA5) {
                                    ADD_FAILURE() << what << ": wrote byte " << x << " of row " << y << " (padding)";
                                    break;
                                }
                        }
                        ++compared;
                    }
                }
            }
        }
        EXPECT_GT(compared, 0) << "no mechanism can run here";
    }

    cudaStream_t stream_ = nullptr;
};

TEST_F(Fused, BitIdenticalToTwoPassAtSmallSizes) {
    for (auto [w, h] : {std::pair{1, 1}, std::pair{17, 9}, std::pair{4097, 3}}) {
        SCOPED_TRACE(std::to_string(w) + "x" + std::to_string(h));
        compare(w, h, {0, 1, 2, 3});
    }
}

TEST_F(Fused, BitIdenticalToTwoPassAt4K) { compare(3840, 2160, {0, 3}); }

TEST_F(Fused, RefusesWhatItCannotRun) {
    DeviceBuffer src, dst;
    ASSERT_EQ(src.allocate(64 * 16 * 16), "");
    ASSERT_EQ(dst.allocate(64 * 16 * 16), "");
    const FilterParams sobel{.kind = FilterKind::Sobel};
    const tl::cuda::Policy policy;
    const std::vector<PixelOp> ops{op(PixelOpKind::Invert)};
    // RGBA32F: no fused kernels.
    const DeviceImage fs{src.get(), 256, 16, 16, PixelFormat::RGBA32F}, fd{dst.get(), 256, 16, 16, PixelFormat::RGBA32F};
    auto r = tl::cuda::launch_fused(sobel, Border::Clamp, Mechanism::Global, policy, ops, fs, fd, stream_);
    EXPECT_FALSE(r);
    EXPECT_NE(r.reason.find("rgba8"), std::string::npos) << r.reason;
    // An invalid op is refused with the chain's reason, before any launch.
    const DeviceImage s8{src.get(), 64, 16, 16, PixelFormat::RGBA8}, d8{dst.get(), 64, 16, 16, PixelFormat::RGBA8};
    const std::vector<PixelOp> bad{op(PixelOpKind::Gamma, -1.0f)};
    r = tl::cuda::launch_fused(sobel, Border::Clamp, Mechanism::Global, policy, bad, s8, d8, stream_);
    EXPECT_FALSE(r);
    EXPECT_NE(r.reason.find("gamma"), std::string::npos) << r.reason;
    // Too many ops.
    const std::vector<PixelOp> many(tl::cuda::kMaxPixelOps + 1, op(PixelOpKind::Invert));
    r = tl::cuda::launch_fused(sobel, Border::Clamp, Mechanism::Global, policy, many, s8, d8, stream_);
    EXPECT_FALSE(r);
    // The stencil's own checks still apply (overlap).
    r = tl::cuda::launch_fused(sobel, Border::Clamp, Mechanism::Global, policy, ops, s8, s8, stream_);
    EXPECT_FALSE(r);
    EXPECT_NE(r.reason.find("overlap"), std::string::npos) << r.reason;
    EXPECT_EQ(cudaStreamSynchronize(stream_), cudaSuccess);
}

} // namespace
#endif
