// Per-pixel CUDA library against tl::reference_pixel_ops: every op, chains of 0, 1, 3, 8 and 16 ops,
// every mechanism (stages 1..4, bulk store on/off), sizes straddling the 16-byte chunks, packed and
// pitched images, in place; the refusals; and the SASS of each mechanism's kernels.
#include "sass_dump.hpp"
#include "pixel_api.hpp"
#include "reference.hpp"

#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <map>
#include <memory>
#include <random>
#include <span>
#include <string>
#include <tuple>
#include <vector>

namespace {

using tl::Image;
using tl::PixelFormat;
using tl::PixelOp;
using tl::PixelOpKind;
using tl::cuda::PixelMechanism;
using tl::cuda::PixelPolicy;

constexpr unsigned char kPoison = 0xCD;

// ---- device images ------------------------------------------------------------------------------

// A device image that owns its memory. Pitch: 0 = tightly packed; otherwise the given pitch.
// The whole allocation (padding included) starts as 0xCD, so skipped pixels and writes past a
// row both show.
class DevImage {
public:
    DevImage(int w, int h, PixelFormat f, std::size_t pitch = 0)
        : w_(w), h_(h), f_(f), pitch_(pitch ? pitch : static_cast<std::size_t>(w) * tl::bytes_per_pixel(f)) {
        bytes_ = pitch_ * static_cast<std::size_t>(h) + 64;  // slack: a write just past the end shows too
        EXPECT_EQ(cudaMalloc(&ptr_, bytes_), cudaSuccess);
        poison();
    }
    ~DevImage() { cudaFree(ptr_); }
    DevImage(const DevImage&) = delete;
    DevImage& operator=(const DevImage&) = delete;

    void poison() { EXPECT_EQ(cudaMemset(ptr_, kPoison, bytes_), cudaSuccess); }
    tl::cuda::DeviceImage view() const { return {ptr_, pitch_, w_, h_, f_}; }
    std::size_t row_bytes() const { return static_cast<std::size_t>(w_) * tl::bytes_per_pixel(f_); }

    void upload(const Image& img) {
        ASSERT_EQ(cudaMemcpy2D(ptr_, pitch_, img.bytes.data(), img.pitch(), row_bytes(), h_, cudaMemcpyHostToDevice),
                  cudaSuccess);
    }
    Image download() const {
        Image img(w_, h_, f_);
        EXPECT_EQ(cudaMemcpy2D(img.bytes.data(), img.pitch(), ptr_, pitch_, row_bytes(), h_, cudaMemcpyDeviceToHost),
                  cudaSuccess);
        return img;
    }
    // Bytes outside the pixels (row padding and the slack at the end) that are no longer 0xCD.
    std::size_t clobbered_padding() const {
        std::vector<unsigned char> all(bytes_);
        EXPECT_EQ(cudaMemcpy(all.data(), ptr_, bytes_, cudaMemcpyDeviceToHost), cudaSuccess);
        std::size_t bad = 0;
        for (std::size_t i = 0; i < bytes_; ++i) {
            const std::size_t row = i / pitch_, col = i % pitch_;
            const bool pixel = row < static_cast<std::size_t>(h_) && col < row_bytes();
            if (!pixel && all[i] != kPoison) ++bad;
        }
        return bad;
    }

private:
    int w_, h_;
    PixelFormat f_;
    std::size_t pitch_;
    std::size_t bytes_ = 0;
    void* ptr_ = nullptr;
};

// Pitch with padding: not tightly packed, a multiple of 16 (so every mechanism takes it).
std::size_t padded_pitch(int w, PixelFormat f) {
    const std::size_t row = static_cast<std::size_t>(w) * tl::bytes_per_pixel(f);
    return (row + 15) / 16 * 16 + 32;
}

std::string device_problem() {
    const tl::cuda::Result st = tl::cuda::cuda_status();
    return st ? std::string() : st.reason;
}

// ---- inputs -------------------------------------------------------------------------------------

Image noise(int w, int h, PixelFormat f, unsigned seed) {
    Image img(w, h, f);
    std::mt19937 rng(seed);
    if (f == PixelFormat::RGBA8) {
        for (auto& b : img.bytes) b = static_cast<std::uint8_t>(rng() & 0xffu);
    } else {
        std::uniform_real_distribution<float> u(0.0f, 1.0f);
        auto* p = reinterpret_cast<float*>(img.bytes.data());
        for (std::size_t i = 0; i < img.bytes.size() / 4; ++i) p[i] = u(rng);
    }
    return img;
}

PixelOp op(PixelOpKind k, float a = 0, float b = 1, float c = 1) {
    PixelOp o = tl::default_pixel_op(k);
    if (k == PixelOpKind::BrightnessContrast || k == PixelOpKind::Levels) o.b = b;
    if (k == PixelOpKind::Levels) o.c = c;
    if (k != PixelOpKind::Grayscale && k != PixelOpKind::Invert && k != PixelOpKind::ColorMatrix && k != PixelOpKind::Lut)
        o.a = a;
    return o;
}

PixelOp matrix(std::array<float, 9> m) {
    PixelOp o = tl::default_pixel_op(PixelOpKind::ColorMatrix);
    o.matrix = m;
    return o;
}

// Random tables: neighbouring entries differ a lot, so an index off by one would show.
PixelOp random_lut(unsigned seed) {
    PixelOp o = tl::default_pixel_op(PixelOpKind::Lut);
    std::mt19937 rng(seed);
    for (auto& table : o.lut)
        for (auto& v : table) v = static_cast<std::uint8_t>(rng() & 0xffu);
    return o;
}

struct OpCase {
    std::string name;
    std::vector<PixelOp> ops;
};

// Threshold and Lut turn a one-ulp difference into a large one, and only the powers (Gamma, Levels)
// differs in the last place between host and device; so in chains they come before any power.
std::vector<OpCase> op_cases() {
    const PixelOp sepia = matrix({0.393f, 0.769f, 0.189f, 0.349f, 0.686f, 0.168f, 0.272f, 0.534f, 0.131f});
    const PixelOp mixer = matrix({1.2f, -0.3f, 0.1f, -0.2f, 1.1f, 0.1f, 0.05f, -0.4f, 1.35f});
    std::vector<OpCase> cases = {
        {"none", {}},
        {"brightness_contrast", {op(PixelOpKind::BrightnessContrast, 0.1f, 1.7f)}},
        {"gamma", {op(PixelOpKind::Gamma, 2.2f)}},
        {"saturation", {op(PixelOpKind::Saturation, 1.8f)}},
        {"grayscale", {op(PixelOpKind::Grayscale)}},
        {"invert", {op(PixelOpKind::Invert)}},
        {"threshold", {op(PixelOpKind::Threshold, 0.45f)}},
        {"levels", {op(PixelOpKind::Levels, 0.1f, 0.85f, 0.7f)}},
        {"color_matrix", {sepia}},
        {"lut", {random_lut(7)}},
        {"chain3", {random_lut(11), op(PixelOpKind::BrightnessContrast, -0.05f, 1.3f), op(PixelOpKind::Gamma, 1.6f)}},
        {"chain8",
         {op(PixelOpKind::Invert), random_lut(13), mixer, op(PixelOpKind::Saturation, 1.5f),
          op(PixelOpKind::BrightnessContrast, 0.05f, 1.2f), op(PixelOpKind::Levels, 0.05f, 0.95f, 1.2f),
          op(PixelOpKind::Gamma, 0.9f), op(PixelOpKind::Invert)}},
        {"chain16_four_luts",
         {random_lut(21), op(PixelOpKind::Invert), random_lut(22), op(PixelOpKind::BrightnessContrast, 0.02f, 1.1f),
          random_lut(23), mixer, random_lut(24), op(PixelOpKind::Saturation, 0.7f), op(PixelOpKind::Invert),
          op(PixelOpKind::BrightnessContrast, -0.03f, 0.9f), op(PixelOpKind::Grayscale), op(PixelOpKind::Invert),
          sepia, op(PixelOpKind::Saturation, 1.2f), op(PixelOpKind::Levels, 0.02f, 0.98f, 1.1f),
          op(PixelOpKind::Gamma, 1.3f)}},
    };
    return cases;
}

struct Config {
    PixelMechanism mechanism;
    PixelPolicy policy;
    std::string name;
};

std::vector<Config> configs() {
    std::vector<Config> out;
    out.push_back({PixelMechanism::Plain, {}, "plain"});
    out.push_back({PixelMechanism::Vector, {}, "vector"});
    for (int s = 1; s <= 4; ++s) {
        PixelPolicy p;
        p.stages = s;
        out.push_back({PixelMechanism::Ldgsts, p, "ldgsts_s" + std::to_string(s)});
    }
    for (int s = 1; s <= 4; ++s)
        for (bool store : {false, true}) {
            PixelPolicy p;
            p.stages = s;
            p.bulk_store = store;
            out.push_back({PixelMechanism::Bulk, p, "bulk_s" + std::to_string(s) + (store ? "_store" : "")});
        }
    // Small batches and blocks: many batches per CTA, so the ring wraps many times even on small images.
    PixelPolicy small;
    small.block = 64;
    small.stages = 3;
    small.batch_pixels = 64;
    out.push_back({PixelMechanism::Ldgsts, small, "ldgsts_small_batches"});
    out.push_back({PixelMechanism::Bulk, small, "bulk_small_batches"});
    small.bulk_store = true;
    out.push_back({PixelMechanism::Bulk, small, "bulk_small_batches_store"});
    return out;
}

struct Size {
    int w, h;
};
constexpr std::array<Size, 4> kSizes{{{1, 1}, {17, 9}, {4097, 3}, {3840, 2160}}};

// The source and the reference result of (case, size, format), computed once per test program.
struct Expected {
    Image src, ref;
};
const Expected& expected(std::size_t case_index, const Size& s, PixelFormat f) {
    static std::map<std::tuple<std::size_t, int, int, int>, Expected> cache;
    const auto key = std::make_tuple(case_index, s.w, s.h, static_cast<int>(f));
    auto it = cache.find(key);
    if (it == cache.end()) {
        Expected e{noise(s.w, s.h, f, 1234u + static_cast<unsigned>(s.w * 31 + s.h)), Image(s.w, s.h, f)};
        const auto cases = op_cases();
        tl::reference_pixel_ops(cases[case_index].ops, e.src.view(), e.ref.view());
        it = cache.emplace(key, std::move(e)).first;
    }
    return it->second;
}

double tolerance(PixelFormat f) { return f == PixelFormat::RGBA8 ? 1.0 : 1e-4; }

// ---- the matrix ---------------------------------------------------------------------------------

class PixelOpsMatrix : public ::testing::TestWithParam<std::tuple<std::size_t, std::size_t>> {
protected:
    void SetUp() override {
        if (const std::string p = device_problem(); !p.empty()) GTEST_SKIP() << p;
        const Config c = configs()[std::get<1>(GetParam())];
        if (auto r = tl::cuda::can_run_pixel(c.mechanism, c.policy, PixelFormat::RGBA8); !r) GTEST_SKIP() << r.reason;
    }

    void run(PixelFormat f, bool with_4k) {
        const std::size_t ci = std::get<0>(GetParam());
        const OpCase oc = op_cases()[ci];
        const Config c = configs()[std::get<1>(GetParam())];
        for (const Size& s : kSizes) {
            if (!with_4k && s.w == 3840) continue;
            const Expected& e = expected(ci, s, f);
            for (bool packed : {true, false}) {
                SCOPED_TRACE(oc.name + " / " + c.name + " / " + std::to_string(s.w) + "x" + std::to_string(s.h) + " " +
                             std::string(tl::to_string(f)) + (packed ? " packed" : " pitched"));
                const std::size_t pitch = packed ? 0 : padded_pitch(s.w, f);
                DevImage src(s.w, s.h, f, pitch), dst(s.w, s.h, f, pitch);
                src.upload(e.src);
                const auto r = tl::cuda::launch_pixel_ops(oc.ops, c.mechanism, c.policy, src.view(), dst.view(), nullptr);
                ASSERT_TRUE(r.ok) << r.reason;
                ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
                const Image got = dst.download();
                const tl::ImageDiff d = tl::compare_images(got.view(), e.ref.view(), tolerance(f));
                EXPECT_EQ(d.pixels_over, 0) << "max difference " << d.max_abs << " first worst at (" << d.worst_x
                                            << ", " << d.worst_y << ")";
                EXPECT_EQ(dst.clobbered_padding(), 0u) << "bytes outside the image were written";
            }
        }
    }
};

TEST_P(PixelOpsMatrix, Rgba8MatchesReference) { run(PixelFormat::RGBA8, true); }

TEST_P(PixelOpsMatrix, Rgba32fMatchesReference) { run(PixelFormat::RGBA32F, false); }

INSTANTIATE_TEST_SUITE_P(
    AllOpsAllMechanisms, PixelOpsMatrix,
    ::testing::Combine(::testing::Range<std::size_t>(0, op_cases().size()), ::testing::Range<std::size_t>(0, configs().size())),
    [](const ::testing::TestParamInfo<PixelOpsMatrix::ParamType>& p) {
        return op_cases()[std::get<0>(p.param)].name + "_" + configs()[std::get<1>(p.param)].name;
    });

// Every op but the two powers is computed with the reference's own float operations (roundings
// spelled out, bytes <-> floats through exact tricks), so those must match bit for bit, not just
// within the 1 LSB the powers need: a tolerance of 0 catches an off-by-one quantisation or a LUT
// entry divided differently, which the 1-LSB matrix above would let through.
TEST(PixelOps, OpsWithoutPowersMatchReferenceBitForBit) {
    if (const std::string p = device_problem(); !p.empty()) GTEST_SKIP() << p;
    const auto cases = op_cases();
    for (std::size_t ci = 0; ci < cases.size(); ++ci) {
        bool has_power = false;
        for (const PixelOp& o : cases[ci].ops)
            has_power |= o.kind == PixelOpKind::Gamma || o.kind == PixelOpKind::Levels;
        if (has_power) continue;
        for (const Config& c : configs()) {
            if (!tl::cuda::can_run_pixel(c.mechanism, c.policy, PixelFormat::RGBA8)) continue;
            for (PixelFormat f : {PixelFormat::RGBA8, PixelFormat::RGBA32F}) {
                for (const Size& s : {Size{4097, 3}, Size{3840, 2160}}) {
                    if (f == PixelFormat::RGBA32F && s.w == 3840) continue;
                    SCOPED_TRACE(cases[ci].name + " / " + c.name + " / " + std::to_string(s.w) + "x" +
                                 std::to_string(s.h) + " " + std::string(tl::to_string(f)));
                    const Expected& e = expected(ci, s, f);
                    DevImage src(s.w, s.h, f), dst(s.w, s.h, f);
                    src.upload(e.src);
                    ASSERT_TRUE(tl::cuda::launch_pixel_ops(cases[ci].ops, c.mechanism, c.policy, src.view(), dst.view(),
                                                           nullptr).ok);
                    ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
                    const tl::ImageDiff d = tl::compare_images(dst.download().view(), e.ref.view(), 0.0);
                    EXPECT_EQ(d.pixels_over, 0) << "max difference " << d.max_abs << " first worst at (" << d.worst_x
                                                << ", " << d.worst_y << ")";
                }
            }
        }
    }
}

// The powers (Gamma, Levels) run as 2^(e log2 x) on the special-function unit; pixel_kernels.cuh
// bounds their error at ~4e-6 relative wherever the result reaches 2^-9 (half an 8-bit step).
// Checked here against std::pow over a dense sweep of inputs, every valid extreme of gamma, with
// margin 2x on the bound; below 2^-9 the absolute error must stay under 1e-7.
TEST(PixelOps, PowersStayWithinTheirDocumentedErrorBound) {
    if (const std::string p = device_problem(); !p.empty()) GTEST_SKIP() << p;
    const int w = 4096, h = 20;  // inputs 0 .. 1.25 in steps of 1.25 / (w h - 1), plus exact 0 and 1
    Image in(w, h, PixelFormat::RGBA32F);
    auto* px = reinterpret_cast<float*>(in.bytes.data());
    for (int i = 0; i < w * h; ++i) {
        const float x = 1.25f * float(i) / float(w * h - 1);
        px[4 * i] = x;
        px[4 * i + 1] = i == 7 ? 1.0f : x * 0.8f;
        px[4 * i + 2] = i == 9 ? 0.0f : x * 0.5f;
        px[4 * i + 3] = 1.0f;
    }
    DevImage src(w, h, PixelFormat::RGBA32F), dst(w, h, PixelFormat::RGBA32F);
    src.upload(in);
    std::vector<std::vector<PixelOp>> chains;
    for (float g : {0.1f, 0.45f, 1.6f, 2.2f, 5.0f}) chains.push_back({op(PixelOpKind::Gamma, g)});
    chains.push_back({op(PixelOpKind::Levels, 0.1f, 0.85f, 0.7f)});
    chains.push_back({op(PixelOpKind::Levels, 0.0f, 1.0f, 0.1f)});
    for (const auto& chain : chains) {
        Image ref(w, h, PixelFormat::RGBA32F);
        tl::reference_pixel_ops(chain, in.view(), ref.view());
        for (PixelMechanism m : {PixelMechanism::Plain, PixelMechanism::Vector}) {
            SCOPED_TRACE(std::string(tl::to_string(chain[0].kind)) + " a=" + std::to_string(chain[0].a) + " c=" +
                         std::to_string(chain[0].c) + " " + std::string(tl::cuda::to_string(m)));
            ASSERT_TRUE(tl::cuda::launch_pixel_ops(chain, m, PixelPolicy{}, src.view(), dst.view(), nullptr).ok);
            ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
            const Image got = dst.download();
            const auto* g = reinterpret_cast<const float*>(got.bytes.data());
            const auto* r = reinterpret_cast<const float*>(ref.bytes.data());
            double worst_rel = 0;
            long long bad = 0;
            for (int i = 0; i < w * h * 4; ++i) {
                if (i % 4 == 3) continue;
                const double d = std::fabs(double(g[i]) - double(r[i]));
                if (std::fabs(r[i]) >= 1.0 / 512.0) {
                    worst_rel = std::max(worst_rel, d / std::fabs(r[i]));
                    if (d > 8e-6 * std::fabs(r[i])) ++bad;
                } else if (d > 1e-7) {
                    ++bad;
                }
            }
            EXPECT_EQ(bad, 0) << "worst relative error " << worst_rel;
            std::printf("[ pixel    ] pow worst relative error %.2e\n", worst_rel);
        }
    }
}

// In place (src == dst): every mechanism reads a chunk before anything writes it.
TEST(PixelOps, InPlaceMatchesReference) {
    if (const std::string p = device_problem(); !p.empty()) GTEST_SKIP() << p;
    const std::size_t ci = 11;  // chain8
    ASSERT_EQ(op_cases()[ci].name, "chain8");
    for (const Config& c : configs()) {
        if (!tl::cuda::can_run_pixel(c.mechanism, c.policy, PixelFormat::RGBA8)) continue;
        for (const Size& s : {Size{4097, 3}, Size{3840, 2160}}) {
            SCOPED_TRACE(c.name + " " + std::to_string(s.w) + "x" + std::to_string(s.h));
            const Expected& e = expected(ci, s, PixelFormat::RGBA8);
            DevImage img(s.w, s.h, PixelFormat::RGBA8, padded_pitch(s.w, PixelFormat::RGBA8));
            img.upload(e.src);
            const auto r = tl::cuda::launch_pixel_ops(op_cases()[ci].ops, c.mechanism, c.policy, img.view(), img.view(),
                                                      nullptr);
            ASSERT_TRUE(r.ok) << r.reason;
            ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
            const tl::ImageDiff d = tl::compare_images(img.download().view(), e.ref.view(), 1.0);
            EXPECT_EQ(d.pixels_over, 0) << "max difference " << d.max_abs;
        }
    }
}

// Back to back on one stream with different chains: each launch carries its own ops, so the
// second cannot change what the first computes.
TEST(PixelOps, BackToBackLaunchesOnOneStreamKeepTheirOwnOps) {
    if (const std::string p = device_problem(); !p.empty()) GTEST_SKIP() << p;
    cudaStream_t stream = nullptr;
    ASSERT_EQ(cudaStreamCreate(&stream), cudaSuccess);
    const Size s{3840, 2160};
    const auto cases = op_cases();
    const std::size_t a = 9, b = 12;  // lut, chain16_four_luts: both carry LUTs
    const Expected& ea = expected(a, s, PixelFormat::RGBA8);
    const Expected& eb = expected(b, s, PixelFormat::RGBA8);
    DevImage src(s.w, s.h, PixelFormat::RGBA8), da(s.w, s.h, PixelFormat::RGBA8), db(s.w, s.h, PixelFormat::RGBA8);
    src.upload(ea.src);  // same seed for every case of one size
    ASSERT_EQ(std::memcmp(ea.src.bytes.data(), eb.src.bytes.data(), ea.src.bytes.size()), 0);
    PixelPolicy p;
    ASSERT_TRUE(tl::cuda::launch_pixel_ops(cases[a].ops, PixelMechanism::Vector, p, src.view(), da.view(), stream).ok);
    ASSERT_TRUE(tl::cuda::launch_pixel_ops(cases[b].ops, PixelMechanism::Vector, p, src.view(), db.view(), stream).ok);
    ASSERT_EQ(cudaStreamSynchronize(stream), cudaSuccess);
    EXPECT_EQ(tl::compare_images(da.download().view(), ea.ref.view(), 1.0).pixels_over, 0);
    EXPECT_EQ(tl::compare_images(db.download().view(), eb.ref.view(), 1.0).pixels_over, 0);
    cudaStreamDestroy(stream);
}

// Bandwidth of every mechanism on a 4K RGBA8 image (invert: memory-bound; chain8: two powers per
// channel, closer to compute-bound), printed and recorded as test properties for the report.
// The output of the timed launches is checked too, so the numbers are of correct work.
TEST(PixelOps, ThroughputOf4kImagePerMechanism) {
    if (const std::string p = device_problem(); !p.empty()) GTEST_SKIP() << p;
    const Size s{3840, 2160};
    const double bytes = 2.0 * s.w * s.h * 4;  // read + write
    for (std::size_t ci : {std::size_t{5}, std::size_t{11}}) {  // invert, chain8
        const OpCase oc = op_cases()[ci];
        const Expected& e = expected(ci, s, PixelFormat::RGBA8);
        DevImage src(s.w, s.h, PixelFormat::RGBA8), dst(s.w, s.h, PixelFormat::RGBA8);
        src.upload(e.src);
        for (const Config& c : configs()) {
            if (!tl::cuda::can_run_pixel(c.mechanism, c.policy, PixelFormat::RGBA8)) continue;
            SCOPED_TRACE(oc.name + " " + c.name);
            cudaEvent_t start = nullptr, stop = nullptr;
            ASSERT_EQ(cudaEventCreate(&start), cudaSuccess);
            ASSERT_EQ(cudaEventCreate(&stop), cudaSuccess);
            ASSERT_TRUE(tl::cuda::launch_pixel_ops(oc.ops, c.mechanism, c.policy, src.view(), dst.view(), nullptr).ok);
            constexpr int kRuns = 20;
            ASSERT_EQ(cudaEventRecord(start, nullptr), cudaSuccess);
            for (int i = 0; i < kRuns; ++i)
                ASSERT_TRUE(tl::cuda::launch_pixel_ops(oc.ops, c.mechanism, c.policy, src.view(), dst.view(), nullptr).ok);
            ASSERT_EQ(cudaEventRecord(stop, nullptr), cudaSuccess);
            ASSERT_EQ(cudaEventSynchronize(stop), cudaSuccess);
            float ms = 0.0f;
            ASSERT_EQ(cudaEventElapsedTime(&ms, start, stop), cudaSuccess);
            cudaEventDestroy(start);
            cudaEventDestroy(stop);
            const double us = 1000.0 * ms / kRuns;
            const double gbps = bytes / (us * 1e-6) / 1e9;
            std::printf("[ pixel    ] %-10s %-26s %9.1f us  %7.1f GB/s\n", oc.name.c_str(), c.name.c_str(), us, gbps);
            ::testing::Test::RecordProperty(oc.name + "_" + c.name + "_GBps", std::to_string(gbps));
            EXPECT_EQ(tl::compare_images(dst.download().view(), e.ref.view(), 1.0).pixels_over, 0);
        }
    }
}

// ---- refusals -----------------------------------------------------------------------------------

class PixelOpsRefusal : public ::testing::Test {
protected:
    void SetUp() override {
        if (const std::string p = device_problem(); !p.empty()) GTEST_SKIP() << p;
    }
    // Launches and expects a refusal whose reason contains `what`, and dst untouched.
    static void expect_refused(std::span<const PixelOp> ops, PixelMechanism m, const PixelPolicy& p,
                               const tl::cuda::DeviceImage& src, DevImage& dst, const tl::cuda::DeviceImage& dst_view,
                               const std::string& what) {
        const auto r = tl::cuda::launch_pixel_ops(ops, m, p, src, dst_view, nullptr);
        EXPECT_FALSE(r.ok) << "accepted; expected a refusal about '" << what << "'";
        EXPECT_NE(r.reason.find(what), std::string::npos) << "reason: " << r.reason;
        ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
        const Image got = dst.download();
        for (auto b : got.bytes) ASSERT_EQ(b, kPoison) << "a refused launch wrote pixels";
    }
};

TEST_F(PixelOpsRefusal, NullEmptyAndMismatchedImages) {
    const std::vector<PixelOp> ops{op(PixelOpKind::Invert)};
    DevImage src(17, 9, PixelFormat::RGBA8), dst(17, 9, PixelFormat::RGBA8);
    const PixelPolicy p;
    for (const auto& info : tl::cuda::pixel_mechanism_infos()) {
        SCOPED_TRACE(std::string(info.name));
        auto null_src = src.view();
        null_src.data = nullptr;
        expect_refused(ops, info.mechanism, p, null_src, dst, dst.view(), "src image has no device pointer");
        auto empty = src.view();
        empty.width = 0;
        expect_refused(ops, info.mechanism, p, empty, dst, dst.view(), "empty");
        auto smaller = src.view();
        smaller.height = 8;
        expect_refused(ops, info.mechanism, p, smaller, dst, dst.view(), "differ in size");
        auto other_format = dst.view();
        other_format.format = PixelFormat::RGBA32F;
        other_format.width = 4;  // 4 float pixels fit in a 17-pixel RGBA8 row
        auto src4 = src.view();
        src4.width = 4;
        expect_refused(ops, info.mechanism, p, src4, dst, other_format, "ops do not convert formats");
        auto overlapping = src.view();
        overlapping.data = static_cast<unsigned char*>(src.view().data) + 68;  // one row later
        expect_refused(ops, info.mechanism, p, src.view(), src, overlapping, "overlap");
    }
}

TEST_F(PixelOpsRefusal, MisalignedPitchAndPointer) {
    const std::vector<PixelOp> ops{op(PixelOpKind::Invert)};
    // 17 RGBA8 pixels = 68 bytes; pitch 72 is pixel-aligned but not a multiple of 16.
    DevImage src(17, 9, PixelFormat::RGBA8, 72), dst(17, 9, PixelFormat::RGBA8, 72);
    const PixelPolicy p;
    for (PixelMechanism m : {PixelMechanism::Vector, PixelMechanism::Ldgsts, PixelMechanism::Bulk}) {
        SCOPED_TRACE(std::string(tl::cuda::to_string(m)));
        expect_refused(ops, m, p, src.view(), dst, dst.view(), "is not a multiple of 16");
    }
    // Plain needs only whole pixels: the same images are accepted and correct.
    Image in = noise(17, 9, PixelFormat::RGBA8, 5), ref(17, 9, PixelFormat::RGBA8);
    tl::reference_pixel_ops(ops, in.view(), ref.view());
    src.upload(in);
    ASSERT_TRUE(tl::cuda::launch_pixel_ops(ops, PixelMechanism::Plain, p, src.view(), dst.view(), nullptr).ok);
    ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    EXPECT_EQ(tl::compare_images(dst.download().view(), ref.view(), 1.0).pixels_over, 0);

    // A pointer 4 bytes into an allocation: fine for plain RGBA8, not for 16-byte accesses.
    DevImage big(64, 2, PixelFormat::RGBA8), out(64, 2, PixelFormat::RGBA8);
    auto shifted = big.view();
    shifted.data = static_cast<unsigned char*>(shifted.data) + 4;
    shifted.width = 60;
    auto out_view = out.view();
    out_view.width = 60;
    for (PixelMechanism m : {PixelMechanism::Vector, PixelMechanism::Ldgsts, PixelMechanism::Bulk}) {
        SCOPED_TRACE(std::string(tl::cuda::to_string(m)));
        expect_refused(ops, m, p, shifted, out, out_view, "16-byte aligned");
    }
}

TEST_F(PixelOpsRefusal, BadOpsAndChains) {
    DevImage src(17, 9, PixelFormat::RGBA8), dst(17, 9, PixelFormat::RGBA8);
    const PixelPolicy p;
    expect_refused(std::vector<PixelOp>{op(PixelOpKind::Gamma, 0.0f)}, PixelMechanism::Plain, p, src.view(), dst,
                   dst.view(), "gamma 0 is out of range");
    PixelOp bad_levels = op(PixelOpKind::Levels, 0.8f, 0.2f, 1.0f);
    expect_refused(std::vector<PixelOp>{op(PixelOpKind::Invert), bad_levels}, PixelMechanism::Vector, p, src.view(),
                   dst, dst.view(), "op 2 (levels)");
    PixelOp no_tables = tl::default_pixel_op(PixelOpKind::Lut);
    no_tables.lut.clear();
    expect_refused(std::vector<PixelOp>{no_tables}, PixelMechanism::Plain, p, src.view(), dst, dst.view(),
                   "lut needs 3 tables");
    expect_refused(std::vector<PixelOp>(17, op(PixelOpKind::Invert)), PixelMechanism::Plain, p, src.view(), dst,
                   dst.view(), "at most 16");
    expect_refused(std::vector<PixelOp>(5, random_lut(3)), PixelMechanism::Plain, p, src.view(), dst, dst.view(),
                   "more than 4 lut ops");
}

TEST_F(PixelOpsRefusal, BadPolicies) {
    const std::vector<PixelOp> ops{op(PixelOpKind::Invert)};
    DevImage src(64, 4, PixelFormat::RGBA8), dst(64, 4, PixelFormat::RGBA8);
    PixelPolicy p;
    p.block = 48;
    expect_refused(ops, PixelMechanism::Plain, p, src.view(), dst, dst.view(), "block 48");
    for (PixelMechanism m : {PixelMechanism::Ldgsts, PixelMechanism::Bulk}) {
        if (!tl::cuda::can_run_pixel(m, PixelPolicy{}, PixelFormat::RGBA8)) continue;
        SCOPED_TRACE(std::string(tl::cuda::to_string(m)));
        p = {};
        p.stages = 0;
        expect_refused(ops, m, p, src.view(), dst, dst.view(), "stages 0");
        p.stages = 5;
        expect_refused(ops, m, p, src.view(), dst, dst.view(), "stages 5");
        p = {};
        p.batch_pixels = 6;  // RGBA8 batches are whole 16-byte chunks (4 pixels)
        expect_refused(ops, m, p, src.view(), dst, dst.view(), "batch of 6 pixels");
        p = {};
        p.stages = 4;
        p.batch_pixels = 1 << 20;  // 4 x 4 MB of shared memory
        expect_refused(ops, m, p, src.view(), dst, dst.view(), "bytes of shared memory");
    }
}

// Bulk needs Hopper: refused with the reason below 9.0, accepted from 9.0.
TEST(PixelOpsCapability, BulkNeedsComputeCapability90) {
    if (const std::string p = device_problem(); !p.empty()) GTEST_SKIP() << p;
    int dev = 0, major = 0, minor = 0;
    ASSERT_EQ(cudaGetDevice(&dev), cudaSuccess);
    ASSERT_EQ(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev), cudaSuccess);
    ASSERT_EQ(cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, dev), cudaSuccess);
    const auto r = tl::cuda::can_run_pixel(PixelMechanism::Bulk, PixelPolicy{}, PixelFormat::RGBA8);
    if (major >= 9) {
        EXPECT_TRUE(r.ok) << r.reason;
    } else {
        EXPECT_FALSE(r.ok);
        EXPECT_EQ(r.reason, "bulk copies (cp.async.bulk) need compute capability 9.0; this GPU is " +
                                std::to_string(major) + "." + std::to_string(minor));
    }
}

// ---- SASS ---------------------------------------------------------------------------------------

TEST(PixelSass, EachMechanismEmitsItsInstruction) {
    const auto& sass = tl::test::library_sass();
    if (sass.empty()) GTEST_SKIP() << "cuobjdump not found (TILELAB_CUOBJDUMP) or the library has no SASS";
    // kernel tag, instructions every such kernel must contain, instructions none may contain
    const std::vector<std::tuple<std::string, std::vector<std::string>, std::vector<std::string>>> rules = {
        {"pixel_plain_kernel", {}, {"LDGSTS", "UBLKCP"}},
        {"pixel_vector_kernel", {"LDG.E.128", "STG.E.128"}, {"LDGSTS", "UBLKCP"}},
        {"pixel_ldgsts_kernel", {"LDGSTS", "LDGDEPBAR"}, {"UBLKCP"}},
        {"pixel_bulk_kernel", {"UBLKCP", "SYNCS"}, {"LDGSTS"}},
    };
    for (const auto& [tag, must, must_not] : rules) {
        int kernels = 0;
        for (const auto& [name, text] : sass) {
            if (name.find(tag) == std::string::npos) continue;
            ++kernels;
            for (const auto& ins : must)
                EXPECT_NE(text.find(ins), std::string::npos) << name << " lacks " << ins;
            for (const auto& ins : must_not)
                EXPECT_EQ(text.find(ins), std::string::npos) << name << " contains " << ins;
        }
        EXPECT_GT(kernels, 0) << "no kernel named *" << tag << "* in the library";
    }
}

} // namespace
