// CPU reference implementations: the oracle every GPU path (CUDA or Vulkan) is tested against.
#pragma once

#include "filter_spec.hpp"
#include "image.hpp"
#include "pixel_ops.hpp"

#include <span>
#include <string>

namespace tl {

// Stencil filter semantics (all formats):
//  - R,G,B are filtered in float in [0,1] units; alpha is copied from the centre pixel.
//  - Border::Zero reads (0,0,0,0) outside the image.
//  - RGBA8 output: quantize_unorm8 of the float result; RGBA32F output: the float result
//    (not clamped).
// Per-filter definitions:
//  Box(r):        mean over the (2r+1)^2 window.
//  Gaussian(s):   separable, r = ceil(3s), 1D weights exp(-x^2 / (2 s^2)) normalised to 1.
//  Sobel:         per channel sqrt(gx^2 + gy^2), gx = [-1 0 1; -2 0 2; -1 0 1], gy = gx^T.
//  Laplacian:     per channel |p(-1,0) + p(1,0) + p(0,-1) + p(0,1) - 4 p(0,0)|.
//  Sharpen(a):    unsharp mask p + a * (p - blur), blur = [1 2 1; 2 4 2; 1 2 1] / 16.
//  Emboss:        [-2 -1 0; -1 1 1; 0 1 2].
//  UserKernel:    scale * sum(w * p) + bias, 3x3 or 5x5.
// Preconditions: validate(params) is empty, src and dst have the same size and format.
void reference_filter(const FilterParams& params, Border border, ConstImageView src, ImageView dst);

// Applies the chain in order to every pixel (src and dst may be the same view).
void reference_pixel_ops(std::span<const PixelOp> ops, ConstImageView src, ImageView dst);

// Largest per-channel difference between two images of the same size and format, in LSB for
// RGBA8 and absolute units for RGBA32F; also the position of the first worst pixel.
struct ImageDiff {
    double max_abs = 0.0;
    int worst_x = -1;
    int worst_y = -1;
    long long pixels_over = 0;  // pixels whose difference exceeds the tolerance given
};
ImageDiff compare_images(ConstImageView a, ConstImageView b, double tolerance);

} // namespace tl
