// A GPU-side wait for benchmarks: a one-thread kernel that spins on the GPU's global timer, so a
// timed launch enqueued behind it starts the moment the delay ends, however long the host took
// to enqueue it. Plain C++ header; defined in CUDA builds only (cuda/stencil/stream_delay.cu).
#pragma once

#include <string>

namespace tl::cuda {

// Enqueues the delay on `stream` (a cudaStream_t as void*). Empty string on success, else the
// CUDA error with the kernel's name.
std::string enqueue_stream_delay(void* stream, unsigned microseconds);

} // namespace tl::cuda
