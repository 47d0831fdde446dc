// The tma mechanism's Box path for RGBA8 (tma_box_stream.cu): CTAs that stream TMA row blocks down
// a vertical strip and keep integer running sums; tma.cu's launch_tma tries it first.
#pragma once

#include "mechanisms.hpp"

#include <optional>

namespace tl::cuda::detail {

struct HopperDevice;  // tma_common.cuh

// The launch's result when the column-streaming Box kernel handles this request (Box, RGBA8,
// a radius it is wired for, no TMA store asked for, its ring fits in shared memory); nullopt
// when it does not apply, so the caller runs the tile path instead.
std::optional<Result> launch_tma_box_stream(const LaunchArgs& a, const HopperDevice& dev);

// The same kernel with no radius gate (any radius 1..32): for tests and measurements that compare
// it with the tile path on radii where launch_tma does not pick it; refuses on a GPU without TMA.
// nullopt as above otherwise.
// `form` picks the kernel for radius 2-8, which has two (launch_tma_box_stream chooses by the GPU,
// see launch_box_stream), so that tests run both on any GPU; other radii have one.
enum class BoxStreamForm { AsLaunched, EightRowBlocks, WarpSpecialised };
// `refill` picks where the warp-specialised kernels without a double-buffered team (radius 8-16)
// refill their ring: at the end of each block's vertical pass, or at the next block's start
// (launch_tma_box_stream chooses by the GPU), so that tests run both on any GPU.
enum class BoxStreamRefill { AsLaunched, AtBlockStart, AtBlockEnd };
std::optional<Result> launch_tma_box_stream_any_radius(const LaunchArgs& a,
                                                       BoxStreamForm form = BoxStreamForm::AsLaunched,
                                                       BoxStreamRefill refill = BoxStreamRefill::AsLaunched);

} // namespace tl::cuda::detail
