// GPU tests of the Hopper mechanisms (tma, tma_ws, cluster) against the CPU reference: every
// filter kind, every border, both formats, sizes that straddle tiles, several policies, into a
// poisoned destination whose pitch padding must survive; plus a 4K timing table against a copy.
#if __has_include(<cuda_runtime.h>)
#include <cuda_runtime.h>

#include "reference.hpp"
#include "stencil/mechanisms.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

namespace {

using namespace tl;
using tl::cuda::Mechanism;
using tl::cuda::Policy;

bool hopper() {
    int major = 0;
    return cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, 0) == cudaSuccess && major >= 9;
}

tl::cuda::Result run(Mechanism m, const FilterParams& p, Border b, const Policy& pol, const tl::cuda::DeviceImage& s,
                     const tl::cuda::DeviceImage& d, cudaStream_t stream) {
    const tl::cuda::detail::LaunchArgs a{p, b, pol, s, d, stream};
    switch (m) {
    case Mechanism::Tma: return tl::cuda::detail::launch_tma(a);
    case Mechanism::TmaWs: return tl::cuda::detail::launch_tma_ws(a);
    case Mechanism::Cluster: return tl::cuda::detail::launch_cluster(a);
    default: return tl::cuda::Result::fail("not a Hopper mechanism");
    }
}

Image random_image(int w, int h, PixelFormat f, std::uint32_t seed) {
    Image img(w, h, f);
    std::uint32_t s = seed;
    auto next = [&s] {
        s = s * 1664525u + 1013904223u;
        return s >> 8;
    };
    if (f == PixelFormat::RGBA8) {
        for (auto& b : img.bytes) b = static_cast<std::uint8_t>(next() & 0xff);
    } else {
        auto* px = reinterpret_cast<float*>(img.bytes.data());
        for (std::size_t i = 0; i < img.bytes.size() / 4; ++i) px[i] = float(next() & 0xffff) / 65535.0f;
    }
    return img;
}

std::vector<FilterParams> all_filters() {
    std::vector<FilterParams> v;
    FilterParams p;
    for (int r : {1, 2, 5, 16, 32}) {
        p = {};
        p.kind = FilterKind::Box;
        p.radius = r;
        v.push_back(p);
    }
    for (float s : {0.5f, 1.0f, 3.0f, 10.0f}) {
        p = {};
        p.kind = FilterKind::Gaussian;
        p.sigma = s;
        v.push_back(p);
    }
    for (FilterKind k : {FilterKind::Sobel, FilterKind::Laplacian, FilterKind::Emboss}) {
        p = {};
        p.kind = k;
        v.push_back(p);
    }
    p = {};
    p.kind = FilterKind::Sharpen;
    p.amount = 1.5f;
    v.push_back(p);
    for (int n : {3, 5}) {
        p = {};
        p.kind = FilterKind::UserKernel;
        p.user_size = n;
        for (int i = 0; i < n * n; ++i) p.user[std::size_t(i)] = float((i * 7) % 5) - 1.5f;
        p.user_scale = 0.25f;
        p.user_bias = 0.1f;
        v.push_back(p);
    }
    // A zero scale: the 5x5 kernel's float form over raw bytes cannot hold it (UserKernel5Filter's
    // planar.usable is false), so the TMA mechanisms run its generic window on the same launch.
    p.user_scale = 0.0f;
    p.user_bias = 0.3f;
    v.push_back(p);
    return v;
}

std::string describe(const FilterParams& p) {
    std::string s(to_string(p.kind));
    if (p.kind == FilterKind::Box) s += " r=" + std::to_string(p.radius);
    if (p.kind == FilterKind::Gaussian) s += " sigma=" + std::to_string(p.sigma);
    if (p.kind == FilterKind::UserKernel) s += " " + std::to_string(p.user_size) + "x" + std::to_string(p.user_size);
    return s;
}

// One device image with pitch padding; the padding and the whole image start poisoned.
struct DevImage {
    void* ptr = nullptr;
    tl::cuda::DeviceImage view;
    DevImage(int w, int h, PixelFormat f, std::size_t extra_pitch) {
        const std::size_t pitch = (std::size_t(w) * bytes_per_pixel(f) + 15) / 16 * 16 + extra_pitch;
        if (cudaMalloc(&ptr, pitch * std::size_t(h)) != cudaSuccess) ptr = nullptr;
        view = {ptr, pitch, w, h, f};
    }
    DevImage(const DevImage&) = delete;
    DevImage& operator=(const DevImage&) = delete;
    ~DevImage() { cudaFree(ptr); }
    void upload(const Image& img) {
        cudaMemcpy2D(ptr, view.pitch, img.bytes.data(), img.pitch(), img.pitch(), std::size_t(img.height), cudaMemcpyHostToDevice);
    }
    void poison() { cudaMemset(ptr, 0xCD, view.pitch * std::size_t(view.height)); }
    std::vector<std::uint8_t> raw() const {
        std::vector<std::uint8_t> v(view.pitch * std::size_t(view.height));
        cudaMemcpy(v.data(), ptr, v.size(), cudaMemcpyDeviceToHost);
        return v;
    }
};

struct Case {
    Mechanism m;
    Policy pol;
    const char* what;
};

std::vector<Case> policies() {
    std::vector<Case> c;
    Policy p;
    p.tile_w = 128; p.tile_h = 32; p.stages = 2; c.push_back({Mechanism::Tma, p, "tma 128x32 s2"});
    p.stages = 1; c.push_back({Mechanism::Tma, p, "tma 128x32 s1"});
    p.tile_w = 64; p.tile_h = 16; p.stages = 4; c.push_back({Mechanism::Tma, p, "tma 64x16 s4"});
    p.tma_store = true; p.stages = 3; c.push_back({Mechanism::Tma, p, "tma 64x16 s3 tma_store"});
    p = {}; p.tile_w = 128; p.tile_h = 32; p.stages = 3; c.push_back({Mechanism::TmaWs, p, "tma_ws 128x32 s3"});
    p.tile_w = 16; p.tile_h = 8; p.stages = 2; c.push_back({Mechanism::TmaWs, p, "tma_ws 16x8 s2"});
    p = {}; p.tile_w = 128; p.tile_h = 32; p.cluster_size = 2; c.push_back({Mechanism::Cluster, p, "cluster 128x32 c2"});
    p.tile_w = 64; p.tile_h = 8; p.cluster_size = 4; c.push_back({Mechanism::Cluster, p, "cluster 64x8 c4"});
    p.cluster_size = 1; c.push_back({Mechanism::Cluster, p, "cluster 64x8 c1"});
    return c;
}

// Checks one launch: the image within tolerance of the reference, the pitch padding untouched.
void check(const Case& c, const FilterParams& fp, Border b, int w, int h, PixelFormat f, int* refusals) {
    const Image src = random_image(w, h, f, std::uint32_t(w * 131 + h));
    Image want(w, h, f);
    reference_filter(fp, b, src.view(), want.view());
    DevImage ds(w, h, f, 48), dd(w, h, f, 32);
    ASSERT_TRUE(ds.ptr && dd.ptr);
    ds.upload(src);
    dd.poison();
    const tl::cuda::Result r = run(c.m, fp, b, c.pol, ds.view, dd.view, nullptr);
    const std::string ctx = std::string(c.what) + " " + describe(fp) + " " + std::string(to_string(b)) + " " +
                            std::string(to_string(f)) + " " + std::to_string(w) + "x" + std::to_string(h);
    if (!r.ok) {
        // The only refusal allowed: RGBA32F boxes are 64 pixels wide, too narrow for big radii.
        EXPECT_TRUE(f == PixelFormat::RGBA32F && filter_radius(fp) > 28) << ctx << ": refused: " << r.reason;
        ++*refusals;
        return;
    }
    ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess) << ctx;
    const std::vector<std::uint8_t> raw = dd.raw();
    Image got(w, h, f);
    const std::size_t row = got.pitch();
    int padding_hits = 0;
    for (int y = 0; y < h; ++y) {
        std::memcpy(got.bytes.data() + row * std::size_t(y), raw.data() + dd.view.pitch * std::size_t(y), row);
        for (std::size_t i = row; i < dd.view.pitch; ++i) padding_hits += raw[dd.view.pitch * std::size_t(y) + i] != 0xCD;
    }
    EXPECT_EQ(padding_hits, 0) << ctx << ": bytes written past the row end";
    const double tol = f == PixelFormat::RGBA8 ? 1.0 : 2e-4;
    const ImageDiff d = compare_images(got.view(), want.view(), tol);
    EXPECT_EQ(d.pixels_over, 0) << ctx << ": max diff " << d.max_abs << " at (" << d.worst_x << "," << d.worst_y << ")";
}

class HopperMechanisms : public ::testing::TestWithParam<int> {};

TEST_P(HopperMechanisms, MatchTheReference) {
    if (!hopper()) GTEST_SKIP() << "needs a compute capability 9.0 GPU";
    const Case c = policies()[std::size_t(GetParam())];
    int refusals = 0;
    const int sizes[][2] = {{1, 1}, {17, 9}, {130, 67}, {4097, 3}, {200, 150}};
    for (auto [w, h] : sizes)
        for (PixelFormat f : {PixelFormat::RGBA8, PixelFormat::RGBA32F})
            for (Border b : {Border::Clamp, Border::Zero, Border::Mirror})
                for (const FilterParams& fp : all_filters()) {
                    check(c, fp, b, w, h, f, &refusals);
                    if (HasFatalFailure()) return;
                }
    std::printf("%s: %d refusals (RGBA32F with radius > 28)\n", c.what, refusals);
}

INSTANTIATE_TEST_SUITE_P(Policies, HopperMechanisms, ::testing::Range(0, int(policies().size())));

TEST(HopperMechanisms, RefusesWithAReason) {
    if (!hopper()) GTEST_SKIP() << "needs a compute capability 9.0 GPU";
    DevImage s(64, 64, PixelFormat::RGBA8, 0), d(64, 64, PixelFormat::RGBA8, 0);
    FilterParams fp;
    Policy p;
    p.cluster_size = 9;
    tl::cuda::Result r = run(Mechanism::Cluster, fp, Border::Clamp, p, s.view, d.view, nullptr);
    EXPECT_FALSE(r.ok);
    EXPECT_NE(r.reason.find("cluster size 9"), std::string::npos) << r.reason;
    p = {};
    p.stages = 5;
    r = run(Mechanism::Tma, fp, Border::Clamp, p, s.view, d.view, nullptr);
    EXPECT_FALSE(r.ok);
    EXPECT_NE(r.reason.find("stages 5"), std::string::npos) << r.reason;
    tl::cuda::DeviceImage odd = s.view;
    odd.data = static_cast<char*>(odd.data) + 4;
    odd.width = 60;
    r = run(Mechanism::TmaWs, fp, Border::Clamp, {}, odd, d.view, nullptr);
    EXPECT_FALSE(r.ok);
    EXPECT_NE(r.reason.find("16-byte aligned"), std::string::npos) << r.reason;
}

// Timing at 4K RGBA8 with rotated buffers (8 pairs, far beyond L2) against a pitched copy.
TEST(HopperMechanisms, Timing4K) {
    if (!hopper()) GTEST_SKIP() << "needs a compute capability 9.0 GPU";
    ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess) << "the CUDA context is already broken";
    const int w = 3840, h = 2160, n = 8, iters = 40;
    std::vector<std::unique_ptr<DevImage>> src, dst;
    const Image img = random_image(w, h, PixelFormat::RGBA8, 7);
    for (int i = 0; i < n; ++i) {
        src.push_back(std::make_unique<DevImage>(w, h, PixelFormat::RGBA8, 0));
        dst.push_back(std::make_unique<DevImage>(w, h, PixelFormat::RGBA8, 0));
        src.back()->upload(img);
    }
    cudaStream_t st;
    cudaStreamCreate(&st);
    cudaEvent_t e0, e1;
    cudaEventCreate(&e0);
    cudaEventCreate(&e1);
    auto time_us = [&](auto&& body) {
        for (int i = 0; i < n; ++i) body(i);  // warm-up
        cudaEventRecord(e0, st);
        for (int i = 0; i < iters; ++i) body(i % n);
        cudaEventRecord(e1, st);
        cudaEventSynchronize(e1);
        float ms = 0.f;
        cudaEventElapsedTime(&ms, e0, e1);
        return double(ms) * 1000.0 / iters;
    };
    const double copy = time_us([&](int i) {
        cudaMemcpy2DAsync(dst[i]->ptr, dst[i]->view.pitch, src[i]->ptr, src[i]->view.pitch, std::size_t(w) * 4, h,
                          cudaMemcpyDeviceToDevice, st);
    });
    std::printf("timing 3840x2160 rgba8: copy %.1f us\n", copy);
    std::vector<FilterParams> fs;
    FilterParams p;
    p.kind = FilterKind::Sobel; fs.push_back(p);
    p.kind = FilterKind::Laplacian; fs.push_back(p);
    p.kind = FilterKind::Box; p.radius = 1; fs.push_back(p);
    p.radius = 4; fs.push_back(p);
    p.radius = 16; fs.push_back(p);
    p = {}; p.kind = FilterKind::Gaussian; p.sigma = 1.0f; fs.push_back(p);
    p.sigma = 3.0f; fs.push_back(p);
    struct T { Mechanism m; Policy pol; const char* what; };
    std::vector<T> ts;
    Policy q;
    q.tile_w = 128; q.tile_h = 32; q.stages = 2; ts.push_back({Mechanism::Tma, q, "tma 128x32 s2"});
    q.stages = 3; ts.push_back({Mechanism::Tma, q, "tma 128x32 s3"});
    q.tile_w = 256; q.tile_h = 16; q.stages = 2; ts.push_back({Mechanism::Tma, q, "tma 256x16 s2"});
    q.tile_w = 128; q.tile_h = 32; q.stages = 2; q.tma_store = true; ts.push_back({Mechanism::Tma, q, "tma 128x32 s2 store"});
    q = {}; q.tile_w = 128; q.tile_h = 32; q.stages = 3; ts.push_back({Mechanism::TmaWs, q, "tma_ws 128x32 s3"});
    q = {}; q.tile_w = 128; q.tile_h = 32; q.cluster_size = 2; ts.push_back({Mechanism::Cluster, q, "cluster 128x32 c2"});
    q.cluster_size = 4; q.tile_h = 16; ts.push_back({Mechanism::Cluster, q, "cluster 128x16 c4"});
    for (const FilterParams& fp : fs)
        for (const T& t : ts) {
            tl::cuda::Result r = tl::cuda::Result::success();
            const double us = time_us([&](int i) {
                const tl::cuda::Result rr = run(t.m, fp, Border::Clamp, t.pol, src[i]->view, dst[i]->view, st);
                if (!rr.ok) r = rr;
            });
            EXPECT_TRUE(r.ok) << t.what << " " << describe(fp) << ": " << r.reason;
            std::printf("timing %-22s %-18s %8.1f us  %.2fx copy\n", t.what, describe(fp).c_str(), us, us / copy);
        }
    EXPECT_EQ(cudaStreamSynchronize(st), cudaSuccess);
    cudaEventDestroy(e0);
    cudaEventDestroy(e1);
    cudaStreamDestroy(st);
}

} // namespace
#else
#include <gtest/gtest.h>
TEST(HopperMechanisms, NeedsTheCudaRuntimeHeaders) {
    FAIL() << "tests/gpu is compiled without the CUDA runtime include directories (link CUDA::cudart)";
}
#endif
