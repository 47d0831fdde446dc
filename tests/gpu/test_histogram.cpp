// CUB histogram of RGBA8 device images against a CPU count: noise, a constant image, pitched rows,
// growing sizes with one object, refusals; auto-levels on a GPU histogram end to end.
#include "pixel_api.hpp"
#include "reference.hpp"

#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <utility>

namespace {

using tl::Image;
using tl::PixelFormat;
using tl::cuda::ChannelHistograms;
using tl::cuda::Histogram;

std::string device_problem() {
    const tl::cuda::Result st = tl::cuda::cuda_status();
    return st ? std::string() : st.reason;
}

// A pitched device copy of a host image (pitch = row rounded up to 16 plus 48 bytes of padding,
// filled with 0xCD: the histogram must not count padding).
struct DevCopy {
    void* ptr = nullptr;
    std::size_t pitch = 0;
    tl::cuda::DeviceImage view{};
    explicit DevCopy(const Image& img) {
        const std::size_t row = img.pitch();
        pitch = (row + 15) / 16 * 16 + 48;
        EXPECT_EQ(cudaMalloc(&ptr, pitch * static_cast<std::size_t>(img.height)), cudaSuccess);
        EXPECT_EQ(cudaMemset(ptr, 0xCD, pitch * static_cast<std::size_t>(img.height)), cudaSuccess);
        EXPECT_EQ(cudaMemcpy2D(ptr, pitch, img.bytes.data(), row, row, img.height, cudaMemcpyHostToDevice), cudaSuccess);
        view = {ptr, pitch, img.width, img.height, img.format};
    }
    ~DevCopy() { cudaFree(ptr); }
    DevCopy(const DevCopy&) = delete;
    DevCopy& operator=(const DevCopy&) = delete;
};

ChannelHistograms cpu_count(const Image& img) {
    ChannelHistograms h{};
    for (int y = 0; y < img.height; ++y)
        for (int x = 0; x < img.width; ++x)
            for (int c = 0; c < 3; ++c) ++h[static_cast<std::size_t>(c)][img.rgba8(x, y)[c]];
    return h;
}

Image noise(int w, int h, unsigned seed) {
    Image img(w, h, PixelFormat::RGBA8);
    std::mt19937 rng(seed);
    for (auto& b : img.bytes) b = static_cast<std::uint8_t>(rng() & 0xffu);
    return img;
}

class HistogramTest : public ::testing::Test {
protected:
    void SetUp() override {
        if (const std::string p = device_problem(); !p.empty()) GTEST_SKIP() << p;
    }
    static void expect_counts(Histogram& hist, const Image& img) {
        DevCopy d(img);
        const auto r = hist.compute(d.view, nullptr);
        ASSERT_TRUE(r.ok) << r.reason;
        ChannelHistograms got{};
        const auto rr = hist.read(got, nullptr);
        ASSERT_TRUE(rr.ok) << rr.reason;
        const ChannelHistograms want = cpu_count(img);
        for (std::size_t c = 0; c < 3; ++c)
            for (std::size_t i = 0; i < 256; ++i)
                ASSERT_EQ(got[c][i], want[c][i]) << "channel " << c << " bin " << i << " of a " << img.width << "x"
                                                 << img.height << " image";
    }
};

TEST_F(HistogramTest, NoiseMatchesCpuCountAtEverySize) {
    Histogram hist;  // one object: temp storage grows across the sizes
    for (auto [w, h] : {std::pair{1, 1}, std::pair{17, 9}, std::pair{4097, 3}, std::pair{1920, 1080},
                        std::pair{3840, 2160}, std::pair{17, 9}}) {
        SCOPED_TRACE(std::to_string(w) + "x" + std::to_string(h));
        expect_counts(hist, noise(w, h, static_cast<unsigned>(w * 7 + h)));
    }
}

TEST_F(HistogramTest, ConstantImageFillsOneBinPerChannel) {
    Image img(640, 480, PixelFormat::RGBA8);
    for (int y = 0; y < img.height; ++y)
        for (int x = 0; x < img.width; ++x) {
            std::uint8_t* p = img.rgba8(x, y);
            p[0] = 10;
            p[1] = 200;
            p[2] = 255;
            p[3] = 0;  // alpha is not counted
        }
    Histogram hist;
    expect_counts(hist, img);
    ChannelHistograms got{};
    ASSERT_TRUE(hist.read(got, nullptr).ok);
    EXPECT_EQ(got[0][10], 640u * 480u);
    EXPECT_EQ(got[1][200], 640u * 480u);
    EXPECT_EQ(got[2][255], 640u * 480u);
    // Auto-levels pools R, G and B (one black and one white point keeps the colour balance), so
    // here the pooled samples are a third each at 10, 200 and 255: black 10, white 255.
    const tl::PixelOp lv = tl::cuda::auto_levels(got);
    EXPECT_EQ(lv.kind, tl::PixelOpKind::Levels);
    EXPECT_EQ(lv.a, 10.0f / 255.0f);
    EXPECT_EQ(lv.b, 1.0f);
}

TEST_F(HistogramTest, MovedObjectKeepsWorking) {
    Histogram a;
    expect_counts(a, noise(33, 5, 1));
    Histogram b(std::move(a));
    expect_counts(b, noise(65, 7, 2));
    Histogram c;
    c = std::move(b);
    expect_counts(c, noise(129, 3, 3));
}

TEST_F(HistogramTest, Refusals) {
    Histogram hist;
    ChannelHistograms out{};
    auto r = hist.read(out, nullptr);
    EXPECT_FALSE(r.ok);
    EXPECT_NE(r.reason.find("nothing computed yet"), std::string::npos) << r.reason;
    r = hist.compute(tl::cuda::DeviceImage{}, nullptr);
    EXPECT_FALSE(r.ok);
    EXPECT_NE(r.reason.find("no device pointer"), std::string::npos) << r.reason;
    Image f(8, 8, PixelFormat::RGBA32F);
    DevCopy d(f);
    r = hist.compute(d.view, nullptr);
    EXPECT_FALSE(r.ok);
    EXPECT_NE(r.reason.find("only RGBA8"), std::string::npos) << r.reason;
}

// GPU histogram -> auto_levels -> launch_pixel_ops: a low-contrast image comes out spanning 0..255.
TEST_F(HistogramTest, AutoLevelsStretchesALowContrastImage) {
    Image img(256, 128, PixelFormat::RGBA8);
    std::mt19937 rng(9);
    for (auto& b : img.bytes) b = static_cast<std::uint8_t>(60 + rng() % 101);  // 60..160
    DevCopy src(img);
    Histogram hist;
    ASSERT_TRUE(hist.compute(src.view, nullptr).ok);
    ChannelHistograms h{};
    ASSERT_TRUE(hist.read(h, nullptr).ok);
    const tl::PixelOp lv = tl::cuda::auto_levels(h, 0.0f, 100.0f);
    EXPECT_FLOAT_EQ(lv.a, 60.0f / 255.0f);
    EXPECT_FLOAT_EQ(lv.b, 160.0f / 255.0f);

    DevCopy dst(img);
    const std::vector<tl::PixelOp> ops{lv};
    const auto r = tl::cuda::launch_pixel_ops(ops, tl::cuda::PixelMechanism::Vector, {}, src.view, dst.view, nullptr);
    ASSERT_TRUE(r.ok) << r.reason;
    ASSERT_TRUE(hist.compute(dst.view, nullptr).ok);
    ASSERT_TRUE(hist.read(h, nullptr).ok);
    for (std::size_t c = 0; c < 3; ++c) {
        EXPECT_GT(h[c][0], 0u) << "channel " << c << " has no black after auto-levels";
        EXPECT_GT(h[c][255], 0u) << "channel " << c << " has no white after auto-levels";
    }
}

} // namespace
