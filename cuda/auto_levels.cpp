// Auto-levels: a Levels op from histogram percentiles (pure host code, built with or without CUDA).
#include "pixel_api.hpp"

#include <algorithm>
#include <cmath>

namespace tl::cuda {

PixelOp auto_levels(const ChannelHistograms& hist, float low_pct, float high_pct) {
    PixelOp identity = default_pixel_op(PixelOpKind::Levels);

    // Pooling the three channels gives one black and one white point for R, G and B together:
    // stretching each channel separately would also shift the colour balance.
    std::array<unsigned long long, 256> pooled{};
    unsigned long long total = 0;
    for (const auto& channel : hist)
        for (std::size_t i = 0; i < 256; ++i) {
            pooled[i] += channel[i];
            total += channel[i];
        }
    if (total == 0 || !std::isfinite(low_pct) || !std::isfinite(high_pct)) return identity;
    low_pct = std::clamp(low_pct, 0.0f, 100.0f);
    high_pct = std::clamp(high_pct, 0.0f, 100.0f);
    if (low_pct >= high_pct) return identity;

    // Thresholds in samples, in double so that 4K x 3 channels (25M samples) stays exact enough.
    const double low_count = double(total) * double(low_pct) / 100.0;
    const double high_count = double(total) * double(high_pct) / 100.0;
    int black = -1, white = -1;
    unsigned long long cumulative = 0;
    for (int i = 0; i < 256; ++i) {
        cumulative += pooled[static_cast<std::size_t>(i)];
        if (black < 0 && double(cumulative) > low_count) black = i;
        if (white < 0 && double(cumulative) >= high_count && cumulative > 0) white = i;
    }
    if (black < 0 || white < 0 || white <= black) return identity;

    PixelOp op = identity;
    op.a = float(black) / 255.0f;
    op.b = float(white) / 255.0f;
    op.c = 1.0f;
    return op;
}

} // namespace tl::cuda
