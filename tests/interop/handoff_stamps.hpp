// GPU clock stamps for the frame hand-off measurement (test_frame_handoff.cpp): a one-thread
// kernel that writes the GPU's %globaltimer (ns) where a CUDA stream reaches it, so CUDA's side
// of a frame can be put on the same time line as Vulkan's timestamp queries.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

namespace tl::interop_test {

// Enqueues on `stream`: stamps[index] = %globaltimer, and when `frame_word` is not null,
// *frame_word = frame (after the stream's earlier work: the frame's output carries its number).
cudaError_t enqueue_stamp(std::uint64_t* stamps, int index, std::uint32_t* frame_word, std::uint32_t frame,
                          cudaStream_t stream);

} // namespace tl::interop_test
