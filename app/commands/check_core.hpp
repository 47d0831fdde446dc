// The correctness matrix behind `tilelab check` and the gpu tests: filter x mechanism x border x
// size x format, each GPU result compared with the CPU reference (tl::reference_filter).
#pragma once

#include "filter_spec.hpp"
#include "image.hpp"
#include "pixel_ops.hpp"
#include "stencil_api.hpp"

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

namespace tl::cmd {

// A filter with representative parameters, and how it is named in the table ("box r=16").
struct CheckCase {
    std::string label;
    FilterParams params;
};

// The Box of this radius and the Gaussian of this sigma, labelled as the table names them
// ("box r=16", "gaussian s=1.5"): check_cases' rows, and the bench's --box-radii and --sigmas.
CheckCase box_case(int radius);
CheckCase gaussian_case(float sigma);

// Representative parameter sets for these filter kinds (all kinds when empty):
// box r=1,4,16,32; gaussian 0.5,1.5,3,5,7,10; sobel; laplacian; sharpen; emboss; user 3x3, 5x5.
std::vector<CheckCase> check_cases(const std::vector<FilterKind>& kinds = {});

// A per-pixel op chain for the fused rows (launch_fused: the stencil, then the chain, in one kernel).
struct FusedChain {
    std::string label;
    std::vector<PixelOp> ops;
};

struct CheckConfig {
    std::vector<std::pair<int, int>> sizes;  // width, height
    std::vector<CheckCase> cases;
    std::vector<cuda::Mechanism> mechanisms;
    std::vector<Border> borders;
    std::vector<PixelFormat> formats;
    // RGBA8 only: every (case, mechanism, border, size) also runs fused with each of these chains
    // and is compared with the CPU reference of the filter followed by the chain.
    std::vector<FusedChain> fused_chains;
    // RGBA32F rows only for sizes up to this many pixels (the 4K float reference is slow on CPU).
    long long float_max_pixels = 1'000'000;
    cuda::Policy policy;
};

// The chain of the default fused rows: invert, brightness-contrast, saturation and a colour matrix,
// each changing a value by at most as much as its input changed (gain <= 1), so the stencil's own
// 1 LSB tolerance against the CPU reference still holds after the chain. (A LUT or a threshold
// would turn that 1 LSB into any difference; tests/gpu/test_fused.cpp checks such chains against
// the two-pass GPU path bit for bit instead.)
FusedChain default_fused_chain();

// The default matrix (sizes 1x1, 17x9, 129x65, 4097x3, 3840x2160; every case, mechanism, border;
// rgba8 everywhere and rgba32f for the smaller sizes; rgba8 fused with default_fused_chain() and
// a per-channel chain, which the fused kernels of the 3x3 filters fold into byte tables).
CheckConfig default_check_config();

enum class CheckStatus { Pass, Fail, Unavailable };

struct CheckRow {
    std::string filter;
    std::string ops;  // the fused chain's label; empty for a plain stencil row
    cuda::Mechanism mechanism;
    Border border;
    PixelFormat format;
    int width = 0, height = 0;
    CheckStatus status = CheckStatus::Pass;
    double max_diff = 0.0;
    std::string detail;  // reason when unavailable, worst pixel / first failure when failing
};

struct CheckSummary {
    int pass = 0, fail = 0, unavailable = 0;
    std::string fatal;  // set when the matrix could not run at all (no CUDA device, out of memory)
    bool ok() const { return fatal.empty() && fail == 0; }
};

// The byte every check writes over an output buffer before its run, so that an unwritten pixel
// or a write into a row's padding shows.
inline constexpr std::uint8_t kCheckPoison = 0xCD;

// Verdict on one downloaded output: `got` holds want's size and format in rows of `pitch` bytes
// whose padding was poisoned with kCheckPoison. Fails when a pixel is further than `tolerance`
// from `want` (the detail names `tolerance_name`), else when a padding byte was written.
struct OutputVerdict {
    double max_diff = 0.0;
    std::string failure;  // empty when the output passes
};
OutputVerdict judge_output(const std::uint8_t* got, std::size_t pitch, const Image& want, double tolerance,
                           const std::string& tolerance_name);

// Runs the matrix; on_row (may be empty) sees every row as it completes.
CheckSummary run_check_matrix(const CheckConfig& config, const std::function<void(const CheckRow&)>& on_row);

} // namespace tl::cmd
