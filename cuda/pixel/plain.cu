// Mechanism "plain": one pixel per thread per step, grid-stride, an ordinary 4-byte (RGBA8) or
// 16-byte (RGBA32F) load and store per pixel. The baseline the other mechanisms are measured against.
#include "pixel_kernels.cuh"

namespace tl::cuda::pixel {

namespace {

template <class Fmt>
__global__ void pixel_plain_kernel(const PixelGrid g, const __grid_constant__ OpsBlock ops) {
    extern __shared__ __align__(16) uint4 dyn[];  // the chain's LUTs, staged (none without a Lut op)
    StagedLuts& luts = *reinterpret_cast<StagedLuts*>(dyn);
    load_luts(ops, luts);
    __syncthreads();
    const unsigned total = unsigned(g.rows) * unsigned(g.row_px);
    for (unsigned p = blockIdx.x * blockDim.x + threadIdx.x; p < total; p += gridDim.x * blockDim.x) {
        const unsigned row = p / unsigned(g.row_px);
        const unsigned x = p - row * unsigned(g.row_px);
        const auto* s = reinterpret_cast<const typename Fmt::Pixel*>(g.src + std::size_t(row) * g.src_pitch) + x;
        auto* d = reinterpret_cast<typename Fmt::Pixel*>(g.dst + std::size_t(row) * g.dst_pitch) + x;
        *d = Fmt::process(*s, ops, luts);
    }
}

template <class Fmt>
Result launch_fmt(const LaunchArgs& a) {
    const auto kernel = pixel_plain_kernel<Fmt>;
    const int block = a.policy.block;
    const long long pixels = static_cast<long long>(a.grid.rows) * a.grid.row_px;
    const std::size_t smem = staged_lut_bytes(a.ops);
    int grid = 0;
    if (auto r = occupancy_grid(reinterpret_cast<const void*>(kernel), "pixel_plain_kernel", block, smem,
                                (pixels + block - 1) / block, a.device, grid);
        !r)
        return r;
    kernel<<<grid, block, smem, a.stream>>>(a.grid, a.ops);
    return launch_outcome("pixel_plain_kernel");
}

} // namespace

Result launch_plain(const LaunchArgs& a) {
    return a.grid.format == int(PixelFormat::RGBA8) ? launch_fmt<Rgba8>(a) : launch_fmt<Rgba32f>(a);
}

} // namespace tl::cuda::pixel
