// The frame hand-off measurement's GPU clock stamp (handoff_stamps.hpp).
#include "handoff_stamps.hpp"

namespace tl::interop_test {

namespace {

__global__ void stamp_kernel(std::uint64_t* stamps, int index, std::uint32_t* frame_word, std::uint32_t frame) {
    std::uint64_t t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    stamps[index] = t;
    if (frame_word) *frame_word = frame;
}

} // namespace

cudaError_t enqueue_stamp(std::uint64_t* stamps, int index, std::uint32_t* frame_word, std::uint32_t frame,
                          cudaStream_t stream) {
    stamp_kernel<<<1, 1, 0, stream>>>(stamps, index, frame_word, frame);
    return cudaGetLastError();
}

} // namespace tl::interop_test
