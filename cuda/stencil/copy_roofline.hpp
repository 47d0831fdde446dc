// The bench's second copy baseline: a vectorized device-to-device copy kernel, because
// cudaMemcpy2DAsync D2D does not reach the memory roofline on every device (H100: ~1.4 TB/s
// against ~2.6-3.0 TB/s for a kernel copy), and ratios against a slow copy flatter every kernel.
#pragma once

#include "stencil_api.hpp"

#include <cstddef>

namespace tl::cuda {

// Copies `rows` rows of `row_bytes` bytes from src to dst (both with `pitch` bytes between rows)
// with 16-byte loads and stores, several in flight per thread, one block per 32 KB of the image.
// Needs 16-byte aligned pointers and pitch; row_bytes is rounded up to 16 (the padding bytes
// lie inside the pitch), so it must not exceed the pitch rounded down to 16. `streaming`: loads and
// stores with the evict-first hint (ld/st.global.cs) instead of the read-only path and plain stores;
// which is faster depends on the device, so the bench times both.
Result copy_kernel_2d(void* dst, const void* src, std::size_t pitch, std::size_t row_bytes, std::size_t rows,
                      void* stream, bool streaming = false);

} // namespace tl::cuda
