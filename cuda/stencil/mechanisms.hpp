// Internal: one launch function per mechanism, each defined in its own file of this folder.
// launch.cpp validates the request and dispatches through kMechanismLaunchers.
#pragma once

#include "stencil_api.hpp"

#include <cuda_runtime.h>

namespace tl::cuda::pixel {
struct OpsBlock;
} // namespace tl::cuda::pixel

namespace tl::cuda::detail {

struct LaunchArgs {
    const FilterParams& params;
    Border border;
    const Policy& policy;
    const DeviceImage& src;
    const DeviceImage& dst;
    cudaStream_t stream;
    // launch_fused: the per-pixel chain each output goes through before it is stored (RGBA8 only);
    // null for launch().
    const pixel::OpsBlock* ops = nullptr;
};

using Launcher = Result (*)(const LaunchArgs&);

// The block of the mechanisms that read Policy::block_x/y (launch.cpp checks <= 256 threads).
inline dim3 policy_block(const LaunchArgs& a) {
    return dim3(static_cast<unsigned>(a.policy.block_x), static_cast<unsigned>(a.policy.block_y));
}
// One thread per output pixel: the grid of policy_block(a) blocks that covers the image.
inline dim3 pixel_grid(const LaunchArgs& a) {
    const dim3 b = policy_block(a);
    return dim3((static_cast<unsigned>(a.src.width) + b.x - 1) / b.x, (static_cast<unsigned>(a.src.height) + b.y - 1) / b.y);
}

Result launch_global(const LaunchArgs& a);   // global.cu
Result launch_texture(const LaunchArgs& a);  // texture.cu
// texture.cu: the texture kernel on the caller's array (tl::cuda::launch_texture_array).
Result launch_texture_on_array(const LaunchArgs& a, const void* cuda_array);
void forget_texture_array(const void* cuda_array);
Result launch_registers(const LaunchArgs& a);  // registers.cu
// Empty when the registers mechanism runs this filter and format (3x3 filters on RGBA8), else why not.
std::string registers_refusal(const FilterParams& params, PixelFormat format);
Result launch_smem(const LaunchArgs& a);     // smem.cu
Result launch_ldgsts(const LaunchArgs& a);   // ldgsts.cu
Result launch_tma(const LaunchArgs& a);      // tma.cu
Result launch_tma_ws(const LaunchArgs& a);   // tma_ws.cu
Result launch_cluster(const LaunchArgs& a);  // cluster.cu

// Properties of the current device, read once per device (launch.cpp); launchers size their
// shared memory and persistent grids from it.
const cudaDeviceProp& current_device_props();

// Peak DRAM bytes per SM clock cycle of the current device: 2 x memory clock x bus width over
// SM count x SM clock, from the device attributes; 0 where the driver reports none of them.
// H100 SXM 12.8, H200 18.4 (measured): where it is high, the bandwidth-light kernels are bound by
// their issued instructions rather than by DRAM (launch_registers picks its load form by it).
double dram_bytes_per_sm_cycle();
// From how many of those bytes a GPU counts as issue-bound for these kernels: between the H100's
// 12.8 and the H200's 18.4, the two GPUs measured. Above it, `registers` loads an inside work item
// through one address and the Box stream runs radius 2-7 warp-specialised.
constexpr double kIssueBoundDramBytesPerSmCycle = 16.0;

// "kernel <name>: <cudaGetErrorString>" when the launch just made failed (and clears the error so
// the process stays usable); success otherwise.
Result launch_error(const char* kernel_name);

} // namespace tl::cuda::detail
