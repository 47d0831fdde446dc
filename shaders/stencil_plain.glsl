// Plain stencil: every thread reads its whole window straight from the source buffer (border rule
// applied on the read), one pass for every filter, Gaussian applied as the fused 2D form.
#include "stencil_common.glsl"

layout(local_size_x = 16, local_size_y = 16) in;

#define WIN(dx, dy) load_src(p.x + (dx), p.y + (dy))
#include "stencil_small_filters.glsl"

// Box and Gaussian: the border rule is applied per row and per column only where the window
// crosses the image edge (most invocations take the unfolded path).
vec4 large_filter(ivec2 p) {
    const int r = pc.radius;
    const bool interior = p.x >= r && p.y >= r && p.x + r < pc.width && p.y + r < pc.height;
    vec3 acc = vec3(0.0);
    for (int dy = -r; dy <= r; ++dy) {
        const int fy = interior ? p.y + dy : fold_coord(p.y + dy, pc.height, pc.border);
        if (fy < 0) continue;  // Border::Zero: the whole row reads 0
        const int row_start = fy * pc.pitch;
        vec3 row = vec3(0.0);
        for (int dx = -r; dx <= r; ++dx) {
            const int fx = interior ? p.x + dx : fold_coord(p.x + dx, pc.width, pc.border);
            if (fx < 0) continue;
            const vec3 v = to_float(src_px[row_start + fx]).rgb;
            if (KIND == KIND_GAUSSIAN) row += weights[dx + r] * v;
            else row += v;
        }
        if (KIND == KIND_GAUSSIAN) acc += weights[dy + r] * row;
        else acc += row;
    }
    if (KIND == KIND_BOX) acc *= 1.0 / float((2 * r + 1) * (2 * r + 1));
    return vec4(acc, to_float(src_px[p.y * pc.pitch + p.x]).a);
}

vec4 apply_filter(ivec2 p) {
    if (KIND == KIND_BOX || KIND == KIND_GAUSSIAN) return large_filter(p);
    return small_filter(p);
}

void main() {
    const ivec2 p = ivec2(gl_GlobalInvocationID.xy);
    if (p.x >= pc.width || p.y >= pc.height) return;
    dst_px[p.y * pc.pitch + p.x] = from_float(apply_filter(p));
}
