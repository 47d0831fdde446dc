// Per-pixel op chain (tl::PixelOpKind, cuda/pixel_ops.hpp): R,G,B in float in [0,1] units, alpha
// passed through, RGBA8 quantized once at the end. Must match tl::reference_pixel_ops.
#include "compute_format.glsl"

layout(local_size_x = 16, local_size_y = 16) in;

// Mirrors PixelOpsPush in app/vk/compute_filters.cpp.
layout(push_constant) uniform PixelOpsPush {
    int width;
    int height;
    int pitch;  // src and dst row pitch in pixels
} pc;

// tl::PixelOpKind numbering.
const int OP_BRIGHTNESS_CONTRAST = 0;
const int OP_GAMMA = 1;
const int OP_SATURATION = 2;
const int OP_GRAYSCALE = 3;
const int OP_INVERT = 4;
const int OP_THRESHOLD = 5;
const int OP_LEVELS = 6;
const int OP_COLOR_MATRIX = 7;
const int OP_LUT = 8;

const int MAX_OPS = 32;

// Mirrors GpuPixelOp / the ops buffer layout in app/vk/compute_filters.cpp (std430).
struct Op {
    ivec4 head;  // kind, lut table index (Lut only), unused, unused
    vec4 abc;    // a, b, c
    vec4 m0;     // matrix rows (ColorMatrix)
    vec4 m1;
    vec4 m2;
};
layout(std430, set = 0, binding = 2) readonly buffer Ops {
    ivec4 op_count;  // x = number of ops
    Op ops[MAX_OPS];
    uint lut[];      // per Lut op: 3 tables (R, G, B) x 256 bytes, 4 entries per uint, lowest byte first
};

// precise: no fused multiply-adds, so luma and the chain round like the CPU reference (a
// threshold on luma must not flip because of a different rounding).
float luma709(vec3 c) {
    precise float l = 0.2126 * c.r + 0.7152 * c.g + 0.0722 * c.b;
    return l;
}

// Index = quantize_unorm8(v), computed without contraction so it never differs from the CPU's
// (a different index would pick an unrelated table entry).
float lut_lookup(int table, int channel, float v) {
    precise float scaled = clamp(v, 0.0, 1.0) * 255.0 + 0.5;
    const int i = int(scaled);
    const uint word = lut[(table * 3 + channel) * 64 + i / 4];
    return float((word >> (8 * (i % 4))) & 0xffu) / 255.0;
}

void main() {
    const ivec2 p = ivec2(gl_GlobalInvocationID.xy);
    if (p.x >= pc.width || p.y >= pc.height) return;
    const int index = p.y * pc.pitch + p.x;
    const PIXEL_T raw = src_px[index];
    const vec4 px = to_float(raw);
    precise vec3 c = px.rgb;
    for (int k = 0; k < op_count.x; ++k) {
        const int kind = ops[k].head.x;
        const vec4 abc = ops[k].abc;
        if (kind == OP_BRIGHTNESS_CONTRAST) {
            c = (c - 0.5) * abc.y + 0.5 + abc.x;
        } else if (kind == OP_GAMMA) {
            c = pow(max(c, vec3(0.0)), vec3(1.0 / abc.x));
        } else if (kind == OP_SATURATION) {
            const float l = luma709(c);
            c = l + abc.x * (c - l);
        } else if (kind == OP_GRAYSCALE) {
            c = vec3(luma709(c));
        } else if (kind == OP_INVERT) {
            c = 1.0 - c;
        } else if (kind == OP_THRESHOLD) {
            c = vec3(luma709(c) >= abc.x ? 1.0 : 0.0);
        } else if (kind == OP_LEVELS) {
            c = pow(clamp((c - abc.x) / (abc.y - abc.x), 0.0, 1.0), vec3(1.0 / abc.z));
        } else if (kind == OP_COLOR_MATRIX) {
            c = vec3(dot(ops[k].m0.xyz, c), dot(ops[k].m1.xyz, c), dot(ops[k].m2.xyz, c));
        } else if (kind == OP_LUT) {
            const int t = ops[k].head.y;
            c = vec3(lut_lookup(t, 0, c.r), lut_lookup(t, 1, c.g), lut_lookup(t, 2, c.b));
        }
    }
#if defined(FORMAT_RGBA8)
    // Alpha passes through bit for bit.
    dst_px[index] = (from_float(vec4(c, 0.0)) & 0x00ffffffu) | (raw & 0xff000000u);
#else
    dst_px[index] = vec4(c, px.a);
#endif
}
