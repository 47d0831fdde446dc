// Per-CTA clocks of the stream kernels, a diagnostic compiled in only with the CMake option
// TILELAB_CTA_CLOCKS (TL_CTA_CLOCKS defined): each CTA stamps %globaltimer when it has its segment,
// its %smid, strip and segment; every warp stamps its end (the CTA's end is the latest). With the
// environment variable TILELAB_CTA_CLOCKS=file, the launcher appends one launch's records to the
// file (per stream kernel, the TILELAB_CTA_CLOCKS_LAUNCH-th launch at each radius, 12 by default:
// past a bench's untimed pass) after synchronising its stream. scripts/cta-clocks.py reads them.
// Sessions 8-26 used such clocks to find which CTAs set a stream kernel's time (launch rank on the
// SM, edge strips, the image's top and bottom segments: docs/performance-notes.md).
#pragma once

#ifdef TL_CTA_CLOCKS
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>

namespace tl::cuda::detail::cta_clocks {

inline constexpr int kMaxCtas = 16384;
// start ns, end ns, smid | strip << 16 | segment << 32 | segments << 48
static __device__ unsigned long long g_records[kMaxCtas][3];

__device__ __forceinline__ unsigned long long global_ns() {
    unsigned long long t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}
// Thread 0, once the CTA knows its strip and segment (segments: the strip's count).
__device__ __forceinline__ void begin(int strip, int seg, int segments) {
    if (threadIdx.x != 0 || blockIdx.x >= kMaxCtas) return;
    unsigned sm;
    asm volatile("mov.u32 %0, %%smid;" : "=r"(sm));
    g_records[blockIdx.x][0] = global_ns();
    g_records[blockIdx.x][2] = (unsigned long long)(sm & 0xffffu) | (unsigned long long)(strip & 0xffff) << 16 |
                               (unsigned long long)(seg & 0xffff) << 32 | (unsigned long long)(segments & 0xffff) << 48;
}
// Every thread at the kernel's end (lane 0 of each warp stamps).
__device__ __forceinline__ void end() {
    if ((threadIdx.x & 31) == 0 && blockIdx.x < kMaxCtas) atomicMax(&g_records[blockIdx.x][1], global_ns());
}

// Host, around a launch (static: each translation unit reads its own g_records).
static inline bool wanted() { return std::getenv("TILELAB_CTA_CLOCKS") != nullptr; }
static inline void before(cudaStream_t s) {
    if (!wanted()) return;
    void* p = nullptr;
    if (cudaGetSymbolAddress(&p, g_records) == cudaSuccess) cudaMemsetAsync(p, 0, sizeof(g_records), s);
}
static inline void after(const char* kernel, int radius, int grid, int strips, cudaStream_t s) {
    static int launches[64];
    const char* path = std::getenv("TILELAB_CTA_CLOCKS");
    if (!path || radius < 0 || radius >= 64) return;
    const char* nth = std::getenv("TILELAB_CTA_CLOCKS_LAUNCH");
    if (++launches[radius] != (nth ? std::atoi(nth) : 12)) return;
    static unsigned long long h[kMaxCtas][3];
    const int n = grid < kMaxCtas ? grid : kMaxCtas;
    if (cudaStreamSynchronize(s) != cudaSuccess ||
        cudaMemcpyFromSymbol(h, g_records, sizeof(unsigned long long) * 3 * std::size_t(n)) != cudaSuccess)
        return;
    FILE* f = std::fopen(path, "a");
    if (!f) return;
    std::fprintf(f, "# %s radius %d grid %d strips %d\n", kernel, radius, grid, strips);
    for (int i = 0; i < n; ++i)
        std::fprintf(f, "%d %llu %llu %llu %llu %llu %llu\n", i, h[i][2] & 0xffffu, (h[i][2] >> 16) & 0xffffu,
                     (h[i][2] >> 32) & 0xffffu, h[i][2] >> 48, h[i][0], h[i][1]);
    std::fclose(f);
}

} // namespace tl::cuda::detail::cta_clocks
#define TL_CTA_CLOCKS_BEGIN(strip, seg, segments) ::tl::cuda::detail::cta_clocks::begin(strip, seg, segments)
#define TL_CTA_CLOCKS_END() ::tl::cuda::detail::cta_clocks::end()
#define TL_CTA_CLOCKS_BEFORE(stream) ::tl::cuda::detail::cta_clocks::before(stream)
#define TL_CTA_CLOCKS_AFTER(kernel, radius, grid, strips, stream) \
    ::tl::cuda::detail::cta_clocks::after(kernel, radius, grid, strips, stream)
#else
#define TL_CTA_CLOCKS_BEGIN(strip, seg, segments) ((void)0)
#define TL_CTA_CLOCKS_END() ((void)0)
#define TL_CTA_CLOCKS_BEFORE(stream) ((void)0)
#define TL_CTA_CLOCKS_AFTER(kernel, radius, grid, strips, stream) ((void)0)
#endif
