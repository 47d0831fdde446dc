// Mechanism "global": one output pixel per thread, every neighbour read straight from global
// memory with the border folded per load; the caches are the only reuse.
#include "mechanisms.hpp"
#include "filters.cuh"

namespace tl::cuda::detail {

namespace {

using namespace tl::cuda::dev;

template <class Filter, class Pixel>
__global__ void __launch_bounds__(256) stencil_global_kernel(const __grid_constant__ Filter f, const void* src, std::size_t src_pitch, void* dst,
                                                             std::size_t dst_pitch, int w, int h, Border border) {
    stage_epilogue(f);
    if constexpr (is_fused_v<Filter>) __syncthreads();  // the staged LUTs, before any thread leaves
    const int x = blockIdx.x * blockDim.x + threadIdx.x;
    const int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= w || y >= h) return;
    auto win = [&](int dx, int dy) {
        return Pixel::to_float(load_bordered<Pixel>(src, src_pitch, w, h, x + dx, y + dy, border));
    };
    row_ptr<Pixel>(dst, dst_pitch, y)[x] = finish<Pixel>(f, f(win));
}

} // namespace

Result launch_global(const LaunchArgs& a) {
    return dev::with_pixel(a.src.format, [&](auto pixel) -> Result {
        using Pixel = decltype(pixel);
        return dev::with_filter(a.params, [&](auto filter0) -> Result {
          return dev::with_epilogue<Pixel>(filter0, a.ops, [&](const auto& filter) -> Result {
            using Filter = std::decay_t<decltype(filter)>;
            stencil_global_kernel<Filter, Pixel><<<pixel_grid(a), policy_block(a), 0, a.stream>>>(
                filter, a.src.data, a.src.pitch, a.dst.data, a.dst.pitch, a.src.width, a.src.height, a.border);
            return launch_error("stencil_global_kernel");
          });
        });
    });
}

} // namespace tl::cuda::detail
