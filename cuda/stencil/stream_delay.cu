// The benchmark's GPU-side delay (cuda/stream_delay.hpp): one thread reading %globaltimer until
// the time has passed. It touches no memory, so the L2 state the timed launch sees is unchanged.
#include "stream_delay.hpp"

#include <cuda_runtime.h>

#include <cstdint>

namespace tl::cuda {

namespace {

__device__ __forceinline__ std::uint64_t global_timer_ns() {
    std::uint64_t t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}

__global__ void stream_delay_kernel(std::uint64_t ns) {
    const std::uint64_t start = global_timer_ns();
    while (global_timer_ns() - start < ns) __nanosleep(1000);
}

} // namespace

std::string enqueue_stream_delay(void* stream, unsigned microseconds) {
    // The delay kernel asks for the largest shared-memory carve-out although it uses none, so that
    // the SM it runs on keeps the configuration the timed kernels (up to three 73 KB blocks per SM)
    // left there. Under the default preference the timed launch after it measured slower for the
    // kernels with much shared memory, presumably waiting for that SM to be configured back, and
    // not for the copy kernel. H200, 4K RGBA8, A/B in one run (three pairs): Box stream r=16 30.5 ->
    // 30.0-30.1 us, r=12 29.2-29.5 -> 28.9-29.3, r=8 26.1-26.4 -> 25.9-26.2, Gaussian sigma 0.5
    // 27.0-27.4 -> 26.5-27.0, the copy kernel 20.3-20.4 -> 20.1-20.4.
    static const bool carveout_set = [] {
        if (cudaFuncSetAttribute(stream_delay_kernel, cudaFuncAttributePreferredSharedMemoryCarveout,
                                 cudaSharedmemCarveoutMaxShared) != cudaSuccess)
            (void)cudaGetLastError();  // a refusal only leaves the default preference
        return true;
    }();
    (void)carveout_set;
    stream_delay_kernel<<<1, 1, 0, static_cast<cudaStream_t>(stream)>>>(std::uint64_t(microseconds) * 1000u);
    const cudaError_t e = cudaGetLastError();
    if (e == cudaSuccess) return {};
    return std::string("kernel stream_delay_kernel: ") + cudaGetErrorString(e);
}

} // namespace tl::cuda
