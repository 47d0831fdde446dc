// The per-pixel half of `tilelab check`: op chain x pixel mechanism x stages x size against
// tl::reference_pixel_ops (1 LSB, RGBA8), destinations poisoned; and the CUB histogram against a
// CPU count.
#pragma once

#include "check_core.hpp"
#include "pixel_ops_flags.hpp"

#include <functional>
#include <string>
#include <utility>
#include <vector>

namespace tl::cmd {

// How source and destination sit in memory. Padded: both pitches padded and different (multiples
// of 16). Packed: both tightly packed (pitch = width * 4, not a multiple of 16 for odd widths:
// the vector/ldgsts/bulk exception for packed images). InPlace: src and dst the same padded image.
enum class PixelLayout { Padded, Packed, InPlace };

inline const char* to_string(PixelLayout l) {
    switch (l) {
    case PixelLayout::Padded: return "padded";
    case PixelLayout::Packed: return "packed";
    case PixelLayout::InPlace: return "inplace";
    }
    return "?";
}

struct PixelCheckConfig {
    std::vector<std::pair<int, int>> sizes;  // width, height
    std::vector<PixelCase> cases;
    std::vector<PixelRun> runs;              // CUDA mechanisms only
    std::vector<PixelLayout> layouts;
    bool histogram = true;                   // one histogram row per size
};

// Sizes 1x1, 17x9, 4097x3, 3840x2160; every op alone, chain3 and chain8; the full sweep; every
// layout.
PixelCheckConfig default_pixel_check_config();

struct PixelCheckRow {
    std::string ops;        // case label, or "histogram"
    std::string mechanism;  // run label ("ldgsts s3"), or "cub"
    PixelLayout layout = PixelLayout::Padded;
    int width = 0, height = 0;
    CheckStatus status = CheckStatus::Pass;
    double max_diff = 0.0;
    std::string detail;
};

// Runs the matrix; counts land in a CheckSummary like the stencil rows'. `fatal` is set when
// nothing could run (no CUDA device, out of memory).
CheckSummary run_pixel_check_matrix(const PixelCheckConfig& config,
                                    const std::function<void(const PixelCheckRow&)>& on_row);

} // namespace tl::cmd
