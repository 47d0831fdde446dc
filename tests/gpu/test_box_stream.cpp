// GPU tests of the tma mechanism's column-streaming Box kernel (stencil/tma_box_stream.cu) against
// the CPU reference: every radius class, every border, images narrower than a strip, shorter than
// the window, taller than one segment, odd pitches; plus a 4K timing table against a copy (printed,
// never asserted) that says which radii launch_tma should send to it.
#if __has_include(<cuda_runtime.h>)
#include <cuda_runtime.h>

#include "reference.hpp"
#include "stencil/tma_box_stream.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <memory>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

namespace {

using namespace tl;
using tl::cuda::Policy;

bool hopper() {
    int major = 0;
    return cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, 0) == cudaSuccess && major >= 9;
}

Image random_image(int w, int h, std::uint32_t seed) {
    Image img(w, h, PixelFormat::RGBA8);
    std::uint32_t s = seed;
    for (auto& b : img.bytes) {
        s = s * 1664525u + 1013904223u;
        b = static_cast<std::uint8_t>(s >> 24);
    }
    return img;
}

FilterParams box(int r) {
    FilterParams p;
    p.kind = FilterKind::Box;
    p.radius = r;
    return p;
}

// One device image whose rows carry `extra` bytes of padding; everything starts poisoned.
struct DevImage {
    void* ptr = nullptr;
    tl::cuda::DeviceImage view;
    DevImage(int w, int h, std::size_t extra) {
        const std::size_t pitch = (std::size_t(w) * 4 + 15) / 16 * 16 + extra;
        if (cudaMalloc(&ptr, pitch * std::size_t(h)) != cudaSuccess) ptr = nullptr;
        else cudaMemset(ptr, 0xCD, pitch * std::size_t(h));
        view = {ptr, pitch, w, h, PixelFormat::RGBA8};
    }
    DevImage(const DevImage&) = delete;
    DevImage& operator=(const DevImage&) = delete;
    ~DevImage() { cudaFree(ptr); }
};

// Runs the stream kernel on a random w x h image; checks every pixel within 1 LSB of the reference
// (the kernel's integer mean is exact, so in practice 0) and the row padding untouched.
// `form`: which of radius 2-8's two kernels runs (the GPU's choice unless named).
using tl::cuda::detail::BoxStreamForm;
using tl::cuda::detail::BoxStreamRefill;
void check(int w, int h, int r, Border b, int stages = Policy{}.stages,
           BoxStreamForm form = BoxStreamForm::AsLaunched, BoxStreamRefill refill = BoxStreamRefill::AsLaunched) {
    const char* form_name = form == BoxStreamForm::AsLaunched       ? ""
                            : form == BoxStreamForm::EightRowBlocks ? " 8-row blocks"
                                                                    : " warp-specialised";
    const char* refill_name = refill == BoxStreamRefill::AsLaunched     ? ""
                              : refill == BoxStreamRefill::AtBlockStart ? " refill at block start"
                                                                        : " refill at block end";
    const std::string ctx = "box r=" + std::to_string(r) + " " + std::string(to_string(b)) + " " +
                            std::to_string(w) + "x" + std::to_string(h) + " stages " +
                            std::to_string(stages) + form_name + refill_name;
    const Image src = random_image(w, h, std::uint32_t(w * 7919 + h * 31 + r));
    Image want(w, h, PixelFormat::RGBA8);
    reference_filter(box(r), b, src.view(), want.view());
    DevImage ds(w, h, 48), dd(w, h, 32);
    ASSERT_TRUE(ds.ptr && dd.ptr) << ctx;
    cudaMemcpy2D(ds.ptr, ds.view.pitch, src.bytes.data(), src.pitch(), src.pitch(), std::size_t(h), cudaMemcpyHostToDevice);
    const FilterParams fp = box(r);
    Policy pol;
    pol.stages = stages;
    const tl::cuda::detail::LaunchArgs a{fp, b, pol, ds.view, dd.view, nullptr};
    const auto res = tl::cuda::detail::launch_tma_box_stream_any_radius(a, form, refill);
    ASSERT_TRUE(res.has_value()) << ctx << ": the stream kernel did not take a Box RGBA8 launch";
    ASSERT_TRUE(res->ok) << ctx << ": " << res->reason;
    ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess) << ctx;
    std::vector<std::uint8_t> raw(dd.view.pitch * std::size_t(h));
    cudaMemcpy(raw.data(), dd.ptr, raw.size(), cudaMemcpyDeviceToHost);
    Image got(w, h, PixelFormat::RGBA8);
    const std::size_t row = got.pitch();
    long long pad = 0;
    for (int y = 0; y < h; ++y) {
        std::memcpy(got.bytes.data() + row * std::size_t(y), raw.data() + dd.view.pitch * std::size_t(y), row);
        for (std::size_t i = row; i < dd.view.pitch; ++i) pad += raw[dd.view.pitch * std::size_t(y) + i] != 0xCD;
    }
    EXPECT_EQ(pad, 0) << ctx << ": bytes written past the row end";
    const ImageDiff d = compare_images(got.view(), want.view(), 1.0);
    EXPECT_EQ(d.pixels_over, 0) << ctx << ": max diff " << d.max_abs << " at (" << d.worst_x << "," << d.worst_y << ")";
}

TEST(BoxStream, EveryRadiusClassAndBorder) {
    if (!hopper()) GTEST_SKIP() << "needs a compute capability 9.0 GPU";
    // Every radius the kernels compile in (2-16, a kernel each), and the runtime-radius class at
    // its edges (17, 31, 32).
    for (int r : {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 31, 32})
        for (Border b : {Border::Clamp, Border::Zero, Border::Mirror})
            for (auto [w, h] : {std::pair{131, 97}, std::pair{257, 300}}) {
                check(w, h, r, b);
                if (HasFatalFailure()) return;
            }
}

// Radius 2-8 has two kernels: 8-row blocks stored by TMA, and the warp-specialised 16-row form
// that radius 9-16 runs (radius 8 always, 2-7 on a GPU whose DRAM outpaces its SMs, such as the
// H200). Both are checked here on whatever GPU runs the test, at the sizes and ring depths whose
// segment plans differ.
TEST(BoxStream, BothFormsOfRadius2To8) {
    if (!hopper()) GTEST_SKIP() << "needs a compute capability 9.0 GPU";
    for (BoxStreamForm form : {BoxStreamForm::EightRowBlocks, BoxStreamForm::WarpSpecialised})
        for (int r = 2; r <= 8; ++r)
            for (Border b : {Border::Clamp, Border::Zero, Border::Mirror})
                for (auto [w, h, stages] :
                     {std::tuple{131, 97, 2}, std::tuple{257, 300, 1}, std::tuple{130, 2161, 3}}) {
                    check(w, h, r, b, stages, form);
                    if (HasFatalFailure()) return;
                }
}

// Radius 8-16's warp-specialised kernels refill their ring at the end of each block's vertical pass
// on a GPU whose DRAM outpaces its SMs (the H200) and at the next block's start elsewhere; both are
// checked here on whatever GPU runs the test, on images whose segments run many blocks (2161 rows:
// the ring turns over several times), in both stream directions, and at every border; every radius,
// since radius 9-15 count their rows from a shift of their own (box_ring_row_shift).
TEST(BoxStream, BothRefillPositionsOfRadius8To16) {
    if (!hopper()) GTEST_SKIP() << "needs a compute capability 9.0 GPU";
    for (BoxStreamRefill refill : {BoxStreamRefill::AtBlockStart, BoxStreamRefill::AtBlockEnd})
        for (int r = 8; r <= 16; ++r)
            for (Border b : {Border::Clamp, Border::Zero, Border::Mirror})
                for (auto [w, h, stages] : {std::tuple{131, 2161, 2}, std::tuple{300, 1000, 1}, std::tuple{257, 600, 3}}) {
                    check(w, h, r, b, stages, BoxStreamForm::AsLaunched, refill);
                    if (HasFatalFailure()) return;
                }
}

TEST(BoxStream, ImagesSmallerThanTheWindow) {
    if (!hopper()) GTEST_SKIP() << "needs a compute capability 9.0 GPU";
    // Narrower than one strip (128) and shorter than 2R + 1 rows: mirror folds more than once.
    // Radius 9 and 15 count their loaded rows from a shift above the window (box_ring_row_shift).
    const int sizes[][2] = {{1, 1}, {1, 70}, {40, 70}, {17, 9}, {5, 64}, {127, 3}, {128, 33}, {129, 65}, {3, 200}};
    for (int r : {1, 4, 9, 15, 16, 32})
        for (Border b : {Border::Clamp, Border::Zero, Border::Mirror})
            for (auto [w, h] : sizes) {
                check(w, h, r, b);
                if (HasFatalFailure()) return;
            }
}

TEST(BoxStream, TallAndNarrowAndWide) {
    if (!hopper()) GTEST_SKIP() << "needs a compute capability 9.0 GPU";
    // Many vertical segments per strip (tall), one strip (narrow), one segment per strip (wide).
    const int sizes[][2] = {{24, 4099}, {130, 2161}, {4097, 5}, {4100, 67}};
    for (int r : {2, 16, 32})
        for (Border b : {Border::Clamp, Border::Mirror, Border::Zero})
            for (auto [w, h] : sizes) {
                check(w, h, r, b);
                if (HasFatalFailure()) return;
            }
}

// The ring depth follows the stages asked for (4 to 7 stages of 16 rows at radius 16). The
// warp-specialised radius 9-16 kernels refill a stage only once the first team is done with the
// block before, so the shallowest ring (no stage in flight ahead of the next block's rows) and the
// deepest (two CTAs per SM) are the ones its hand-over could get wrong; radius 9 and 12 leave
// column threads without a column, which take part in the hand-overs all the same.
TEST(BoxStream, EveryRingDepth) {
    if (!hopper()) GTEST_SKIP() << "needs a compute capability 9.0 GPU";
    for (int stages = 1; stages <= 4; ++stages)
        for (int r : {2, 8, 9, 12, 16, 32})
            for (Border b : {Border::Clamp, Border::Zero, Border::Mirror})
                for (auto [w, h] : {std::pair{257, 300}, std::pair{130, 2161}}) {
                    check(w, h, r, b, stages);
                    if (HasFatalFailure()) return;
                }
}

TEST(BoxStream, LeavesOtherRequestsToTheTilePath) {
    if (!hopper()) GTEST_SKIP() << "needs a compute capability 9.0 GPU";
    DevImage s(64, 64, 0), d(64, 64, 0);
    Policy pol;
    FilterParams g;
    g.kind = FilterKind::Gaussian;
    g.sigma = 1.0f;
    EXPECT_FALSE(tl::cuda::detail::launch_tma_box_stream_any_radius({g, Border::Clamp, pol, s.view, d.view, nullptr}));
    pol.tma_store = true;  // the tile path has the TMA store; this kernel stores directly
    const FilterParams b = box(4);
    EXPECT_FALSE(tl::cuda::detail::launch_tma_box_stream_any_radius({b, Border::Clamp, pol, s.view, d.view, nullptr}));
}

// Mean time of a 4K launch of the stream kernel and of launch_tma (whichever path it picks) per
// radius, printed with a same-run copy for scale. Informational: speed is measured, never asserted.
TEST(BoxStream, Timing4K) {
    if (!hopper()) GTEST_SKIP() << "needs a compute capability 9.0 GPU";
    const int w = 3840, h = 2160;
    constexpr int kSets = 4;  // rotated buffers, together larger than L2
    std::vector<std::unique_ptr<DevImage>> src, dst;
    for (int i = 0; i < kSets; ++i) {
        src.push_back(std::make_unique<DevImage>(w, h, 0));
        dst.push_back(std::make_unique<DevImage>(w, h, 0));
        ASSERT_TRUE(src.back()->ptr && dst.back()->ptr);
    }
    cudaEvent_t e0, e1;
    cudaEventCreate(&e0);
    cudaEventCreate(&e1);
    // Mean over 40 back-to-back launches rotating over the sets: the host's per-launch work (tensor
    // map, validation) overlaps the previous kernels instead of being counted.
    auto mean_us = [&](auto&& launch) {
        for (int i = 0; i < kSets; ++i) launch(i);  // warm-up
        cudaEventRecord(e0);
        constexpr int kLaunches = 40;
        for (int it = 0; it < kLaunches; ++it) launch(it % kSets);
        cudaEventRecord(e1);
        cudaEventSynchronize(e1);
        float ms = 0;
        cudaEventElapsedTime(&ms, e0, e1);
        return ms * 1000.0f / float(kLaunches);
    };
    const float copy = mean_us([&](int i) {
        cudaMemcpy2DAsync(dst[std::size_t(i)]->ptr, dst[std::size_t(i)]->view.pitch, src[std::size_t(i)]->ptr,
                          src[std::size_t(i)]->view.pitch, std::size_t(w) * 4, std::size_t(h), cudaMemcpyDeviceToDevice);
    });
    std::printf("4K RGBA8 clamp, copy %.1f us\n", double(copy));
    for (int r : {1, 2, 4, 8, 16, 32}) {
        const FilterParams fp = box(r);
        const Policy pol;
        const float stream = mean_us([&](int i) {
            const tl::cuda::detail::LaunchArgs a{fp, Border::Clamp, pol, src[std::size_t(i)]->view, dst[std::size_t(i)]->view, nullptr};
            (void)tl::cuda::detail::launch_tma_box_stream_any_radius(a);
        });
        const float dispatched = mean_us([&](int i) {
            (void)tl::cuda::launch(fp, Border::Clamp, tl::cuda::Mechanism::Tma, pol, src[std::size_t(i)]->view,
                                   dst[std::size_t(i)]->view, nullptr);
        });
        std::printf("box r=%-2d  stream %7.1f us (%.2fx copy)   launch_tma %7.1f us (%.2fx)\n", r, double(stream),
                    double(stream / copy), double(dispatched), double(dispatched / copy));
    }
    EXPECT_EQ(cudaGetLastError(), cudaSuccess);
    cudaEventDestroy(e0);
    cudaEventDestroy(e1);
}

} // namespace
#endif
