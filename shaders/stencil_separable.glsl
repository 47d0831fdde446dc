// Separable tiled Box / Gaussian: two passes through a float intermediate (binding 3, RGBA32F).
//  rows pass (STENCIL_ROWS defined): a 64x4 workgroup stages 4 source rows of 64 + 2r pixels
//    (border applied) in shared memory and writes the row-filtered RGB plus the centre alpha.
//  columns pass: a 16x16 workgroup stages 16 + 2r intermediate rows of 16 columns (rows folded by
//    the border rule, which commutes with the row filter) and writes the destination.
// Box: each pass averages 2r+1 taps (1/(2r+1) twice = the 2D mean); Gaussian: each pass applies
// the 1D weights (the reference's separable definition).
#include "stencil_common.glsl"

layout(std430, set = 0, binding = 3) buffer Intermediate { vec4 tmp[]; };

const int MAX_RADIUS = 32;

float tap_weight(int k) {  // k in 0..2r
    return KIND == KIND_GAUSSIAN ? weights[k] : 1.0 / float(2 * pc.radius + 1);
}

#if defined(STENCIL_ROWS)
const int TW = 64;
const int TH = 4;
layout(local_size_x = TW, local_size_y = TH) in;
shared vec4 rows[TH][TW + 2 * MAX_RADIUS];  // (4, 64 + 64) vec4 = 8192 bytes

void main() {
    const int r = pc.radius;
    const int lx = int(gl_LocalInvocationID.x);
    const int ly = int(gl_LocalInvocationID.y);
    const int y = int(gl_GlobalInvocationID.y);
    const int x0 = int(gl_WorkGroupID.x) * TW - r;
    const bool row_inside = y < pc.height;
    if (row_inside)
        for (int i = lx; i < TW + 2 * r; i += TW) rows[ly][i] = load_src(x0 + i, y);
    barrier();
    const int x = int(gl_GlobalInvocationID.x);
    if (!row_inside || x >= pc.width) return;
    vec3 acc = vec3(0.0);
    for (int k = 0; k <= 2 * r; ++k) acc += tap_weight(k) * rows[ly][lx + k].rgb;
    tmp[y * pc.tmp_pitch + x] = vec4(acc, rows[ly][lx + r].a);
}
#else
const int T = 16;
layout(local_size_x = T, local_size_y = T) in;
// RGB only (alpha comes from the centre), as three planes so the tile fits in the 16 KiB every
// Vulkan device offers: 3 x (16 + 64) x 16 float = 15360 bytes.
shared float col_r[(T + 2 * MAX_RADIUS) * T];
shared float col_g[(T + 2 * MAX_RADIUS) * T];
shared float col_b[(T + 2 * MAX_RADIUS) * T];

void main() {
    const int r = pc.radius;
    const int lx = int(gl_LocalInvocationID.x);
    const int ly = int(gl_LocalInvocationID.y);
    const int x = int(gl_GlobalInvocationID.x);
    const int y0 = int(gl_WorkGroupID.y) * T - r;
    const bool col_inside = x < pc.width;
    for (int i = ly; i < T + 2 * r; i += T) {
        vec3 v = vec3(0.0);
        const int fy = fold_coord(y0 + i, pc.height, pc.border);
        if (col_inside && fy >= 0) v = tmp[fy * pc.tmp_pitch + x].rgb;
        col_r[i * T + lx] = v.r;
        col_g[i * T + lx] = v.g;
        col_b[i * T + lx] = v.b;
    }
    barrier();
    const int y = int(gl_GlobalInvocationID.y);
    if (!col_inside || y >= pc.height) return;
    vec3 acc = vec3(0.0);
    for (int k = 0; k <= 2 * r; ++k) {
        const int s = (ly + k) * T + lx;
        acc += tap_weight(k) * vec3(col_r[s], col_g[s], col_b[s]);
    }
    dst_px[y * pc.pitch + x] = from_float(vec4(acc, tmp[y * pc.tmp_pitch + x].a));
}
#endif
