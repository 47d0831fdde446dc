// Parameters, border folding and filter definitions shared by the stencil compute shaders.
// Must match tl::reference_filter (cuda/reference.hpp) and cuda/stencil/filters.cuh.

#include "compute_format.glsl"

// tl::FilterKind numbering: Box 0, Gaussian 1, Sobel 2, Laplacian 3, Sharpen 4, Emboss 5, User 6.
// A specialization constant, so each pipeline is compiled for one filter (3x3 loops unrolled).
layout(constant_id = 0) const int KIND = 0;
const int KIND_BOX = 0;
const int KIND_GAUSSIAN = 1;
const int KIND_SOBEL = 2;
const int KIND_LAPLACIAN = 3;
const int KIND_SHARPEN = 4;
const int KIND_EMBOSS = 5;
const int KIND_USER = 6;

// Mirrors StencilPush in app/vk/compute_filters.cpp (36 bytes, within the 128 every device has).
layout(push_constant) uniform StencilPush {
    int width;
    int height;
    int pitch;      // src and dst row pitch in pixels (uint for RGBA8, vec4 for RGBA32F)
    int tmp_pitch;  // row pitch of the separable passes' float intermediate, in vec4
    int border;     // tl::Border: Clamp 0, Zero 1, Mirror 2
    int radius;     // halo width of this filter
    float amount;   // Sharpen
    float scale;    // UserKernel
    float bias;     // UserKernel
} pc;

// Gaussian 1D weights (2 radius + 1, from tl::gaussian_weights) or user weights (row-major);
// filled per record() with vkCmdUpdateBuffer because they do not fit in 128 bytes of push constants.
layout(std430, set = 0, binding = 2) readonly buffer FilterWeights { float weights[]; };

const int BORDER_CLAMP = 0;
const int BORDER_ZERO = 1;

// tl::fold_coord: -1 for Border::Zero outside. GLSL's % is undefined for negative operands, so
// negative indices are first reflected about -0.5 (-1 -> 0, -2 -> 1), which the mirror keeps.
int fold_coord(int i, int n, int border) {
    if (i >= 0 && i < n) return i;
    if (border == BORDER_CLAMP) return i < 0 ? 0 : n - 1;
    if (border == BORDER_ZERO) return -1;
    const int period = 2 * n;
    const int m = (i < 0 ? -1 - i : i) % period;
    return m < n ? m : period - 1 - m;
}

// Source pixel (x, y) in [0,1] units with the border rule applied (any x, y).
vec4 load_src(int x, int y) {
    const int fx = fold_coord(x, pc.width, pc.border);
    const int fy = fold_coord(y, pc.height, pc.border);
    if (fx < 0 || fy < 0) return vec4(0.0);
    return to_float(src_px[fy * pc.pitch + fx]);
}
