// Plain stencil: every thread reads its whole window straight from the source buffer (border
// folding on each read), one pass for every filter, Gaussian applied as the fused 2D form.
#include "stencil_common.glsl"

layout(local_size_x = 16, local_size_y = 16) in;

#define WIN(dx, dy) load_src(p.x + (dx), p.y + (dy))
#include "stencil_small_filters.glsl"

vec4 apply_filter(ivec2 p) {
    const int r = pc.radius;
    if (KIND == KIND_BOX) {
        vec3 acc = vec3(0.0);
        for (int dy = -r; dy <= r; ++dy)
            for (int dx = -r; dx <= r; ++dx) acc += WIN(dx, dy).rgb;
        const float n = float((2 * r + 1) * (2 * r + 1));
        return vec4(acc * (1.0 / n), WIN(0, 0).a);
    }
    if (KIND == KIND_GAUSSIAN) {
        vec3 acc = vec3(0.0);
        for (int dy = -r; dy <= r; ++dy) {
            vec3 row = vec3(0.0);
            for (int dx = -r; dx <= r; ++dx) row += weights[dx + r] * WIN(dx, dy).rgb;
            acc += weights[dy + r] * row;
        }
        return vec4(acc, WIN(0, 0).a);
    }
    return small_filter(p);
}

void main() {
    const ivec2 p = ivec2(gl_GlobalInvocationID.xy);
    if (p.x >= pc.width || p.y >= pc.height) return;
    dst_px[p.y * pc.pitch + p.x] = from_float(apply_filter(p));
}
