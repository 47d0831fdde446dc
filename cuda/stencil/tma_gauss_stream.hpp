// The tma mechanism's Gaussian path for RGBA8 (tma_gauss_stream.cu): CTAs that stream TMA row
// blocks down a 64-column strip (128 for the Gaussian alone at radius 9-12) and run the tensor-core
// band products of band_mma.cuh on them;
// tma.cu's launch_tma tries it first.
#pragma once

#include "mechanisms.hpp"

#include <optional>

namespace tl::cuda::detail {

struct HopperDevice;  // tma_common.cuh

// The launch's result when the column-streaming Gaussian kernel handles this request (Gaussian,
// RGBA8, radius 1..12, no TMA store asked for); nullopt when it does not apply, so the caller
// runs the tile path instead.
std::optional<Result> launch_tma_gauss_stream(const LaunchArgs& a, const HopperDevice& dev);

} // namespace tl::cuda::detail
