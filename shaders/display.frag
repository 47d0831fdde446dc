#version 450
// Display pass: draws the source and filtered images (linear RGBA8 storage buffers with a row
// pitch, the layout CUDA shares) into the viewport: original / filtered / split A|B / diff heat-map.

layout(set = 0, binding = 0) readonly buffer Source { uint source_px[]; };
layout(set = 0, binding = 1) readonly buffer Filtered { uint filtered_px[]; };

// Keep in sync with tl::vk::DisplayPush (app/vk/display_pass.hpp).
layout(push_constant) uniform Push {
    vec2 origin;           // framebuffer pixel of the viewport's top-left corner
    vec2 image_at_origin;  // image coordinate shown at `origin`
    float zoom;            // framebuffer pixels per image pixel
    float split_x;         // framebuffer x of the split divider
    float gain;            // diff heat-map gain
    uint mode;             // 0 original, 1 filtered, 2 split, 3 diff
    uint width;
    uint height;
    uint pitch_px;         // row pitch in pixels (bytes / 4)
    uint flags;            // bit 0: draw the pixel grid when zoomed in
} pc;

layout(location = 0) out vec4 out_color;

vec4 fetch(bool filtered, ivec2 p) {
    const uint i = uint(p.y) * pc.pitch_px + uint(p.x);
    return unpackUnorm4x8(filtered ? filtered_px[i] : source_px[i]);
}

// Heat-map from black through purple, red and yellow to white; mirrored by tl::vk::heat_color.
vec3 heat(float t) {
    t = clamp(t, 0.0, 1.0);
    const vec3 c0 = vec3(0.0, 0.0, 0.0);
    const vec3 c1 = vec3(0.35, 0.0, 0.55);
    const vec3 c2 = vec3(0.9, 0.1, 0.1);
    const vec3 c3 = vec3(1.0, 0.85, 0.0);
    const vec3 c4 = vec3(1.0, 1.0, 1.0);
    const float s = t * 4.0;
    if (s < 1.0) return mix(c0, c1, s);
    if (s < 2.0) return mix(c1, c2, s - 1.0);
    if (s < 3.0) return mix(c2, c3, s - 2.0);
    return mix(c3, c4, s - 3.0);
}

// Average of an n x n grid of texels under the fragment's footprint when zoomed out (no shimmer).
vec4 sample_image(bool filtered, vec2 img) {
    const int n = pc.zoom >= 1.0 ? 1 : min(int(ceil(1.0 / pc.zoom)), 4);
    const ivec2 last = ivec2(int(pc.width) - 1, int(pc.height) - 1);
    if (n == 1) return fetch(filtered, clamp(ivec2(floor(img)), ivec2(0), last));
    vec4 sum = vec4(0.0);
    const float step_px = 1.0 / (pc.zoom * float(n));
    for (int y = 0; y < n; ++y)
        for (int x = 0; x < n; ++x) {
            const vec2 q = img + (vec2(x, y) + 0.5) * step_px - 0.5 / pc.zoom;
            sum += fetch(filtered, clamp(ivec2(floor(q)), ivec2(0), last));
        }
    return sum / float(n * n);
}

vec3 background(vec2 frag) {
    const ivec2 cell = ivec2(floor(frag / 16.0));
    return ((cell.x + cell.y) & 1) == 0 ? vec3(0.105) : vec3(0.135);
}

void main() {
    const vec2 frag = gl_FragCoord.xy;
    const vec2 img = pc.image_at_origin + (frag - pc.origin) / pc.zoom;
    const vec3 bg = background(frag);
    if (img.x < 0.0 || img.y < 0.0 || img.x >= float(pc.width) || img.y >= float(pc.height)) {
        out_color = vec4(bg, 1.0);
        return;
    }
    vec4 c;
    if (pc.mode == 3u) {
        const vec4 d = abs(sample_image(true, img) - sample_image(false, img));
        c = vec4(heat(max(max(d.r, d.g), d.b) * pc.gain), 1.0);
    } else {
        const bool filtered = pc.mode == 1u || (pc.mode == 2u && frag.x >= pc.split_x);
        c = sample_image(filtered, img);
    }
    vec3 rgb = mix(bg, c.rgb, c.a);
    if ((pc.flags & 1u) != 0u && pc.zoom >= 12.0) {
        const vec2 f = fract(img) * pc.zoom;
        if (f.x < 1.0 || f.y < 1.0) rgb = mix(rgb, vec3(0.5), 0.35);
    }
    if (pc.mode == 2u && abs(frag.x - pc.split_x) < 1.5) rgb = vec3(1.0);
    out_color = vec4(rgb, 1.0);
}
