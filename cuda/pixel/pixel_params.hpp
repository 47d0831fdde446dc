// Internal: what one per-pixel launch passes to its kernel (the op chain and the pixel grid),
// plain structs shared by the host launch code and the kernels, plus the per-mechanism launchers.
#pragma once

#include "pixel_api.hpp"

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

namespace tl::cuda::pixel {

// One op of the chain as the kernel reads it (uniform across the grid, read from the parameter
// bank). build_ops_block fills `p` with the op's constants in the form the device uses them, so
// no kernel divides per pixel what is the same for every pixel:
//   BrightnessContrast  p0 contrast, p1 brightness
//   Gamma               p0 exponent 1 / gamma (the reference's own float division)
//   Saturation          p0 saturation
//   Threshold           p0 threshold
//   Levels              p0 black, p1 white - black, p2 1 / (white - black), p3 exponent 1 / gamma
//   ColorMatrix         p0..p8 the matrix, row-major
//   Grayscale, Invert   nothing
// `lut` indexes OpsBlock::luts for PixelOpKind::Lut (-1 otherwise).
struct DevOp {
    int kind;  // PixelOpKind
    int lut;
    float p[9];
};

// The whole chain in one kernel parameter (~4 KB, under the classic 4 KB parameter limit), passed
// as __grid_constant__: nothing to upload, so back-to-back launches on any streams cannot race.
struct OpsBlock {
    int count = 0;
    int lut_count = 0;
    DevOp ops[kMaxPixelOps];
    // 16-byte aligned (so is the kernel parameter holding it): a LUT can be read from the
    // parameter bank 8 bytes at a time (dev::stage_epilogue).
    alignas(16) std::uint8_t luts[kMaxPixelLuts][3][256];
};

// The image as the kernels walk it: `rows` rows of `row_px` pixels. Each row is `row_chunks`
// 16-byte chunks (4 RGBA8 pixels or 1 RGBA32F pixel) followed by `tail_px` pixels (RGBA8 rows
// whose width is not a multiple of 4). When src and dst are both tightly packed the host
// flattens the image into a single row, so the pitch stops mattering.
struct PixelGrid {
    const unsigned char* src;
    unsigned char* dst;
    std::size_t src_pitch;
    std::size_t dst_pitch;
    int rows;
    int row_px;
    unsigned row_chunks;
    unsigned total_chunks;  // rows * row_chunks, < 2^31 (checked on the host)
    int tail_px;
    int format;  // PixelFormat
};
static_assert(sizeof(OpsBlock) + sizeof(PixelGrid) + 8 <= 4096,
              "the kernel parameters (ops, grid, batch size) must fit the classic 4 KB parameter space");

// Facts about the current device that the launchers need.
struct DeviceFacts {
    int device = 0;
    int cc_major = 0, cc_minor = 0;
    int sm_count = 0;
    int max_smem_optin = 0;  // bytes of shared memory a block may opt into
    int bulk_binary_version = 0;  // of the bulk kernel the runtime loads here (< 90: no sm_90 code)
};

struct LaunchArgs {
    const OpsBlock& ops;
    const PixelGrid& grid;
    const PixelPolicy& policy;
    const DeviceFacts& device;
    cudaStream_t stream;
};

// Each returns the launch error (with the kernel's name) or success; everything the user
// controls was validated before these are called, except what depends on occupancy.
Result launch_plain(const LaunchArgs& a);   // plain.cu
Result launch_vector(const LaunchArgs& a);  // vector.cu
Result launch_ldgsts(const LaunchArgs& a);  // ldgsts.cu
Result launch_bulk(const LaunchArgs& a);    // bulk.cu

// Default pixels per batch (ring slot) of the staged mechanisms: ldgsts moves 2 chunks per thread
// per batch (8 KB at 256 threads for RGBA8), bulk 4 (16 KB): bulk copies want large transfers.
inline int default_batch_chunks(PixelMechanism m, int block) { return (m == PixelMechanism::Bulk ? 4 : 2) * block; }

// Shared memory a launch needs besides its ring: the chain's LUTs staged as floats (dynamic, after
// the ring; 3 KiB per LUT op) and the barriers (static).
inline constexpr int kStaticSmemBytes = 64;
inline std::size_t staged_lut_bytes(const OpsBlock& ops) { return std::size_t(ops.lut_count) * 3u * 256u * sizeof(float); }
inline constexpr int kMaxStagedLutBytes = kMaxPixelLuts * 3 * 256 * int(sizeof(float));

// Grid size for a grid-stride / persistent kernel: all resident blocks, no more than the work.
Result occupancy_grid(const void* kernel, const char* name, int block, std::size_t dyn_smem, long long work_blocks,
                      const DeviceFacts& d, int& grid_out);

// cudaFuncSetAttribute(MaxDynamicSharedMemorySize) for `kernel` on this device, asked of the
// runtime only when `bytes` exceeds what was reserved before (the attribute stays set).
Result reserve_dynamic_smem(const void* kernel, const char* name, std::size_t bytes, const DeviceFacts& d);

// Validates a chain and packs it into the kernel parameter block (also for a fused stencil
// epilogue: a kernel that includes pixel_kernels.cuh can call apply_chain on its results).
Result build_ops_block(std::span<const PixelOp> ops, OpsBlock& block);

// "pixel_<x>_kernel: <cuda error>" after a launch, or success.
Result launch_outcome(const char* kernel_name);

} // namespace tl::cuda::pixel
