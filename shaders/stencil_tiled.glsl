// Tiled stencil for the 3x3 and 5x5 filters: a 16x16 workgroup stages its (16 + 2r)^2 input
// window (border already applied, converted to float) in shared memory once, then every thread
// reads its neighbours from there. Box and Gaussian use the separable tiled shaders instead.
#include "stencil_common.glsl"

const int TILE = 16;
const int MAX_RADIUS = 2;
const int SIDE = TILE + 2 * MAX_RADIUS;

layout(local_size_x = TILE, local_size_y = TILE) in;

shared vec4 tile[SIDE * SIDE];  // (16 + 2*2, 16 + 2*2) vec4 = 6400 bytes

// p is the centre's position in the tile.
#define WIN(dx, dy) tile[(p.y + (dy)) * SIDE + p.x + (dx)]
#include "stencil_small_filters.glsl"

void main() {
    const int r = pc.radius;
    const int side = TILE + 2 * r;
    const ivec2 origin = ivec2(gl_WorkGroupID.xy) * TILE - r;
    for (int i = int(gl_LocalInvocationIndex); i < side * side; i += TILE * TILE) {
        const int ty = i / side;
        const int tx = i - ty * side;
        tile[ty * SIDE + tx] = load_src(origin.x + tx, origin.y + ty);
    }
    barrier();
    const ivec2 g = ivec2(gl_GlobalInvocationID.xy);
    if (g.x >= pc.width || g.y >= pc.height) return;
    dst_px[g.y * pc.pitch + g.x] = from_float(small_filter(ivec2(gl_LocalInvocationID.xy) + r));
}
