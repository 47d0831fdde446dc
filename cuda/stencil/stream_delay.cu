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
    stream_delay_kernel<<<1, 1, 0, static_cast<cudaStream_t>(stream)>>>(std::uint64_t(microseconds) * 1000u);
    const cudaError_t e = cudaGetLastError();
    if (e == cudaSuccess) return {};
    return std::string("kernel stream_delay_kernel: ") + cudaGetErrorString(e);
}

} // namespace tl::cuda
