// Requests a user (or a caller) can get wrong are refused with a sentence before any launch, and a
// failing kernel is reported with its name while the process stays usable.
#include "stencil_api.hpp"

#include <cuda_runtime.h>
#include <gtest/gtest.h>

namespace {

using tl::cuda::DeviceImage;
using tl::cuda::Mechanism;

class BadInput : public ::testing::Test {
protected:
    void SetUp() override {
        if (auto st = tl::cuda::cuda_status(); !st) GTEST_SKIP() << st.reason;
        ASSERT_EQ(cudaMalloc(&buf_, kBytes), cudaSuccess);
        ASSERT_EQ(cudaMemset(buf_, 0x11, kBytes), cudaSuccess);
    }
    void TearDown() override {
        if (buf_) cudaFree(buf_);
    }
    // Source in the first half, destination in the second; both 64x64 RGBA8 with pitch 256.
    DeviceImage src() const { return {buf_, 256, 64, 64, tl::PixelFormat::RGBA8}; }
    DeviceImage dst() const { return {static_cast<char*>(buf_) + kBytes / 2, 256, 64, 64, tl::PixelFormat::RGBA8}; }
    // The destination is untouched when a request is refused.
    bool dst_untouched() const {
        std::vector<unsigned char> host(kBytes / 2);
        cudaMemcpy(host.data(), static_cast<char*>(buf_) + kBytes / 2, host.size(), cudaMemcpyDeviceToHost);
        for (auto b : host)
            if (b != 0x11) return false;
        return true;
    }
    tl::FilterParams box(int r = 1) const {
        tl::FilterParams p;
        p.kind = tl::FilterKind::Box;
        p.radius = r;
        return p;
    }
    static constexpr std::size_t kBytes = 2 * 256 * 64;
    void* buf_ = nullptr;
    tl::cuda::Policy policy_;
};

TEST_F(BadInput, ZeroSizeIsRefused) {
    for (const auto& m : tl::cuda::mechanism_infos()) {
        auto s = src();
        s.width = 0;
        auto d = dst();
        d.width = 0;
        const auto r = tl::cuda::launch(box(), tl::Border::Clamp, m.mechanism, policy_, s, d, nullptr);
        EXPECT_FALSE(r.ok) << m.name;
        EXPECT_NE(r.reason.find("at least 1"), std::string::npos) << r.reason;
    }
    EXPECT_TRUE(dst_untouched());
}

TEST_F(BadInput, TooLargeIsRefused) {
    auto s = src();
    s.width = 20000;
    s.pitch = 20000 * 4;
    const auto r = tl::cuda::launch(box(), tl::Border::Clamp, Mechanism::Global, policy_, s, dst(), nullptr);
    EXPECT_FALSE(r.ok);
    EXPECT_NE(r.reason.find("16384"), std::string::npos) << r.reason;
}

TEST_F(BadInput, RadiusOutOfRangeIsRefused) {
    for (int radius : {0, 33, -1}) {
        const auto r = tl::cuda::launch(box(radius), tl::Border::Clamp, Mechanism::Smem, policy_, src(), dst(), nullptr);
        EXPECT_FALSE(r.ok);
        EXPECT_NE(r.reason.find("radius"), std::string::npos) << r.reason;
        EXPECT_FALSE(tl::cuda::can_run(Mechanism::Smem, box(radius), tl::PixelFormat::RGBA8, policy_).ok);
    }
    EXPECT_TRUE(dst_untouched());
}

TEST_F(BadInput, MisalignedPitchIsRefusedWhereCopiesNeed16Bytes) {
    auto s = src();
    s.width = 60;
    s.pitch = 244;  // >= 60 * 4, a multiple of 4 but not of 16
    auto d = dst();
    d.width = 60;
    const auto r = tl::cuda::launch(box(), tl::Border::Clamp, Mechanism::Ldgsts, policy_, s, d, nullptr);
    EXPECT_FALSE(r.ok);
    EXPECT_NE(r.reason.find("16"), std::string::npos) << r.reason;
    // A plain-load mechanism does not need it.
    EXPECT_TRUE(tl::cuda::launch(box(), tl::Border::Clamp, Mechanism::Global, policy_, s, d, nullptr).ok);
    EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);
}

TEST_F(BadInput, PitchSmallerThanRowIsRefused) {
    auto s = src();
    s.pitch = 128;
    const auto r = tl::cuda::launch(box(), tl::Border::Clamp, Mechanism::Global, policy_, s, dst(), nullptr);
    EXPECT_FALSE(r.ok);
    EXPECT_NE(r.reason.find("pitch"), std::string::npos) << r.reason;
}

TEST_F(BadInput, NullPointerIsRefused) {
    auto s = src();
    s.data = nullptr;
    for (const auto& m : tl::cuda::mechanism_infos()) {
        const auto r = tl::cuda::launch(box(), tl::Border::Clamp, m.mechanism, policy_, s, dst(), nullptr);
        EXPECT_FALSE(r.ok);
        EXPECT_NE(r.reason.find("null"), std::string::npos) << r.reason;
    }
    EXPECT_TRUE(dst_untouched());
}

TEST_F(BadInput, OverlappingBuffersAreRefused) {
    auto d = src();
    d.data = static_cast<char*>(buf_) + 256 * 10;  // ten rows into the source
    const auto r = tl::cuda::launch(box(), tl::Border::Clamp, Mechanism::Smem, policy_, src(), d, nullptr);
    EXPECT_FALSE(r.ok);
    EXPECT_NE(r.reason.find("overlap"), std::string::npos) << r.reason;
    EXPECT_FALSE(tl::cuda::launch(box(), tl::Border::Clamp, Mechanism::Smem, policy_, src(), src(), nullptr).ok);
}

TEST_F(BadInput, StagesOutOfRangeAreRefused) {
    auto p = policy_;
    p.stages = 5;
    EXPECT_FALSE(tl::cuda::can_run(Mechanism::Ldgsts, box(), tl::PixelFormat::RGBA8, p).ok);
    p.stages = 0;
    EXPECT_FALSE(tl::cuda::launch(box(), tl::Border::Clamp, Mechanism::Ldgsts, p, src(), dst(), nullptr).ok);
    EXPECT_TRUE(dst_untouched());
}

TEST_F(BadInput, KernelErrorNamesTheKernelAndProcessStaysUsable) {
    // While a blocking stream is being captured in global mode, a launch into the legacy default
    // stream is refused by the runtime (cudaErrorStreamCaptureImplicit): a real launch error that
    // is not sticky. The reason must name the kernel, and the next launch must work.
    cudaStream_t capturing = nullptr;
    ASSERT_EQ(cudaStreamCreate(&capturing), cudaSuccess);
    ASSERT_EQ(cudaStreamBeginCapture(capturing, cudaStreamCaptureModeGlobal), cudaSuccess);
    const auto bad = tl::cuda::launch(box(), tl::Border::Clamp, Mechanism::Global, policy_, src(), dst(), nullptr);
    cudaGraph_t graph = nullptr;
    (void)cudaStreamEndCapture(capturing, &graph);
    if (graph) cudaGraphDestroy(graph);
    (void)cudaGetLastError();
    cudaStreamDestroy(capturing);
    EXPECT_FALSE(bad.ok);
    EXPECT_NE(bad.reason.find("kernel stencil_global_kernel"), std::string::npos) << bad.reason;
    // The source is all 0x11, so a box blur of it writes 0x11 everywhere: clear dst first to see it.
    ASSERT_EQ(cudaMemset(dst().data, 0, kBytes / 2), cudaSuccess);
    const auto good = tl::cuda::launch(box(), tl::Border::Clamp, Mechanism::Global, policy_, src(), dst(), nullptr);
    EXPECT_TRUE(good.ok) << good.reason;
    EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    EXPECT_TRUE(dst_untouched()) << "the launch after the error did not produce the blurred image";
}

TEST_F(BadInput, TooManyStagesForSharedMemoryIsAReasonNotACrash) {
    // Box r=32 in RGBA32F with 4 stages needs more shared memory than any GPU has.
    auto p = policy_;
    p.stages = 4;
    std::vector<float> zeros(64 * 64 * 4 * 2, 0.0f);
    void* fbuf = nullptr;
    ASSERT_EQ(cudaMalloc(&fbuf, zeros.size() * 4), cudaSuccess);
    const DeviceImage fs{fbuf, 64 * 16, 64, 32, tl::PixelFormat::RGBA32F};
    const DeviceImage fd{static_cast<char*>(fbuf) + 64 * 16 * 32, 64 * 16, 64, 32, tl::PixelFormat::RGBA32F};
    const auto r = tl::cuda::launch(box(32), tl::Border::Clamp, Mechanism::Ldgsts, p, fs, fd, nullptr);
    if (!r.ok) {
        EXPECT_NE(r.reason.find("shared memory"), std::string::npos) << r.reason;
    }
    EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    cudaFree(fbuf);
}

} // namespace

// The TMA family's radius limit (a tile row plus both halos in one 256-element box row) is known
// before launch, so the UI and `check` can grey the row out: RGBA32F has 4 elements per pixel.
TEST_F(BadInput, TmaRadiusLimitIsKnownBeforeLaunch) {
    tl::cuda::Policy policy;
    for (Mechanism m : {Mechanism::Tma, Mechanism::TmaWs, Mechanism::Cluster}) {
        const auto refused = tl::cuda::can_run(m, box(32), tl::PixelFormat::RGBA32F, policy);
        if (!refused && refused.reason.find("compute capability") != std::string::npos) GTEST_SKIP() << refused.reason;
        EXPECT_FALSE(refused) << "box r=32 on rgba32f fits no TMA box row";
        EXPECT_NE(refused.reason.find("TMA box row"), std::string::npos) << refused.reason;
        EXPECT_TRUE(tl::cuda::can_run(m, box(28), tl::PixelFormat::RGBA32F, policy)) << "r=28 leaves an 8-pixel tile";
        EXPECT_TRUE(tl::cuda::can_run(m, box(32), tl::PixelFormat::RGBA8, policy)) << "rgba8 has one element per pixel";
    }
}

// `registers` holds a 3-row window of packed 8-bit pixels: it runs the 3x3 filters on RGBA8 and
// refuses the rest with the reason before any launch (so the UI greys the row out), leaving the
// destination untouched.
TEST_F(BadInput, RegistersRunsOnly3x3OnRgba8) {
    tl::cuda::Policy policy;
    EXPECT_TRUE(tl::cuda::can_run(Mechanism::Registers, box(1), tl::PixelFormat::RGBA8, policy));
    tl::FilterParams sobel;
    sobel.kind = tl::FilterKind::Sobel;
    EXPECT_TRUE(tl::cuda::can_run(Mechanism::Registers, sobel, tl::PixelFormat::RGBA8, policy));

    const auto wide = tl::cuda::can_run(Mechanism::Registers, box(4), tl::PixelFormat::RGBA8, policy);
    EXPECT_FALSE(wide);
    EXPECT_NE(wide.reason.find("3x3 filters only"), std::string::npos) << wide.reason;
    const auto fp = tl::cuda::can_run(Mechanism::Registers, box(1), tl::PixelFormat::RGBA32F, policy);
    EXPECT_FALSE(fp);
    EXPECT_NE(fp.reason.find("RGBA8 images only"), std::string::npos) << fp.reason;

    const auto launched = tl::cuda::launch(box(4), tl::Border::Clamp, Mechanism::Registers, policy_, src(), dst(), nullptr);
    EXPECT_FALSE(launched.ok);
    EXPECT_NE(launched.reason.find("3x3 filters only"), std::string::npos) << launched.reason;
    EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    EXPECT_TRUE(dst_untouched());
}
