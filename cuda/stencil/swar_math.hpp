// Integer facts of the RGBA8 SWAR 3x3 path (filters.cuh, namespace swar) that host tests check
// exhaustively: the multiply-shift division of box r=1 and the lane ranges each filter's bias keeps.
#pragma once

#include <cstdint>

#if defined(__CUDACC__)
#define TL_SWAR_HD __host__ __device__
#else
#define TL_SWAR_HD
#endif

namespace tl::cuda::swar_math {

// Box r=1 on RGBA8: the reference stores floor((2s + 9) / 18) for the window sum s = 0..2295
// (its exact mean rounded half up). There is no integer between (s + 4) / 9 and (s + 4.5) / 9, so
// that is floor((s + 4) / 9), and 7282 / 2^16 = (1 + 2^-15) / 9 keeps floor((s + 4) * 7282 / 2^16)
// equal to it while s + 4 < 2^15. The product stays below 2^24, so its bits 16-23 are the quotient
// and nothing lies above them: the device picks that byte with the PRMT that packs the pixel.
inline constexpr std::uint32_t kBoxSumMax = 9u * 255u;
inline constexpr std::uint32_t kDiv9Mul = 7282u;
TL_SWAR_HD constexpr std::uint32_t div9_rounded_bits(std::uint32_t s) { return (s + 4u) * kDiv9Mul; }
TL_SWAR_HD constexpr std::uint32_t div9_rounded(std::uint32_t s) { return div9_rounded_bits(s) >> 16; }

// Per-lane biases: the final value of every 16-bit lane must lie in [0, 2^16) (intermediate terms
// may borrow across lanes; the sum is exact mod 2^32).
//   Sobel       gx, gy in [-1020, 1020]    + 1024 -> [4, 2044]
//   Laplacian   s in [-1020, 1020]         + 1024 -> [4, 2044]; |s| + 1024 = max(X, 2048 - X)
//   emboss      s in [-1020, 1275]         + 1024 -> [4, 2299]; clamp to [1024, 1279]: low byte
//   sharpen     16e - blur16 in [-3060, 3060] + 4096 -> [1036, 7156]
inline constexpr std::uint32_t kBias1024 = 1024u;
inline constexpr std::uint32_t kSharpenBias = 4096u;

} // namespace tl::cuda::swar_math
