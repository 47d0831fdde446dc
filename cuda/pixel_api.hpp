// Host API of the CUDA per-pixel library: a chain of PixelOps applied in one pass, written with
// each way of keeping memory busy (plain, vector, ldgsts, bulk), a CUB histogram and auto-levels.
// Plain C++ (no CUDA headers): the app and the tests include this, never a .cuh.
#pragma once

#include "pixel_ops.hpp"
#include "stencil_api.hpp"

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string_view>

namespace tl::cuda {

// One value per way of moving pixels between global memory and the registers that compute.
enum class PixelMechanism { Plain, Vector, Ldgsts, Bulk };

// Tunables; each mechanism documents which it reads.
struct PixelPolicy {
    int stages = 2;           // ldgsts / bulk: batches in flight per CTA (1..4)
    int block = 256;          // threads per block, a multiple of 32 in 32..1024 (all mechanisms)
    bool bulk_store = false;  // bulk: write results back with a bulk copy shared -> global
    int batch_pixels = 0;     // ldgsts / bulk: pixels per batch (one ring slot); 0 = mechanism default
};

// One row of the table that drives the UI, the command line, the benchmark and the tests.
struct PixelMechanismInfo {
    PixelMechanism mechanism;
    std::string_view name;         // command-line name: "plain", "vector", "ldgsts", "bulk"
    std::string_view label;        // UI label
    int min_cc_major, min_cc_minor;
    std::string_view instruction;  // SASS instruction the mechanism is built on ("LDGSTS", "UBLKCP"); empty for none
    std::string_view explanation;  // a paragraph for the explain panel
};

// The longest chain launch_pixel_ops accepts, and how many of its ops may be LUTs
// (the ops travel as one kernel parameter block, LUTs included, so nothing is uploaded).
inline constexpr int kMaxPixelOps = 16;
inline constexpr int kMaxPixelLuts = 4;

std::span<const PixelMechanismInfo> pixel_mechanism_infos();
const PixelMechanismInfo& pixel_mechanism_info(PixelMechanism m);
std::optional<PixelMechanism> parse_pixel_mechanism(std::string_view name);
std::string_view to_string(PixelMechanism m);

// Whether the current device can run this mechanism with this policy and format
// (RGBA8 and RGBA32F are both supported by every mechanism).
Result can_run_pixel(PixelMechanism m, const PixelPolicy& policy, PixelFormat format);

// Applies `ops` in order to every pixel of src, writing dst, on `stream` (a cudaStream_t as void*).
// Semantics are tl::reference_pixel_ops (cuda/reference.hpp). Everything is checked before any
// launch (ops, sizes, pointers, pitch and pointer alignment, policy, capability); a refusal
// returns the reason and launches nothing. src and dst may be the same image but must not
// otherwise overlap. Alignment: plain needs pixel-aligned pointers and pitches; vector, ldgsts and
// bulk need 16-byte aligned pointers and, unless both images are tightly packed, pitches that
// are multiples of 16. The ops are passed by value in the kernel's parameter block, so calls
// back to back on one stream, or on different streams, never race on an upload.
Result launch_pixel_ops(std::span<const PixelOp> ops, PixelMechanism m, const PixelPolicy& policy,
                        const DeviceImage& src, const DeviceImage& dst, void* stream);

// Per-channel (R, G, B) 256-bin histograms of an RGBA8 device image, computed with
// cub::DeviceHistogram::MultiHistogramEven. The temporary storage and the counters are
// allocated on first use and grown when needed, never per call. One object serves one stream at
// a time (compute and read on the same stream). No luma channel: luma is not an input channel
// of MultiHistogramEven and would need a second pass.
using ChannelHistograms = std::array<std::array<std::uint32_t, 256>, 3>;

class Histogram {
public:
    Histogram();
    ~Histogram();
    Histogram(const Histogram&) = delete;
    Histogram& operator=(const Histogram&) = delete;
    Histogram(Histogram&& other) noexcept;
    Histogram& operator=(Histogram&& other) noexcept;

    Result compute(const DeviceImage& img, void* stream);  // asynchronous on `stream`
    Result read(ChannelHistograms& out, void* stream);     // copies the counts, waits on `stream`

private:
    void release() noexcept;
    void* temp_ = nullptr;          // CUB temporary storage
    std::size_t temp_bytes_ = 0;
    void* counts_ = nullptr;        // 3 x 256 uint32 on the device
    bool computed_ = false;         // read() before any compute() is refused
};

// Auto-levels: black and white points from percentiles of the pooled R+G+B histogram, as one
// Levels op (gamma 1), so colours keep their balance. black = the first level whose cumulative
// count exceeds low_pct % of all samples, white = the first level whose cumulative count reaches
// high_pct %. Percentiles are clamped to 0..100. When the histogram is empty, low_pct >= high_pct,
// or white <= black (a flat image), the result is the identity Levels op (0, 1, 1).
// Pure host code (cuda/auto_levels.cpp), available with or without CUDA.
PixelOp auto_levels(const ChannelHistograms& hist, float low_pct = 0.5f, float high_pct = 99.5f);

} // namespace tl::cuda
