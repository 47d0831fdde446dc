// Pixel storage of the linear image buffers shared with CUDA: RGBA8 = one uint per pixel (R in
// the lowest byte), RGBA32F = one vec4. Include after defining FORMAT_RGBA8 or FORMAT_RGBA32F.
#if defined(FORMAT_RGBA8)
#define PIXEL_T uint
vec4 to_float(uint v) {
    return vec4(float(v & 0xffu), float((v >> 8) & 0xffu), float((v >> 16) & 0xffu), float(v >> 24)) *
           (1.0 / 255.0);
}
// floor(clamp(v, 0, 1) * 255 + 0.5), the rule of tl::quantize_unorm8.
uint from_float(vec4 c) {
    const uvec4 q = uvec4(clamp(c, vec4(0.0), vec4(1.0)) * 255.0 + 0.5);
    return q.r | (q.g << 8) | (q.b << 16) | (q.a << 24);
}
#elif defined(FORMAT_RGBA32F)
#define PIXEL_T vec4
vec4 to_float(vec4 v) { return v; }
vec4 from_float(vec4 c) { return c; }  // RGBA32F output is not clamped
#else
#error "define FORMAT_RGBA8 or FORMAT_RGBA32F before including compute_format.glsl"
#endif

// src and dst may be the same buffer (per-pixel ops in place), so neither is restrict.
layout(std430, set = 0, binding = 0) readonly buffer SrcImage { PIXEL_T src_px[]; };
layout(std430, set = 0, binding = 1) writeonly buffer DstImage { PIXEL_T dst_px[]; };
