// Mechanism "smem": each block copies its tile plus halo from global to shared memory with plain
// loads (global -> register -> shared), waits at a barrier, then computes from shared memory.
#include "mechanisms.hpp"
#include "tile_compute.cuh"

namespace tl::cuda::detail {

namespace {

using namespace tl::cuda::dev;

// Shared memory: input tile (th + 2r, tw + 2r) Storage, then the float4 strip of separable filters.
template <class Filter, class Pixel>
__global__ void __launch_bounds__(256) stencil_smem_kernel(const __grid_constant__ Filter f, TileShape s, const void* src, std::size_t src_pitch,
                                                           void* dst, std::size_t dst_pitch, int w, int h, Border border) {
    using Storage = typename Pixel::Storage;
    extern __shared__ float4 smem_raw[];
    Storage* in = reinterpret_cast<Storage*>(smem_raw);
    const int in_rows = s.th + 2 * s.r, span = s.tw + 2 * s.r;
    float4* strip = reinterpret_cast<float4*>(reinterpret_cast<char*>(smem_raw) + strip_offset(s, 1, sizeof(Storage)));
    const int x0 = blockIdx.x * s.tw, y0 = blockIdx.y * s.th;
    stage_epilogue(f);  // published by the barrier after the copy
    // Cooperative copy; consecutive threads take consecutive pixels of a row (coalesced).
    for (int ly = threadIdx.y; ly < in_rows; ly += blockDim.y)
    for (int lx = threadIdx.x; lx < span; lx += blockDim.x) {
        in[ly * s.stride + lx] = load_bordered<Pixel>(src, src_pitch, w, h, x0 - s.r + lx, y0 - s.r + ly, border);
    }
    __syncthreads();
    compute_tile<Filter, Pixel>(f, in, strip, s, x0, y0, dst, dst_pitch, w, h);
}

} // namespace

Result launch_smem(const LaunchArgs& a) {
    return dev::with_pixel(a.src.format, [&](auto pixel) -> Result {
        using Pixel = decltype(pixel);
        return dev::with_filter(a.params, [&](auto filter_in) -> Result {
            // A 5x5 user kernel on RGBA8: its float form over raw bytes (UserKernel5Filter).
            return dev::with_user5_planar<Pixel>(filter_in, [&](auto filter0) -> Result {
                return dev::with_epilogue<Pixel>(filter0, a.ops, [&](const auto& filter) -> Result {
                    using Filter = std::decay_t<decltype(filter)>;
                    const auto& prop = current_device_props();
                    std::size_t smem = 0;
                    const TileShape s =
                        plan_tile(functor_radius(filter), sizeof(typename Pixel::Storage),
                                  Separable<base_filter_t<Filter>>::value, 1,
                                  prop.sharedMemPerBlockOptin - epilogue_smem_bytes(a.ops), 1, &smem);
                    if (s.tw == 0)
                        return Result::fail("smem: the tile for this radius does not fit in shared memory");
                    auto kernel = stencil_smem_kernel<Filter, Pixel>;
                    // Above 48 KB in all (the fused kernels' static LUT tables count too) needs the opt-in.
                    if (smem + epilogue_smem_bytes(a.ops) + 1024 > 48 * 1024)
                        cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                             static_cast<int>(smem));
                    const dim3 grid((a.src.width + s.tw - 1) / s.tw, (a.src.height + s.th - 1) / s.th);
                    kernel<<<grid, policy_block(a), smem, a.stream>>>(filter, s, a.src.data, a.src.pitch,
                                                                      a.dst.data, a.dst.pitch, a.src.width,
                                                                      a.src.height, a.border);
                    return launch_error("stencil_smem_kernel");
                });
            });
        });
    });
}

} // namespace tl::cuda::detail
